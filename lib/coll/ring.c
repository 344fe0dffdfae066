/*
 * Ring and recursive halving/doubling over the whole team, one chunk at a
 * time: each step a step of the pairwise executor (group.c) with the team
 * as its group, planned by plan.c (ring 2n-1 steps, rhd 2 log2 n + 1). A
 * reduce-scatter stops where each member owns its block; an all-gather
 * starts there (its step 0 puts this PE's own block in place).
 */
#include "coll/group.h"
#include "coll/plan.h"
#include "coll/ring.h"

int sc_coll_ring_steps(const struct shmemx_request *r)
{
	int n = r->a.team->size;

	if (r->a.kind == SC_REDUCE_SCATTER)
		return sc_plan_last_combine(r->algo, n) + 1;
	if (r->a.kind == SC_ALLGATHER)
		return sc_plan_group_steps(r->algo, n) - sc_plan_last_combine(r->algo, n);
	return sc_plan_group_steps(r->algo, n);
}

int sc_coll_ring_step(struct shmemx_request *r, size_t c, int k, uint64_t step, int block)
{
	struct pair_group g;

	sc_coll_group_of(r, c, &g);
	if (!sc_coll_group_step(r, &g, k, step, block))
		return 0;
	if (k + 1 < r->pair.steps)
		sc_coll_tell_group(r, &g, k + 1, step + 1);
	return 1;
}
