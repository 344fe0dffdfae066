/*
 * The reduction kernels every collective uses: out[i] = in[0][i] OP ...
 * OP in[nin-1][i], in input order, for any alignment, with @out allowed to
 * be one of the inputs. One source (kernel_body.h) is compiled once per
 * instruction set; the variants must agree bit for bit, which holds because
 * each element sees the same operations in the same order (no fast-math, no
 * FMA contraction) and the conversions are exact or round-to-nearest-even.
 */
#ifndef SHMEMCOMM_REDUCE_KERNEL_H
#define SHMEMCOMM_REDUCE_KERNEL_H

#include <stddef.h>

#include "reduce/dtype.h"

typedef void (*sc_kernel_fn)(void *out, const void *const *in, int nin, size_t count);

enum sc_simd { SC_SIMD_SCALAR, SC_SIMD_AVX2, SC_SIMD_AVX512, SC_SIMD_COUNT };

#define SC_KERNEL_TABLE(SUFFIX) \
	extern const sc_kernel_fn sc_kernels_##SUFFIX[SC_DTYPE_ALL][SC_OP_ALL]
SC_KERNEL_TABLE(scalar);
SC_KERNEL_TABLE(avx2);
SC_KERNEL_TABLE(avx512);
/* sc_copy_streaming in each variant's widest stores (sc_copy_streaming picks one) */
void sc_copy_streaming_scalar(void *dst, const void *src, size_t bytes);
void sc_copy_streaming_avx2(void *dst, const void *src, size_t bytes);
void sc_copy_streaming_avx512(void *dst, const void *src, size_t bytes);

const char *sc_simd_name(enum sc_simd simd);
/* Whether this CPU runs @simd. */
int sc_simd_supported(enum sc_simd simd);
/*
 * The instruction set named by @name (SHMEMCOMM_SIMD: scalar, avx2, avx512),
 * or the best this CPU has for NULL, "" or "auto": 0, -EINVAL for an
 * unknown name, -ENODEV for one this CPU lacks.
 */
int sc_simd_parse(const char *name, enum sc_simd *simd);
/* The kernel for @dtype and @op in @simd; NULL if the pair is not defined. */
sc_kernel_fn sc_kernel(enum sc_simd simd, enum sc_dtype dtype, enum sc_op op);

/* memcpy, with streaming stores when @stream (a copy the CPU won't read back soon) */
void sc_copy(void *dst, const void *src, size_t bytes, int stream);
/*
 * The same with streaming stores and no fence: for a loop of copies, which
 * then calls sc_stream_fence once before it publishes. A fence after each
 * 8 KiB cost 3-5% of a 2-PE allreduce of 16 MiB.
 */
void sc_copy_streaming(void *dst, const void *src, size_t bytes);
/* Makes the streaming stores before it visible before any store after it (a flag). */
void sc_stream_fence(void);

#endif
