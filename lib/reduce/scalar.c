/*
 * The reference kernels: plain loops, which the compiler vectorizes where
 * the type allows. Faster kernels must agree with these.
 */
#include "reduce/reduce.h"

#define OP_and(a, b) ((a) & (b))
#define OP_or(a, b) ((a) | (b))
#define OP_xor(a, b) ((a) ^ (b))
#define OP_min(a, b) ((b) < (a) ? (b) : (a))
#define OP_max(a, b) ((b) > (a) ? (b) : (a))
#define OP_sum(a, b) ((a) + (b))
#define OP_prod(a, b) ((a) * (b))

#define DEFINE_KERNEL(NAME, TYPE, OP)                                               \
	void sc_reduce_##NAME##_##OP(void *acc, const void *in, size_t count)       \
	{                                                                           \
		TYPE *restrict a = acc;                                             \
		const TYPE *restrict b = in;                                        \
		for (size_t i = 0; i < count; i++)                                  \
			a[i] = (TYPE)OP_##OP(a[i], b[i]);                           \
	}
#define DEFINE_BITWISE_KERNELS(NAME, TYPE) SHMEMCOMM_BITWISE_OPS(DEFINE_KERNEL, NAME, TYPE)
#define DEFINE_ORDERED_KERNELS(NAME, TYPE) SHMEMCOMM_ORDERED_OPS(DEFINE_KERNEL, NAME, TYPE)
SHMEMCOMM_REDUCE_BITWISE_TYPES(DEFINE_BITWISE_KERNELS)
SHMEMCOMM_REDUCE_ORDERED_TYPES(DEFINE_ORDERED_KERNELS)
