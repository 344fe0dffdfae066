/*
 * The library's one global state, its teams, and the checks every entry
 * point makes. The layers above core/ read it; the ones below get what
 * they need as arguments when they are set up.
 */
#ifndef SHMEMCOMM_CORE_STATE_H
#define SHMEMCOMM_CORE_STATE_H

#include <stdatomic.h>
#include <stdint.h>

#include "boot/launch.h"
#include "boot/node.h"
#include "boot/bootstrap.h"
#include "core/segment.h"
#include "heap/heap.h"
#include "mem/mem.h"
#include "net/net.h"
#include "util/fatal.h"

/* A team: the world PEs start, start + stride, ..., start + (size - 1) * stride. */
struct sc_team {
	int start;
	int stride;
	int size;
	int *members;		/* world PEs in team order, for a team of any PEs; NULL: strided */
	int my_index;		/* this PE's number in the team, or -1 */
	int slot;		/* its sync slot in struct sc_internal */
	uint64_t epoch;		/* syncs this PE has entered */
	int num_contexts;	/* from its configuration */
	int predefined;		/* WORLD and SHARED are never destroyed */
	int spans;		/* some member's segment is not mapped here: the NIC reaches it */
	uint64_t coll_step;	/* collective stages this PE has published */
	uint64_t coll_calls;	/* collectives started on the team */
	uint64_t tiny_calls;	/* the smallest allreduces (coll/tiny.c) */
	struct shmemx_request *coll_head, *coll_tail;	/* not yet completed, in order */
	uint64_t coll_epoch;	/* steps across nodes this PE has started */
	int coll_round;		/* the round of the current one it waits in */
	int coll_stepping;	/* one is under way */
	uint64_t coll_pair_seq;	/* pairwise steps of collectives begun, the same count on every member */
	/*
	 * across nodes: the @nodes its members are on; when each holds as many,
	 * @per_node (else 0), and by_node[v * per_node + l] the team index of
	 * member l of node v, and member i's v and l in node_of[i] and local_of[i]
	 */
	int nodes, per_node;
	int node_index, local_index;	/* this PE's v and l */
	int *by_node, *node_of, *local_of;
};


struct sc_state {
	int initialized;
	int finalized;
	int init_failed;	/* an init returned its error: no second try */
	int me;
	int npes;
	int debug;		/* SHMEMCOMM_DEBUG */
	int cpus_shared;	/* this node runs more PEs than it has CPUs */
	double timeout;		/* SHMEMCOMM_TIMEOUT */
	size_t heap_size;	/* SHMEM_SYMMETRIC_SIZE */
	size_t internal_size;	/* the segment's bytes before the heap: sc_internal_size(npes) */
	uint64_t free_slots;	/* this PE's unused team slots, a bit each */
	unsigned long allocations;	/* calls to the allocator, for SHMEMCOMM_DEBUG */
	struct sc_coll_tuning {
		int algorithm;		/* SHMEMCOMM_ALLREDUCE_ALGO: -1 for by size */
		int block_algorithm;	/* SHMEMCOMM_COLL_ALGO (reduce-scatter, all-gather) */
		int broadcast_algorithm;	/* SHMEMCOMM_BROADCAST_ALGO */
		size_t oneshot_max;	/* SHMEMCOMM_ALLREDUCE_ONESHOT_MAX, SIZE_MAX: by CPUs */
		size_t chunk;		/* SHMEMCOMM_COLL_CHUNK */
		size_t stream_min;	/* SHMEMCOMM_COLL_STREAM_MIN, SIZE_MAX: by the cache */
		size_t stream_own_min;	/* SHMEMCOMM_COLL_STREAM_OWN_MIN, SIZE_MAX: by the cache */
		size_t cache_bytes;	/* the last-level cache the rules use, 0 if unknown */
		char cache_note[200];	/* how cache_bytes was found, for SHMEMCOMM_LOG=info */
		size_t rhd_max;		/* SHMEMCOMM_ALLREDUCE_RHD_MAX */
		size_t register_min;	/* SHMEMCOMM_COLL_REGISTER_MIN */
		int hier_pipeline;	/* SHMEMCOMM_HIER_PIPELINE */
		int simd;		/* SHMEMCOMM_SIMD, an enum sc_simd */
	} coll;
	struct sc_launch launch;
	struct sc_boot boot;
	struct sc_node node;
	struct sc_mem mem;
	struct sc_heap heap;
	int force_rdma;		/* SHMEMCOMM_TRANSPORT names rdma: no PE maps another */
	struct sc_net net;	/* active when some PE is not mapped here */
};

extern struct sc_state sc;

extern struct sc_team sc_team_world;
extern struct sc_team sc_team_shared;

static inline int sc_team_world_pe(const struct sc_team *team, int index)
{
	return team->members ? team->members[index] : team->start + index * team->stride;
}
/* The inverse: world PE @pe's index in @team, or -1 if it is not a member. */
int sc_team_index_of(const struct sc_team *team, int pe);

/* Exits with a clear message if the library is not initialized. */
void sc_require_init(const char *function);
/*
 * Tells every PE to stop (their waits see it within a step): @fatal 1 for
 * an error, 0 for shmem_global_exit. core/abort.c.
 */
void sc_stop_all(int status, int fatal);
/* Makes sc_fatal tell every PE to stop before it exits. */
void sc_abort_init(void);

static inline struct sc_internal *sc_internal_of(int pe)
{
	return (struct sc_internal *)sc.mem.base[pe];
}

/* Where @field of this PE's internal area sits in every PE's segment. */
static inline uint64_t sc_internal_offset(const void *field)
{
	return (uint64_t)((const char *)field - (const char *)sc.mem.base[sc.me]);
}

static inline char *sc_heap_base(int pe)
{
	return (char *)sc.mem.base[pe] + sc.internal_size;
}

/* How many times PE @from has signalled PE @pe in the active-set syncs. */
static inline _Atomic uint64_t *sc_active_set_signal(int pe, int from)
{
	return (_Atomic uint64_t *)((char *)sc.mem.base[pe] + sc_active_set_offset()) + from;
}

/* Whether [addr, addr + len) lies in this PE's symmetric heap. */
static inline int sc_heap_contains(const void *addr, size_t len)
{
	const char *p = addr, *base = sc_heap_base(sc.me);

	return p >= base && p < base + sc.heap_size && len <= sc.heap_size - (size_t)(p - base);
}
/*
 * @addr on this PE as an offset into the symmetric heap; fatal (naming
 * @function) if it is not in the heap or [addr, addr + len) leaves it.
 */
size_t sc_heap_offset(const void *addr, size_t len, const char *function);
/* The message and exit of sc_check_pe, out of the callers' way. */
void sc_pe_out_of_range(int pe, const char *function) __attribute__((noreturn, cold));

/* Fatal (naming @function) unless 0 <= @pe < npes. */
static inline void sc_check_pe(int pe, const char *function)
{
	if (__builtin_expect(pe < 0 || pe >= sc.npes, 0))
		sc_pe_out_of_range(pe, function);
}

#endif
