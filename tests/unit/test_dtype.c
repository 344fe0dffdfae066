/* The training dtypes: fp16 and bf16 conversions against independent
 * references (the compiler's _Float16; a nearest-neighbour search for
 * bf16), and the reference reduction for every dtype and op, with fp16/bf16
 * accumulating in fp32 and rounding once, and integers wrapping. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "reduce/dtype.h"

static uint32_t rng = 2463534242u;

static uint32_t next(void)
{
	return xorshift32(&rng);
}

static float float_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint16_t gcc_fp16(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t u;

	memcpy(&u, &h, sizeof(u));
	return u;
}

static float gcc_fp16_value(uint16_t u)
{
	_Float16 h;

	memcpy(&h, &u, sizeof(h));
	return (float)h;
}

/* bf16 by search: the nearer of the two neighbours, ties to the even one */
static uint16_t nearest_bf16(float f)
{
	uint32_t u;
	double d = f, below, above;
	uint16_t lo;

	memcpy(&u, &f, sizeof(u));
	lo = (uint16_t)(u >> 16);
	below = sc_bf16_to_float(lo);
	above = ((lo + 1) & 0x7fff) == 0x7f80 ? copysign(ldexp(1.0, 128), d) :
						  sc_bf16_to_float((uint16_t)(lo + 1));
	if (fabs(d - below) < fabs(above - d) || (fabs(d - below) == fabs(above - d) && !(lo & 1)))
		return lo;
	return (uint16_t)(lo + 1);
}

static void fp16_conversions(void)
{
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = sc_fp16_to_float((uint16_t)h);

		if (isnan(f)) {
			CHECK(isnan(gcc_fp16_value((uint16_t)h)));
			CHECK(isnan(sc_fp16_to_float(sc_float_to_fp16(f))));
			continue;
		}
		CHECK(f == gcc_fp16_value((uint16_t)h) || (f == 0 && gcc_fp16_value((uint16_t)h) == 0));
		CHECK_EQ(sc_float_to_fp16(f), h);
	}
	for (int i = 0; i < 200000; i++) {
		/* exponents around fp16's range, where rounding and subnormals happen */
		uint32_t u = (next() & 0x807fffff) | ((uint32_t)(100 + next() % 50) << 23);
		float f = float_bits(u);

		if (sc_float_to_fp16(f) != gcc_fp16(f))
			FAIL("fp16(%a): %#x, the compiler says %#x", f, sc_float_to_fp16(f), gcc_fp16(f));
	}
	CHECK_EQ(sc_float_to_fp16(65520.0f), 0x7c00);	/* the first value that rounds to inf */
	CHECK_EQ(sc_float_to_fp16(65519.0f), 0x7bff);
	CHECK_EQ(sc_float_to_fp16(-0.0f), 0x8000);
}

static void bf16_conversions(void)
{
	for (int i = 0; i < 200000; i++) {
		float f = float_bits(next());

		if (isnan(f)) {
			CHECK(isnan(sc_bf16_to_float(sc_float_to_bf16(f))));
			continue;
		}
		if (sc_float_to_bf16(f) != nearest_bf16(f))
			FAIL("bf16(%a): %#x, the nearest is %#x", f, sc_float_to_bf16(f), nearest_bf16(f));
	}
	CHECK_EQ(sc_float_to_bf16(float_bits(0x3f808000)), 0x3f80);	/* tie, to even */
	CHECK_EQ(sc_float_to_bf16(float_bits(0x3f818000)), 0x3f82);	/* tie, to even */
	CHECK_EQ(sc_float_to_bf16(float_bits(0x7f7fffff)), 0x7f80);	/* overflow */
}

#define NIN 3
#define COUNT 257

static void half_reductions(enum sc_dtype dtype)
{
	uint16_t in[NIN][COUNT], out[COUNT];
	const void *ptrs[NIN] = { in[0], in[1], in[2] };

	for (int k = 0; k < NIN; k++)
		for (int i = 0; i < COUNT; i++) {
			float v = (float)((int)(next() % 2000) - 1000) / 7.0f;

			in[k][i] = dtype == SC_FP16 ? gcc_fp16(v) : nearest_bf16(v);
		}
	for (int op = 0; op < SC_OP_COUNT; op++) {
		sc_reduce_reference(dtype, op, out, ptrs, NIN, COUNT);
		for (int i = 0; i < COUNT; i++) {
			float acc = dtype == SC_FP16 ? gcc_fp16_value(in[0][i]) :
						       sc_bf16_to_float(in[0][i]);

			for (int k = 1; k < NIN; k++) {
				float v = dtype == SC_FP16 ? gcc_fp16_value(in[k][i]) :
							     sc_bf16_to_float(in[k][i]);

				acc = op == SC_SUM || op == SC_AVG ? acc + v : op == SC_PROD ? acc * v :
				      op == SC_MIN ? fminf(acc, v) : fmaxf(acc, v);
			}
			if (op == SC_AVG)
				acc /= NIN;
			/* one rounding, at the end */
			uint16_t want = dtype == SC_FP16 ? gcc_fp16(acc) : nearest_bf16(acc);

			if (out[i] != want)
				FAIL("%s %s element %d: %#x, want %#x", sc_dtype_name(dtype),
				     sc_op_name(op), i, out[i], want);
		}
	}
}

static void integer_reductions(void)
{
	int8_t a[3] = { 100, -3, 7 }, b[3] = { 100, -4, 7 }, c[3] = { 100, 0, 7 }, out[3];
	const void *in[3] = { a, b, c };
	uint64_t x[1] = { 1ull << 40 }, y[1] = { 1ull << 30 }, z[1];
	const void *xy[2] = { x, y };

	sc_reduce_reference(SC_INT8, SC_SUM, out, in, 3, 3);
	CHECK_EQ(out[0], (int8_t)44);	/* 300 wraps */
	CHECK_EQ(out[1], -7);
	sc_reduce_reference(SC_INT8, SC_AVG, out, in, 3, 3);
	CHECK_EQ(out[0], 100);	/* the exact sum, not the wrapped one */
	CHECK_EQ(out[1], -2);	/* -7 / 3 truncates toward zero */
	sc_reduce_reference(SC_INT8, SC_MIN, out, in, 3, 3);
	CHECK_EQ(out[1], -4);
	sc_reduce_reference(SC_INT8, SC_MAX, out, in, 3, 3);
	CHECK_EQ(out[1], 0);
	sc_reduce_reference(SC_UINT64, SC_PROD, z, xy, 2, 1);
	CHECK_EQ(z[0], 0);	/* 2^70 wraps to 0 */
	/* in place: out is an input */
	sc_reduce_reference(SC_INT8, SC_SUM, a, in, 3, 3);
	CHECK_EQ(a[2], 21);
}

static void float_reductions_keep_input_order(void)
{
	float big[1] = { 1e8f }, small[1] = { 1.0f }, neg[1] = { -1e8f }, out[1];
	const void *order1[3] = { big, small, neg }, *order2[3] = { big, neg, small };

	/* fp32 addition does not associate: the order is part of the result */
	sc_reduce_reference(SC_FP32, SC_SUM, out, order1, 3, 1);
	CHECK(out[0] == 0.0f);
	sc_reduce_reference(SC_FP32, SC_SUM, out, order2, 3, 1);
	CHECK(out[0] == 1.0f);
}

static void names(void)
{
	for (int d = 0; d < SC_DTYPE_COUNT; d++) {
		enum sc_dtype back;

		CHECK_OK(sc_dtype_parse(sc_dtype_name(d), &back));
		CHECK_EQ(back, d);
	}
	for (int o = 0; o < SC_OP_COUNT; o++) {
		enum sc_op back;

		CHECK_OK(sc_op_parse(sc_op_name(o), &back));
		CHECK_EQ(back, o);
	}
	enum sc_dtype d;

	CHECK_ERR(sc_dtype_parse("fp8", &d), EINVAL);
	CHECK_EQ(sc_dtype_size(SC_BF16), 2);
	CHECK_EQ(sc_dtype_size(SC_UINT64), 8);
}

int main(void)
{
	names();
	fp16_conversions();
	bf16_conversions();
	half_reductions(SC_FP16);
	half_reductions(SC_BF16);
	integer_reductions();
	float_reductions_keep_input_order();
	return 0;
}
