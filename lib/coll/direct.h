/* The pipeline, rsag and one-shot: their stages, which request.c runs between steps. */
#ifndef SHMEMCOMM_COLL_DIRECT_H
#define SHMEMCOMM_COLL_DIRECT_H

#include "coll/types.h"

/* Chunk @c's source into this PE's staging buffer, where it is staged. */
void sc_coll_stage(struct shmemx_request *r, size_t c);
/* Once every member has staged chunk @c: its reduce-scatter or copies. */
void sc_coll_compute(struct shmemx_request *r, size_t c);
/* Once every member has pushed its slice of chunk @c: a staged result to dest. */
void sc_coll_gather(struct shmemx_request *r, size_t c);
/* One-shot: this PE's input into its small buffer of the call's parity. */
void sc_coll_oneshot_stage(struct shmemx_request *r);
/* One-shot, once every member has staged: every input reduced into dest. */
void sc_coll_oneshot_reduce(struct shmemx_request *r);

#endif
