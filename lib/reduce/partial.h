/*
 * Partial reductions, for algorithms that reduce in several steps (the
 * ring and recursive halving across nodes). A partial holds a reduction of
 * some of the inputs in a type wide enough that rounding happens once, at
 * the end, as the one-call kernels do: fp32 for fp16 and bf16, and for avg
 * the exact sum (integers widened as the kernels widen them). So
 *
 *   finish(combine(...combine(load(in0), load(in1))..., load(in[n-1])), n)
 *
 * is bit for bit the kernel's result on in0..in[n-1]; other orders of the
 * same inputs differ only as the dtype's own arithmetic is not associative
 * (floats), never by a second rounding.
 */
#ifndef SHMEMCOMM_REDUCE_PARTIAL_H
#define SHMEMCOMM_REDUCE_PARTIAL_H

#include <stddef.h>

#include "reduce/dtype.h"

struct sc_partial {
	size_t size;	/* bytes of one partial element; buffers of them are aligned to it */
	/* acc[i] = in[i], widened; @in may be unaligned */
	void (*load)(void *acc, const void *in, size_t count);
	/* acc[i] = acc[i] OP other[i] */
	void (*combine)(void *acc, const void *other, size_t count);
	/* out[i] = acc[i] as the dtype, rounded once (avg: divided by @nin first) */
	void (*finish)(void *out, const void *acc, size_t count, int nin);
};

/* The partial reduction of @op on @dtype; NULL if the pair is not defined. */
const struct sc_partial *sc_partial(enum sc_dtype dtype, enum sc_op op);

#endif
