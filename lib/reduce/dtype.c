#include "reduce/dtype.h"
#include "reduce/kernel.h"

#include <errno.h>
#include <math.h>
#include <string.h>

const unsigned char sc_dtype_sizes[SC_DTYPE_ALL] = {
	[SC_FP32] = 4, [SC_FP64] = 8, [SC_FP16] = 2, [SC_BF16] = 2,
	[SC_INT8] = 1, [SC_INT16] = 2, [SC_INT32] = 4, [SC_INT64] = 8,
	[SC_UINT8] = 1, [SC_UINT16] = 2, [SC_UINT32] = 4, [SC_UINT64] = 8,
	[SC_LDOUBLE] = sizeof(long double),
};

static const char *const dtype_names[SC_DTYPE_ALL] = {
	[SC_FP32] = "fp32", [SC_FP64] = "fp64", [SC_FP16] = "fp16", [SC_BF16] = "bf16",
	[SC_INT8] = "int8", [SC_INT16] = "int16", [SC_INT32] = "int32", [SC_INT64] = "int64",
	[SC_UINT8] = "uint8", [SC_UINT16] = "uint16", [SC_UINT32] = "uint32",
	[SC_UINT64] = "uint64", [SC_LDOUBLE] = "ldouble",
};

static const char *const ops[SC_OP_ALL] = {
	"sum", "prod", "min", "max", "avg", "band", "bor", "bxor",
};

const char *sc_dtype_name(enum sc_dtype dtype)
{
	return dtype_names[dtype];
}

const char *sc_op_name(enum sc_op op)
{
	return ops[op];
}

int sc_dtype_parse(const char *name, enum sc_dtype *dtype)
{
	for (int i = 0; i < SC_DTYPE_COUNT; i++)
		if (!strcmp(name, dtype_names[i])) {
			*dtype = (enum sc_dtype)i;
			return 0;
		}
	return -EINVAL;
}

int sc_op_parse(const char *name, enum sc_op *op)
{
	for (int i = 0; i < SC_OP_ALL; i++)
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

void sc_reduce_reference(enum sc_dtype dtype, enum sc_op op, void *out,
			 const void *const *in, int nin, size_t count)
{
	sc_kernels_scalar[dtype][op](out, in, nin, count);
}
