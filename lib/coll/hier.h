/* The hierarchical allreduce, reduce-scatter and all-gather across nodes. */
#ifndef SHMEMCOMM_COLL_HIER_H
#define SHMEMCOMM_COLL_HIER_H

#include "coll/types.h"

/* Steps per chunk of @r: the node's phases and the rail's. */
int sc_coll_hier_steps(const struct shmemx_request *r);
/* Step @k of chunk @c (the team's step count @step): 0 if a partner is not there and !@block. */
int sc_coll_hier_step(struct shmemx_request *r, size_t c, int k, uint64_t step, int block);
/*
 * The pipelines' work while a rail step of the request's current chunk
 * waits (@waited: past the wait of the step under way): the request's busy
 * hook, set at prepare.
 */
void sc_coll_hier_overlap(struct shmemx_request *r, int waited);

#endif
