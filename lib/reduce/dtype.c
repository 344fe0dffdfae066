#include "reduce/dtype.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const struct {
	const char *name;
	size_t size;
} dtypes[SC_DTYPE_COUNT] = {
	[SC_FP32] = { "fp32", 4 },   [SC_FP64] = { "fp64", 8 },   [SC_FP16] = { "fp16", 2 },
	[SC_BF16] = { "bf16", 2 },   [SC_INT8] = { "int8", 1 },   [SC_INT16] = { "int16", 2 },
	[SC_INT32] = { "int32", 4 }, [SC_INT64] = { "int64", 8 }, [SC_UINT8] = { "uint8", 1 },
	[SC_UINT16] = { "uint16", 2 }, [SC_UINT32] = { "uint32", 4 }, [SC_UINT64] = { "uint64", 8 },
};

static const char *const ops[SC_OP_COUNT] = { "sum", "prod", "min", "max", "avg" };

size_t sc_dtype_size(enum sc_dtype dtype)
{
	return dtypes[dtype].size;
}

const char *sc_dtype_name(enum sc_dtype dtype)
{
	return dtypes[dtype].name;
}

const char *sc_op_name(enum sc_op op)
{
	return ops[op];
}

int sc_dtype_parse(const char *name, enum sc_dtype *dtype)
{
	for (int i = 0; i < SC_DTYPE_COUNT; i++)
		if (!strcmp(name, dtypes[i].name)) {
			*dtype = (enum sc_dtype)i;
			return 0;
		}
	return -EINVAL;
}

int sc_op_parse(const char *name, enum sc_op *op)
{
	for (int i = 0; i < SC_OP_COUNT; i++)
		if (!strcmp(name, ops[i])) {
			*op = (enum sc_op)i;
			return 0;
		}
	return -EINVAL;
}

static uint32_t bits_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float float_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

float sc_fp16_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;

	if (exp == 0x1f)	/* inf, nan: keep the payload */
		return float_of(sign | 0x7f800000 | man << 13);
	if (exp)
		return float_of(sign | (exp + 112) << 23 | man << 13);
	/* zero and subnormals: man * 2^-24, exact in fp32 */
	return sign ? -ldexpf((float)man, -24) : ldexpf((float)man, -24);
}

uint16_t sc_float_to_fp16(float f)
{
	uint32_t u = bits_of(f), sign = (u >> 16) & 0x8000, exp = (u >> 23) & 0xff;
	uint32_t man = u & 0x7fffff;

	if (exp == 0xff)
		return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | man >> 13 : 0));
	int e = (int)exp - 127 + 15;

	if (e >= 0x1f)
		return (uint16_t)(sign | 0x7c00);	/* overflow: inf */
	if (e <= 0) {
		/* subnormal (or zero): shift the full mantissa, round to even */
		if (e < -10)
			return (uint16_t)sign;
		uint32_t full = man | 0x800000, shift = (uint32_t)(14 - e);
		uint32_t half = full >> shift, rest = full & ((1u << shift) - 1), mid = 1u << (shift - 1);

		if (rest > mid || (rest == mid && (half & 1)))
			half++;
		return (uint16_t)(sign | half);
	}
	uint32_t h = sign | (uint32_t)e << 10 | man >> 13, rest = man & 0x1fff;

	/* a carry out of the mantissa rightly bumps the exponent, up to inf */
	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)h;
}

float sc_bf16_to_float(uint16_t b)
{
	return float_of((uint32_t)b << 16);
}

uint16_t sc_float_to_bf16(float f)
{
	uint32_t u = bits_of(f);

	if ((u & 0x7fffffff) > 0x7f800000)	/* nan: quiet, keep the sign */
		return (uint16_t)((u >> 16) | 0x40);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

#define MIN(a, b) ((b) < (a) ? (b) : (a))
#define MAX(a, b) ((b) > (a) ? (b) : (a))

/* Floats accumulate in ACC and are stored through STORE; order is input order. */
#define REDUCE_FLOAT(TYPE, ACC, LOAD, STORE)                                              \
	do {                                                                              \
		const TYPE *const *src = (const TYPE *const *)in;                         \
		TYPE *dst = out;                                                          \
		for (size_t i = 0; i < count; i++) {                                      \
			ACC acc = LOAD(src[0][i]);                                        \
			for (int k = 1; k < nin; k++) {                                   \
				ACC v = LOAD(src[k][i]);                                  \
				acc = op == SC_SUM || op == SC_AVG ? acc + v :            \
				      op == SC_PROD ? acc * v :                           \
				      op == SC_MIN ? MIN(acc, v) : MAX(acc, v);           \
			}                                                                 \
			if (op == SC_AVG)                                                 \
				acc /= (ACC)nin;                                          \
			dst[i] = STORE(acc);                                              \
		}                                                                         \
	} while (0)

/* Integers: sum and prod wrap (done unsigned); avg takes the exact sum. */
#define REDUCE_INT(TYPE, UTYPE)                                                           \
	do {                                                                              \
		const TYPE *const *src = (const TYPE *const *)in;                         \
		TYPE *dst = out;                                                          \
		for (size_t i = 0; i < count; i++) {                                      \
			TYPE first = src[0][i];                                           \
			UTYPE wrap = (UTYPE)first;                                        \
			__int128 exact = first;                                           \
			TYPE best = first;                                                \
			for (int k = 1; k < nin; k++) {                                   \
				TYPE v = src[k][i];                                       \
				wrap = op == SC_PROD ? (UTYPE)(wrap * (UTYPE)v) :         \
						       (UTYPE)(wrap + (UTYPE)v);          \
				exact += v;                                               \
				best = op == SC_MIN ? MIN(best, v) : MAX(best, v);        \
			}                                                                 \
			dst[i] = op == SC_MIN || op == SC_MAX ? best :                    \
				 op == SC_AVG ? (TYPE)(exact / nin) : (TYPE)wrap;         \
		}                                                                         \
	} while (0)

#define SAME(x) (x)

void sc_reduce_reference(enum sc_dtype dtype, enum sc_op op, void *out,
			 const void *const *in, int nin, size_t count)
{
	switch (dtype) {
	case SC_FP32: REDUCE_FLOAT(float, float, SAME, SAME); break;
	case SC_FP64: REDUCE_FLOAT(double, double, SAME, SAME); break;
	case SC_FP16: REDUCE_FLOAT(uint16_t, float, sc_fp16_to_float, sc_float_to_fp16); break;
	case SC_BF16: REDUCE_FLOAT(uint16_t, float, sc_bf16_to_float, sc_float_to_bf16); break;
	case SC_INT8: REDUCE_INT(int8_t, uint8_t); break;
	case SC_INT16: REDUCE_INT(int16_t, uint16_t); break;
	case SC_INT32: REDUCE_INT(int32_t, uint32_t); break;
	case SC_INT64: REDUCE_INT(int64_t, uint64_t); break;
	case SC_UINT8: REDUCE_INT(uint8_t, uint8_t); break;
	case SC_UINT16: REDUCE_INT(uint16_t, uint16_t); break;
	case SC_UINT32: REDUCE_INT(uint32_t, uint32_t); break;
	case SC_UINT64: REDUCE_INT(uint64_t, uint64_t); break;
	default: break;
	}
}
