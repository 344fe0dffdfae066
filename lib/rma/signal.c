/*
 * Put with signal: the data, then (release-ordered after it) an atomic set
 * or add of a 64-bit signal word on the same PE, which the target can wait
 * on with shmem_signal_wait_until.
 */
#include <stdint.h>
#include <string.h>

#include "api/state.h"
#include "shmem.h"

static void put_signal(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
		       uint64_t signal, int sig_op, int pe, const char *function)
{
	uint64_t *sig;

	sc_require_init(function);
	if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
		sc_fatal(1, "PE %d: %s: sig_op %d is not SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD",
			 sc.me, function, sig_op);
	if ((uintptr_t)sig_addr % sizeof(uint64_t))
		sc_fatal(1, "PE %d: %s: sig_addr %p is not 8-byte aligned", sc.me, function,
			 (void *)sig_addr);
	memcpy(sc_translate(dest, bytes, pe, function), source, bytes);
	sig = sc_translate(sig_addr, sizeof(*sig_addr), pe, function);
	if (sig_op == SHMEM_SIGNAL_SET)
		__atomic_store_n(sig, signal, __ATOMIC_RELEASE);
	else
		__atomic_fetch_add(sig, signal, __ATOMIC_RELEASE);
}

void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
			 uint64_t signal, int sig_op, int pe)
{
	put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe, "shmem_putmem_signal");
}

void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
			     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
	put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe,
		   "shmem_putmem_signal_nbi");
}

#define DEFINE_PUT_SIGNAL(NAME, TYPE)                                                       \
	void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,       \
				       uint64_t *sig_addr, uint64_t signal, int sig_op,     \
				       int pe)                                              \
	{                                                                                   \
		put_signal(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op,   \
			   pe, "shmem_" #NAME "_put_signal");                               \
	}                                                                                   \
	void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems,   \
					   uint64_t *sig_addr, uint64_t signal, int sig_op, \
					   int pe)                                          \
	{                                                                                   \
		put_signal(dest, source, nelems * sizeof(TYPE), sig_addr, signal, sig_op,   \
			   pe, "shmem_" #NAME "_put_signal_nbi");                           \
	}
SHMEMCOMM_RMA_TYPES(DEFINE_PUT_SIGNAL)
