/*
 * The collective engine: one pipeline, run by the training collectives of
 * shmemx.h and the OpenSHMEM reductions alike.
 *
 * A collective is a request that moves through stages. Between stages a PE
 * publishes its step counter for the team and waits until every member has
 * reached the same step; the wait is the only place a request can stop, so
 * a non-blocking request simply returns there and resumes on the next
 * test. Peers' data is read where it is (pull): the user's buffer when it
 * is on the symmetric heap, else the PE's staging buffers.
 */
#ifndef SHMEMCOMM_COLL_COLL_H
#define SHMEMCOMM_COLL_COLL_H

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
	/* while a step waits for a partner or the NIC: other work (engine.h), or NULL */
	void (*while_busy)(struct shmemx_request *r, int waited);
	struct {		/* the pairwise algorithms (pair.c) */
		const struct sc_partial *partial;	/* allreduce, reduce-scatter */
		size_t results_at;	/* in a pair buffer: staged results, after the partials */
		int big_buffers;	/* on the world team: in the PE's staging buffers */
		uint64_t base;		/* the team's pairwise step count as this request began */
		int step;		/* the next step of the current chunk */
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

/* Reads the SHMEMCOMM_ALLREDUCE_ and SHMEMCOMM_COLL_ variables: 0, or -1 after a message. */
int sc_coll_tune(struct sc_coll_tuning *tuning);
const char *sc_coll_algo_name(int algo);
/* "allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall": the kind, or -1. */
int sc_coll_kind_parse(const char *name);
/* The allreduce algorithm for @bytes on @team. */
int sc_coll_pick_algo(size_t bytes, const struct sc_team *team);
/* Whether the smallest allreduce, of @bytes (up to SC_TINY_MAX), runs on the tiny lines. */
int sc_coll_tiny_lines_win(size_t bytes, const struct sc_team *team);
/* How a collective stores its results (sc_coll_streams); nonzero: some streaming. */
enum sc_coll_store {
	SC_STORE_CACHED,
	SC_STORE_STREAM,	/* the copies into results; a PE's own reduced slice cached */
	SC_STORE_STREAM_ALL,	/* its own reduced slice too */
};

/* How results of @dst_bytes a member, on a team of @members, are stored. */
enum sc_coll_store sc_coll_streams(size_t dst_bytes, int members);
/* The algorithm of a @kind (not allreduce) moving @bytes in all on @team; -1: the pipeline. */
int sc_coll_pick_kind_algo(enum sc_coll_kind kind, size_t bytes, const struct sc_team *team);
/* Whether @team lies on its nodes evenly enough for the hierarchical scheme. */
int sc_coll_hier_fits(const struct sc_team *team);

/*
 * Checks @a and sets @r up (its arrays must hold the team's size); -1 after a
 * message naming the bad argument. Then sc_coll_start queues and starts it.
 */
int sc_coll_prepare(struct shmemx_request *r, const struct sc_coll_args *a);
void sc_coll_start(struct shmemx_request *r);
/* Runs the team's queue until @r completes. */
void sc_coll_finish(struct shmemx_request *r);
/* Runs the team's queue as far as it goes without waiting; whether @r is done. */
int sc_coll_poll(struct shmemx_request *r);
/* What @r waits for, naming the members behind (shmemx_request_describe). */
void sc_coll_describe(const struct shmemx_request *r, char *out, unsigned long len);

/* A whole collective, blocking. */
int sc_coll_run(const struct sc_coll_args *a);
/* For a slot's next team: the smallest allreduce's lines hold no call (after the team's last sync). */
void sc_coll_tiny_forget(int slot);

/*
 * Collectives done here by plain reads between two syncs rather than on the
 * engine (active.c): for a team, and for the deprecated active sets. Who
 * takes part: a team, or an active set (sync/sync.h).
 */
struct sc_active_set;
struct sc_coll_members {
	const struct sc_team *team;	/* or */
	const struct sc_active_set *set;
};

/* @bytes from each member (each its own count), in member order. */
void sc_coll_collect_here(const struct sc_coll_members *g, void *dest, const void *source,
			  size_t bytes, const char *what);
/*
 * alltoalls: @nelems elements of @elem bytes (1, 2, 4, 8 or 16) to each
 * member, @sst elements apart in source and @dst apart in dest (both at
 * least 1: the caller checks), by strided gets.
 */
void sc_coll_alltoalls_here(const struct sc_coll_members *g, void *dest, const void *source,
			    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem,
			    const char *what);
/*
 * A reduction: @elem is the size of one element of @count; with
 * @complex_prod, a complex of that size, multiplied (the kernels lack it);
 * else @dtype and @op, by sc_reduce_reference. Every member's @source is
 * read in member order and reduced here, so every member gets the same bits.
 */
struct sc_local_reduce {
	enum sc_dtype dtype;
	enum sc_op op;
	size_t elem;
	int complex_prod;
};
void sc_coll_reduce_here(const struct sc_coll_members *g, void *dest, const void *source,
			 size_t count, const struct sc_local_reduce *how, const char *what);

#endif
