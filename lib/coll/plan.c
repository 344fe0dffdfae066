/*
 * The pairwise planners (the schedules are described in ring.c and group.c):
 *
 *   ring, 2n-1 steps: step k in 1..n-1 combines segment me-k from the
 *   left neighbour, the last of them finishes segment me+1; step k in
 *   n..2n-2 copies segment me-(k-n) from the left neighbour.
 *   rhd, 2L+1 steps (n = 2^L): step k in 1..L halves the segments kept
 *   (partner me ^ n>>k) and combines them; step k in L+1..2L copies back
 *   the partner's segments, the rounds in reverse.
 */
#include "coll/plan.h"

int sc_plan_log2(int n)
{
	int l = 0;

	while ((1 << l) < n)
		l++;
	return l;
}

int sc_plan_group_steps(int algo, int n)
{
	return algo == SC_ALGO_RING ? 2 * n - 1 : 2 * sc_plan_log2(n) + 1;
}

int sc_plan_last_combine(int algo, int n)
{
	return algo == SC_ALGO_RING ? n - 1 : sc_plan_log2(n);
}

static int wrap(int i, int n)
{
	return ((i % n) + n) % n;
}

/* What group member @me does in the group's step @k. */
static void group_step(const struct pair_group *g, int me, int k, struct pair_plan *p)
{
	int n = g->size, l = sc_plan_log2(n);
	int last_combine = g->algo == SC_ALGO_RING ? n - 1 : l;

	p->partner = -1;
	p->line = 0;
	p->finish = k == last_combine;
	p->finish_seg = g->algo == SC_ALGO_RING ? (me + 1) % n : me;
	if (k == 0) {
		p->action = PAIR_LOAD;
		p->first = 0;
		p->last = n;
		return;
	}
	p->action = k <= last_combine ? PAIR_COMBINE : PAIR_COPY;
	if (g->algo == SC_ALGO_RING) {
		p->partner = wrap(me - 1, n);
		p->first = wrap(p->action == PAIR_COMBINE ? me - k : me - (k - n), n);
		p->last = p->first + 1;
		return;
	}
	/* rhd: round @line, partner across bit @half; halving keeps this PE's half */
	p->line = k <= l ? k - 1 : 2 * l - k;
	{
		int half = n >> (p->line + 1);
		int owner = p->action == PAIR_COMBINE ? me : me ^ half;

		p->partner = me ^ half;
		p->first = owner / half * half;
		p->last = p->first + half;
	}
}

/* Group step @k as the request's kind runs it (see pair_steps). */
void sc_plan_kind_step(enum sc_coll_kind kind, const struct pair_group *g, int me, int k,
		       struct pair_plan *p)
{
	if (kind != SC_ALLGATHER) {
		group_step(g, me, k, p);
		return;
	}
	if (k) {
		group_step(g, me, k + sc_plan_last_combine(g->algo, g->size), p);
		return;
	}
	/* all-gather step 0: this PE's own block, the segment an allreduce would finish */
	group_step(g, me, sc_plan_last_combine(g->algo, g->size), p);
	p->action = PAIR_LOAD;
	p->partner = -1;
	p->first = p->finish_seg;
	p->last = p->first + 1;
	p->finish = 0;
}

int sc_plan_waiter(enum sc_coll_kind kind, const struct pair_group *g, int me, int k)
{
	struct pair_plan mine;

	if (g->algo == SC_ALGO_RING)
		return (me + 1) % g->size;
	sc_plan_kind_step(kind, g, me, k, &mine);
	return mine.partner;
}
