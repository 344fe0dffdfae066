/*
 * The pairwise executor (group.h). The group's range is cut into one
 * segment per group member. Step 0 loads this PE's input into its partial
 * buffer (widened: reduce/partial.h); each later step waits for one
 * partner to have completed the step before, then either combines the
 * partner's partial of some segments into its own, or copies the
 * partner's final result of some segments into its own result. The member
 * that combines a segment last rounds it into its result (finish): one PE
 * computes each element, so every PE gets the same bits. Which segments,
 * which partner and which line each step takes is the plan's (plan.c).
 *
 * A PE tells whoever waits for it in their next step when a step is
 * complete, on a line of its own in their internal area (coll_pair), with
 * the team's running count of steps, so lines only grow. A partner writes
 * only segments the reader does not read in the same chunk, and reaches
 * chunk c + 2, which reuses the buffers of chunk c, only after every PE
 * that read them has told it of a step of chunk c + 1.
 */
#include "coll/group.h"
#include "coll/steps.h"
#include "coll/xfer.h"

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
void sc_coll_group_of(const struct shmemx_request *r, size_t c, struct pair_group *g)
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
		r->pair.partial->finish(sc_coll_run_result(r, r->a.team->my_index, &run),
				   sc_coll_partial_at(r, run.chunk, run.buf), run.len, r->a.team->size);
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
