/*
 * The training collectives' data types and operations, chosen at run time,
 * and their reference reduction: out[i] = in[0][i] OP in[1][i] OP ... in
 * input order, so every rank that reduces the same inputs gets the same
 * bits. fp16 and bf16 accumulate in fp32 and round once (to nearest, ties
 * to even); integers wrap on sum and prod; avg divides the sum by the
 * number of inputs (integers: exact sum, truncated toward zero).
 */
#ifndef SHMEMCOMM_REDUCE_DTYPE_H
#define SHMEMCOMM_REDUCE_DTYPE_H

#include <stddef.h>
#include <stdint.h>

enum sc_dtype {
	SC_FP32, SC_FP64, SC_FP16, SC_BF16,
	SC_INT8, SC_INT16, SC_INT32, SC_INT64,
	SC_UINT8, SC_UINT16, SC_UINT32, SC_UINT64,
	SC_DTYPE_COUNT,
	/* for the OpenSHMEM long double reductions only */
	SC_LDOUBLE = SC_DTYPE_COUNT,
	SC_DTYPE_ALL
};

/* The bitwise ops apply to the integer types only. */
enum sc_op {
	SC_SUM, SC_PROD, SC_MIN, SC_MAX, SC_AVG, SC_BAND, SC_BOR, SC_BXOR,
	SC_OP_ALL,
	SC_OP_COUNT = SC_BAND	/* the training ops */
};

/* inline: every collective asks, several times a call, on its smallest paths */
extern const unsigned char sc_dtype_sizes[SC_DTYPE_ALL];
static inline size_t sc_dtype_size(enum sc_dtype dtype)
{
	return sc_dtype_sizes[dtype];
}
const char *sc_dtype_name(enum sc_dtype dtype);
const char *sc_op_name(enum sc_op op);
/* By name ("fp32", "bf16", "int8", ...; "sum", "avg", ...): 0 or -EINVAL. */
int sc_dtype_parse(const char *name, enum sc_dtype *dtype);
int sc_op_parse(const char *name, enum sc_op *op);

float sc_fp16_to_float(uint16_t h);
uint16_t sc_float_to_fp16(float f);
float sc_bf16_to_float(uint16_t b);
uint16_t sc_float_to_bf16(float f);

/*
 * The reference: reduces @nin inputs of @count elements into @out (may be an
 * input). It is the scalar kernel; the vector kernels must match it.
 */
void sc_reduce_reference(enum sc_dtype dtype, enum sc_op op, void *out,
			 const void *const *in, int nin, size_t count);

#endif
