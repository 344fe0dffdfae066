"""Tensors on the symmetric heap (shmemcomm_torch.empty): collectives on
them are right, read in place (is_symmetric; on kmod, tests/torch/kmod.py
shows that they skip the registration), and their blocks come back only
once every rank has dropped its tensor. Run by launch.py at 2 and 4 ranks
with SHMEM_SYMMETRIC_SIZE=8m.

    heap.py        the whole lifecycle, and refusals that leave the group working
    heap.py skip   rank 1 never calls empty(): the others raise within the timeout
"""
import datetime
import gc
import os
import sys
import time

import torch
import torch.distributed as dist

import shmemcomm_torch
import checks
from checks import expect, fail, raises

MiB = 1 << 20
TIMEOUT = 3.0


def collectives(me, n):
    total = n * (n + 1) / 2
    for dtype in (torch.float32, torch.bfloat16, torch.int64):
        for numel in (0, 1, 1000, MiB // 4):  # up to 1 MiB of fp32: past the inline path
            t = shmemcomm_torch.empty(numel, dtype=dtype)
            expect(shmemcomm_torch.is_symmetric(t), f"empty({numel}, {dtype}) is not on the heap")
            t.fill_(me + 1)
            dist.all_reduce(t)
            expect(torch.equal(t, torch.full_like(t, total)), f"all_reduce of {numel} x {dtype}")
    expect(not shmemcomm_torch.is_symmetric(torch.ones(10)), "an ordinary tensor reported on the heap")

    # shapes as torch.empty takes them; a slice is on the heap too, a transposed view is copied
    m = shmemcomm_torch.empty((64, 32))
    expect(m.shape == (64, 32) and m.dtype == torch.float32, f"empty((64, 32)) gave {m.shape} {m.dtype}")
    m.fill_(me)
    part = m[8:16]
    expect(shmemcomm_torch.is_symmetric(part), "a slice of a heap tensor is not on the heap")
    dist.all_reduce(part, op=dist.ReduceOp.MAX)
    expect(torch.equal(m[8:16], torch.full((8, 32), float(n - 1))) and torch.equal(m[:8], torch.full((8, 32), float(me))),
           "all_reduce of a slice changed the wrong rows")
    tr = m.t()
    dist.all_reduce(tr)
    expect(torch.equal(m[:8], torch.full((8, 32), float(n * (n - 1) / 2))), "all_reduce of a transposed heap tensor")

    src = shmemcomm_torch.empty(MiB // 4)
    src.fill_(me)
    out = shmemcomm_torch.empty(n * (MiB // 4))
    dist.all_gather_into_tensor(out, src)
    expect(torch.equal(out, torch.arange(n).repeat_interleave(MiB // 4).float()), "all_gather_into_tensor")
    rs = shmemcomm_torch.empty(MiB // 8)
    dist.reduce_scatter_tensor(rs, torch.ones(n * (MiB // 8)))
    expect(torch.equal(rs, torch.full_like(rs, float(n))), "reduce_scatter_tensor into a heap tensor")
    b = shmemcomm_torch.empty(5000, dtype=torch.float64)
    b.fill_(me + 7)
    dist.broadcast(b, src=n - 1)
    expect(torch.equal(b, torch.full_like(b, n - 1 + 7)), "broadcast")
    # async: several in flight at once
    ts = [shmemcomm_torch.empty(4096) for _ in range(6)]
    works = []
    for i, t in enumerate(ts):
        t.fill_(me + i)
        works.append(dist.all_reduce(t, async_op=True))
    for i, (t, w) in enumerate(zip(ts, works)):
        w.wait()
        expect(torch.equal(t, torch.full_like(t, float(n * (n - 1) / 2 + n * i))), f"async all_reduce {i}")


def usage_settles(tensors):
    """heap_usage once it shows @tensors: the engine's thread lets go of a
    finished operation's tensors a moment after wait() returns."""
    deadline = time.monotonic() + 5
    while shmemcomm_torch.heap_usage()["tensors"] != tensors and time.monotonic() < deadline:
        time.sleep(0.001)
    return shmemcomm_torch.heap_usage()


def reuse(me, n):
    """A block returns only when every rank has dropped its tensor."""
    gc.collect()
    before = usage_settles(0)["tensors"]
    expect(before == 0, f"{before} heap tensors outlived the function that made them")
    # 40 x 1 MiB on a heap of 8 MiB: only possible if dropped blocks come back
    for i in range(40):
        t = shmemcomm_torch.empty(MiB // 4)
        t.fill_(i + me)
        dist.all_reduce(t)
        expect(t[0].item() == n * i + n * (n - 1) / 2, f"round {i}")
        del t
    usage = usage_settles(before)
    expect(usage["tensors"] == before, f"heap_usage after the loop: {usage}")

    # rank 0 drops its tensor of a call, the others keep theirs: the block stays taken everywhere
    kept = shmemcomm_torch.empty(MiB // 4)
    kept.fill_(100 + me)
    kept_at = kept.data_ptr()
    if me == 0:
        del kept
    later = [shmemcomm_torch.empty(MiB // 4) for _ in range(2)]
    for t in later:
        expect(t.data_ptr() != kept_at, "a block was reused while a rank still held its tensor")
        t.fill_(-1.0)
        dist.all_reduce(t)
    if me != 0:
        expect(torch.equal(kept, torch.full_like(kept, 100.0 + me)), "a kept heap tensor was overwritten")
        del kept
    del later, t
    # now every rank has dropped it: the next call frees it, and it can be had again
    again = shmemcomm_torch.empty(MiB // 4)
    again2 = shmemcomm_torch.empty(MiB // 4)
    expect(kept_at in (again.data_ptr(), again2.data_ptr()), "a block dropped by every rank did not come back")
    usage = usage_settles(before + 2)
    expect(usage["tensors"] == before + 2 and usage["bytes"] == 2 * MiB, f"heap_usage: {usage}")


def refusals(me, n):
    raises(lambda: shmemcomm_torch.empty(64 * MiB), "no room for 268435456 bytes", "SHMEM_SYMMETRIC_SIZE")
    raises(lambda: shmemcomm_torch.empty(100 + me), "different sizes", f"{4 * (100 + me)} bytes")
    raises(lambda: shmemcomm_torch.empty(-1), "negative size")
    # none of it broke the group or the heap
    t = shmemcomm_torch.empty(100)
    t.fill_(1)
    dist.all_reduce(t)
    expect(torch.equal(t, torch.full_like(t, float(n))), "all_reduce after the refusals")


def survives_destroy(me, n):
    """A heap tensor alive at destroy_process_group keeps its data in ordinary memory."""
    t = shmemcomm_torch.empty(1000, dtype=torch.int32)
    t.copy_(torch.arange(1000, dtype=torch.int32) * (me + 1))
    view = t[10:20]
    dist.destroy_process_group()
    expect(not shmemcomm_torch.is_symmetric(t), "a heap tensor is still on the heap after destroy")
    expect(torch.equal(t, torch.arange(1000, dtype=torch.int32) * (me + 1)), "a heap tensor lost its data at destroy")
    expect(torch.equal(view, torch.arange(10, 20, dtype=torch.int32) * (me + 1)), "a view of it lost its data")
    t.add_(1)
    expect(view[0].item() == 10 * (me + 1) + 1, "the view no longer shares the tensor's memory")


def skip(me, n):
    if me == 1:
        time.sleep(TIMEOUT + 3)
        os._exit(0)
    began = time.monotonic()
    msg = raises(lambda: shmemcomm_torch.empty(10), "shmemcomm_torch.empty", "timed out", "PE 1")
    took = time.monotonic() - began
    expect(TIMEOUT - 0.5 <= took <= TIMEOUT + 2, f"the timeout of {TIMEOUT} s took {took:.1f} s")
    if me == 0:
        print(f"heap skip: raised after {took:.1f} s: {msg}")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "lifecycle"
    if mode == "lifecycle":
        raises(lambda: shmemcomm_torch.empty(10), "init_process_group")
    timeout = TIMEOUT if mode == "skip" else 60
    dist.init_process_group("shmemcomm", timeout=datetime.timedelta(seconds=timeout))
    me, n = dist.get_rank(), dist.get_world_size()
    if mode == "skip":
        skip(me, n)
        dist.destroy_process_group()
        return
    collectives(me, n)
    reuse(me, n)
    refusals(me, n)
    survives_destroy(me, n)
    if me == 0:
        print(f"heap: {checks.made} checks passed on {n} ranks")


main()
