"""Ordinary tensors in the buffer pool (memfd back end): while the default
group is up, CPU tensors of SHMEMCOMM_TORCH_POOL_MIN bytes or more (64 KiB)
come from the library's pool, and collectives read and write them in place
(buffer_stats: pooled, none staged), DDP's gradient buckets included. Run by
launch.py at 2 and 4 ranks.

    pool.py          placement, collectives in place, a fork child's private copy,
                     DataLoader workers (forked), data kept past destroy_process_group
    pool.py ddp      DDP's gradient buckets are pooled and synced in place (its own
                     run: DDP's reducer holds the group, so the library, past destroy)
    pool.py full     SHMEMCOMM_BUFFER_POOL=8m: a tensor past it comes from torch's
                     allocator, said once, and its collective is right (staged)
    pool.py badmin   SHMEMCOMM_TORCH_POOL_MIN=lots: init raises, naming it
"""
import datetime
import os
import sys
import tempfile

import torch
import torch.distributed as dist

import shmemcomm_torch
import checks
from checks import expect, raises

KiB, MiB = 1 << 10, 1 << 20


def moved(before):
    after = shmemcomm_torch.buffer_stats()
    return after["pooled"] - before["pooled"], after["staged"] - before["staged"]


def placement():
    usage = shmemcomm_torch.pool_usage()
    expect(usage["size"] > 0 and usage["min"] == 64 * KiB, f"pool_usage on memfd: {usage}")
    expect(shmemcomm_torch.is_pooled(torch.empty(64 * KiB, dtype=torch.uint8)), "a 64 KiB tensor is not pooled")
    expect(not shmemcomm_torch.is_pooled(torch.empty(64 * KiB - 1, dtype=torch.uint8)),
           "a tensor under SHMEMCOMM_TORCH_POOL_MIN is pooled")
    expect(not shmemcomm_torch.is_pooled(torch.ones(10)), "a small tensor is pooled")
    big = torch.zeros(MiB)
    expect(shmemcomm_torch.is_pooled(big) and shmemcomm_torch.is_pooled(big[100:]), "a 4 MiB tensor (or its slice) is not pooled")
    held = shmemcomm_torch.pool_usage()["used"]
    expect(held >= 4 * MiB, f"pool_usage counts {held} bytes with a 4 MiB tensor alive")
    del big
    expect(shmemcomm_torch.pool_usage()["used"] <= held - 4 * MiB, "a dropped tensor kept its block")


def collectives(me, n):
    total = n * (n + 1) / 2
    for dtype in (torch.float32, torch.bfloat16, torch.int64):
        t = torch.full((MiB // 4,), me + 1, dtype=dtype)
        before = shmemcomm_torch.buffer_stats()
        dist.all_reduce(t)
        expect(torch.equal(t, torch.full_like(t, total)), f"all_reduce of a pooled {dtype} tensor")
        pooled, staged = moved(before)
        expect(pooled == 2 and staged == 0, f"all_reduce of a pooled tensor: {pooled} buffers in place, {staged} staged")
    src = torch.full((MiB // 4,), float(me))
    out = torch.empty(n * (MiB // 4))
    dist.all_gather_into_tensor(out, src)
    expect(torch.equal(out, torch.arange(n).repeat_interleave(MiB // 4).float()), "all_gather_into_tensor")
    rs = torch.empty(MiB // 8)
    dist.reduce_scatter_tensor(rs, torch.ones(n * (MiB // 8)))
    expect(torch.equal(rs, torch.full_like(rs, float(n))), "reduce_scatter_tensor")
    b = torch.full((MiB // 8,), float(me + 7), dtype=torch.float64)
    dist.broadcast(b, src=n - 1)
    expect(torch.equal(b, torch.full_like(b, n - 1 + 7)), "broadcast")
    # a non-contiguous tensor's contiguous copy is pooled too; async, several in flight
    m = torch.full((512, 512), float(me))
    dist.all_reduce(m.t())
    expect(torch.equal(m, torch.full_like(m, float(n * (n - 1) / 2))), "all_reduce of a transposed tensor")
    ts = [torch.full((64 * KiB,), float(me + i)) for i in range(5)]
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    for i, (t, w) in enumerate(zip(ts, works)):
        w.wait()
        expect(torch.equal(t, torch.full_like(t, float(n * (n - 1) / 2 + n * i))), f"async all_reduce {i}")


def ddp(me, n):
    """DDP's gradient buckets are allocated after init: pooled, synced in place."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256))
    net = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    before = None
    for step in range(5):
        # DDP rebuilds its buckets after the first step, with a broadcast of small index lists
        if step == 2:
            before = shmemcomm_torch.buffer_stats()
        torch.manual_seed(100 + me * 10 + step)
        loss = net(torch.randn(32, 256)).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    pooled, staged = moved(before)
    expect(pooled >= 6 and staged == 0, f"DDP's bucket all_reduces: {pooled} buffers in place, {staged} staged")
    flat = torch.cat([p.detach().flatten() for p in net.parameters()])
    every = [torch.empty_like(flat) for _ in range(n)]
    dist.all_gather(every, flat)
    expect(all(torch.equal(every[0], x) for x in every), "DDP's parameters differ between ranks")


def fork_child(me):
    """A child of fork (a DataLoader worker) gets a private copy, as of malloc'd memory."""
    t = torch.full((MiB // 4,), 11.0)
    expect(shmemcomm_torch.is_pooled(t), "the tensor for the fork test is not pooled")
    pid = os.fork()
    if pid == 0:
        # as a DataLoader worker does: the parent's OpenMP threads are not in the child
        torch.set_num_threads(1)
        t.fill_(22.0)
        fresh = torch.ones(MiB)
        ok = t[0].item() == 22.0 and not shmemcomm_torch.is_pooled(fresh) and fresh.sum().item() == MiB
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    expect(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"the fork child failed: status {status}")
    expect(torch.equal(t, torch.full_like(t, 11.0)), "a fork child's write reached the parent's pooled tensor")


def data_loader(me):
    """DataLoader workers are fork children of a process on memfd: their batches arrive whole."""
    data = torch.arange(64 * 4096, dtype=torch.float32).reshape(64, 4096) + me
    expect(shmemcomm_torch.is_pooled(data), "the DataLoader's dataset is not pooled")
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=8,
                                         num_workers=2, multiprocessing_context="fork")
    total = sum(batch.sum().item() for (batch,) in loader)
    expect(total == data.sum().item(), f"the DataLoader's batches sum to {total}, not {data.sum().item()}")


def survives_destroy(me):
    t = torch.arange(MiB, dtype=torch.int32) * (me + 1)
    expect(shmemcomm_torch.is_pooled(t), "the tensor for the destroy test is not pooled")
    dist.destroy_process_group()
    expect(torch.equal(t, torch.arange(MiB, dtype=torch.int32) * (me + 1)), "a pooled tensor lost its data at destroy")
    usage = shmemcomm_torch.pool_usage()
    expect(usage["size"] == 0 and usage["used"] >= 4 * MiB, f"pool_usage after destroy: {usage}")
    expect(not shmemcomm_torch.is_pooled(torch.empty(MiB)), "a tensor made after destroy is pooled")
    t.add_(1)
    expect(t[1].item() == me + 2, "a pooled tensor cannot be written after destroy")
    del t
    expect(shmemcomm_torch.pool_usage()["used"] == 0, "the pool's blocks outlived their tensors")


def full(me, n):
    """The pool of 8 MiB holds no 16 MiB tensor: torch's allocator takes it, said once."""
    said = tempfile.TemporaryFile()
    saved = os.dup(2)
    os.dup2(said.fileno(), 2)
    try:
        big = [torch.full((4 * MiB,), float(me + 1)) for _ in range(2)]
    finally:
        os.dup2(saved, 2)
    said.seek(0)
    words = said.read().decode()
    expect(words.count("the buffer pool is full") == 1 and "SHMEMCOMM_BUFFER_POOL" in words,
           f"the full pool was not said once: {words!r}")
    expect(not any(shmemcomm_torch.is_pooled(t) for t in big), "a tensor past the pool's size is pooled")
    before = shmemcomm_torch.buffer_stats()
    dist.all_reduce(big[0])
    expect(torch.equal(big[0], torch.full_like(big[0], n * (n + 1) / 2)), "all_reduce of a tensor the pool had no room for")
    pooled, staged = moved(before)
    expect(staged == 2 and pooled == 0, f"the unpooled tensor: {pooled} in place, {staged} staged")
    del big
    small = torch.full((MiB // 4,), 1.0)
    expect(shmemcomm_torch.is_pooled(small), "the pool took nothing once there was room again")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "lifecycle"
    if mode == "badmin":
        os.environ["SHMEMCOMM_TORCH_POOL_MIN"] = "lots"
        raises(lambda: dist.init_process_group("shmemcomm", timeout=datetime.timedelta(seconds=30)),
               "SHMEMCOMM_TORCH_POOL_MIN=lots", "is not a size")
        print(f"pool badmin: init raised as expected on rank {os.environ['RANK']}")
        return
    dist.init_process_group("shmemcomm", timeout=datetime.timedelta(seconds=60))
    me, n = dist.get_rank(), dist.get_world_size()
    if mode in ("full", "ddp"):
        (full if mode == "full" else ddp)(me, n)
        dist.destroy_process_group()
        if me == 0:
            print(f"pool {mode}: {checks.made} checks passed on {n} ranks")
        return
    placement()
    collectives(me, n)
    fork_child(me)
    data_loader(me)
    survives_destroy(me)
    if me == 0:
        print(f"pool: {checks.made} checks passed on {n} ranks")


main()
