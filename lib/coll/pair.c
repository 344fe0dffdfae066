/*
 * The pairwise algorithms, ring and recursive halving/doubling, run by a
 * group of members over a range of elements: the whole team over the
 * chunk, or in the hierarchical scheme one rail (the members with the same
 * index on every node) over its node slice. The range is cut into one
 * segment per group member. Step 0 loads this PE's input into its partial
 * buffer (widened: reduce/partial.h); each later step waits for one
 * partner to have completed the step before, then either combines the
 * partner's partial of some segments into its own, or copies the
 * partner's final result of some segments into its own result. The member
 * that combines a segment last rounds it into its result (finish): one PE
 * computes each element, so every PE gets the same bits.
 *
 *   ring, 2n-1 steps: step k in 1..n-1 combines segment me-k from the
 *   left neighbour, the last of them finishes segment me+1; step k in
 *   n..2n-2 copies segment me-(k-n) from the left neighbour.
 *   rhd, 2L+1 steps (n = 2^L): step k in 1..L halves the segments kept
 *   (partner me ^ n>>k) and combines them; step k in L+1..2L copies back
 *   the partner's segments, the rounds in reverse.
 *
 * Hierarchical (hier), per chunk: load; combine the node's partials of
 * this PE's node slice, read in shared memory from the node's PEs; the
 * rail's ring or rhd over that slice, through the NIC, from its step 1;
 * then copy the node's other slices from their owners' results. Only
 * 2(N-1)/N of the chunk per node crosses the network, spread over the
 * node's PEs, each on its own QPs.
 *
 * A PE tells whoever waits for it in their next step when a step is
 * complete, on a line of its own in their internal area (coll_pair), with
 * the team's running count of steps, so lines only grow. A partner writes
 * only segments the reader does not read in the same chunk, and reaches
 * chunk c + 2, which reuses the buffers of chunk c, only after every PE
 * that read them has told it of a step of chunk c + 1. Between calls the
 * request's first and last steps are team syncs, as for the pipeline.
 */
#include <string.h>

#include "coll/engine.h"

/*
 * Steps per chunk. A reduce-scatter stops where each member owns its
 * block; an all-gather starts there (its step 0 puts this PE's own block
 * in place); the hierarchical scheme adds the node's combine (allreduce,
 * reduce-scatter) and copy (allreduce, all-gather); a broadcast chain is
 * one step, a copy from the member before.
 */
int sc_coll_pair_steps(const struct shmemx_request *r)
{
	const struct sc_team *t = r->a.team;

	if (r->algo == SC_ALGO_CHAIN || r->a.kind == SC_BROADCAST)
		return 1;
	if (r->algo == SC_ALGO_HIER && r->a.kind == SC_REDUCE_SCATTER)
		return sc_plan_last_combine(r->hier.rail_algo, t->nodes) + 2;
	if (r->algo == SC_ALGO_HIER && r->a.kind == SC_ALLGATHER)
		return sc_plan_group_steps(r->hier.rail_algo, t->nodes) - sc_plan_last_combine(r->hier.rail_algo, t->nodes) + 1;
	if (r->algo == SC_ALGO_HIER)
		return sc_plan_group_steps(r->hier.rail_algo, t->nodes) + 2;
	if (r->a.kind == SC_REDUCE_SCATTER)
		return sc_plan_last_combine(r->algo, t->size) + 1;
	if (r->a.kind == SC_ALLGATHER)
		return sc_plan_group_steps(r->algo, t->size) - sc_plan_last_combine(r->algo, t->size);
	return sc_plan_group_steps(r->algo, t->size);
}

/* The team index of group member @index. */
static int group_member(const struct shmemx_request *r, const struct pair_group *g, int index)
{
	const struct sc_team *t = r->a.team;

	return g->rail < 0 ? index : t->by_node[index * t->per_node + g->rail];
}

/*
 * Segments are slices of the group's range, or for reduce-scatter and
 * all-gather whole blocks, each the block of a group member: the ring's
 * finished segment me+1 is member me's. (A rail's member is on each node,
 * so a rail carries the blocks of the team members of its local index.)
 */
static int block_of(const struct shmemx_request *r, const struct pair_group *g, int segment)
{
	return group_member(r, g, g->algo == SC_ALGO_RING ? (segment + g->size - 1) % g->size :
							       segment);
}

/* Chunk @c's run of block @block. */
struct run sc_coll_block_run(const struct shmemx_request *r, size_t c, int block)
{
	size_t lo, hi;

	sc_coll_chunk_range(r, c, &lo, &hi);
	return (struct run){ .chunk = c, .at = (size_t)block * r->a.count + lo,
			     .buf = (size_t)block * r->chunk_len, .len = hi - lo };
}

/* Run @index of the group's segments [first, last); 0 past the last. */
static int segment_run(const struct shmemx_request *r, const struct pair_group *g, int first,
		       int last, int index, struct run *run)
{
	size_t lo, hi, a, b, unused;

	if (r->a.kind != SC_REDUCE_SCATTER && r->a.kind != SC_ALLGATHER) {
		if (index)
			return 0;
		sc_coll_chunk_range(r, g->chunk, &lo, &hi);
		sc_coll_cut(r, g->lo, g->hi, g->size, first, &a, &unused);
		sc_coll_cut(r, g->lo, g->hi, g->size, last - 1, &unused, &b);
		*run = (struct run){ .chunk = g->chunk, .at = a, .buf = a - lo, .len = b - a };
		return 1;
	}
	if (first + index >= last)
		return 0;
	*run = sc_coll_block_run(r, g->chunk, block_of(r, g, first + index));
	return 1;
}

/* The group this PE's pairwise steps run in, for chunk @c. */
void sc_coll_pair_group_of(const struct shmemx_request *r, size_t c, struct pair_group *g)
{
	const struct sc_team *t = r->a.team;

	g->chunk = c;
	if (r->algo == SC_ALGO_HIER) {
		g->algo = r->hier.rail_algo;
		g->size = t->nodes;
		g->me = t->node_index;
		g->rail = t->local_index;
		sc_coll_node_slice(r, c, t->local_index, &g->lo, &g->hi);
	} else {
		g->algo = r->algo;
		g->size = t->size;
		g->me = t->my_index;
		g->rail = -1;
		sc_coll_chunk_range(r, c, &g->lo, &g->hi);
	}
}

/* This PE's partial at @buf of chunk @c, and where it sits in every PE. */
static char *partial_at(const struct shmemx_request *r, size_t c, size_t buf)
{
	struct sc_internal *mine = sc_internal_of(sc.me);

	return (r->pair.big_buffers ? mine->stage_in[c & 1] : mine->pair[r->a.team->slot][c & 1]) +
	       buf * r->pair.partial->size;
}

/*
 * Where member @m keeps the results of @run: its dest on the heap, or its
 * pair buffer; a reduce-scatter's only in this PE's own dest, read by none.
 */
static char *run_result(const struct shmemx_request *r, int m, const struct run *run)
{
	if (r->a.kind == SC_REDUCE_SCATTER)
		return (char *)r->a.dest + (run->at - (size_t)r->a.team->my_index * r->a.count) *
		       r->elem;
	if (r->result_of[m])
		return (char *)r->result_of[m] + run->at * r->elem;
	return sc_coll_staged_results(r, run->chunk, sc_team_world_pe(r->a.team, m)) +
	       run->buf * r->elem;
}

/*
 * Combines member @m's partials of @run into this PE's. While the NIC
 * reads a remote member's, the next chunk's node phases run.
 */
void sc_coll_combine_from(struct shmemx_request *r, int m, const struct run *run)
{
	size_t bytes = run->len * r->pair.partial->size;
	const char *theirs;

	if (!bytes)
		return;
	/* the scratch is only touched for remote reads: none is in flight while it grows */
	theirs = sc_coll_fetch(r, m, sc_internal_offset(partial_at(r, run->chunk, run->buf)), bytes,
		       sc_coll_remote(r, m) ? sc_coll_scratch_for(bytes) : NULL);
	sc_coll_land(r, m);
	r->pair.partial->combine(partial_at(r, run->chunk, run->buf), theirs, run->len);
}

/* Copies member @m's results of @run into this PE's (and runs ahead as above). */
void sc_coll_results_from(struct shmemx_request *r, int m, const struct run *run)
{
	/* symmetric addresses: where member @m keeps them, as this PE's segment would */
	const char *theirs = r->result_of[m] ? r->result_of[m] + run->at * r->elem :
			     sc_coll_staged_results(r, run->chunk, sc.me) + run->buf * r->elem;

	if (!run->len)
		return;
	sc_coll_copy_from(r, m, sc_internal_offset(theirs), run_result(r, r->a.team->my_index, run),
		  run->len * r->elem);
	sc_coll_land(r, m);
}

/* Step 0's own data: loaded as partials, or (all-gather, broadcast) put in place. */
void sc_coll_load_run(const struct shmemx_request *r, const struct run *run)
{
	const char *from;
	char *to;

	if (!run->len)
		return;
	from = (const char *)r->a.source +
	       (r->a.kind == SC_ALLGATHER ? run->at % r->a.count : run->at) * r->elem;
	if (r->pair.partial) {
		r->pair.partial->load(partial_at(r, run->chunk, run->buf), from, run->len);
		return;
	}
	to = run_result(r, r->a.team->my_index, run);
	if (to != from && run->len)
		sc_copy(to, from, run->len * r->elem, 0);
}

/* Group step @k: 0 if its partner is not there and !@block. */
int sc_coll_group_step(struct shmemx_request *r, const struct pair_group *g, int k,
		       uint64_t step, int block)
{
	struct pair_plan p;
	struct run run;

	sc_plan_kind_step(r->a.kind, g, g->me, k, &p);
	if (p.partner >= 0 && !sc_coll_partner_ready(r, group_member(r, g, p.partner), p.line, step, 0)) {
		sc_coll_busy(r, 0);
		if (!sc_coll_partner_ready(r, group_member(r, g, p.partner), p.line, step, block))
			return 0;
	}
	for (int i = 0; segment_run(r, g, p.first, p.last, i, &run); i++) {
		if (p.action == PAIR_LOAD)
			sc_coll_load_run(r, &run);
		else if (p.action == PAIR_COMBINE)
			sc_coll_combine_from(r, group_member(r, g, p.partner), &run);
		else
			sc_coll_results_from(r, group_member(r, g, p.partner), &run);
	}
	if (p.finish && segment_run(r, g, p.finish_seg, p.finish_seg + 1, 0, &run))
		r->pair.partial->finish(run_result(r, r->a.team->my_index, &run),
				   partial_at(r, run.chunk, run.buf), run.len, r->a.team->size);
	return 1;
}

/* Tells whoever waits for this PE in the group's step @k. */
void sc_coll_tell_group(const struct shmemx_request *r, const struct pair_group *g, int k,
			uint64_t step)
{
	int waiter = sc_plan_waiter(r->a.kind, g, g->me, k);
	struct pair_plan theirs;

	sc_plan_kind_step(r->a.kind, g, waiter, k, &theirs);
	sc_coll_tell(r, group_member(r, g, waiter), theirs.line, step);
}

/* The team's count of pairwise steps at step @k of chunk @c. */
uint64_t sc_coll_step_number(const struct shmemx_request *r, size_t c, int k)
{
	return r->pair.base + c * (uint64_t)sc_coll_pair_steps(r) + (uint64_t)k;
}

/* At chunk @c's end: staged results to dest (a reduce-scatter wrote dest itself). */
void sc_coll_pair_gather(struct shmemx_request *r, size_t c)
{
	int blocks = r->a.kind == SC_ALLGATHER ? r->a.team->size : 1;

	if (!r->result_staged || r->a.kind == SC_REDUCE_SCATTER)
		return;
	for (int b = 0; b < blocks; b++) {
		struct run run = sc_coll_block_run(r, c, b);

		sc_coll_to_dest(r, run.at, sc_coll_staged_results(r, c, sc.me) + run.buf * r->elem,
				run.len);
	}
}

/* One step of a pairwise algorithm in chunk @c; 0 if its partner is not there and !@block. */
int sc_coll_pair_step(struct shmemx_request *r, size_t c, int block)
{
	struct sc_team *t = r->a.team;
	int k = r->pair.step, steps = sc_coll_pair_steps(r);
	uint64_t step = sc_coll_step_number(r, c, k);
	struct pair_group g;

	if (r->a.kind == SC_BROADCAST) {
		if (!sc_coll_chain_step(r, c, step, block))
			return 0;
		atomic_store(&sc_internal_of(sc.me)->coll_pair_done[t->slot].value, step + 1);
		return 1;
	}
	sc_coll_pair_group_of(r, c, &g);
	if (r->algo == SC_ALGO_HIER ? !sc_coll_hier_step(r, &g, k, step, block) :
				      !sc_coll_group_step(r, &g, k, step, block))
		return 0;
	atomic_store(&sc_internal_of(sc.me)->coll_pair_done[t->slot].value, step + 1);
	if (r->algo == SC_ALGO_HIER)
		sc_coll_hier_tell(r, &g, k, step);
	else if (k + 1 < steps)
		sc_coll_tell_group(r, &g, k + 1, step + 1);
	return 1;
}
