/*
 * Atomics. On a node alone: the CPU's atomic instructions on this process's
 * mapping of the target heap (lock-prefixed operations are atomic across
 * processes sharing the memory). Once any PE is reached through the NIC,
 * every atomic is the NIC's, on this node too (net/net.h says why); or,
 * where the NIC has none, those on remote PEs go by message to their
 * service thread and the rest stay the CPU's. Each completes before it
 * returns, so the _nbi forms are complete on return.
 */
#include <stdint.h>
#include <string.h>

#include "core/state.h"
#include "core/peer.h"
#include "shmem.h"

/* The CPU's target, or NULL when the NIC does the atomic at *@offset. */
static void *amo_target(const void *dest, size_t size, int pe, const char *function,
			uint64_t *offset)
{
	sc_require_init(function);
	if ((uintptr_t)dest % size)
		sc_fatal(1, "PE %d: %s: %p is not aligned to %zu bytes, as an atomic needs",
			 sc.me, function, dest, size);
	*offset = sc_symmetric_offset(dest, size, pe, function);
	return sc_peer_atomic_by_cpu(pe) ? sc_peer_view(pe, *offset) : NULL;
}

#define TARGET(NAME, OP, dest)                                                        \
	uint64_t offset;                                                              \
	TYPE_##NAME *cpu = amo_target(dest, sizeof(*(dest)), pe,                      \
				      "shmem_" #NAME "_atomic_" #OP, &offset)
#define NIC(NAME, OP, value, cond)                                                    \
	NAME##_from_bits(sc_net_amo(&sc.net, pe, offset, sizeof(TYPE_##NAME), OP,     \
				    NAME##_bits(value), NAME##_bits(cond)))

#define DEFINE_AMO_EXTENDED(NAME, TYPE)                                                    \
	typedef TYPE TYPE_##NAME;                                                          \
	static inline uint64_t NAME##_bits(TYPE value)                                     \
	{                                                                                  \
		uint64_t bits = 0;                                                         \
		memcpy(&bits, &value, sizeof(value));                                      \
		return bits;                                                               \
	}                                                                                  \
	static inline TYPE NAME##_from_bits(uint64_t bits)                                 \
	{                                                                                  \
		TYPE value;                                                                \
		memcpy(&value, &bits, sizeof(value));                                      \
		return value;                                                              \
	}                                                                                  \
	TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe)                       \
	{                                                                                  \
		TARGET(NAME, fetch, source);                                               \
		TYPE value;                                                                \
		if (!cpu)                                                                  \
			return NIC(NAME, SC_AMO_FETCH, 0, 0);                              \
		__atomic_load(cpu, &value, __ATOMIC_SEQ_CST);                              \
		return value;                                                              \
	}                                                                                  \
	void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe)      \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_fetch(source, pe);                          \
	}                                                                                  \
	void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)                     \
	{                                                                                  \
		TARGET(NAME, set, dest);                                                   \
		if (!cpu)                                                                  \
			NIC(NAME, SC_AMO_SET, value, 0);                                   \
		else                                                                       \
			__atomic_store(cpu, &value, __ATOMIC_SEQ_CST);                     \
	}                                                                                  \
	TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)                    \
	{                                                                                  \
		TARGET(NAME, swap, dest);                                                  \
		TYPE old;                                                                  \
		if (!cpu)                                                                  \
			return NIC(NAME, SC_AMO_SWAP, value, 0);                           \
		__atomic_exchange(cpu, &value, &old, __ATOMIC_SEQ_CST);                    \
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
		TARGET(NAME, compare_swap, dest);                                          \
		if (!cpu)                                                                  \
			return NIC(NAME, SC_AMO_CSWAP, value, cond);                       \
		__atomic_compare_exchange(cpu, &cond, &value, 0, __ATOMIC_SEQ_CST,         \
					  __ATOMIC_SEQ_CST);                               \
		return cond; /* the old value, whether or not it matched */                \
	}                                                                                  \
	void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond,    \
						    TYPE value, int pe)                    \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_compare_swap(dest, cond, value, pe);        \
	}                                                                                  \
	TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe)               \
	{                                                                                  \
		TARGET(NAME, fetch_add, dest);                                             \
		if (!cpu)                                                                  \
			return NIC(NAME, SC_AMO_ADD, value, 0);                            \
		return __atomic_fetch_add(cpu, value, __ATOMIC_SEQ_CST);                   \
	}                                                                                  \
	void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe) \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_fetch_add(dest, value, pe);                 \
	}                                                                                  \
	void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe)                     \
	{                                                                                  \
		shmem_##NAME##_atomic_fetch_add(dest, value, pe);                          \
	}                                                                                  \
	TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                           \
	{                                                                                  \
		return shmem_##NAME##_atomic_fetch_add(dest, 1, pe);                       \
	}                                                                                  \
	void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe)          \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_fetch_add(dest, 1, pe);                     \
	}                                                                                  \
	void shmem_##NAME##_atomic_inc(TYPE *dest, int pe)                                 \
	{                                                                                  \
		shmem_##NAME##_atomic_fetch_add(dest, 1, pe);                              \
	}
SHMEMCOMM_AMO_STANDARD_TYPES(DEFINE_AMO_STANDARD)

#define AMO_OP_and SC_AMO_AND
#define AMO_OP_or SC_AMO_OR
#define AMO_OP_xor SC_AMO_XOR
#define DEFINE_AMO_BITWISE_OP(NAME, TYPE, OP)                                              \
	TYPE shmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe)              \
	{                                                                                  \
		TARGET(NAME, fetch_##OP, dest);                                            \
		if (!cpu)                                                                  \
			return NIC(NAME, AMO_OP_##OP, value, 0);                           \
		return __atomic_fetch_##OP(cpu, value, __ATOMIC_SEQ_CST);                  \
	}                                                                                  \
	void shmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE *fetch, TYPE *dest, TYPE value,   \
						    int pe)                                \
	{                                                                                  \
		*fetch = shmem_##NAME##_atomic_fetch_##OP(dest, value, pe);                \
	}                                                                                  \
	void shmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)                    \
	{                                                                                  \
		shmem_##NAME##_atomic_fetch_##OP(dest, value, pe);                         \
	}
#define DEFINE_AMO_BITWISE(NAME, TYPE) SHMEMCOMM_BITWISE_OPS(DEFINE_AMO_BITWISE_OP, NAME, TYPE)
SHMEMCOMM_AMO_BITWISE_TYPES(DEFINE_AMO_BITWISE)
