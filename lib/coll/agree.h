/*
 * Every member must make the same call, and pipeline it alike: checked at
 * a request's first step, where each PE also learns where the others'
 * buffers are.
 */
#ifndef SHMEMCOMM_COLL_AGREE_H
#define SHMEMCOMM_COLL_AGREE_H

#include "coll/types.h"

/* The members' calls must match; a mismatch would corrupt data or hang. */
void sc_coll_check_members_agree(const struct shmemx_request *r);
/* Where each member's source and results are, for the steps that read and write them. */
void sc_coll_find_buffers(struct shmemx_request *r);

#endif
