/* The smallest allreduce on a node, on cache lines that carry data and tag together. */
#ifndef SHMEMCOMM_COLL_TINY_H
#define SHMEMCOMM_COLL_TINY_H

#include "coll/types.h"

/* Whether a team's allreduce of @bytes (1..SC_TINY_MAX) with @op runs there (tune.c decides where). */
int sc_coll_tiny_team_fits(const struct sc_team *team, enum sc_op op, size_t bytes);
/*
 * Whether @a runs there. The size is looked at inline: every larger call
 * asks too, and should pay for no call to learn that it does not.
 */
static inline int sc_coll_tiny_fits(const struct sc_coll_args *a)
{
	return a->kind == SC_ALLREDUCE && (unsigned)a->dtype < SC_DTYPE_ALL && a->count &&
	       a->count <= SC_TINY_MAX && a->count * sc_dtype_size(a->dtype) <= SC_TINY_MAX &&
	       sc_coll_tiny_team_fits(a->team, a->op, a->count * sc_dtype_size(a->dtype));
}
/* This PE's input to the team's tiny call number @call (counted from 1 in call order). */
void sc_coll_tiny_write(const struct sc_coll_args *a, uint64_t call);
/* Once every member's input has arrived (with @block, waits until so): the result. */
int sc_coll_tiny_reduce(const struct sc_coll_args *a, uint64_t call, int block);
/* The world PEs of the members whose input to @call has not arrived, into @late: how many. */
int sc_coll_tiny_late(const struct sc_coll_args *a, uint64_t call, int *late);
/* For a slot's next team: the smallest allreduce's lines hold no call (after the team's last sync). */
void sc_coll_tiny_forget(int slot);

#endif
