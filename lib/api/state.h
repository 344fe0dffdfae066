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
#define SC_MAX_TEAMS 64		/* sync slots, one per live team; a bit each in a mask */
#define SC_SLOT_WORLD 0
#define SC_SLOT_SHARED 1
#define SC_INTERNAL_SIZE (256u << 10)

struct sc_line {
	_Atomic uint64_t value;
	char pad[56];	/* written by different PEs: one cache line each */
};

/* The start of every PE's segment, before the user's heap. */
struct sc_internal {
	/* per team slot: arrivals in each round of its dissemination sync */
	struct sc_line arrivals[SC_MAX_TEAMS][SC_BARRIER_ROUNDS];
	/* per team slot: syncs this PE has entered (who is missing, on a timeout) */
	struct sc_line entered[SC_MAX_TEAMS];
	/* this PE's free slots, offered while its team agrees on new slots */
	_Atomic uint64_t free_slots;
	/* this PE's element count, offered to its team in shmem_collect */
	_Atomic uint64_t collect_count;
	_Atomic int abort_pe;		/* PE + 1 that called global_exit, or 0 */
	_Atomic int abort_status;
};

/* A team: the world PEs start, start + stride, ..., start + (size - 1) * stride. */
struct sc_team {
	int start;
	int stride;
	int size;
	int my_index;		/* this PE's number in the team, or -1 */
	int slot;		/* its sync slot in struct sc_internal */
	uint64_t epoch;		/* syncs this PE has entered */
	int num_contexts;	/* from its configuration */
	int predefined;		/* WORLD and SHARED are never destroyed */
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
	uint64_t free_slots;	/* this PE's unused team slots, a bit each */
	unsigned long allocations;	/* calls to the allocator, for SHMEMCOMM_DEBUG */
	struct sc_launch launch;
	struct sc_boot boot;
	struct sc_node node;
	struct sc_mem mem;
	struct sc_heap heap;
};

extern struct sc_state sc;

extern struct sc_team sc_team_world;
extern struct sc_team sc_team_shared;

/* Dissemination sync over @team's members; @what names the call for messages. */
void sc_team_sync(struct sc_team *team, const char *what);
void sc_teams_init(void);
static inline int sc_team_world_pe(const struct sc_team *team, int index)
{
	return team->start + index * team->stride;
}

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
