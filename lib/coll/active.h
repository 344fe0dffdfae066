/*
 * Collectives done by plain reads between two syncs rather than on the
 * engine, for teams and for the deprecated active sets alike (active.c).
 */
#ifndef SHMEMCOMM_COLL_ACTIVE_H
#define SHMEMCOMM_COLL_ACTIVE_H

#include <stddef.h>

#include "core/state.h"
#include "reduce/dtype.h"

/* Who takes part: a team, or an active set (sync/sync.h). */
struct sc_active_set;
struct sc_coll_members {
	const struct sc_team *team;	/* or */
	const struct sc_active_set *set;
};

/* @bytes from each member (each its own count), in member order. */
void sc_coll_collect_here(const struct sc_coll_members *g, void *dest, const void *source,
			  size_t bytes, const char *what);
/*
 * alltoalls: @nelems elements of @elem bytes (1, 2, 4, 8 or 16) to each
 * member, @sst elements apart in source and @dst apart in dest (both at
 * least 1: the caller checks), by strided gets.
 */
void sc_coll_alltoalls_here(const struct sc_coll_members *g, void *dest, const void *source,
			    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem,
			    const char *what);
/*
 * A reduction: @elem is the size of one element of @count; with
 * @complex_prod, a complex of that size, multiplied (the kernels lack it);
 * else @dtype and @op, by sc_reduce_reference. Every member's @source is
 * read in member order and reduced here, so every member gets the same bits.
 */
struct sc_local_reduce {
	enum sc_dtype dtype;
	enum sc_op op;
	size_t elem;
	int complex_prod;
};
void sc_coll_reduce_here(const struct sc_coll_members *g, void *dest, const void *source,
			 size_t count, const struct sc_local_reduce *how, const char *what);

#endif
