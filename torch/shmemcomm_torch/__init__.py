"""shmemcomm's torch.distributed backend.

    import shmemcomm_torch                       # registers the backend "shmemcomm"
    torch.distributed.init_process_group("shmemcomm")

The ranks meet through torch's store (any init_method); the library's
settings (SHMEM_SYMMETRIC_SIZE, SHMEMCOMM_TRANSPORT, ...) come from the
environment, and the process group's timeout bounds every operation.
"""
import torch
import torch.distributed as dist

from . import _C

__all__ = ["ProcessGroupShmemcomm", "buffer_stats", "transport"]

ProcessGroupShmemcomm = _C.ProcessGroupShmemcomm


def buffer_stats():
    """This process's registration figures since init (kmod back end): tensors
    registered (misses), found registered (hits), peers' tensors mapped
    (imports, import_hits), ... as shmemx_buffer_stats counts them."""
    return _C.buffer_stats()


def transport():
    """The library's back end in use: "kmod" or "memfd", with "+rdma" across nodes."""
    return _C.transport()


def _create(dist_options, backend_options):
    del backend_options  # shmemcomm has no options of torch's kind: its settings are variables
    return _C.ProcessGroupShmemcomm(
        dist_options.store,
        dist_options.group_rank,
        dist_options.group_size,
        dist_options.timeout.total_seconds(),
        list(dist_options.global_ranks_in_group),
    )


if "shmemcomm" not in dist.Backend.backend_list:
    dist.Backend.register_backend("shmemcomm", _create, extended_api=True, devices=["cpu"])
