/*
 * Reduction kernels, one per type and operation, shared by every collective
 * algorithm: acc[i] = acc[i] OP in[i].
 */
#ifndef SHMEMCOMM_REDUCE_REDUCE_H
#define SHMEMCOMM_REDUCE_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "shmem.h"

typedef void (*sc_reduce_fn)(void *acc, const void *in, size_t count);

#define SC_DECLARE_KERNEL(NAME, TYPE, OP) \
	void sc_reduce_##NAME##_##OP(void *acc, const void *in, size_t count);
#define SC_DECLARE_BITWISE_KERNELS(NAME, TYPE) SHMEMCOMM_BITWISE_OPS(SC_DECLARE_KERNEL, NAME, TYPE)
#define SC_DECLARE_ORDERED_KERNELS(NAME, TYPE) SHMEMCOMM_ORDERED_OPS(SC_DECLARE_KERNEL, NAME, TYPE)
SHMEMCOMM_REDUCE_BITWISE_TYPES(SC_DECLARE_BITWISE_KERNELS)
SHMEMCOMM_REDUCE_ORDERED_TYPES(SC_DECLARE_ORDERED_KERNELS)

#endif
