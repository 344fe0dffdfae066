/*
 * The pairwise executor: one step of a ring or rhd plan (plan.h) run by a
 * group of members over a range of elements: the whole team over the chunk
 * (ring.c), or in the hierarchical scheme one rail, the members with the
 * same local index on every node, over its node slice (hier.c).
 */
#ifndef SHMEMCOMM_COLL_GROUP_H
#define SHMEMCOMM_COLL_GROUP_H

#include "coll/plan.h"
#include "coll/types.h"

/* The group this PE's pairwise steps run in, for chunk @c: the team, or its rail. */
void sc_coll_group_of(const struct shmemx_request *r, size_t c, struct pair_group *g);
/* Group step @k (the team's step count @step): 0 if its partner is not there and !@block. */
int sc_coll_group_step(struct shmemx_request *r, const struct pair_group *g, int k,
		       uint64_t step, int block);
/* Tells whoever waits for this PE in the group's step @k. */
void sc_coll_tell_group(const struct shmemx_request *r, const struct pair_group *g, int k,
			uint64_t step);

#endif
