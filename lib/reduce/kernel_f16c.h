/*
 * fp16 conversions by F16C, eight at a time, for the vector variants: the
 * hardware rounds to nearest even, keeps subnormals, and quiets NaNs keeping
 * the payload's top bits, as sc_float_to_fp16 does (the unit test holds
 * them to it bit for bit).
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "reduce/dtype.h"

#define LOAD_FP16_BLOCK load_fp16_f16c
#define STORE_FP16_BLOCK store_fp16_f16c

/* (void pointers: the buffers may be at any byte) */
static inline void load_fp16_f16c(float *dst, const void *src, size_t n)
{
	const char *from = src;
	size_t j = 0;

	for (; j + 8 <= n; j += 8)
		_mm256_storeu_ps(dst + j,
				 _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(from + 2 * j))));
	for (; j < n; j++) {
		uint16_t h;

		memcpy(&h, from + 2 * j, sizeof(h));
		dst[j] = sc_fp16_to_float(h);
	}
}

static inline void store_fp16_f16c(void *dst, const float *src, size_t n)
{
	char *to = dst;
	size_t j = 0;

	for (; j + 8 <= n; j += 8)
		_mm_storeu_si128((__m128i *)(to + 2 * j),
				 _mm256_cvtps_ph(_mm256_loadu_ps(src + j), _MM_FROUND_TO_NEAREST_INT));
	for (; j < n; j++) {
		uint16_t h = sc_float_to_fp16(src[j]);

		memcpy(to + 2 * j, &h, sizeof(h));
	}
}
