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

__all__ = ["ProcessGroupShmemcomm", "buffer_stats", "empty", "heap_usage", "is_pooled", "is_symmetric",
           "pool_usage", "transport"]

ProcessGroupShmemcomm = _C.ProcessGroupShmemcomm


def buffer_stats():
    """This process's registration figures since init (kmod back end): tensors
    registered (misses), found registered (hits), peers' tensors mapped
    (imports, import_hits), ... as shmemx_buffer_stats counts them; and the
    collectives' buffers that went through staging (staged) or were read in
    place in the buffer pool (pooled)."""
    return _C.buffer_stats()


def is_pooled(tensor):
    """Whether the tensor's memory is in the library's buffer pool: while the
    default group is up, CPU tensors of pool_usage()["min"] bytes or more are
    allocated there (memfd back end), and collectives read them in place."""
    return _C.is_pooled(tensor)


def pool_usage():
    """The buffer pool: its "size" (0: none, as on kmod, or after
    destroy_process_group), the bytes "used" by live tensors, and "min", the
    smallest tensor it takes (SHMEMCOMM_TORCH_POOL_MIN)."""
    return _C.pool_usage()


def empty(*size, dtype=None):
    """A tensor on the symmetric heap, which collectives read in place
    (zero copy). Collective, as shmem_malloc is: every rank of the job calls
    it with the same shape and dtype, in the same order, after
    init_process_group("shmemcomm"). Use it the same way on every rank: pass
    a heap tensor to a collective where the other ranks pass their own tensor
    of the same empty() call.

    A dropped tensor's block is freed at a later empty() call, once every
    rank has dropped its tensor of that call; up to 1024 heap tensors may be
    alive at once. A heap tensor still alive at destroy_process_group keeps
    its data, moved into ordinary memory."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    like = torch.empty(0, dtype=dtype if dtype is not None else torch.get_default_dtype())
    return _C.heap_empty([int(n) for n in size], like)


def is_symmetric(tensor):
    """Whether the tensor's memory is a block of the symmetric heap (from empty())."""
    return _C.is_symmetric(tensor)


def heap_usage():
    """This rank's heap tensors not yet dropped ("tensors") and their "bytes"."""
    return _C.heap_usage()


def transport():
    """The library's back end in use: "kmod" or "memfd", with "+rdma" across nodes."""
    return _C.transport()


def progress_settings():
    """How this process's progress thread works, as chosen at init_process_group: "spin_us" it
    spins before yielding the core, and the operations that run on the caller's thread instead
    when nothing else is outstanding: for up to "inline_us", of up to "inline_max_bytes" (None:
    any size, where the thread would only take the caller's core)."""
    return _C.progress_settings()


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
