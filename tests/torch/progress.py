"""The progress thread's choices (shmemcomm_torch.progress_settings) follow
the README's rule, and collectives of every size give the right sums under
either choice. Where the thread has no core of its own (this process may use
one CPU, or the node's ranks are more than half its cores), every operation
runs on its caller first, for up to 1 ms; else those up to 64 KiB, for 50 us.
The spin is 1 us where the ranks outnumber the cores, else 50 us. Run by
launch.py on one node.

    progress.py free     each rank may use every CPU
    progress.py pinned   each rank is bound to one CPU before init, as the benchmarks do
"""
import os
import sys

import torch
import torch.distributed as dist

import shmemcomm_torch
import checks
from checks import expect

mode = sys.argv[1]
rank, ranks = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
cores = os.cpu_count()
if mode == "pinned":
    os.sched_setaffinity(0, {rank % cores})
dist.init_process_group("shmemcomm")

settings = shmemcomm_torch.progress_settings()
thread_has_a_core = 2 * ranks <= cores and len(os.sched_getaffinity(0)) >= 2
expected = {
    "spin_us": 1.0 if ranks > cores else 50.0,
    "inline_us": 50.0 if thread_has_a_core else 1000.0,
    "inline_max_bytes": 64 << 10 if thread_has_a_core else None,
}
for key, value in expected.items():
    expect(abs(settings[key] - value) < 1e-6 if isinstance(value, float) else settings[key] == value,
           f"{mode}, {ranks} ranks on {cores} cores: {key} is {settings[key]}, not {value}")

# each size on either side of the inline limit, synchronous and async
for numel in (1, 16 << 10, (16 << 10) + 1, 1 << 20):
    t = torch.full((numel,), float(rank + 1))
    dist.all_reduce(t)
    expect(torch.equal(t, torch.full((numel,), float(ranks * (ranks + 1) // 2))),
           f"all_reduce of {numel} float32: {t[:4]}")
    works = [(dist.all_reduce(u, async_op=True), u)
             for u in (torch.full((numel,), float(rank + i)) for i in range(3))]
    for i, (work, u) in enumerate(works):
        work.wait()
        expect(torch.equal(u, torch.full((numel,), float(ranks * (ranks - 1) // 2 + ranks * i))),
               f"async all_reduce {i} of {numel} float32: {u[:4]}")

dist.destroy_process_group()
print(f"progress {mode}: {checks.made} checks passed on {ranks} ranks ({settings})", flush=True)
