"""DDP and FSDP train a small model on the shmemcomm backend.

DDP: the same model, seed and data on shmemcomm and on a Gloo group side by
side. Every rank's parameters must end bitwise equal on shmemcomm, and its
losses must follow Gloo's within float tolerance (the sums may be added in
another order). Small buckets make several AllReduces per step, overlapping
the backward pass. FSDP (all_gather_into_tensor, reduce_scatter_tensor):
the loss must follow the DDP model's.
"""
import copy

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import shmemcomm_torch  # noqa: F401
from checks import fail

STEPS = 12


def model():
    torch.manual_seed(7)
    return nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.LayerNorm(256), nn.Linear(256, 256),
                         nn.GELU(), nn.Linear(256, 10))


TEACHER = torch.randn(64, 10, generator=torch.Generator().manual_seed(3))


def batch(rank, step):
    """Labels from a fixed linear teacher: something the model can learn."""
    g = torch.Generator().manual_seed(100 * step + rank)
    x = torch.randn(16, 64, generator=g)
    return x, (x @ TEACHER).argmax(dim=1)


def train(net, steps, rank):
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for step in range(steps):
        x, y = batch(rank, step)
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def flat_params(net):
    return torch.cat([p.detach().reshape(-1) for p in net.parameters()])


def main():
    dist.init_process_group("shmemcomm")
    me, n = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(backend="gloo")

    base = model()
    ours = DDP(copy.deepcopy(base), process_group=dist.group.WORLD, bucket_cap_mb=0.05)
    theirs = DDP(copy.deepcopy(base), process_group=gloo, bucket_cap_mb=0.05)
    loss_ours = train(ours, STEPS, me)
    loss_theirs = train(theirs, STEPS, me)
    for step, (a, b) in enumerate(zip(loss_ours, loss_theirs)):
        if abs(a - b) > 1e-4 * max(1.0, abs(b)):
            fail(f"DDP step {step}: loss {a} on shmemcomm, {b} on Gloo")
    if loss_ours[-1] >= loss_ours[0]:
        fail(f"DDP did not learn: loss {loss_ours[0]} -> {loss_ours[-1]}")
    mine = flat_params(ours.module)
    everyone = [torch.empty_like(mine) for _ in range(n)]
    dist.all_gather(everyone, mine, group=gloo)  # compared through the other backend
    for r in range(n):
        if not torch.equal(everyone[r], mine):
            fail(f"DDP: rank {r}'s parameters differ from rank {me}'s "
                 f"(max difference {(everyone[r] - mine).abs().max().item()})")

    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    sharded = FSDP(copy.deepcopy(base), process_group=dist.group.WORLD, use_orig_params=True,
                   device_id=torch.device("cpu"))
    loss_fsdp = train(sharded, STEPS, me)
    for step, (a, b) in enumerate(zip(loss_fsdp, loss_ours)):
        if abs(a - b) > 1e-3 * max(1.0, abs(b)):
            fail(f"FSDP step {step}: loss {a}, DDP's {b}")

    dist.barrier()
    if me == 0:
        print(f"training: DDP {loss_ours[0]:.4f} -> {loss_ours[-1]:.4f} as on Gloo, parameters equal on "
              f"{n} ranks; FSDP {loss_fsdp[0]:.4f} -> {loss_fsdp[-1]:.4f}")
    dist.destroy_process_group()


main()
