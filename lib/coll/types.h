/*
 * The collective engine's types: what a collective is (its kind and
 * arguments), how it runs (its algorithm), and the request that carries
 * it through its stages. Every file of coll/ includes this; which file
 * does what, and the order in which they include each other, is in
 * request.h.
 *
 * A collective is a request that moves through stages. Between stages a PE
 * publishes its step counter for the team and waits until every member has
 * reached the same step; the wait is the only place a request can stop, so
 * a non-blocking request simply returns there and resumes on the next
 * test. Peers' data is read where it is (pull): the user's buffer when it
 * is on the symmetric heap, else the PE's staging buffers.
 */
#ifndef SHMEMCOMM_COLL_TYPES_H
#define SHMEMCOMM_COLL_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "core/state.h"
#include "reduce/dtype.h"
#include "reduce/kernel.h"
#include "reduce/partial.h"
#include "shmemx.h"

enum sc_coll_kind {
	SC_ALLREDUCE, SC_REDUCE_SCATTER, SC_ALLGATHER, SC_BROADCAST, SC_ALLTOALL,
	SC_COLL_KINDS
};

/*
 * How a collective runs. On a node: allreduce one-shot or rsag, the others
 * the pipeline (-1). Across nodes also the pairwise algorithms: allreduce
 * ring, rhd or hier; reduce-scatter and all-gather ring or rhd; broadcast
 * chain; all-to-all the pipeline (each PE reads its blocks from each).
 */
enum sc_coll_algo {
	SC_ALGO_ONESHOT,	/* inputs copied to flags-guarded buffers, each PE reduces all */
	SC_ALGO_RSAG,		/* single-copy reduce-scatter, then all-gather, in chunks */
	/*
	 * Pairwise, for teams across nodes: each step waits for one partner
	 * and reads only from it; partial sums are kept wide (reduce/partial.h)
	 */
	SC_ALGO_RING,		/* ring reduce-scatter, then ring all-gather */
	SC_ALGO_RHD,		/* recursive halving, then recursive doubling (2^k PEs) */
	SC_ALGO_HIER,		/* node's shared memory, then a ring or rhd per rail across nodes */
	SC_ALGO_CHAIN,		/* broadcast: each member copies from the one before, from the root */
	SC_ALGO_COUNT
};

#define SC_ALGO_DIRECT (-2)	/* a forced choice of the pipeline (sc.coll) */
#define SC_COLL_STAGED UINT64_MAX	/* where: the PE's staging buffers */

struct sc_coll_args {
	enum sc_coll_kind kind;
	struct sc_team *team;
	void *dest;
	const void *source;
	size_t count;
	enum sc_dtype dtype;
	enum sc_op op;
	int root;
	const char *what;	/* the call, for messages */
};

struct shmemx_request {
	struct sc_coll_args a;
	struct shmemx_request *next;	/* in the team's queue */
	size_t elem;
	int algo;
	int nblocks;		/* blocks of @count in a source */
	int src_staged;		/* this PE's source goes through stage_in */
	int result_staged;	/* this PE's allreduce results go through stage_out */
	int stream;		/* enum sc_coll_store: how the results are stored */
	int spans;		/* some member is reached through the NIC (see direct.c) */
	size_t chunk_len;	/* elements per block per chunk */
	size_t nchunks;
	size_t chunk;		/* the current one */
	int pc;			/* where to resume */
	int done;
	int heap_allocated;	/* freed on completion by test or wait */
	unsigned parity;
	uint64_t target;	/* the step every member must reach */
	uint64_t tiny_call;	/* the smallest allreduce (tiny.c): its number in the team */
	sc_kernel_fn kernel;
	/*
	 * per member: its source and results in this process, or when the team
	 * @spans nodes, their symmetric addresses in this PE's heap; NULL: staged
	 */
	const char **src_of;
	const char **result_of;
	/* this PE's source and dest as registered (register.c), or NULL: staged or symmetric */
	struct sc_regcache_entry *registered[2];
	/* [2 * size]: each member's source's, then result's, import in use; valid if @imports_held */
	struct sc_regcache_entry **imported;
	int imports_held;
	/* while a step waits for a partner or the NIC: other work (xfer.h), or NULL */
	void (*while_busy)(struct shmemx_request *r, int waited);
	struct {		/* the pairwise algorithms (group.c, ring.c, hier.c, chain.c) */
		const struct sc_partial *partial;	/* allreduce, reduce-scatter */
		size_t results_at;	/* in a pair buffer: staged results, after the partials */
		int big_buffers;	/* on the world team: in the PE's staging buffers */
		uint64_t base;		/* the team's pairwise step count as this request began */
		int step;		/* the next step of the current chunk */
		int steps;		/* a chunk's steps, by the algorithm (request.c) */
	} pair;
	struct {		/* the hierarchical scheme (hier.c) */
		int rail_algo;		/* the ring or rhd across nodes */
		int ahead;		/* steps of the next chunk already run (run_ahead) */
		int overlapping;	/* inside the overlap: its node work never nests */
		size_t chunks_ahead;	/* chunks whose node phases ran during the chunk before */
		int behind;		/* all-gather: the last chunk's node copy is pending (catch_up) */
		size_t chunks_behind;	/* chunks whose node copy ran during the chunk after */
	} hier;
};

/* What a request's per-member arrays take for a team of @n; sc_coll_place_arrays puts them. */
#define SC_COLL_ARRAYS_BYTES(n) ((size_t)(n) * 4 * sizeof(void *))
static inline void sc_coll_place_arrays(struct shmemx_request *r, void *space, int n)
{
	r->src_of = space;
	r->result_of = r->src_of + n;
	r->imported = (struct sc_regcache_entry **)(r->result_of + n);
}

/* How a collective stores its results (sc_coll_streams); nonzero: some streaming. */
enum sc_coll_store {
	SC_STORE_CACHED,
	SC_STORE_STREAM,	/* the copies into results; a PE's own reduced slice cached */
	SC_STORE_STREAM_ALL,	/* its own reduced slice too */
};

/* Whether @algo is one of the pairwise algorithms (their steps wait for one partner each). */
static inline int sc_coll_pairwise(int algo)
{
	return algo == SC_ALGO_RING || algo == SC_ALGO_RHD || algo == SC_ALGO_HIER ||
	       algo == SC_ALGO_CHAIN;
}

/*
 * A run of a segment's elements in chunk @chunk: @at indexes source and
 * dest (for the block collectives block * count + i), @buf the chunk's
 * pair buffers.
 */
struct run {
	size_t chunk, at, buf, len;
};

/* The collective slot of member @member of the request's team, where it is mapped. */
static inline struct sc_coll_slot *sc_coll_slot_of(const struct shmemx_request *r, int member)
{
	return &sc_internal_of(sc_team_world_pe(r->a.team, member))->coll[r->a.team->slot];
}

static inline struct sc_coll_slot *sc_coll_slot_of_me(const struct shmemx_request *r)
{
	return &sc_internal_of(sc.me)->coll[r->a.team->slot];
}

/* What a member's call must match: kind, dtype, op, algorithm and root, in one word. */
static inline uint64_t sc_coll_signature(const struct shmemx_request *r)
{
	return (uint64_t)r->a.kind | (uint64_t)r->a.dtype << 8 | (uint64_t)r->a.op << 16 |
	       (uint64_t)(r->algo & 0xff) << 24 | (uint64_t)(uint32_t)r->a.root << 32;
}

#endif
