/* Broadcast across nodes: a chain from the root, flat or along the root's rail. */
#ifndef SHMEMCOMM_COLL_CHAIN_H
#define SHMEMCOMM_COLL_CHAIN_H

#include "coll/types.h"

/* Chunk @c's one step (the team's step count @step): 0 if a partner is not there and !@block. */
int sc_coll_chain_step(struct shmemx_request *r, size_t c, uint64_t step, int block);

#endif
