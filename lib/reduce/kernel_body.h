/*
 * The body of every reduction kernel, compiled by kernel_{scalar,avx2,avx512}.c
 * with SUFFIX set, under their instruction sets. Work goes in blocks: the
 * block's accumulators load input 0, then fold in each further input in
 * order, then are stored, so the compiler vectorizes across elements while
 * each element keeps the reference order, and @out may alias an input.
 *
 * Before including, a variant defines SUFFIX, and LOAD_FP16_BLOCK /
 * STORE_FP16_BLOCK if it has faster fp16 conversions.
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "reduce/elements.h"
#include "reduce/kernel.h"

/* block copies must stay vector loops: rep movs is slow on lines held by another core */
#pragma GCC optimize("no-tree-loop-distribute-patterns")
/*
 * and the folds of further inputs vector loops: O3's unroll-and-jam fused
 * two inputs' folds into one loop that GCC 12 left scalar, so that 8 fp32
 * inputs took twice what a chain of two-input calls takes, and 4 int32
 * inputs 2.6 times what they take now
 */
#pragma GCC optimize("no-loop-unroll-and-jam")

#define BLOCK 256

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define NAME(x) CAT(x##_, SUFFIX)

#define F_sum(a, b) ((a) + (b))
#define F_avg(a, b) ((a) + (b))
#define F_prod(a, b) ((a) * (b))
#define F_min(a, b) MIN(a, b)
#define F_max(a, b) MAX(a, b)
#define F_band(a, b) ((a) & (b))
#define F_bor(a, b) ((a) | (b))
#define F_bxor(a, b) ((a) ^ (b))
#define IS_AVG_sum 0
#define IS_AVG_prod 0
#define IS_AVG_min 0
#define IS_AVG_max 0
#define IS_AVG_avg 1
#define IS_AVG_band 0
#define IS_AVG_bor 0
#define IS_AVG_bxor 0

#ifndef LOAD_FP16_BLOCK
static inline void NAME(load_fp16)(float *dst, const u_u16 *src, size_t n)
{
	for (size_t j = 0; j < n; j++)
		dst[j] = sc_fp16_to_float(src[j]);
}

static inline void NAME(store_fp16)(u_u16 *dst, const float *src, size_t n)
{
	for (size_t j = 0; j < n; j++)
		dst[j] = sc_float_to_fp16(src[j]);
}
#define LOAD_FP16_BLOCK NAME(load_fp16)
#define STORE_FP16_BLOCK NAME(store_fp16)
#endif

static inline void NAME(load_bf16)(float *dst, const u_u16 *src, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		uint32_t u = (uint32_t)src[j] << 16;

		memcpy(&dst[j], &u, sizeof(u));
	}
}

/* as sc_float_to_bf16, without a branch so that it vectorizes */
static inline void NAME(store_bf16)(u_u16 *dst, const float *src, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		uint32_t u;

		memcpy(&u, &src[j], sizeof(u));
		uint32_t nan = (u & 0x7fffffff) > 0x7f800000;
		uint32_t rounded = (u + 0x7fff + ((u >> 16) & 1)) >> 16;

		dst[j] = (uint16_t)(nan ? (u >> 16) | 0x40 : rounded);
	}
}

/*
 * fp32, fp64 and long double: accumulate in the type itself. Two inputs,
 * the common case (two PEs, or a pair's step), go straight to @out: each
 * element is read before it is written, so @out may still be either input,
 * and the pass through the accumulators is saved: half the instructions
 * (fp32 sum of 512 B: 252 a call, now 127), and at 2 PEs 4 KiB-16 MiB
 * 5-25% faster (shmemcomm-perf, in place and not). More inputs go through
 * the accumulators three, then two at a time, each element still in input
 * order: a pass over the block per input cost a load and a store of it
 * each time (8 KiB of 4 fp32 inputs: 12-13 us, now 8).
 */
#define NATIVE_FLOAT(TNAME, UTYPE, TYPE, OP)                                                \
	static void NAME(TNAME##_##OP)(void *out, const void *const *in, int nin, size_t count) \
	{                                                                                   \
		TYPE acc[BLOCK];                                                            \
		if (nin == 2) {                                                             \
			const UTYPE *first = in[0], *second = in[1];                        \
			UTYPE *dst = out;                                                   \
			for (size_t j = 0; j < count; j++)                                  \
				dst[j] = IS_AVG_##OP ? F_##OP((TYPE)first[j], second[j]) / (TYPE)2 \
						     : F_##OP((TYPE)first[j], second[j]);   \
			return;                                                             \
		}                                                                           \
		for (size_t base = 0; base < count; base += BLOCK) {                        \
			size_t m = count - base < BLOCK ? count - base : BLOCK;             \
			const UTYPE *first = (const UTYPE *)in[0] + base;                   \
			int k = 1; /* one input, or three and more: two went above */       \
			if (nin > 2) {                                                      \
				const UTYPE *second = (const UTYPE *)in[1] + base;          \
				const UTYPE *third = (const UTYPE *)in[2] + base;           \
				for (size_t j = 0; j < m; j++)                              \
					acc[j] = F_##OP(F_##OP((TYPE)first[j], second[j]),  \
							third[j]);                          \
				k = 3;                                                      \
			} else {                                                            \
				for (size_t j = 0; j < m; j++)                              \
					acc[j] = first[j];                                  \
			}                                                                   \
			for (; k + 1 < nin; k += 2) {                                       \
				const UTYPE *a = (const UTYPE *)in[k] + base;               \
				const UTYPE *b = (const UTYPE *)in[k + 1] + base;           \
				for (size_t j = 0; j < m; j++)                              \
					acc[j] = F_##OP(F_##OP(acc[j], a[j]), b[j]);        \
			}                                                                   \
			if (k < nin) {                                                      \
				const UTYPE *src = (const UTYPE *)in[k] + base;             \
				for (size_t j = 0; j < m; j++)                              \
					acc[j] = F_##OP(acc[j], src[j]);                    \
			}                                                                   \
			UTYPE *dst = (UTYPE *)out + base;                                   \
			if (IS_AVG_##OP)                                                    \
				for (size_t j = 0; j < m; j++)                              \
					acc[j] /= (TYPE)nin;                                \
			for (size_t j = 0; j < m; j++)                                      \
				dst[j] = acc[j];                                            \
		}                                                                           \
	}

/* fp16 and bf16: through fp32 accumulators, rounded once */
#define HALF_FLOAT(TNAME, LOADB, STOREB, OP)                                                \
	static void NAME(TNAME##_##OP)(void *out, const void *const *in, int nin, size_t count) \
	{                                                                                   \
		float acc[BLOCK], v[BLOCK];                                                 \
		for (size_t base = 0; base < count; base += BLOCK) {                        \
			size_t m = count - base < BLOCK ? count - base : BLOCK;             \
			LOADB(acc, (const u_u16 *)in[0] + base, m);                         \
			for (int k = 1; k < nin; k++) {                                     \
				LOADB(v, (const u_u16 *)in[k] + base, m);                   \
				for (size_t j = 0; j < m; j++)                              \
					acc[j] = F_##OP(acc[j], v[j]);                      \
			}                                                                   \
			if (IS_AVG_##OP)                                                    \
				for (size_t j = 0; j < m; j++)                              \
					acc[j] /= (float)nin;                               \
			STOREB((u_u16 *)out + base, acc, m);                                \
		}                                                                           \
	}

/*
 * Integers: sum and prod wrap (done in the unsigned type); avg divides the
 * exact sum, held in WIDE, truncating toward zero.
 */
#define INTEGER(TNAME, UTYPE, TYPE, UNSIGNED, WIDE, OP)                                     \
	static void NAME(TNAME##_##OP)(void *out, const void *const *in, int nin, size_t count) \
	{                                                                                   \
		WIDE acc[BLOCK];                                                            \
		for (size_t base = 0; base < count; base += BLOCK) {                        \
			size_t m = count - base < BLOCK ? count - base : BLOCK;             \
			const UTYPE *first = (const UTYPE *)in[0] + base;                   \
			for (size_t j = 0; j < m; j++)                                      \
				acc[j] = (WIDE)first[j];                                    \
			for (int k = 1; k < nin; k++) {                                     \
				const UTYPE *src = (const UTYPE *)in[k] + base;             \
				for (size_t j = 0; j < m; j++)                              \
					acc[j] = (WIDE)INT_##OP(TYPE, UNSIGNED, acc[j], src[j]); \
			}                                                                   \
			UTYPE *dst = (UTYPE *)out + base;                                   \
			for (size_t j = 0; j < m; j++)                                      \
				dst[j] = (TYPE)(IS_AVG_##OP ? acc[j] / (WIDE)nin : acc[j]); \
		}                                                                           \
	}
#define INT_sum(T, U, a, b) (T)((U)(a) + (U)(b))
#define INT_prod(T, U, a, b) (T)((U)(a) * (U)(b))
#define INT_min(T, U, a, b) MIN((T)(a), (T)(b))
#define INT_max(T, U, a, b) MAX((T)(a), (T)(b))
#define INT_band(T, U, a, b) (T)((T)(a) & (T)(b))
#define INT_bor(T, U, a, b) (T)((T)(a) | (T)(b))
#define INT_bxor(T, U, a, b) (T)((T)(a) ^ (T)(b))
#define INT_avg(T, U, a, b) ((a) + (b))

/* avg needs a wider accumulator than the type; the others keep the type */
#define INTEGER_OPS(TNAME, UTYPE, TYPE, UNSIGNED, WIDE)                  \
	INTEGER(TNAME, UTYPE, TYPE, UNSIGNED, TYPE, sum)                 \
	INTEGER(TNAME, UTYPE, TYPE, UNSIGNED, TYPE, prod)                \
	INTEGER(TNAME, UTYPE, TYPE, UNSIGNED, TYPE, min)                 \
	INTEGER(TNAME, UTYPE, TYPE, UNSIGNED, TYPE, max)                 \
	INTEGER(TNAME, UTYPE, TYPE, UNSIGNED, WIDE, avg)                 \
	INTEGER(TNAME, UTYPE, TYPE, UNSIGNED, TYPE, band)                \
	INTEGER(TNAME, UTYPE, TYPE, UNSIGNED, TYPE, bor)                 \
	INTEGER(TNAME, UTYPE, TYPE, UNSIGNED, TYPE, bxor)
#define FLOAT_OPS(X, TNAME, A, B) \
	X(TNAME, A, B, sum) X(TNAME, A, B, prod) X(TNAME, A, B, min) X(TNAME, A, B, max) \
	X(TNAME, A, B, avg)

FLOAT_OPS(NATIVE_FLOAT, fp32, u_float, float)
FLOAT_OPS(NATIVE_FLOAT, fp64, u_double, double)
FLOAT_OPS(NATIVE_FLOAT, ldouble, u_ldouble, long double)
FLOAT_OPS(HALF_FLOAT, fp16, LOAD_FP16_BLOCK, STORE_FP16_BLOCK)
FLOAT_OPS(HALF_FLOAT, bf16, NAME(load_bf16), NAME(store_bf16))
SC_INTEGER_DTYPES(INTEGER_OPS)

#define FLOAT_ROW(TNAME)                                                          \
	{ NAME(TNAME##_sum), NAME(TNAME##_prod), NAME(TNAME##_min), NAME(TNAME##_max), \
	  NAME(TNAME##_avg), NULL, NULL, NULL }
#define INT_ROW(TNAME)                                                            \
	{ NAME(TNAME##_sum), NAME(TNAME##_prod), NAME(TNAME##_min), NAME(TNAME##_max), \
	  NAME(TNAME##_avg), NAME(TNAME##_band), NAME(TNAME##_bor), NAME(TNAME##_bxor) }

const sc_kernel_fn CAT(sc_kernels_, SUFFIX)[SC_DTYPE_ALL][SC_OP_ALL] = {
	SC_DTYPE_ROWS(FLOAT_ROW, INT_ROW),
};

/*
 * The streaming copy (sc_copy_streaming) in this variant's widest stores.
 * A whole line in one store fills a write-combining buffer at once: the
 * allreduce's pattern at 64 MiB (2 threads, each reducing half of two
 * inputs into 1 KiB blocks streamed into two results) took 6.9 ms with
 * 64-byte stores and 7.8 with 16-byte ones.
 */
void NAME(sc_copy_streaming)(void *dst, const void *src, size_t bytes)
{
	char *d = dst;
	const char *s = src;
	size_t head = (64 - ((uintptr_t)d & 63)) & 63;

	if (bytes < 256) {
		memcpy(dst, src, bytes);
		return;
	}
	memcpy(d, s, head);
	d += head;
	s += head;
	bytes -= head;
	for (; bytes >= 64; bytes -= 64, d += 64, s += 64) {
#if defined(__AVX512F__)
		_mm512_stream_si512((__m512i *)d, _mm512_loadu_si512(s));
#elif defined(__AVX2__)
		_mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
		_mm256_stream_si256((__m256i *)(d + 32),
				    _mm256_loadu_si256((const __m256i *)(s + 32)));
#else
		for (int i = 0; i < 64; i += 16)
			_mm_stream_si128((__m128i *)(d + i),
					 _mm_loadu_si128((const __m128i *)(s + i)));
#endif
	}
	memcpy(d, s, bytes);
}
