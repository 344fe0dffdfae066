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
#include "net/net.h"

#define SC_BARRIER_ROUNDS 16	/* log2(SC_MAX_PES) + margin */
#define SC_MAX_TEAMS 64		/* sync slots, one per live team; a bit each in a mask */
#define SC_SLOT_WORLD 0
#define SC_SLOT_SHARED 1
#define SC_INTERNAL_SIZE (16u << 20)
#define SC_COLL_SMALL_MAX (16u << 10)	/* the largest one-shot allreduce, bytes */
#define SC_COLL_STAGE_MAX (1u << 20)	/* one staging buffer, bytes */
#define SC_COLL_PAIR_MAX (64u << 10)	/* a team's partials and results of one pairwise chunk */
#define SC_PAIR_RAIL_LINES 16	/* a pairwise step's partner lines: ring 0, rhd a round each */
#define SC_PAIR_LOCAL_MAX 16	/* then one line per PE of the node, in hierarchical steps */
#define SC_PAIR_LINES (SC_PAIR_RAIL_LINES + 2 * SC_PAIR_LOCAL_MAX)	/* node lines by chunk parity */

struct sc_line {
	_Atomic uint64_t value;
	char pad[56];	/* written by different PEs: one cache line each */
};

/*
 * A PE's collective state on one team slot. @step counts the stages this
 * PE has published on the team; a stage's data is ready when every member
 * has reached it. What each call is (@signature, @count) and where its
 * buffers are (@where) alternate between two entries by call parity, so a
 * peer still reading the last call's entry is never overwritten.
 */
struct sc_coll_slot {
	_Atomic uint64_t step;
	uint64_t signature[2];	/* kind, dtype, op, algorithm, root */
	uint64_t count[2];
	char pad0[24];
	struct {
		uint64_t src_offset;	/* into the heap, or SC_COLL_STAGED */
		uint64_t result_offset;
		uint64_t chunk_len;
	} where[2];
	char pad1[16];
};

_Static_assert(sizeof(struct sc_coll_slot) == 128, "two cache lines");

/* The start of every PE's segment, before the user's heap. */
struct sc_internal {
	/* per team slot: arrivals in each round of its dissemination sync */
	struct sc_line arrivals[SC_MAX_TEAMS][SC_BARRIER_ROUNDS];
	/* per team slot: the steps of collectives across nodes, a dissemination sync of their own */
	struct sc_line coll_arrivals[SC_MAX_TEAMS][SC_BARRIER_ROUNDS];
	struct sc_line coll_entered[SC_MAX_TEAMS];	/* those steps begun (for messages) */
	/*
	 * per team slot: the pairwise steps (ring, recursive halving) a partner
	 * has completed, one line per partner relation, each with one writer;
	 * and this PE's own count of them (read by peers for messages)
	 */
	struct sc_line coll_pair[SC_MAX_TEAMS][SC_PAIR_LINES];
	struct sc_line coll_pair_done[SC_MAX_TEAMS];
	/* per team slot: syncs this PE has entered (who is missing, on a timeout) */
	struct sc_line entered[SC_MAX_TEAMS];
	/* this PE's free slots, offered while its team agrees on new slots */
	_Atomic uint64_t free_slots;
	/* this PE's element count, offered to its team in shmem_collect */
	_Atomic uint64_t collect_count;
	_Atomic int abort_pe;		/* PE + 1 that ended the job, or 0 */
	_Atomic int abort_status;
	_Atomic int abort_fatal;	/* 1: an error, not shmem_global_exit */
	struct sc_coll_slot coll[SC_MAX_TEAMS] __attribute__((aligned(64)));
	/* atomics by message (net/ib.c): a mailbox per requesting PE, and this PE's reply */
	struct sc_amo_mail amo_mail[SC_MAX_PES];
	struct sc_amo_reply amo_reply;
	/* per team slot, by call parity: one-shot inputs */
	char small[SC_MAX_TEAMS][2][SC_COLL_SMALL_MAX] __attribute__((aligned(4096)));
	/*
	 * per team slot, by chunk parity: the pairwise algorithms' partials,
	 * then their results when dest is off the heap; a team's own, so that
	 * teams run them at once
	 */
	char pair[SC_MAX_TEAMS][2][SC_COLL_PAIR_MAX] __attribute__((aligned(4096)));
	/* by chunk parity: staged inputs, and results read by the peers */
	char stage_in[2][SC_COLL_STAGE_MAX] __attribute__((aligned(4096)));
	char stage_out[2][SC_COLL_STAGE_MAX] __attribute__((aligned(4096)));
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
	int spans;		/* some member's segment is not mapped here: the NIC reaches it */
	uint64_t coll_step;	/* collective stages this PE has published */
	uint64_t coll_calls;	/* collectives started on the team */
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
	struct sc_coll_tuning {
		int algorithm;		/* SHMEMCOMM_ALLREDUCE_ALGO: -1 for by size */
		int block_algorithm;	/* SHMEMCOMM_COLL_ALGO (reduce-scatter, all-gather) */
		int broadcast_algorithm;	/* SHMEMCOMM_BROADCAST_ALGO */
		size_t oneshot_max;	/* SHMEMCOMM_ALLREDUCE_ONESHOT_MAX */
		size_t chunk;		/* SHMEMCOMM_COLL_CHUNK */
		size_t stream_min;	/* SHMEMCOMM_COLL_STREAM_MIN */
		size_t rhd_max;		/* SHMEMCOMM_ALLREDUCE_RHD_MAX */
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

/* Dissemination sync over @team's members; @what names the call for messages. */
void sc_team_sync(struct sc_team *team, const char *what);
/*
 * For a timeout message: @team's members whose copy of the counter
 * @entered (in this PE's internal area) is below @epoch, or that do not
 * answer (lost with their node), as "2,5-7" in @out.
 */
void sc_members_behind(const struct sc_team *team, const struct sc_line *entered,
		       uint64_t epoch, char *out, unsigned long len);
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

/* Where @field of this PE's internal area sits in every PE's segment. */
static inline uint64_t sc_internal_offset(const void *field)
{
	return (uint64_t)((const char *)field - (const char *)sc.mem.base[sc.me]);
}

static inline char *sc_heap_base(int pe)
{
	return (char *)sc.mem.base[pe] + SC_INTERNAL_SIZE;
}

/* Whether [addr, addr + len) lies in this PE's symmetric heap. */
int sc_heap_contains(const void *addr, size_t len);
/*
 * @addr on this PE as an offset into the symmetric heap; fatal (naming
 * @function) if it is not in the heap or [addr, addr + len) leaves it.
 */
size_t sc_heap_offset(const void *addr, size_t len, const char *function);
/* Fatal (naming @function) unless 0 <= @pe < npes. */
void sc_check_pe(int pe, const char *function);

#endif
