/* The flat pairwise allreduce, reduce-scatter and all-gather: ring, and rhd. */
#ifndef SHMEMCOMM_COLL_RING_H
#define SHMEMCOMM_COLL_RING_H

#include "coll/types.h"

/* Steps per chunk of @r (ring or rhd over the team). */
int sc_coll_ring_steps(const struct shmemx_request *r);
/* Step @k of chunk @c (the team's step count @step): 0 if its partner is not there and !@block. */
int sc_coll_ring_step(struct shmemx_request *r, size_t c, int k, uint64_t step, int block);

#endif
