/*
 * Team collectives among the PEs of a node, by loads and stores on the
 * peers' mappings: the plain baseline every faster algorithm must agree
 * with. Each one syncs the team before touching a peer's buffer (its data
 * is ready) and after (its buffer may be reused).
 */
#include <stdlib.h>
#include <string.h>

#include "api/state.h"
#include "reduce/reduce.h"
#include "shmem.h"
#include "util/log.h"

/* The team, if this PE is in it; NULL after a message otherwise. */
static struct sc_team *member_team(shmem_team_t team, const char *what)
{
	struct sc_team *t = (struct sc_team *)team;

	sc_require_init(what);
	if (!t || t->my_index < 0) {
		sc_error("PE %d: %s: the team is invalid or this PE is not in it", sc.me, what);
		return NULL;
	}
	return t;
}

/* Where a member's copy of symmetric @addr is, in this process. */
static char *at_member(const struct sc_team *t, int index, const void *addr, size_t len,
		       const char *what)
{
	return sc_translate(addr, len, sc_team_world_pe(t, index), what);
}

static int reduce(shmem_team_t team, void *dest, const void *source, size_t count,
		  size_t elem, sc_reduce_fn kernel, const char *what)
{
	struct sc_team *t = member_team(team, what);
	size_t slice, lo, hi, bytes;
	char *mine = NULL;

	if (!t)
		return -1;
	sc_heap_offset(source, count * elem, what);
	sc_heap_offset(dest, count * elem, what);
	slice = (count + (size_t)t->size - 1) / (size_t)t->size;
	lo = slice * (size_t)t->my_index;
	lo = lo < count ? lo : count;
	hi = lo + slice < count ? lo + slice : count;
	bytes = (hi - lo) * elem;
	if (bytes && !(mine = malloc(bytes)))
		sc_fatal(1, "PE %d: %s: out of memory for %zu bytes", sc.me, what, bytes);

	sc_team_sync(t, what);	/* every source is ready */
	if (bytes) {
		memcpy(mine, at_member(t, 0, (const char *)source + lo * elem, bytes, what), bytes);
		for (int m = 1; m < t->size; m++)
			kernel(mine, at_member(t, m, (const char *)source + lo * elem, bytes, what),
			       hi - lo);
	}
	sc_team_sync(t, what);	/* no source is read any more: dest may be source */
	for (int m = 0; bytes && m < t->size; m++)
		memcpy(at_member(t, m, (char *)dest + lo * elem, bytes, what), mine, bytes);
	sc_team_sync(t, what);	/* every dest is complete */
	free(mine);
	return 0;
}

static int broadcast(shmem_team_t team, void *dest, const void *source, size_t bytes,
		     int root, const char *what)
{
	struct sc_team *t = member_team(team, what);
	const char *from;

	if (!t)
		return -1;
	if (root < 0 || root >= t->size) {
		sc_error("PE %d: %s: PE_root %d is outside the team of %d PEs", sc.me, what, root,
			 t->size);
		return -1;
	}
	sc_heap_offset(dest, bytes, what);
	sc_team_sync(t, what);
	from = at_member(t, root, source, bytes, what);
	if ((const void *)from != dest)
		memcpy(dest, from, bytes);
	sc_team_sync(t, what);
	return 0;
}

/* @bytes from each member, in team order; @fixed: all give the same count. */
static int collect(shmem_team_t team, void *dest, const void *source, size_t bytes,
		   int fixed, const char *what)
{
	struct sc_team *t = member_team(team, what);
	size_t counts[SC_MAX_PES], total = 0, offset = 0;

	if (!t)
		return -1;
	sc_heap_offset(source, bytes, what);
	if (!fixed)
		atomic_store(&sc_internal_of(sc.me)->collect_count, bytes);
	sc_team_sync(t, what);
	for (int m = 0; m < t->size; m++) {
		counts[m] = fixed ? bytes :
			atomic_load(&sc_internal_of(sc_team_world_pe(t, m))->collect_count);
		total += counts[m];
	}
	/* the whole result must fit in dest before anything is written */
	sc_heap_offset(dest, total, what);
	for (int m = 0; m < t->size; m++) {
		if (counts[m])
			memcpy((char *)dest + offset, at_member(t, m, source, counts[m], what),
			       counts[m]);
		offset += counts[m];
	}
	sc_team_sync(t, what);
	return 0;
}

static int alltoall(shmem_team_t team, void *dest, const void *source, size_t bytes,
		    const char *what)
{
	struct sc_team *t = member_team(team, what);

	if (!t)
		return -1;
	sc_heap_offset(dest, bytes * (size_t)t->size, what);
	sc_team_sync(t, what);
	for (int m = 0; m < t->size; m++)
		memcpy((char *)dest + (size_t)m * bytes,
		       at_member(t, m, (const char *)source + (size_t)t->my_index * bytes, bytes,
				 what), bytes);
	sc_team_sync(t, what);
	return 0;
}

#define DEFINE_REDUCE(NAME, TYPE, OP)                                                       \
	int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, \
					 size_t nreduce)                                    \
	{                                                                                   \
		return reduce(team, dest, source, nreduce, sizeof(TYPE),                    \
			      sc_reduce_##NAME##_##OP, "shmem_" #NAME "_" #OP "_reduce");   \
	}
#define DEFINE_REDUCE_BITWISE(NAME, TYPE) SHMEMCOMM_BITWISE_OPS(DEFINE_REDUCE, NAME, TYPE)
#define DEFINE_REDUCE_ORDERED(NAME, TYPE) SHMEMCOMM_ORDERED_OPS(DEFINE_REDUCE, NAME, TYPE)
SHMEMCOMM_REDUCE_BITWISE_TYPES(DEFINE_REDUCE_BITWISE)
SHMEMCOMM_REDUCE_ORDERED_TYPES(DEFINE_REDUCE_ORDERED)

#define DEFINE_DATA_COLLECTIVES(NAME, TYPE)                                                 \
	int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source,     \
				     size_t nelems, int PE_root)                            \
	{                                                                                   \
		return broadcast(team, dest, source, nelems * sizeof(TYPE), PE_root,        \
				 "shmem_" #NAME "_broadcast");                              \
	}                                                                                   \
	int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source,       \
				   size_t nelems)                                           \
	{                                                                                   \
		return collect(team, dest, source, nelems * sizeof(TYPE), 0,                \
			       "shmem_" #NAME "_collect");                                  \
	}                                                                                   \
	int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,      \
				    size_t nelems)                                          \
	{                                                                                   \
		return collect(team, dest, source, nelems * sizeof(TYPE), 1,                \
			       "shmem_" #NAME "_fcollect");                                 \
	}                                                                                   \
	int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,      \
				    size_t nelems)                                          \
	{                                                                                   \
		return alltoall(team, dest, source, nelems * sizeof(TYPE),                  \
				"shmem_" #NAME "_alltoall");                                \
	}
SHMEMCOMM_RMA_TYPES(DEFINE_DATA_COLLECTIVES)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
		       int PE_root)
{
	return broadcast(team, dest, source, nelems, PE_root, "shmem_broadcastmem");
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
	return collect(team, dest, source, nelems, 0, "shmem_collectmem");
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
	return collect(team, dest, source, nelems, 1, "shmem_fcollectmem");
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
	return alltoall(team, dest, source, nelems, "shmem_alltoallmem");
}
