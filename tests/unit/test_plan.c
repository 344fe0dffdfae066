/*
 * The pairwise step planners (coll/plan.c), walked for every member of
 * groups of 2..16 (rhd: the powers of two) through every step of an
 * allreduce, a reduce-scatter and an all-gather, in rounds as the lines
 * order them: each segment is finished exactly once, from every member's
 * contribution counted once; copies only take finished segments; every
 * member ends with what its kind promises; and whoever is told after a
 * step is the partner that waits for it.
 */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "coll/plan.h"

#define MAX_N 16

struct member {
	uint32_t partial[MAX_N];	/* by segment: whose contributions it holds */
	uint32_t result[MAX_N];		/* by segment: finished contributions, or 0 */
};

static int kind_steps(enum sc_coll_kind kind, int algo, int n)
{
	int all = sc_plan_group_steps(algo, n), last = sc_plan_last_combine(algo, n);

	if (kind == SC_REDUCE_SCATTER)
		return last + 1;
	if (kind == SC_ALLGATHER)
		return all - last;
	return all;
}

/* The member whose block segment @s is (pair.c's block_of on a whole team). */
static int block_of(int algo, int n, int s)
{
	return algo == SC_ALGO_RING ? (s + n - 1) % n : s;
}

static void walk(enum sc_coll_kind kind, int algo, int n)
{
	static struct member now[MAX_N], before[MAX_N];
	struct pair_group g = { .algo = algo, .size = n, .rail = -1, .lo = 0, .hi = 1024 };
	uint32_t everyone = (1u << n) - 1;
	int finished[MAX_N] = { 0 }, steps = kind_steps(kind, algo, n);

	memset(now, 0, sizeof(now));
	for (int k = 0; k < steps; k++) {
		memcpy(before, now, sizeof(now));
		for (int me = 0; me < n; me++) {
			struct member *m = &now[me];
			struct pair_plan p;

			g.me = me;
			sc_plan_kind_step(kind, &g, me, k, &p);
			CHECK(p.first >= 0 && p.first < p.last && p.last <= n);
			CHECK((p.action == PAIR_LOAD) == (k == 0));
			CHECK(k == 0 ? p.partner == -1 : p.partner >= 0 && p.partner < n &&
								p.partner != me);
			for (int s = p.first; s < p.last; s++) {
				const struct member *from = k ? &before[p.partner] : NULL;

				if (p.action == PAIR_LOAD && kind == SC_ALLGATHER) {
					m->result[s] = everyone;	/* its own block, final */
				} else if (p.action == PAIR_LOAD) {
					m->partial[s] = 1u << me;
				} else if (p.action == PAIR_COMBINE) {
					/* a contribution counted twice would be a wrong sum */
					CHECK_EQ(m->partial[s] & from->partial[s], 0u);
					m->partial[s] |= from->partial[s];
				} else {
					CHECK_EQ(from->result[s], everyone);
					m->result[s] = from->result[s];
				}
			}
			if (p.finish) {
				CHECK(kind != SC_ALLGATHER);
				CHECK_EQ(m->partial[p.finish_seg], everyone);
				m->result[p.finish_seg] = everyone;
				finished[p.finish_seg]++;
				if (kind == SC_REDUCE_SCATTER)
					CHECK_EQ(block_of(algo, n, p.finish_seg), me);
			}
			/* the member told after step k - 1 is the one that reads from me in k */
			if (k > 0) {
				int waiter = sc_plan_waiter(kind, &g, me, k);
				struct pair_plan theirs;

				CHECK(waiter >= 0 && waiter < n);
				sc_plan_kind_step(kind, &g, waiter, k, &theirs);
				CHECK_EQ(theirs.partner, me);
			}
		}
	}
	for (int s = 0; s < n; s++) {
		CHECK_EQ(finished[s], kind == SC_ALLGATHER ? 0 : 1);
		for (int me = 0; me < n; me++)
			if (kind != SC_REDUCE_SCATTER)
				CHECK_EQ(now[me].result[s], everyone);
	}
}

int main(void)
{
	static const enum sc_coll_kind kinds[] = { SC_ALLREDUCE, SC_REDUCE_SCATTER, SC_ALLGATHER };
	int walks = 0;

	for (int n = 2; n <= MAX_N; n++)
		for (int i = 0; i < 3; i++) {
			walk(kinds[i], SC_ALGO_RING, n);
			walks++;
			if (!(n & (n - 1))) {
				walk(kinds[i], SC_ALGO_RHD, n);
				walks++;
			}
		}
	printf("plan: %d walks of ring and rhd over 2..%d members, every step checked\n", walks,
	       MAX_N);
	return 0;
}
