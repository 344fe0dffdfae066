"""The backend on the kmod back end (in the guest, tests/torch/guest-tests):
tensors off the heap of at least SHMEMCOMM_COLL_REGISTER_MIN bytes are
registered and read in place by the peers (the registration cache counts
hits and imports), smaller ones staged; tensors of shmemcomm_torch.empty
are read in place on the heap, without a registration. Results checked
every way.
"""
import torch
import torch.distributed as dist

import shmemcomm_torch
from checks import fail


def main():
    dist.init_process_group("shmemcomm")
    me, n = dist.get_rank(), dist.get_world_size()
    if shmemcomm_torch.transport() != "kmod":
        fail(f"the back end is {shmemcomm_torch.transport()}, not kmod")
    # heap tensors: the peers read them on the heap, so the registration cache never sees them
    before = shmemcomm_torch.buffer_stats()
    h = shmemcomm_torch.empty(1 << 18)
    for _ in range(3):
        h.fill_(float(me + 1))
        dist.all_reduce(h)
        if not torch.equal(h, torch.full_like(h, n * (n + 1) / 2)):
            fail(f"all_reduce of a 1 MiB heap tensor gave {h[:4].tolist()}")
    after = shmemcomm_torch.buffer_stats()
    if any(after[k] != before[k] for k in ("misses", "hits", "imports", "import_hits")):
        fail(f"a heap tensor went through the registration cache: {before} -> {after}")
    big = torch.full((1 << 18,), float(me + 1))  # 1 MiB: registered
    small = torch.full((100,), float(me + 1))    # staged
    for _ in range(3):
        t = big
        t.fill_(float(me + 1))
        dist.all_reduce(t)
        if not torch.equal(t, torch.full_like(t, n * (n + 1) / 2)):
            fail(f"all_reduce of 1 MiB gave {t[:4].tolist()}")
    s = small.clone()
    dist.all_reduce(s)
    if not torch.equal(s, torch.full_like(s, n * (n + 1) / 2)):
        fail("all_reduce of 400 B")
    out = torch.empty(n * (1 << 18))
    dist.all_gather_into_tensor(out, torch.full((1 << 18,), float(me)))
    if not torch.equal(out, torch.arange(n).repeat_interleave(1 << 18).float()):
        fail("all_gather_into_tensor of 1 MiB")
    rs = torch.empty(1 << 17)
    dist.reduce_scatter_tensor(rs, torch.ones(n << 17))
    if not torch.equal(rs, torch.full_like(rs, float(n))):
        fail("reduce_scatter_tensor")
    stats = shmemcomm_torch.buffer_stats()
    if stats["hits"] < 2 or stats["imports"] < 1 or stats["import_hits"] < 1:
        fail(f"the 1 MiB tensor was not registered and found again: {stats}")
    dist.barrier()
    if me == 0:
        print(f"kmod: results right; heap tensors not registered; registration {stats}")
    dist.destroy_process_group()


main()
