/*
 * The collective engine's entry: a request prepared, queued, and run
 * through its stages (request.c), for the OpenSHMEM collectives
 * (openshmem.c) and the training collectives of shmemx.h (training.c).
 *
 * The files of coll/, each including only those below it (as
 * scripts/check-layers checks), lowest first:
 *   types.h      the engine's types: kinds, algorithms, the request
 *   plan.c       the ring's and rhd's step planners, pure
 *   tune.c       every variable of the collectives, and the choice of algorithm
 *   xfer.c       the transport of a step: a member's bytes and lines, mapped or NIC
 *   register.c   buffers off the heap registered (single copy), or staged
 *   reach.c      a request's steps: publish, and wait until every member has
 *   steps.c      the algorithms' shared helpers: chunk geometry, runs, the node
 *   agree.c      the members made the same call; where their buffers are
 *   group.c      the pairwise executor: a ring or rhd step over a group
 *   direct.c     the pipeline, rsag and one-shot     } the algorithms, each a
 *   tiny.c       the smallest allreduce, on lines    } schedule over steps.c
 *   ring.c       ring and rhd over the team          } and xfer.c (and group.c),
 *   hier.c       the hierarchical scheme             } none calling another
 *   chain.c      broadcast's chain
 *   active.c     collectives by plain reads; the active-set ones
 *   request.c    a request's stages, and which algorithm runs each step
 *   openshmem.c, training.c   the entry points: OpenSHMEM's, shmemx's
 */
#ifndef SHMEMCOMM_COLL_REQUEST_H
#define SHMEMCOMM_COLL_REQUEST_H

#include "coll/types.h"

/*
 * Checks @a and sets @r up (its arrays must hold the team's size); -1 after a
 * message naming the bad argument. Then sc_coll_start queues and starts it.
 */
int sc_coll_prepare(struct shmemx_request *r, const struct sc_coll_args *a);
void sc_coll_start(struct shmemx_request *r);
/* Runs the team's queue until @r completes. */
void sc_coll_finish(struct shmemx_request *r);
/* Runs the team's queue as far as it goes without waiting; whether @r is done. */
int sc_coll_poll(struct shmemx_request *r);
/* What @r waits for, naming the members behind (shmemx_request_describe). */
void sc_coll_describe(const struct shmemx_request *r, char *out, unsigned long len);
/* A whole collective, blocking. */
int sc_coll_run(const struct sc_coll_args *a);

#endif
