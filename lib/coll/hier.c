/*
 * The hierarchical scheme (hier), per chunk: load; combine the node's
 * partials of this PE's node slice, read in shared memory from the node's
 * PEs; the rail's ring or rhd over that slice, through the NIC, by the
 * pairwise executor (group.c) from its step 1; then copy the node's other
 * slices from their owners' results. Only 2(N-1)/N of the chunk per node
 * crosses the network, spread over the node's PEs, each on its own QPs.
 * Reduce-scatter and all-gather: the node combines (or copies) the blocks
 * of each rail's PEs, each rail runs across the nodes. (The hierarchical
 * broadcast is chain.c's.)
 *
 * The node phases are loads and stores; the pipelines run one chunk's node
 * work while the rail carries another (sc_coll_hier_overlap, the
 * request's busy hook).
 */
#include "coll/group.h"
#include "coll/hier.h"
#include "coll/plan.h"
#include "coll/steps.h"
#include "coll/xfer.h"

/*
 * The hierarchical scheme's phases, by step @k of a chunk. Allreduce:
 * load, node combine, the rail's steps, node copy. Reduce-scatter: load,
 * node combine, the rail's steps (the last leaves each PE its block).
 * All-gather: the rail's steps (the first puts this PE's block in place),
 * node copy.
 */
enum hier_phase { HIER_LOAD, HIER_NODE_COMBINE, HIER_RAIL, HIER_NODE_COPY };

static enum hier_phase hier_phase(const struct shmemx_request *r, int k)
{
	int steps = r->pair.steps;

	if (r->a.kind == SC_ALLGATHER)
		return k == steps - 1 ? HIER_NODE_COPY : HIER_RAIL;
	if (k <= 1)
		return k ? HIER_NODE_COMBINE : HIER_LOAD;
	return r->a.kind == SC_ALLREDUCE && k == steps - 1 ? HIER_NODE_COPY : HIER_RAIL;
}

/* The rail's group step at chunk step @k (a rail one). */
static int rail_step(const struct shmemx_request *r, int k)
{
	return r->a.kind == SC_ALLGATHER ? k : k - 1;
}

/* The chunk step after which the rail is done with the chunk. */
static int last_rail_step(const struct shmemx_request *r)
{
	return r->pair.steps - (r->a.kind == SC_REDUCE_SCATTER ? 1 : 2);
}

/*
 * Run @index of what node member @l (a local index) owns of chunk @c: in
 * an allreduce its slice, in the block collectives the blocks of the team
 * members of its local index (its rail's). 0 past the last.
 */
static int node_share(const struct shmemx_request *r, size_t c, int l, int index,
		      struct run *run)
{
	const struct sc_team *t = r->a.team;
	size_t clo, chi, lo, hi;

	if (r->a.kind == SC_ALLREDUCE) {
		if (index)
			return 0;
		sc_coll_chunk_range(r, c, &clo, &chi);
		sc_coll_node_slice(r, c, l, &lo, &hi);
		*run = (struct run){ .chunk = c, .at = lo, .buf = lo - clo, .len = hi - lo };
		return 1;
	}
	if (index >= t->nodes)
		return 0;
	*run = sc_coll_block_run(r, c, t->by_node[index * t->per_node + l]);
	return 1;
}

/*
 * The node phases. Node members are on this node, mapped (nodes are found
 * by what maps what): these are loads and stores.
 */
static void hier_load(struct shmemx_request *r, size_t c)
{
	int blocks = r->a.kind == SC_REDUCE_SCATTER ? r->a.team->size : 1;

	for (int b = 0; b < blocks; b++) {
		struct run run = sc_coll_block_run(r, c, b);

		sc_coll_load_run(r, &run);
	}
}

/* This PE's share: the other node members' partials combined into its own. */
static void hier_node_combine(struct shmemx_request *r, size_t c)
{
	const struct sc_team *t = r->a.team;
	struct run run;

	for (int i = 0; node_share(r, c, t->local_index, i, &run); i++)
		for (int l = 0; l < t->per_node; l++)
			if (l != t->local_index)
				sc_coll_combine_from(r, sc_coll_node_member(t, l), &run);
}

/* The other node members' finished shares copied into this PE's results. */
static void hier_node_copy(struct shmemx_request *r, size_t c)
{
	const struct sc_team *t = r->a.team;
	struct run run;

	for (int l = 0; l < t->per_node; l++)
		for (int i = 0; l != t->local_index && node_share(r, c, l, i, &run); i++)
			sc_coll_results_from(r, sc_coll_node_member(t, l), &run);
}

/* Tells the rail that this PE combined the node's partials of chunk @next. */
static void tell_rail_ahead(struct shmemx_request *r, size_t next)
{
	struct pair_group g;

	sc_coll_group_of(r, next, &g);
	sc_coll_tell_group(r, &g, 1, sc_coll_step_number(r, next, 2));
}

/*
 * The hierarchical scheme's pipeline (allreduce and reduce-scatter): while
 * this PE's rail runs chunk c across nodes (its partner not there yet, or
 * the NIC reading), the node phases of chunk c + 1 run: its load, and once
 * every node member has loaded it, the node combine. Called from c's waits
 * and reads (@waited: past the wait of the rail step under way).
 *
 * Chunk c + 1's partial buffers held chunk c - 1's, and nobody reads them
 * any more. The node members combined them before loading c, which this
 * PE's node combine of c waited for. The rail partners: an allreduce's
 * rail has completed c - 1, whose every step waits for the partner's step
 * before it (around the ring, or across the rhd rounds), so each partner
 * is past its last combine of c - 1. A reduce-scatter's rail ends at its
 * last combine, so that chain reaches the last partner only at the wait of
 * c's last rail step: it runs ahead from there. The node lines are kept by
 * chunk parity, so that "loaded c + 1" never passes for "finished c"; the
 * rail lines count steps in order, so the rail hears that c + 1 is
 * combined only once this PE's rail is past c.
 */
static void run_ahead(struct shmemx_request *r, size_t c, int waited)
{
	size_t next = c + 1;
	uint64_t step;

	if (r->algo != SC_ALGO_HIER || r->a.kind == SC_ALLGATHER || !sc.coll.hier_pipeline ||
	    r->hier.ahead == 2 || next >= r->nchunks || r->pair.step < 2)
		return;
	if (r->a.kind == SC_REDUCE_SCATTER && (r->pair.step != last_rail_step(r) || !waited))
		return;
	step = sc_coll_step_number(r, next, r->hier.ahead);
	if (r->hier.ahead == 0) {
		hier_load(r, next);
		sc_coll_tell_node(r, next, step + 1);
		r->hier.ahead = 1;
		step++;
	}
	if (sc_coll_node_ready(r, next, step, 0)) {
		hier_node_combine(r, next);
		r->hier.ahead = 2;
		r->hier.chunks_ahead++;
	}
	if (r->hier.ahead == 2 && r->pair.step > last_rail_step(r))
		tell_rail_ahead(r, next);
}

/*
 * The all-gather's pipeline runs the other way: chunk c's node copy is
 * left for the waits of chunk c + 1's rail (at most one chunk behind).
 * Then its results are read by the node after this PE's rail has moved
 * on, so each PE says when it has copied a chunk ("copied c", after
 * "finished c" on the same node line), and a PE puts chunk c + 2 into
 * c's buffers only once its node has copied c. The rail partners are past
 * c by the argument above.
 */
static uint64_t copied_value(const struct shmemx_request *r, size_t c)
{
	/*
	 * past "finished c" (sc_coll_step_number(r, c, steps - 1)), short of what
	 * the next request tells first ("loaded", step_number + 1 of its step 0)
	 */
	return sc_coll_step_number(r, c, r->pair.steps);
}

/*
 * The node copy of chunk @behind, left for later (and its staged results to
 * dest): 0 if the node is not there and !@block.
 */
static int catch_up(struct shmemx_request *r, size_t behind, int block)
{
	uint64_t finished = sc_coll_step_number(r, behind, last_rail_step(r)) + 1;

	if (!sc_coll_node_ready(r, behind, finished, block))
		return 0;
	hier_node_copy(r, behind);
	sc_coll_pair_gather(r, behind);
	sc_coll_tell_node(r, behind, copied_value(r, behind));
	r->hier.behind = 0;
	r->hier.chunks_behind++;
	return 1;
}

/*
 * The hierarchical pipelines' work, while a rail step of the request's
 * current chunk waits (see run_ahead).
 */
void sc_coll_hier_overlap(struct shmemx_request *r, int waited)
{
	if (r->hier.overlapping)
		return;
	r->hier.overlapping = 1;
	if (r->hier.behind)
		catch_up(r, r->chunk - 1, 0);
	else
		run_ahead(r, r->chunk, waited);
	r->hier.overlapping = 0;
}

/* The all-gather's node copy step of chunk @c: c - 1's first, then c's, or left for later. */
static int allgather_node_copy(struct shmemx_request *r, size_t c, uint64_t step, int block)
{
	if (r->hier.behind && !catch_up(r, c - 1, block))
		return 0;
	if (sc.coll.hier_pipeline && c + 1 < r->nchunks) {
		r->hier.behind = 1;
		return 1;
	}
	if (!sc_coll_node_ready(r, c, step, block))
		return 0;
	hier_node_copy(r, c);
	/* as catch_up does: a node member may run the pipeline (its own SHMEMCOMM_HIER_PIPELINE) */
	sc_coll_tell_node(r, c, copied_value(r, c));
	return 1;
}

/* Step @k's phase; 0 if a partner is not there and !@block. */
static int step_phase(struct shmemx_request *r, const struct pair_group *g, int k,
		      uint64_t step, int block)
{
	size_t c = g->chunk;

	switch (hier_phase(r, k)) {
	case HIER_LOAD:
		hier_load(r, c);
		return 1;
	case HIER_RAIL:
		/* an all-gather's chunk c refills chunk c - 2's buffers: copied by the node? */
		if (r->a.kind == SC_ALLGATHER && k == 0 && c >= 2) {
			uint64_t copied = copied_value(r, c - 2);

			if (!sc_coll_node_ready(r, c - 2, copied, 0)) {
				sc_coll_hier_overlap(r, 0);
				if (!sc_coll_node_ready(r, c - 2, copied, block))
					return 0;
			}
		}
		return sc_coll_group_step(r, g, rail_step(r, k), step, block);
	case HIER_NODE_COMBINE:
	case HIER_NODE_COPY:
	default:
		if (r->a.kind == SC_ALLGATHER)
			return allgather_node_copy(r, c, step, block);
		if (!sc_coll_node_ready(r, c, step, 0)) {
			sc_coll_hier_overlap(r, 0);
			if (!sc_coll_node_ready(r, c, step, block))
				return 0;
		}
		if (hier_phase(r, k) == HIER_NODE_COMBINE)
			hier_node_combine(r, c);
		else
			hier_node_copy(r, c);
		return 1;
	}
}

/* After step @k: tells whoever waits for this PE in the next. */
static void tell_next(struct shmemx_request *r, const struct pair_group *g, int k,
		      uint64_t step)
{
	enum hier_phase phase = hier_phase(r, k);

	if (phase == HIER_RAIL && k == last_rail_step(r)) {
		if (k + 1 < r->pair.steps)
			sc_coll_tell_node(r, g->chunk, step + 1);
		if (r->hier.ahead == 2)
			tell_rail_ahead(r, g->chunk + 1);
	} else if (phase == HIER_LOAD) {
		sc_coll_tell_node(r, g->chunk, step + 1);
	} else if (phase != HIER_NODE_COPY) {
		/* after the node combine, or a rail step: the rail's next */
		sc_coll_tell_group(r, g, phase == HIER_RAIL ? rail_step(r, k) + 1 : 1, step + 1);
	}
}

int sc_coll_hier_steps(const struct shmemx_request *r)
{
	int rail = r->hier.rail_algo, nodes = r->a.team->nodes;

	if (r->a.kind == SC_REDUCE_SCATTER)
		return sc_plan_last_combine(rail, nodes) + 2;
	if (r->a.kind == SC_ALLGATHER)
		return sc_plan_group_steps(rail, nodes) - sc_plan_last_combine(rail, nodes) + 1;
	return sc_plan_group_steps(rail, nodes) + 2;
}

int sc_coll_hier_step(struct shmemx_request *r, size_t c, int k, uint64_t step, int block)
{
	struct pair_group g;

	sc_coll_group_of(r, c, &g);
	if (!step_phase(r, &g, k, step, block))
		return 0;
	tell_next(r, &g, k, step);
	return 1;
}
