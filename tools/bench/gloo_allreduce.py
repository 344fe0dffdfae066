#!/usr/bin/python3
"""The PyTorch Gloo peer for scripts/bench-peers: torch.distributed
all_reduce (float32 sum) on the gloo backend, timed like shmemcomm-perf.
  gloo_allreduce.py RANKS MIN_BYTES MAX_BYTES FACTOR ITERS ROUNDS
prints "bytes seconds" lines (rank 0)."""
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, size, lo, hi, factor, iters, rounds, port):
    os.sched_setaffinity(0, {rank % os.cpu_count()})
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=size)
    nbytes = lo
    while nbytes <= hi:
        t = torch.full((nbytes // 4,), float(rank % 7), dtype=torch.float32)
        for _ in range(iters):  # warm up as long as one round
            dist.all_reduce(t)
        samples = []
        for _ in range(rounds):
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(t)
            mine = torch.tensor([(time.perf_counter() - t0) / iters], dtype=torch.float64)
            dist.all_reduce(mine, op=dist.ReduceOp.MAX)
            samples.append(mine.item())
        if rank == 0:
            print(nbytes, "%.9f" % statistics.median(samples), flush=True)
        nbytes *= factor
    dist.destroy_process_group()


if __name__ == "__main__":
    size, lo, hi, factor, iters, rounds = (int(a) for a in sys.argv[1:7])
    port = 29500 + os.getpid() % 20000
    mp.spawn(rank_main, args=(size, lo, hi, factor, iters, rounds, port), nprocs=size)
