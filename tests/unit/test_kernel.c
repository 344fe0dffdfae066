/*
 * The vector kernels against the scalar ones, bit for bit: every dtype
 * (with the OpenSHMEM long double) and op, 1 to 9 inputs, counts around the
 * block and vector sizes, inputs at every byte offset, and the output
 * aliasing an input. Floats include infinities, signed zeros, subnormals
 * and a quiet NaN. Each variant this CPU lacks is reported as skipped.
 * The partial reductions (load, combine in input order, finish) must give
 * the scalar kernel's bits too: they round once, as it does.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "reduce/kernel.h"
#include "reduce/partial.h"

#define MAX_IN 9
#define MAX_COUNT 1100
#define ELEM_MAX 16

static uint32_t rng = 88172645u;

static uint32_t next(void)
{
	return xorshift32(&rng);
}

static const float specials[] = { INFINITY, -INFINITY, -0.0f, 0.0f, 1e-40f, -3e-39f, NAN };

/* one element of @dtype at @p: mostly ordinary values, some special ones */
static void fill(enum sc_dtype dtype, unsigned char *p)
{
	float f = (float)((int)(next() % 4001) - 2000) / 64.0f;
	double d = (double)((int)(next() % 4001) - 2000) / 3.0;
	uint64_t bits = (uint64_t)next() << 32 | next();

	if (next() % 16 == 0) {
		f = specials[next() % (sizeof(specials) / sizeof(specials[0]))];
		d = f;
	}
	switch (dtype) {
	case SC_FP32: memcpy(p, &f, 4); break;
	case SC_FP64: memcpy(p, &d, 8); break;
	case SC_LDOUBLE: { long double l = d; memset(p, 0, 16); memcpy(p, &l, 10); break; }
	case SC_FP16: { uint16_t h = sc_float_to_fp16(f); memcpy(p, &h, 2); break; }
	case SC_BF16: { uint16_t h = sc_float_to_bf16(f); memcpy(p, &h, 2); break; }
	default: memcpy(p, &bits, sc_dtype_size(dtype)); break;
	}
}

/* long double's six padding bytes are not part of the value */
static int same(enum sc_dtype dtype, const unsigned char *a, const unsigned char *b, size_t count)
{
	size_t elem = sc_dtype_size(dtype);

	for (size_t i = 0; i < count; i++)
		if (memcmp(a + i * elem, b + i * elem, dtype == SC_LDOUBLE ? 10 : elem))
			return 0;
	return 1;
}

static unsigned char inputs[MAX_IN][MAX_COUNT * ELEM_MAX + 64];
static unsigned char want[MAX_COUNT * ELEM_MAX + 64], got[MAX_COUNT * ELEM_MAX + 64];
static unsigned char alias_want[MAX_COUNT * ELEM_MAX + 64];

/* @nin inputs of @count elements at byte @offset, each one byte further with @stagger */
static void fill_inputs(enum sc_dtype dt, int nin, size_t count, size_t offset, int stagger,
			const void **in)
{
	size_t elem = sc_dtype_size(dt);

	for (int k = 0; k < nin; k++) {
		size_t koff = (offset + (stagger ? (size_t)k : 0)) % 8;

		for (size_t i = 0; i < count; i++)
			fill(dt, inputs[k] + koff + i * elem);
		in[k] = inputs[k] + koff;
	}
}

static void check_variant(enum sc_simd simd)
{
	static const size_t counts[] = { 0, 1, 7, 8, 15, 31, 255, 256, 257, 1021, MAX_COUNT };
	static const int nins[] = { 1, 2, 3, 8, MAX_IN };
	unsigned long cases = 0;

	for (int dt = 0; dt < SC_DTYPE_ALL; dt++) {
		size_t elem = sc_dtype_size((enum sc_dtype)dt);

		for (int op = 0; op < SC_OP_ALL; op++) {
			sc_kernel_fn ref = sc_kernel(SC_SIMD_SCALAR, dt, op);
			sc_kernel_fn fast = sc_kernel(simd, dt, op);

			CHECK(!ref == !fast);
			if (!ref)
				continue;
			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
				for (size_t ni = 0; ni < sizeof(nins) / sizeof(nins[0]); ni++) {
					size_t count = counts[c], offset = next() % 8;
					int nin = nins[ni];
					const void *in[MAX_IN];

					fill_inputs(dt, nin, count, offset, 1, in);
					ref(want + offset, in, nin, count);
					fast(got + offset, in, nin, count);
					if (!same(dt, want + offset, got + offset, count))
						FAIL("%s %s %s: %zu elements of %d inputs at offset %zu differ from scalar",
						     sc_simd_name(simd), sc_dtype_name(dt), sc_op_name(op),
						     count, nin, offset);
					/* in place: the output is the last input */
					memcpy(alias_want, want + offset, count * elem);
					fast((void *)in[nin - 1], in, nin, count);
					if (!same(dt, alias_want, in[nin - 1], count))
						FAIL("%s %s %s: in place, %zu elements of %d inputs differ",
						     sc_simd_name(simd), sc_dtype_name(dt), sc_op_name(op),
						     count, nin);
					cases++;
				}
		}
	}
	printf("ok - %s kernels equal the scalar kernels bit for bit (%lu cases)\n",
	       sc_simd_name(simd), cases);
}

static void check_partials(void)
{
	static const size_t counts[] = { 1, 7, 257, MAX_COUNT };
	static const int nins[] = { 1, 2, 3, MAX_IN };
	static _Alignas(16) unsigned char acc[MAX_COUNT * 16], other[MAX_COUNT * 16];
	unsigned long cases = 0;

	for (int dt = 0; dt < SC_DTYPE_ALL; dt++) {
		size_t elem = sc_dtype_size((enum sc_dtype)dt);

		for (int op = 0; op < SC_OP_ALL; op++) {
			sc_kernel_fn ref = sc_kernel(SC_SIMD_SCALAR, dt, op);
			const struct sc_partial *p = sc_partial(dt, op);

			CHECK(!ref == !p);
			if (!p)
				continue;
			CHECK(p->size >= elem && p->size <= 16);
			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
				for (size_t ni = 0; ni < sizeof(nins) / sizeof(nins[0]); ni++) {
					size_t count = counts[c], offset = next() % 8;
					int nin = nins[ni];
					const void *in[MAX_IN];

					fill_inputs(dt, nin, count, offset, 0, in);
					ref(want + offset, in, nin, count);
					p->load(acc, in[0], count);
					for (int k = 1; k < nin; k++) {
						p->load(other, in[k], count);
						p->combine(acc, other, count);
					}
					p->finish(got + offset, acc, count, nin);
					if (!same(dt, want + offset, got + offset, count))
						FAIL("partial %s %s: %zu elements of %d inputs differ from the kernel",
						     sc_dtype_name(dt), sc_op_name(op), count, nin);
					cases++;
				}
		}
	}
	printf("ok - partial reductions equal the scalar kernels bit for bit (%lu cases)\n",
	       cases);
}

/*
 * Each variant's streaming copy moves exactly the bytes asked, at every
 * alignment of source and destination and every length around its 64-byte
 * blocks and its 256-byte threshold, and touches nothing beside them.
 */
static void check_streaming_copies(void)
{
	static void (*const copies[SC_SIMD_COUNT])(void *, const void *, size_t) = {
		sc_copy_streaming_scalar, sc_copy_streaming_avx2, sc_copy_streaming_avx512,
	};
	static const size_t lengths[] = { 0, 1, 63, 64, 255, 256, 257, 320, 4095, 4096, 9000 };
	static unsigned char src[10240], dst[10240], want[10240];
	unsigned long cases = 0;
	uint32_t seed = 7;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)xorshift32(&seed);
	for (int simd = 0; simd < SC_SIMD_COUNT; simd++) {
		if (!sc_simd_supported(simd))
			continue;
		for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++)
			for (size_t from = 0; from < 64; from += 13)
				for (size_t to = 0; to < 64; to += 7) {
					memset(dst, 0xa5, sizeof(dst));
					memcpy(want, dst, sizeof(want));
					memcpy(want + 64 + to, src + from, lengths[l]);
					copies[simd](dst + 64 + to, src + from, lengths[l]);
					sc_stream_fence();
					if (memcmp(dst, want, sizeof(dst)))
						FAIL("%s streaming copy of %zu bytes, source +%zu, destination +%zu: wrong bytes",
						     sc_simd_name(simd), lengths[l], from, to);
					cases++;
				}
	}
	sc_copy_streaming(dst, src, 5000);
	sc_stream_fence();
	CHECK(!memcmp(dst, src, 5000));
	printf("ok - the streaming copies move exactly their bytes (%lu cases)\n", cases);
}

int main(void)
{
	int ran = 0;

	for (int simd = SC_SIMD_AVX2; simd < SC_SIMD_COUNT; simd++) {
		if (!sc_simd_supported(simd)) {
			printf("skip - %s: this CPU lacks it\n", sc_simd_name(simd));
			continue;
		}
		check_variant(simd);
		ran++;
	}
	check_partials();
	check_streaming_copies();
	/* the scalar kernels are the reference: they must also be in the table */
	CHECK(sc_kernel(SC_SIMD_SCALAR, SC_FP32, SC_SUM) == sc_kernels_scalar[SC_FP32][SC_SUM]);
	CHECK(!sc_kernel(SC_SIMD_SCALAR, SC_FP32, SC_BAND));
	CHECK(ran > 0 || !sc_simd_supported(SC_SIMD_AVX2));
	return 0;
}
