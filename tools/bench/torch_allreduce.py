"""torch.distributed.all_reduce timed on one backend, for scripts/bench-torch.

    launch.py -n N torch_allreduce.py BACKEND DTYPE SIZES...

BACKEND is gloo, shmemcomm, shmemcomm-heap: shmemcomm on tensors of
shmemcomm_torch.empty (on the symmetric heap, read in place), or
torch-alone: torch's own FakeProcessGroup, whose all_reduce moves nothing
and completes at once, so its time per call is what torch and Python cost
before any backend does its work (the floor of the binding's overhead).
Its ranks cannot meet, so each times itself and rank 0 prints its own
(scripts/bench-torch runs it with no more ranks than cores).

Each rank is bound to a core and runs one torch thread. For each size (in
bytes): a warm-up as long as a round, then BENCH_ROUNDS rounds (3) of
BENCH_ITERS calls (by default, fewer the bigger the size, and a tenth as
many on Gloo, which is slow); a round's time is the slowest rank's. Rank 0
prints "bytes seconds-per-call" with the median round. scripts/bench-peers
runs it too, for its Gloo column, with Debian 12's torch.
"""
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

backend, dtype_name = sys.argv[1], sys.argv[2]
sizes = [int(s) for s in sys.argv[3:]]
heap = backend == "shmemcomm-heap"
alone = backend == "torch-alone"
if backend.startswith("shmemcomm"):
    import shmemcomm_torch  # noqa: F401
dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[dtype_name]


def iters_for(nbytes):
    return 2000 if nbytes <= 4096 else 500 if nbytes <= 65536 else 50 if nbytes <= 1 << 20 else 20


def main():
    rank = int(os.environ["RANK"])
    os.sched_setaffinity(0, {rank % os.cpu_count()})
    torch.set_num_threads(1)
    if alone:
        from torch.testing._internal.distributed.fake_pg import FakeStore

        dist.init_process_group("fake", store=FakeStore(), rank=rank,
                                world_size=int(os.environ["WORLD_SIZE"]))
    else:
        dist.init_process_group("shmemcomm" if heap else backend)
    elem = torch.tensor([], dtype=dtype).element_size()
    for nbytes in sizes:
        iters = iters_for(nbytes) if backend != "gloo" else max(iters_for(nbytes) // 10, 3)
        if alone:  # nothing moves: every size is as cheap as the smallest
            iters = iters_for(0)
        iters = int(os.environ.get("BENCH_ITERS", iters))
        numel = max(nbytes // elem, 1)
        t = shmemcomm_torch.empty(numel, dtype=dtype) if heap else torch.empty(numel, dtype=dtype)
        t.fill_(float(rank % 7))
        for _ in range(iters):
            dist.all_reduce(t)
        samples = []
        for _ in range(int(os.environ.get("BENCH_ROUNDS", 3))):
            if not alone:
                dist.barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(t)
            mine = torch.tensor([(time.perf_counter() - t0) / iters], dtype=torch.float64)
            if not alone:
                dist.all_reduce(mine, op=dist.ReduceOp.MAX)
            samples.append(mine.item())
        if rank == 0:
            print(nbytes, "%.9f" % statistics.median(samples), flush=True)
        del t  # a heap tensor's block comes back at the next empty()
    dist.destroy_process_group()


main()
