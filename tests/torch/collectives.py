"""Every collective of the shmemcomm backend x dtype x ReduceOp, against a
reference computed here from every rank's inputs (each rank can make any
rank's input: they come from seeded generators). Run by launch.py at 2 and
4 ranks. Values are small integers, so every dtype's sums are exact and the
comparisons are for equality.
"""
import os

import torch
import torch.distributed as dist

import shmemcomm_torch  # noqa: F401  (registers the backend)
from checks import expect, fail
import checks

R = dist.ReduceOp
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]
ALL = FLOATS + INTS + [torch.bool]
# 0 elements, one, odd, and past the symmetric heap (SHMEM_SYMMETRIC_SIZE=4m: 2M floats are 8 MB)
SIZES = [0, 1, 7, 1000, 2 << 20]


def make(rank, case, numel, dtype, op=None):
    """Rank @rank's input of @case: small values the op keeps exact."""
    g = torch.Generator().manual_seed(1000 * case + rank)
    if dtype == torch.bool:
        return torch.randint(0, 2, (numel,), generator=g).bool()
    if op == R.PRODUCT:
        lo, hi = (1, 3) if dtype == torch.uint8 else (-2, 3)
    elif dtype == torch.uint8:
        lo, hi = 0, 50
    else:
        lo, hi = -20, 21
    return torch.randint(lo, hi, (numel,), generator=g).to(dtype)


def reference(inputs, op, dtype):
    acc = inputs[0].clone()
    wide = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    acc = acc.to(wide) if dtype != torch.bool else acc
    for t in inputs[1:]:
        t = t.to(wide) if dtype != torch.bool else t
        if op in (R.SUM, R.AVG):
            acc = acc | t if dtype == torch.bool else acc + t
        elif op == R.PRODUCT:
            acc = acc & t if dtype == torch.bool else acc * t
        elif op == R.MIN:
            acc = torch.minimum(acc, t)
        elif op == R.MAX:
            acc = torch.maximum(acc, t)
        elif op == R.BAND:
            acc = acc & t
        elif op == R.BOR:
            acc = acc | t
        elif op == R.BXOR:
            acc = acc ^ t
    if op == R.AVG:
        n = len(inputs)
        acc = acc / n if dtype.is_floating_point else torch.div(acc, n, rounding_mode="trunc")
    return acc.to(dtype)


def ops_for(dtype):
    ops = [R.SUM, R.PRODUCT, R.MIN, R.MAX]
    if dtype != torch.bool:
        ops.append(R.AVG)
    if not dtype.is_floating_point:
        ops += [R.BAND, R.BOR, R.BXOR]
    return ops


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def main():
    dist.init_process_group("shmemcomm")
    me, n = dist.get_rank(), dist.get_world_size()
    case = 0

    # allreduce: every dtype x op x size; in place, as torch's is
    for dtype in ALL:
        for op in ops_for(dtype):
            for numel in SIZES if op == R.SUM else SIZES[:4]:
                case += 1
                inputs = [make(r, case, numel, dtype, op) for r in range(n)]
                t = inputs[me].clone()
                dist.all_reduce(t, op=op)
                expect(same(t, reference(inputs, op, dtype)),
                       f"all_reduce {dtype} {op} of {numel}: {t[:8].tolist()} vs {reference(inputs, op, dtype)[:8].tolist()}")

    # non-contiguous: a transposed view and a strided slice, written back in place
    for dtype in (torch.float32, torch.int64):
        case += 1
        base = [make(r, case, 12 * 10, dtype).view(12, 10) for r in range(n)]
        t = base[me].clone().t()
        expect(not t.is_contiguous(), "the transposed view is contiguous")
        dist.all_reduce(t)
        expect(same(t, reference([b.t() for b in base], R.SUM, dtype)), f"all_reduce of a transposed {dtype}")
        big = base[me].clone()
        view = big[:, ::3]
        dist.all_reduce(view, op=R.MAX)
        want = base[me].clone()
        want[:, ::3] = reference([b[:, ::3] for b in base], R.MAX, dtype)
        expect(same(big, want), f"all_reduce of a strided slice {dtype}: the rest must stay")

    # broadcast from every root, every dtype
    for dtype in ALL:
        for root in range(n):
            for numel in (0, 5, 100000):
                case += 1
                inputs = [make(r, case, numel, dtype) for r in range(n)]
                t = inputs[me].clone()
                dist.broadcast(t, src=root)
                expect(same(t, inputs[root]), f"broadcast {dtype} of {numel} from {root}")

    # reduce: the root gets the result, the others keep their tensor
    for dtype in (torch.float32, torch.bfloat16, torch.int32, torch.bool):
        for root in range(n):
            case += 1
            inputs = [make(r, case, 333, dtype) for r in range(n)]
            t = inputs[me].clone()
            dist.reduce(t, dst=root, op=R.MAX)
            want = reference(inputs, R.MAX, dtype) if me == root else inputs[me]
            expect(same(t, want), f"reduce {dtype} to {root}")

    # all_gather (list) and all_gather_into_tensor, all dtypes, with a non-contiguous input
    for dtype in ALL:
        for numel in (0, 3, 50000):
            case += 1
            inputs = [make(r, case, numel, dtype) for r in range(n)]
            outs = [torch.empty(numel, dtype=dtype) for _ in range(n)]
            dist.all_gather(outs, inputs[me])
            expect(all(same(outs[r], inputs[r]) for r in range(n)), f"all_gather {dtype} of {numel}")
            flat = torch.empty(n * numel, dtype=dtype)
            dist.all_gather_into_tensor(flat, inputs[me])
            expect(same(flat, torch.cat(inputs)), f"all_gather_into_tensor {dtype} of {numel}")
    case += 1
    inputs = [make(r, case, 40, torch.float32).view(8, 5) for r in range(n)]
    out = torch.empty(n * 8, 5)
    dist.all_gather_into_tensor(out, inputs[me].t().contiguous().t())
    expect(same(out, torch.cat(inputs)), "all_gather_into_tensor of a non-contiguous input")

    # reduce_scatter (list) and reduce_scatter_tensor, every op of some dtypes
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.uint8, torch.bool):
        for op in ops_for(dtype):
            for numel in (0, 1, 4099):
                case += 1
                inputs = [make(r, case, n * numel, dtype, op) for r in range(n)]
                want = reference(inputs, op, dtype)[me * numel:(me + 1) * numel]
                out = torch.empty(numel, dtype=dtype)
                dist.reduce_scatter_tensor(out, inputs[me], op=op)
                expect(same(out, want), f"reduce_scatter_tensor {dtype} {op} of {numel}")
                out2 = torch.empty(numel, dtype=dtype)
                dist.reduce_scatter(out2, list(inputs[me].chunk(n)) if numel else
                                    [torch.empty(0, dtype=dtype) for _ in range(n)], op=op)
                expect(same(out2, want), f"reduce_scatter {dtype} {op} of {numel}")

    # all_to_all_single: equal blocks, then split sizes that differ per rank
    for dtype in (torch.float32, torch.int16, torch.bool):
        case += 1
        inputs = [make(r, case, n * 6, dtype).view(n * 2, 3) for r in range(n)]
        out = torch.empty(n * 2, 3, dtype=dtype)
        dist.all_to_all_single(out, inputs[me])
        want = torch.cat([inputs[r][2 * me:2 * me + 2] for r in range(n)])
        expect(same(out, want), f"all_to_all_single {dtype}")

        def splits(r):  # rank r sends (r + p) % 3 rows to rank p
            return [(r + p) % 3 for p in range(n)]
        case += 1
        inputs = [make(r, case, sum(splits(r)) * 4, dtype).view(-1, 4) for r in range(n)]
        recv = [splits(r)[me] for r in range(n)]
        out = torch.empty(sum(recv), 4, dtype=dtype)
        dist.all_to_all_single(out, inputs[me], output_split_sizes=recv, input_split_sizes=splits(me))
        pieces = []
        for r in range(n):
            at = sum(splits(r)[:me])
            pieces.append(inputs[r][at:at + splits(r)[me]])
        expect(same(out, torch.cat(pieces)), f"all_to_all_single with split sizes {dtype}")

    # all_to_all with tensor lists of different sizes
    case += 1
    ins = [[make(r, case * 10 + p, r + p + 1, torch.float64) for p in range(n)] for r in range(n)]
    outs = [torch.empty(r + me + 1, dtype=torch.float64) for r in range(n)]
    dist.all_to_all(outs, ins[me])
    expect(all(same(outs[r], ins[r][me]) for r in range(n)), "all_to_all of tensor lists")

    # gather and scatter to and from every root
    for root in range(n):
        case += 1
        inputs = [make(r, case, 17, torch.int32) for r in range(n)]
        outs = [torch.empty(17, dtype=torch.int32) for _ in range(n)] if me == root else None
        dist.gather(inputs[me], gather_list=outs, dst=root)
        if me == root:
            expect(all(same(outs[r], inputs[r]) for r in range(n)), f"gather to {root}")
        pieces = [make(p, case + 5000, 9, torch.bfloat16) for p in range(n)]
        out = torch.empty(9, dtype=torch.bfloat16)
        dist.scatter(out, scatter_list=pieces if me == root else None, src=root)
        expect(same(out, pieces[me]), f"scatter from {root}")

    # coalesced all_reduce, and several async ops outstanding at once
    case += 1
    tensors = [make(me, case + i, 10 * i + 1, torch.float32) for i in range(5)]
    wants = [reference([make(r, case + i, 10 * i + 1, torch.float32) for r in range(n)], R.SUM, torch.float32)
             for i in range(5)]
    dist.all_reduce_coalesced(tensors)
    expect(all(same(t, w) for t, w in zip(tensors, wants)), "all_reduce_coalesced")
    case += 10
    works, ts, wants = [], [], []
    for i in range(24):
        t = make(me, case + i, 1000 + 97 * i, torch.float32)
        wants.append(reference([make(r, case + i, 1000 + 97 * i, torch.float32) for r in range(n)], R.SUM, torch.float32))
        ts.append(t)
        works.append(dist.all_reduce(t, async_op=True))
    bar = dist.barrier(async_op=True)
    for i, w in enumerate(works):
        w.wait()
        expect(w.is_completed() and same(ts[i], wants[i]), f"async all_reduce {i} of 24")
    bar.wait()
    fut = dist.all_reduce(torch.ones(3), async_op=True).get_future()
    expect(same(fut.wait()[0], torch.full((3,), float(n))), "a Work's future gives the result")

    # send and recv around a ring, async both ways: 0 elements, one, and many chunks (64 KiB each)
    right, left = (me + 1) % n, (me - 1) % n
    for dtype in (torch.float32, torch.bfloat16, torch.int64, torch.bool):
        for numel in (0, 1, 70001):
            case += 1
            out = torch.empty(numel, dtype=dtype)
            ws = dist.isend(make(me, case, numel, dtype), dst=right, tag=case)
            wr = dist.irecv(out, src=left, tag=case)
            ws.wait()
            wr.wait()
            expect(same(out, make(left, case, numel, dtype)), f"send/recv {dtype} of {numel} from {left}")
    case += 1
    ops = [dist.P2POp(dist.isend, make(me, case + i, 300, torch.float64), right, tag=i) for i in range(3)]
    outs = [torch.empty(300, dtype=torch.float64) for _ in range(3)]
    ops += [dist.P2POp(dist.irecv, outs[i], left, tag=i) for i in range(3)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    expect(all(same(outs[i], make(left, case + i, 300, torch.float64)) for i in range(3)),
           "batch_isend_irecv of three messages each way")
    strided = torch.zeros(10, 4)
    if me == 0:
        dist.send(torch.arange(40.0).view(10, 4).t(), dst=n - 1)
    elif me == n - 1:
        dist.recv(strided.t(), src=0)
        expect(same(strided.t(), torch.arange(40.0).view(10, 4).t()), "send and recv of non-contiguous views")

    # several process groups: subgroups of any ranks, with ops in flight on each
    if n >= 4:
        odd = dist.new_group([1, 3])
        low = dist.new_group([0, 1, 2])
        everyone = dist.new_group(list(range(n)))
        a = torch.full((1000,), float(me))
        b = torch.full((999,), float(me))
        c = torch.full((5,), float(me))
        wa = dist.all_reduce(a, group=odd, async_op=True) if me in (1, 3) else None
        wb = dist.all_reduce(b, group=low, async_op=True) if me < 3 else None
        wc = dist.all_reduce(c, group=everyone, async_op=True)
        for w in (wa, wb, wc):
            if w:
                w.wait()
        if me in (1, 3):
            expect(same(a, torch.full((1000,), 4.0)), "all_reduce on the group [1, 3]")
        if me < 3:
            expect(same(b, torch.full((999,), 3.0)), "all_reduce on the group [0, 1, 2]")
            t = torch.tensor([me], dtype=torch.int64)
            dist.broadcast(t, src=2, group=low)  # src is a global rank
            expect(t.item() == 2, "broadcast on a subgroup from global rank 2")
        expect(same(c, torch.full((5,), float(n * (n - 1) / 2))), "all_reduce on a group of everyone")
        if me == 1:
            dist.send(torch.full((9,), 11.0), dst=3, group=odd)  # dst is a global rank
        if me == 3:
            got = torch.empty(9)
            dist.recv(got, src=1, group=odd)
            expect(same(got, torch.full((9,), 11.0)), "send/recv on the group [1, 3]")

    dist.barrier()
    if me == 0:
        print(f"collectives: {checks.made} checks passed on {n} ranks ({os.environ.get('SHMEMCOMM_TRANSPORT', 'default')})")
    dist.destroy_process_group()


main()
