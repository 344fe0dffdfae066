/*
 * Put with signal: the data, then (ordered after it) a set or add of a
 * 64-bit signal word on the same PE, which the target can wait on with
 * shmem_signal_wait_until. Across the NIC both go on the one QP to the PE,
 * which keeps their order; once any PE is remote an add is the NIC's
 * atomic, even on this node, so that it is atomic against the others.
 */
#include <stdint.h>
#include <string.h>

#include "core/state.h"
#include "core/peer.h"
#include "shmem.h"

static void put_signal(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
		       uint64_t signal, int sig_op, int pe, int nbi, const char *function)
{
	uint64_t sig;

	sc_require_init(function);
	if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
		sc_fatal(1, "PE %d: %s: sig_op %d is not SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD",
			 sc.me, function, sig_op);
	if ((uintptr_t)sig_addr % sizeof(uint64_t))
		sc_fatal(1, "PE %d: %s: sig_addr %p is not 8-byte aligned", sc.me, function,
			 (void *)sig_addr);
	sig = sc_symmetric_offset(sig_addr, sizeof(*sig_addr), pe, function);
	/* no data, and still the signal (@dest may then be anything, NULL too) */
	if (bytes)
		sc_peer_put(pe, sc_symmetric_offset(dest, bytes, pe, function), source, bytes, nbi);
	if (sig_op == SHMEM_SIGNAL_ADD && !sc_peer_atomic_by_cpu(pe))
		sc_net_amo(&sc.net, pe, sig, sizeof(uint64_t), SC_AMO_ADD, signal, 0);
	else if (sig_op == SHMEM_SIGNAL_ADD)
		__atomic_fetch_add((uint64_t *)sc_peer_view(pe, sig), signal, __ATOMIC_RELEASE);
	else
		sc_peer_store(pe, sig, signal);
}

void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
			 uint64_t signal, int sig_op, int pe)
{
	put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe, 0, "shmem_putmem_signal");
}

void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
			     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
	put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe, 1,
		   "shmem_putmem_signal_nbi");
}

#define DEFINE_PUT_SIGNAL(NAME, TYPE)                                                       \
	void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,       \
				       uint64_t *sig_addr, uint64_t signal, int sig_op,     \
				       int pe)                                              \
	{                                                                                   \
		put_signal(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op,   \
			   pe, 0, "shmem_" #NAME "_put_signal");                            \
	}                                                                                   \
	void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems,   \
					   uint64_t *sig_addr, uint64_t signal, int sig_op, \
					   int pe)                                          \
	{                                                                                   \
		put_signal(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op,   \
			   pe, 1, "shmem_" #NAME "_put_signal_nbi");                        \
	}
SHMEMCOMM_RMA_TYPES(DEFINE_PUT_SIGNAL)

#define DEFINE_PUT_SIGNAL_SIZE(BITS)                                                        \
	void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,        \
				      uint64_t *sig_addr, uint64_t signal, int sig_op,      \
				      int pe)                                               \
	{                                                                                   \
		put_signal(dest, source, nelems * BITS / 8, sig_addr, signal, sig_op, pe,   \
			   0, "shmem_put" #BITS "_signal");                                 \
	}                                                                                   \
	void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,    \
					  uint64_t *sig_addr, uint64_t signal, int sig_op,  \
					  int pe)                                           \
	{                                                                                   \
		put_signal(dest, source, nelems * BITS / 8, sig_addr, signal, sig_op, pe,   \
			   1, "shmem_put" #BITS "_signal_nbi");                             \
	}
SHMEMCOMM_RMA_SIZES(DEFINE_PUT_SIGNAL_SIZE)
