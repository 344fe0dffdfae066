/*
 * What the reductions (kernel_body.h, partial.c) share: element types at
 * byte alignment, since user buffers need not be aligned, and min/max in
 * the one order every variant uses (the second operand wins only if it is
 * strictly beyond the first, which fixes what a NaN or a signed zero gives).
 */
#ifndef SHMEMCOMM_REDUCE_ELEMENTS_H
#define SHMEMCOMM_REDUCE_ELEMENTS_H

#include <stdint.h>

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

#endif
