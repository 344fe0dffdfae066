/*
 * Partial reductions (see partial.h). Plain loops: they run where the
 * network, not the CPU, sets the pace. The operations and widenings are
 * those of kernel_body.h, element by element, which the unit test holds
 * them to bit for bit.
 */
#include <stdint.h>

#include "reduce/elements.h"
#include "reduce/partial.h"


/* A partial of dtype UTYPE held as ATYPE; AVG: finish divides by the inputs. */
#define PARTIAL(NAME, UTYPE, ATYPE, TO_ACC, FROM_ACC, COMBINE, AVG)                         \
	static void NAME##_load(void *acc, const void *in, size_t count)                    \
	{                                                                                   \
		ATYPE *a = acc;                                                             \
		const UTYPE *x = in;                                                        \
		for (size_t i = 0; i < count; i++)                                          \
			a[i] = TO_ACC(x[i]);                                                \
	}                                                                                   \
	static void NAME##_combine(void *acc, const void *other, size_t count)              \
	{                                                                                   \
		ATYPE *a = acc;                                                             \
		const ATYPE *b = other;                                                     \
		for (size_t i = 0; i < count; i++)                                          \
			a[i] = COMBINE(a[i], b[i]);                                         \
	}                                                                                   \
	static void NAME##_finish(void *out, const void *acc, size_t count, int nin)        \
	{                                                                                   \
		UTYPE *o = out;                                                             \
		const ATYPE *a = acc;                                                       \
		for (size_t i = 0; i < count; i++)                                          \
			o[i] = FROM_ACC(AVG ? a[i] / (ATYPE)nin : a[i]);                    \
	}                                                                                   \
	static const struct sc_partial NAME = { sizeof(ATYPE), NAME##_load, NAME##_combine, \
						NAME##_finish };

#define SAME(x) (x)
#define F_SUM(a, b) ((a) + (b))
#define F_PROD(a, b) ((a) * (b))

static float bf16_to_float(uint16_t b)
{
	return sc_bf16_to_float(b);
}

/* floats: the type itself, or fp32 for the halves */
#define FLOAT_PARTIALS(T, UTYPE, ATYPE, TO, FROM)                           \
	PARTIAL(T##_sum, UTYPE, ATYPE, TO, FROM, F_SUM, 0)                  \
	PARTIAL(T##_prod, UTYPE, ATYPE, TO, FROM, F_PROD, 0)                \
	PARTIAL(T##_min, UTYPE, ATYPE, TO, FROM, MIN, 0)                    \
	PARTIAL(T##_max, UTYPE, ATYPE, TO, FROM, MAX, 0)                    \
	PARTIAL(T##_avg, UTYPE, ATYPE, TO, FROM, F_SUM, 1)

/* integers: sum and prod wrap in the unsigned type; avg sums exactly in WIDE */
#define INT_PARTIALS(T, UTYPE, TYPE, UNSIGNED, WIDE)                                       \
	static inline TYPE T##_fn_wrap_sum(TYPE a, TYPE b) { return (TYPE)((UNSIGNED)a + (UNSIGNED)b); } \
	static inline TYPE T##_fn_wrap_prod(TYPE a, TYPE b) { return (TYPE)((UNSIGNED)a * (UNSIGNED)b); } \
	static inline TYPE T##_fn_band(TYPE a, TYPE b) { return (TYPE)(a & b); }             \
	static inline TYPE T##_fn_bor(TYPE a, TYPE b) { return (TYPE)(a | b); }              \
	static inline TYPE T##_fn_bxor(TYPE a, TYPE b) { return (TYPE)(a ^ b); }             \
	PARTIAL(T##_sum, UTYPE, TYPE, SAME, (TYPE), T##_fn_wrap_sum, 0)                       \
	PARTIAL(T##_prod, UTYPE, TYPE, SAME, (TYPE), T##_fn_wrap_prod, 0)                     \
	PARTIAL(T##_min, UTYPE, TYPE, SAME, (TYPE), MIN, 0)                                \
	PARTIAL(T##_max, UTYPE, TYPE, SAME, (TYPE), MAX, 0)                                \
	PARTIAL(T##_avg, UTYPE, WIDE, (WIDE), (TYPE), F_SUM, 1)                            \
	PARTIAL(T##_band, UTYPE, TYPE, SAME, (TYPE), T##_fn_band, 0)                          \
	PARTIAL(T##_bor, UTYPE, TYPE, SAME, (TYPE), T##_fn_bor, 0)                            \
	PARTIAL(T##_bxor, UTYPE, TYPE, SAME, (TYPE), T##_fn_bxor, 0)

FLOAT_PARTIALS(fp32, u_float, float, SAME, SAME)
FLOAT_PARTIALS(fp64, u_double, double, SAME, SAME)
FLOAT_PARTIALS(ldouble, u_ldouble, long double, SAME, SAME)
FLOAT_PARTIALS(fp16, u_u16, float, sc_fp16_to_float, sc_float_to_fp16)
FLOAT_PARTIALS(bf16, u_u16, float, bf16_to_float, sc_float_to_bf16)
SC_INTEGER_DTYPES(INT_PARTIALS)

#define FLOAT_ROW(T) { &T##_sum, &T##_prod, &T##_min, &T##_max, &T##_avg, NULL, NULL, NULL }
#define INT_ROW(T) \
	{ &T##_sum, &T##_prod, &T##_min, &T##_max, &T##_avg, &T##_band, &T##_bor, &T##_bxor }

static const struct sc_partial *const partials[SC_DTYPE_ALL][SC_OP_ALL] = {
	SC_DTYPE_ROWS(FLOAT_ROW, INT_ROW),
};

const struct sc_partial *sc_partial(enum sc_dtype dtype, enum sc_op op)
{
	if ((unsigned)dtype >= SC_DTYPE_ALL || (unsigned)op >= SC_OP_ALL)
		return NULL;
	return partials[dtype][op];
}
