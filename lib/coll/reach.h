/*
 * A request's steps: a PE publishes that it has come this far, and waits
 * until every member of the team has (the only place a request stops).
 */
#ifndef SHMEMCOMM_COLL_REACH_H
#define SHMEMCOMM_COLL_REACH_H

#include "coll/types.h"

/* This PE has reached the request's next step (its target). */
void sc_coll_publish(struct shmemx_request *r);
/* Whether every member has reached the target; with @block, waits until so. */
int sc_coll_reached(const struct shmemx_request *r, int block);
/* Across nodes: the PEs behind the team's current step, into @pes (empty: none). */
void sc_coll_behind_across(const struct sc_team *t, char *pes, unsigned long len);
/* On a node: the world PEs whose published step is behind this PE's, into @late; how many. */
int sc_coll_behind_on_node(const struct shmemx_request *r, int *late);

#endif
