"""What the shmemcomm backend refuses, and how it fails.

    errors.py misuse   every refusal is a RuntimeError naming the op and the
                       dtype, device or size; the group works on after them
    errors.py skip     rank 1 skips an all_reduce: the others raise within the
                       group's timeout, naming PE 1; nobody hangs
    errors.py mismatch a send and a recv that do not pair up: the receiver raises,
                       naming both tags
    errors.py kill     rank 1 dies (SIGKILL) before an all_reduce: the others
                       raise at once (long before the timeout), naming it
    errors.py badinit  a bad library setting: init_process_group raises with the
                       library's words, and the process goes on
"""
import datetime
import faulthandler
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

import shmemcomm_torch  # noqa: F401
from checks import fail, raises

faulthandler.register(signal.SIGUSR1)
TIMEOUT = 3.0


def misuse(me, n):
    t = torch.ones(4)
    raises(lambda: dist.all_reduce(torch.ones(4, dtype=torch.float8_e5m2)), "allreduce", "Float8_e5m2")
    # torch itself passes complex tensors as pairs of reals, for the ops that allow it
    z = torch.full((3,), complex(me, 1))
    dist.all_reduce(z)
    if not torch.equal(z, torch.full((3,), complex(n * (n - 1) // 2, n))):
        fail(f"all_reduce of complex64 gave {z.tolist()}")
    # a tensor of another device never reaches the backend: torch refuses it by its device
    raises(lambda: dist.all_reduce(torch.ones(4, device="meta")), "allreduce", "Meta")
    raises(lambda: dist.broadcast(torch.ones(4).to_sparse(), src=0), "broadcast", "Sparse")
    raises(lambda: dist.all_reduce(torch.ones(4), op=dist.ReduceOp.BAND), "allreduce", "bitwise", "Float")
    raises(lambda: dist.all_reduce(torch.ones(4, dtype=torch.bool), op=dist.ReduceOp.AVG), "AVG", "bool")
    raises(lambda: dist.all_reduce(t, op=dist._make_nccl_premul_sum(2.0)), "allreduce", "PREMUL_SUM")
    raises(lambda: dist.all_gather([torch.ones(4)] * (n + 1), t), "allgather", "one per rank")
    raises(lambda: dist.all_gather([torch.ones(5)] * n, t), "allgather", "5 elements")
    raises(lambda: dist.all_gather_into_tensor(torch.ones(4 * n + 1), t), "all_gather_into_tensor", str(4 * n + 1))
    raises(lambda: dist.reduce_scatter_tensor(torch.ones(4), torch.ones(4 * n, dtype=torch.float64)),
           "reduce_scatter_tensor", "dtypes differ")
    raises(lambda: dist.all_to_all_single(torch.ones(n * 2), torch.ones(n * 2), [1] * n, [2] * (n + 1)),
           "all_to_all_single", "split sizes")
    raises(lambda: dist.all_to_all_single(torch.ones(n * 2), torch.ones(n * 2), [3] * n, [2] * n),
           "all_to_all_single", "cover")
    # nothing above reached the other ranks: the group goes on
    t = torch.full((8,), float(me))
    dist.all_reduce(t)
    if not torch.equal(t, torch.full((8,), float(n * (n - 1) // 2))):
        fail(f"all_reduce after the refusals gave {t.tolist()}")


def mismatch(me, n):
    """Rank 0 sends with tag 5; rank 1 expects tag 6: rank 1 raises naming both."""
    if me == 0:
        dist.send(torch.ones(10), dst=1, tag=5)
    elif me == 1:
        msg = raises(lambda: dist.recv(torch.empty(10), src=0, tag=6), "recv from PE 0", "tag 6", "tag 5")
        print(f"mismatch: {msg}")
        os._exit(0)  # the group is unusable after the failure: no collective teardown
    if me == 0:
        time.sleep(1)  # until rank 1 has checked
        os._exit(0)


def skip(me, n):
    t = torch.ones(1000)
    if me == 1:
        time.sleep(TIMEOUT + 3)  # past the others' deadline, then leaves without a word
        os._exit(0)
    began = time.monotonic()
    msg = raises(lambda: dist.all_reduce(t), "timed out", "PE 1")
    took = time.monotonic() - began
    if not TIMEOUT - 0.5 <= took <= TIMEOUT + 2:
        fail(f"the timeout of {TIMEOUT} s took {took:.1f} s")
    # the group is unusable now, and says why
    raises(lambda: dist.all_reduce(t), "timed out")
    if me == 0:
        print(f"skip: raised after {took:.1f} s: {msg}")


def kill(me, n):
    dist.barrier()
    if me == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.5)
    began = time.monotonic()
    msg = raises(lambda: dist.all_reduce(torch.ones(1000)), "PE 1", "exited")
    took = time.monotonic() - began
    if took > 5:
        fail(f"a dead rank took {took:.1f} s to be noticed (the timeout is 60 s)")
    if me == 0:
        print(f"kill: raised after {took:.1f} s: {msg}")


def badinit():
    os.environ["SHMEM_SYMMETRIC_SIZE"] = "12q"
    raises(lambda: dist.init_process_group("shmemcomm", timeout=datetime.timedelta(seconds=30)),
           "shmemcomm: init failed", "SHMEM_SYMMETRIC_SIZE=12q")
    if torch.ones(3).sum().item() != 3 or dist.is_initialized():
        fail("the process did not go on after the failed init")
    if os.environ["RANK"] == "0":
        print("errors badinit: init raised with the library's words, the process went on")


def main():
    mode = sys.argv[1]
    if mode == "badinit":
        return badinit()
    timeout = TIMEOUT if mode == "skip" else 60
    dist.init_process_group("shmemcomm", timeout=datetime.timedelta(seconds=timeout))
    me, n = dist.get_rank(), dist.get_world_size()
    {"misuse": misuse, "mismatch": mismatch, "skip": skip, "kill": kill}[mode](me, n)
    if me == 0:
        print(f"errors {mode}: as expected on {n} ranks")
    dist.destroy_process_group()


main()
