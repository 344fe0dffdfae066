/*
 * What the reductions (kernel_body.h, partial.c) share: element types at
 * byte alignment, since user buffers need not be aligned, and min/max in
 * the one order every variant uses (the second operand wins only if it is
 * strictly beyond the first, which fixes what a NaN or a signed zero gives).
 */
#ifndef SHMEMCOMM_REDUCE_ELEMENTS_H
#define SHMEMCOMM_REDUCE_ELEMENTS_H

#include <stdint.h>

#include "reduce/dtype.h"

typedef float __attribute__((aligned(1))) u_float;
typedef double __attribute__((aligned(1))) u_double;
typedef long double __attribute__((aligned(1))) u_ldouble;
typedef uint16_t __attribute__((aligned(1))) u_u16;
typedef int8_t __attribute__((aligned(1))) u_i8;
typedef int16_t __attribute__((aligned(1))) u_i16;
typedef int32_t __attribute__((aligned(1))) u_i32;
typedef int64_t __attribute__((aligned(1))) u_i64;
typedef uint8_t __attribute__((aligned(1))) u_u8;
typedef uint32_t __attribute__((aligned(1))) u_u32;
typedef uint64_t __attribute__((aligned(1))) u_u64;

#define MIN(a, b) ((b) < (a) ? (b) : (a))
#define MAX(a, b) ((b) > (a) ? (b) : (a))

/*
 * The integer dtypes, for X(name, unaligned type, type, its unsigned type,
 * the accumulator of an exact avg)
 */
#define SC_INTEGER_DTYPES(X)                                      \
	X(int8, u_i8, int8_t, uint8_t, int64_t)                   \
	X(int16, u_i16, int16_t, uint16_t, int64_t)               \
	X(int32, u_i32, int32_t, uint32_t, int64_t)               \
	X(int64, u_i64, int64_t, uint64_t, __int128)              \
	X(uint8, u_u8, uint8_t, uint8_t, uint64_t)                \
	X(uint16, u_u16, uint16_t, uint16_t, uint64_t)            \
	X(uint32, u_u32, uint32_t, uint32_t, uint64_t)            \
	X(uint64, u_u64, uint64_t, uint64_t, unsigned __int128)

/* A table's rows by dtype: FLOAT_ROW(name) for the floats, INT_ROW(name) for the integers */
#define SC_DTYPE_ROWS(FLOAT_ROW, INT_ROW)                                  \
	[SC_FP32] = FLOAT_ROW(fp32),	[SC_FP64] = FLOAT_ROW(fp64),      \
	[SC_FP16] = FLOAT_ROW(fp16),	[SC_BF16] = FLOAT_ROW(bf16),      \
	[SC_INT8] = INT_ROW(int8),	[SC_INT16] = INT_ROW(int16),      \
	[SC_INT32] = INT_ROW(int32),	[SC_INT64] = INT_ROW(int64),      \
	[SC_UINT8] = INT_ROW(uint8),	[SC_UINT16] = INT_ROW(uint16),    \
	[SC_UINT32] = INT_ROW(uint32),	[SC_UINT64] = INT_ROW(uint64),    \
	[SC_LDOUBLE] = FLOAT_ROW(ldouble)

#endif
