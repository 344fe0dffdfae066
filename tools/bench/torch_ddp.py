"""A DDP training step of a BERT-shaped encoder on one backend, for
scripts/bench-torch.

    launch.py -n N torch_ddp.py BACKEND LAYERS SEQ BATCH STEPS

BERT-large's layer shape (hidden 1024, 16 heads, FFN 4096), LAYERS deep,
float32, one torch thread per rank, each rank on its own core. Prints (rank
0) one line of key=value: the median step time, the same step without the
gradient AllReduce (DDP's no_sync) so that their difference is the time the
step spends in gradient sync, peak RSS of rank 0, samples/s, and a checksum
of the parameters that must be equal on every rank.
"""
import os
import resource
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

backend = sys.argv[1]
layers, seq, batch, steps = (int(a) for a in sys.argv[2:6])
if backend == "shmemcomm":
    import shmemcomm_torch  # noqa: F401


def main():
    rank = int(os.environ["RANK"])
    os.sched_setaffinity(0, {rank % os.cpu_count()})
    torch.set_num_threads(1)
    dist.init_process_group(backend)
    n = dist.get_world_size()
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096,
                                       dropout=0.0, batch_first=True)
    model = nn.Sequential(nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False),
                          nn.Linear(1024, 2))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-4)
    g = torch.Generator().manual_seed(rank)
    x = torch.randn(batch, seq, 1024, generator=g)
    y = torch.randint(0, 2, (batch,), generator=g)

    def step(sync):
        opt.zero_grad(set_to_none=False)
        if sync:
            loss = nn.functional.cross_entropy(ddp(x)[:, 0], y)
            loss.backward()
        else:
            with ddp.no_sync():
                loss = nn.functional.cross_entropy(ddp(x)[:, 0], y)
                loss.backward()
        opt.step()

    def timed(sync):
        times = []
        for _ in range(steps):
            dist.barrier()
            t0 = time.perf_counter()
            step(sync)
            mine = torch.tensor([time.perf_counter() - t0], dtype=torch.float64)
            dist.all_reduce(mine, op=dist.ReduceOp.MAX)
            times.append(mine.item())
        return statistics.median(times)

    step(True)  # warm-up: DDP's buckets are rebuilt after the first step
    step(True)
    with_sync = timed(True)
    # before the steps without sync, after which each rank's model goes its own way
    check = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    sums = [torch.zeros_like(check) for _ in range(n)]
    dist.all_gather(sums, check)
    equal = all(torch.equal(s, check) for s in sums)
    without = timed(False)
    params = sum(p.numel() for p in model.parameters())
    if rank == 0:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"backend={backend} ranks={n} params={params} step_ms={with_sync * 1e3:.1f} "
              f"compute_ms={without * 1e3:.1f} sync_ms={(with_sync - without) * 1e3:.1f} "
              f"rss_mb={rss:.0f} samples_per_s={batch * n / with_sync:.2f} params_equal={int(equal)}",
              flush=True)
    dist.destroy_process_group()


main()
