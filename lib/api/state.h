/*
 * The library's one global state, and the checks every entry point makes.
 */
#ifndef SHMEMCOMM_API_STATE_H
#define SHMEMCOMM_API_STATE_H

#include <stdatomic.h>
#include <stdint.h>

#include "boot/launch.h"
#include "boot/node.h"
#include "boot/rendezvous.h"
#include "heap/heap.h"
#include "mem/mem.h"

#define SC_BARRIER_ROUNDS 16	/* log2(SC_MAX_PES) + margin */
#define SC_INTERNAL_SIZE (64u << 10)

struct sc_line {
	_Atomic uint64_t value;
	char pad[56];	/* written by different PEs: one cache line each */
};

/* The start of every PE's segment, before the user's heap. */
struct sc_internal {
	struct sc_line barrier[SC_BARRIER_ROUNDS];	/* arrivals per round */
	struct sc_line barriers_entered;	/* by this PE: who is missing, on a timeout */
	_Atomic int abort_pe;		/* PE + 1 that called global_exit, or 0 */
	_Atomic int abort_status;
};

_Static_assert(sizeof(struct sc_internal) <= SC_INTERNAL_SIZE, "internal area too small");

struct sc_state {
	int initialized;
	int finalized;
	int me;
	int npes;
	int debug;		/* SHMEMCOMM_DEBUG */
	double timeout;		/* SHMEMCOMM_TIMEOUT */
	size_t heap_size;	/* SHMEM_SYMMETRIC_SIZE */
	uint64_t barrier_epoch;
	unsigned long allocations;	/* calls to the allocator, for SHMEMCOMM_DEBUG */
	struct sc_launch launch;
	struct sc_boot boot;
	struct sc_node node;
	struct sc_mem mem;
	struct sc_heap heap;
};

extern struct sc_state sc;

/* Exits with a clear message if the library is not initialized. */
void sc_require_init(const char *function);
/* Logs, tells the node's PEs to stop, and exits with @status. */
__attribute__((noreturn, format(printf, 2, 3)))
void sc_fatal(int status, const char *fmt, ...);

static inline struct sc_internal *sc_internal_of(int pe)
{
	return (struct sc_internal *)sc.mem.base[pe];
}

static inline char *sc_heap_base(int pe)
{
	return (char *)sc.mem.base[pe] + SC_INTERNAL_SIZE;
}

/*
 * @addr on this PE as an offset into the symmetric heap; fatal (naming
 * @function) if it is not in the heap or [addr, addr + len) leaves it.
 */
size_t sc_heap_offset(const void *addr, size_t len, const char *function);
/* Where @addr's symmetric counterpart lives on @pe, in this process. */
void *sc_translate(const void *addr, size_t len, int pe, const char *function);

#endif
