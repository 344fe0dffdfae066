/* Choosing a kernel variant, and the streaming copy. */
#include <emmintrin.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reduce/kernel.h"

static const char *const simd_names[SC_SIMD_COUNT] = { "scalar", "avx2", "avx512" };

const char *sc_simd_name(enum sc_simd simd)
{
	return simd_names[simd];
}

int sc_simd_supported(enum sc_simd simd)
{
	__builtin_cpu_init();
	switch (simd) {
	case SC_SIMD_SCALAR:
		return 1;
	case SC_SIMD_AVX2:
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
	case SC_SIMD_AVX512:
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("f16c");
	default:
		return 0;
	}
}

int sc_simd_parse(const char *name, enum sc_simd *simd)
{
	int i;

	if (!name || !*name || !strcmp(name, "auto")) {
		*simd = sc_simd_supported(SC_SIMD_AVX512) ? SC_SIMD_AVX512 :
			sc_simd_supported(SC_SIMD_AVX2) ? SC_SIMD_AVX2 : SC_SIMD_SCALAR;
		return 0;
	}
	for (i = 0; i < SC_SIMD_COUNT; i++)
		if (!strcmp(name, simd_names[i]))
			break;
	if (i == SC_SIMD_COUNT)
		return -EINVAL;
	if (!sc_simd_supported((enum sc_simd)i))
		return -ENODEV;
	*simd = (enum sc_simd)i;
	return 0;
}

sc_kernel_fn sc_kernel(enum sc_simd simd, enum sc_dtype dtype, enum sc_op op)
{
	static const sc_kernel_fn (*const tables[SC_SIMD_COUNT])[SC_OP_ALL] = {
		sc_kernels_scalar, sc_kernels_avx2, sc_kernels_avx512,
	};

	if ((unsigned)simd >= SC_SIMD_COUNT || (unsigned)dtype >= SC_DTYPE_ALL ||
	    (unsigned)op >= SC_OP_ALL)
		return NULL;
	return tables[simd][dtype][op];
}

/* The widest stores this CPU has, looked up once (every caller finds the same). */
void sc_copy_streaming(void *dst, const void *src, size_t bytes)
{
	static void (*copy)(void *dst, const void *src, size_t bytes);
	void (*chosen)(void *, const void *, size_t) = __atomic_load_n(&copy, __ATOMIC_RELAXED);

	if (!chosen) {
		chosen = sc_simd_supported(SC_SIMD_AVX512) ? sc_copy_streaming_avx512 :
			 sc_simd_supported(SC_SIMD_AVX2) ? sc_copy_streaming_avx2 :
							   sc_copy_streaming_scalar;
		__atomic_store_n(&copy, chosen, __ATOMIC_RELAXED);
	}
	chosen(dst, src, bytes);
}

/* streaming stores are weakly ordered: they must be visible before any flag */
void sc_stream_fence(void)
{
	_mm_sfence();
}

void sc_copy(void *dst, const void *src, size_t bytes, int stream)
{
	if (!stream) {
		memcpy(dst, src, bytes);
		return;
	}
	sc_copy_streaming(dst, src, bytes);
	sc_stream_fence();
}
