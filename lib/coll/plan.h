/*
 * The pairwise algorithms' step planners: pure functions of the
 * algorithm, the collective's kind, the group's size n, a member and a
 * step, so that a test can walk every member through every step.
 */
#ifndef SHMEMCOMM_COLL_PLAN_H
#define SHMEMCOMM_COLL_PLAN_H

#include <stddef.h>

#include "coll/types.h"

struct pair_group {
	int algo;		/* SC_ALGO_RING or SC_ALGO_RHD */
	int size, me;
	int rail;		/* the rail's local index; -1: the group is the team */
	size_t chunk;
	size_t lo, hi;		/* its elements of the chunk */
};

struct pair_plan {
	enum { PAIR_LOAD, PAIR_COMBINE, PAIR_COPY } action;
	int partner;		/* group index waited for and read from; -1 for none */
	int line;		/* its line in this PE's coll_pair */
	int first, last;	/* segments [first, last) */
	int finish;		/* then round segment @finish_seg into the result */
	int finish_seg;
};

/* ceil(log2 @n) */
int sc_plan_log2(int n);
/* The steps of an allreduce by @algo (ring, rhd) over @n members. */
int sc_plan_group_steps(int algo, int n);
/* The last step that combines: after it, each segment has one owner. */
int sc_plan_last_combine(int algo, int n);
/* What group member @me does in step @k of the group's collective of @kind. */
void sc_plan_kind_step(enum sc_coll_kind kind, const struct pair_group *g, int me, int k,
		       struct pair_plan *p);
/* Who waits for member @me in step @k (and reads from it): the one to tell after step @k - 1. */
int sc_plan_waiter(enum sc_coll_kind kind, const struct pair_group *g, int me, int k);

#endif
