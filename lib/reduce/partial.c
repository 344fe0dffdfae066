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
INT_PARTIALS(int8, u_i8, int8_t, uint8_t, int64_t)
INT_PARTIALS(int16, u_i16, int16_t, uint16_t, int64_t)
INT_PARTIALS(int32, u_i32, int32_t, uint32_t, int64_t)
INT_PARTIALS(int64, u_i64, int64_t, uint64_t, __int128)
INT_PARTIALS(uint8, u_u8, uint8_t, uint8_t, uint64_t)
INT_PARTIALS(uint16, u_u16, uint16_t, uint16_t, uint64_t)
INT_PARTIALS(uint32, u_u32, uint32_t, uint32_t, uint64_t)
INT_PARTIALS(uint64, u_u64, uint64_t, uint64_t, unsigned __int128)

#define FLOAT_ROW(T) { &T##_sum, &T##_prod, &T##_min, &T##_max, &T##_avg, NULL, NULL, NULL }
#define INT_ROW(T) \
	{ &T##_sum, &T##_prod, &T##_min, &T##_max, &T##_avg, &T##_band, &T##_bor, &T##_bxor }

static const struct sc_partial *const partials[SC_DTYPE_ALL][SC_OP_ALL] = {
	[SC_FP32] = FLOAT_ROW(fp32),	[SC_FP64] = FLOAT_ROW(fp64),
	[SC_FP16] = FLOAT_ROW(fp16),	[SC_BF16] = FLOAT_ROW(bf16),
	[SC_INT8] = INT_ROW(int8),	[SC_INT16] = INT_ROW(int16),
	[SC_INT32] = INT_ROW(int32),	[SC_INT64] = INT_ROW(int64),
	[SC_UINT8] = INT_ROW(uint8),	[SC_UINT16] = INT_ROW(uint16),
	[SC_UINT32] = INT_ROW(uint32),	[SC_UINT64] = INT_ROW(uint64),
	[SC_LDOUBLE] = FLOAT_ROW(ldouble),
};

const struct sc_partial *sc_partial(enum sc_dtype dtype, enum sc_op op)
{
	if ((unsigned)dtype >= SC_DTYPE_ALL || (unsigned)op >= SC_OP_ALL)
		return NULL;
	return partials[dtype][op];
}
