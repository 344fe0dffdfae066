/*
 * A broadcast chain: each member copies the chunk from the member before
 * it, from the root on, and says so to the member after it (line 0). The
 * chain does not close, so a member also tells the one before it when it
 * has read a chunk (line 1), and a member refills the buffers of chunk c
 * only once the member after it has read them.
 *
 * The hierarchical broadcast runs the chain along the root's rail (the
 * team members of the root's local index, from the root's node on), and
 * each rail member hands the chunk to its node members: they copy it by
 * loads once told on their node line, and say so on the rail member's, so
 * it also waits for them before refilling a chunk's buffers.
 */
#include "coll/chain.h"
#include "coll/steps.h"
#include "coll/xfer.h"

int sc_coll_chain_step(struct shmemx_request *r, size_t c, uint64_t step, int block)
{
	const struct sc_team *t = r->a.team;
	int root = r->a.root, hier = r->algo == SC_ALGO_HIER;
	int n = hier ? t->nodes : t->size;
	int root_local = hier ? t->local_of[root] : 0;
	int first = hier ? t->node_of[root] : root, me = hier ? t->node_index : t->my_index;
	int left, right, is_first = me == first, is_last = (me + 1) % n == first;
	struct run run;
	size_t lo, hi;

	sc_coll_chunk_range(r, c, &lo, &hi);
	run = (struct run){ .chunk = c, .at = lo, .buf = 0, .len = hi - lo };
	if (hier && t->local_index != root_local) {
		int feeder = sc_coll_node_member(t, root_local);

		if (!sc_coll_partner_ready(r, feeder, sc_coll_node_line(c, root_local), step + 1, block))
			return 0;
		sc_coll_results_from(r, feeder, &run);
		sc_coll_tell(r, feeder, sc_coll_node_line(c, t->local_index), step + 1);
		return 1;
	}
	left = hier ? t->by_node[(me + n - 1) % n * t->per_node + root_local] : (me + n - 1) % n;
	right = hier ? t->by_node[(me + 1) % n * t->per_node + root_local] : (me + 1) % n;
	if (!is_first && !sc_coll_partner_ready(r, left, 0, step + 1, block))
		return 0;
	if (c >= 2 && ((!is_last && !sc_coll_partner_ready(r, right, 1, step - 1, block)) ||
		       (hier && !sc_coll_node_ready(r, c, step - 1, block))))
		return 0;
	if (is_first)
		sc_coll_load_run(r, &run);
	else
		sc_coll_results_from(r, left, &run);
	if (!is_last)
		sc_coll_tell(r, right, 0, step + 1);
	if (!is_first)
		sc_coll_tell(r, left, 1, step + 1);
	if (hier)
		sc_coll_tell_node(r, c, step + 1);
	return 1;
}
