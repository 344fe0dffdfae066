/* The kernels for AVX2 CPUs, with F16C for the fp16 conversions. */
#pragma GCC target("avx2,f16c")
#pragma GCC optimize("O3", "vect-cost-model=dynamic")
#define SUFFIX avx2
#include "reduce/kernel_f16c.h"
#include "reduce/kernel_body.h"
