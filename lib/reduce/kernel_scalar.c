/*
 * The scalar kernels: the reference the vector variants are checked
 * against, and the fallback on CPUs without AVX2. Vectorization is off so
 * that this stays the plain order of operations.
 */
#pragma GCC optimize("no-tree-vectorize")
#define SUFFIX scalar
#include "reduce/kernel_body.h"
