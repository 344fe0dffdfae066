/*
 * The layout of every PE's segment: the internal area (sync lines, the
 * collectives' slots and buffers, the stop word), its per-PE tail (a line
 * of state for each PE of the job: the active-set signals, the NIC's
 * atomics mailboxes), then the user's symmetric heap at sc_internal_size().
 * Every PE finds every other PE's fields at the same offsets.
 */
#ifndef SHMEMCOMM_CORE_SEGMENT_H
#define SHMEMCOMM_CORE_SEGMENT_H

#include <stdatomic.h>
#include <stdint.h>

#include <stddef.h>

#include "net/net.h"
#include "util/wait.h"

#define SC_BARRIER_ROUNDS 24	/* a dissemination's rounds: log2 of SC_PE_LIMIT */
#define SC_MAX_TEAMS 64		/* sync slots, one per live team; a bit each in a mask */
#define SC_SLOT_WORLD 0
#define SC_SLOT_SHARED 1
#define SC_INTERNAL_ALIGN (2u << 20)	/* the heap starts on a huge page */
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
 * A line of the smallest allreduce (coll/tiny.c): data and the tag that
 * says which call wrote it, in one cache line, so that a reader's one miss
 * brings both.
 */
#define SC_TINY_LINE_DATA 56
#define SC_TINY_LINES 3	/* 168 bytes of 1- to 8-byte elements, 144 of 16-byte ones */
#define SC_TINY_MAX 128		/* the largest allreduce that runs on them, bytes */
struct sc_tiny_line {
	char data[SC_TINY_LINE_DATA];
	_Atomic uint64_t tag;
} __attribute__((aligned(64)));

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
	struct sc_coll_where {
		/*
		 * a symmetric offset (from the segment's start; past its end,
		 * into the globals), or with a handle an offset into that
		 * registered region (coll/register.c), or SC_COLL_STAGED
		 */
		uint64_t src_offset;
		uint64_t result_offset;
		uint64_t chunk_len;
		uint64_t src_handle;	/* 0: none */
		uint64_t result_handle;
		/* with a handle: where the region starts in the owner (imports superseded by it) */
		uint64_t src_start;
		uint64_t result_start;
	} where[2];
	char pad1[16];
};

_Static_assert(sizeof(struct sc_coll_slot) == 192, "three cache lines");

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
	struct sc_abort abort;		/* the job's stop word (util/wait.h) */
	struct sc_coll_slot coll[SC_MAX_TEAMS] __attribute__((aligned(64)));
	/* per team slot, by call parity: the smallest allreduce's inputs */
	struct sc_tiny_line tiny[SC_MAX_TEAMS][2][SC_TINY_LINES];
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

/*
 * After struct sc_internal, sized by the job: for each PE, how many times
 * it has signalled this one in the active-set syncs (deprecated
 * collectives; written by that PE only), then for each PE its mailbox for
 * atomics by message (net/amo_mail.c).
 */
static inline size_t sc_active_set_offset(void)
{
	return sizeof(struct sc_internal);
}

static inline size_t sc_amo_mail_offset(int npes)
{
	size_t end = sc_active_set_offset() + sizeof(uint64_t) * (size_t)npes;

	return (end + 63) & ~(size_t)63;
}

/* The internal area of a job of @npes PEs, up to where the heap starts. */
static inline size_t sc_internal_size(int npes)
{
	size_t end = sc_amo_mail_offset(npes) + sizeof(struct sc_amo_mail) * (size_t)npes;

	return (end + SC_INTERNAL_ALIGN - 1) & ~(size_t)(SC_INTERNAL_ALIGN - 1);
}

#endif
