/* The kernels for AVX-512 CPUs (512-bit vectors), with F16C for fp16. */
#pragma GCC target("avx512f,avx512bw,avx512vl,avx2,f16c,prefer-vector-width=512")
#pragma GCC optimize("O3", "vect-cost-model=dynamic")
#define SUFFIX avx512
#include "reduce/kernel_f16c.h"
#include "reduce/kernel_body.h"
