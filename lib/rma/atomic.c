/*
 * Atomics on the PEs of a node: the CPU's atomic instructions on this
 * process's mapping of the target heap (lock-prefixed operations are atomic
 * across processes sharing the memory). Each is sequentially consistent,
 * so the _nbi forms are complete on return.
 */
#include <stdint.h>

#include "api/state.h"
#include "shmem.h"

static void *amo_target(const void *dest, size_t size, int pe, const char *function)
{
	sc_require_init(function);
	if ((uintptr_t)dest % size)
		sc_fatal(1, "PE %d: %s: %p is not aligned to %zu bytes, as an atomic needs",
			 sc.me, function, dest, size);
	return sc_translate(dest, size, pe, function);
}

#define TARGET(NAME, OP, dest) \
	((TYPE_##NAME *)amo_target(dest, sizeof(*(dest)), pe, "shmem_" #NAME "_atomic_" #OP))

#define DEFINE_AMO_EXTENDED(NAME, TYPE)                                                    \
	typedef TYPE TYPE_##NAME;                                                          \
	TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe)                       \
	{                                                                                  \
		TYPE value;                                                                \
		__atomic_load(TARGET(NAME, fetch, source), &value, __ATOMIC_SEQ_CST);      \
		return value;                                                              \
	}                                                                                  \
	void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe)      \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_fetch(source, pe);                          \
	}                                                                                  \
	void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)                     \
	{                                                                                  \
		__atomic_store(TARGET(NAME, set, dest), &value, __ATOMIC_SEQ_CST);         \
	}                                                                                  \
	TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)                    \
	{                                                                                  \
		TYPE old;                                                                  \
		__atomic_exchange(TARGET(NAME, swap, dest), &value, &old, __ATOMIC_SEQ_CST); \
		return old;                                                                \
	}                                                                                  \
	void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe)   \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_swap(dest, value, pe);                      \
	}
SHMEMCOMM_AMO_EXTENDED_TYPES(DEFINE_AMO_EXTENDED)

#define DEFINE_AMO_STANDARD(NAME, TYPE)                                                    \
	TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe) \
	{                                                                                  \
		__atomic_compare_exchange(TARGET(NAME, compare_swap, dest), &cond, &value, \
					  0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
		return cond; /* the old value, whether or not it matched */                \
	}                                                                                  \
	void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond,    \
						    TYPE value, int pe)                    \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_compare_swap(dest, cond, value, pe);        \
	}                                                                                  \
	TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe)               \
	{                                                                                  \
		return __atomic_fetch_add(TARGET(NAME, fetch_add, dest), value,            \
					  __ATOMIC_SEQ_CST);                               \
	}                                                                                  \
	void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe) \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_fetch_add(dest, value, pe);                 \
	}                                                                                  \
	void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe)                     \
	{                                                                                  \
		__atomic_fetch_add(TARGET(NAME, add, dest), value, __ATOMIC_SEQ_CST);      \
	}                                                                                  \
	TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                           \
	{                                                                                  \
		return __atomic_fetch_add(TARGET(NAME, fetch_inc, dest), 1, __ATOMIC_SEQ_CST); \
	}                                                                                  \
	void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe)          \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_fetch_inc(dest, pe);                        \
	}                                                                                  \
	void shmem_##NAME##_atomic_inc(TYPE *dest, int pe)                                 \
	{                                                                                  \
		__atomic_fetch_add(TARGET(NAME, inc, dest), 1, __ATOMIC_SEQ_CST);          \
	}
SHMEMCOMM_AMO_STANDARD_TYPES(DEFINE_AMO_STANDARD)

#define DEFINE_AMO_BITWISE_OP(NAME, TYPE, OP)                                              \
	TYPE shmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe)              \
	{                                                                                  \
		return __atomic_fetch_##OP(TARGET(NAME, fetch_##OP, dest), value,          \
					   __ATOMIC_SEQ_CST);                              \
	}                                                                                  \
	void shmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE *fetch, TYPE *dest, TYPE value,   \
						    int pe)                                \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_fetch_##OP(dest, value, pe);                \
	}                                                                                  \
	void shmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)                    \
	{                                                                                  \
		__atomic_fetch_##OP(TARGET(NAME, OP, dest), value, __ATOMIC_SEQ_CST);      \
	}
#define DEFINE_AMO_BITWISE(NAME, TYPE) SHMEMCOMM_BITWISE_OPS(DEFINE_AMO_BITWISE_OP, NAME, TYPE)
SHMEMCOMM_AMO_BITWISE_TYPES(DEFINE_AMO_BITWISE)
