/*
 * The OpenSHMEM team collectives' entry points. The reductions, broadcast,
 * fcollect and alltoall run on the collective engine (request.h) like the
 * training collectives; collect, whose members give different counts,
 * syncs the team around plain copies from the peers' mappings (active.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/state.h"
#include "sync/sync.h"
#include "coll/active.h"
#include "coll/request.h"
#include "core/peer.h"
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

/* @bytes from each member (each its own), in team order: by reads (active.c) */
static int collect(shmem_team_t team, void *dest, const void *source, size_t bytes,
		   const char *what)
{
	struct sc_team *t = member_team(team, what);

	if (!t)
		return -1;
	sc_coll_collect_here(&(struct sc_coll_members){ .team = t }, dest, source, bytes, what);
	return 0;
}

static int broadcast(shmem_team_t team, void *dest, const void *source, size_t bytes,
		     int root, const char *what)
{
	struct sc_team *t = member_team(team, what);

	if (!t)
		return -1;
	if (root < 0 || root >= t->size) {
		sc_error("PE %d: %s: PE_root %d is outside the team of %d PEs", sc.me, what, root,
			 t->size);
		return -1;
	}
	sc_symmetric_require(dest, bytes, what);
	if (t->my_index == root)
		sc_symmetric_require(source, bytes, what);
	return sc_coll_run(&(struct sc_coll_args){ .kind = SC_BROADCAST, .team = t, .dest = dest,
		.source = source, .count = bytes, .dtype = SC_UINT8, .root = root, .what = what });
}

/* alltoalls: strided gets between two syncs of the team (active.c) */
static int alltoalls(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
		     ptrdiff_t sst, size_t nelems, size_t elem, const char *what)
{
	struct sc_team *t = member_team(team, what);

	if (!t)
		return -1;
	if (dst < 1 || sst < 1) {
		sc_error("PE %d: %s: the strides dst %td and sst %td must be at least 1", sc.me,
			 what, dst, sst);
		return -1;
	}
	sc_coll_alltoalls_here(&(struct sc_coll_members){ .team = t }, dest, source, dst, sst,
			       nelems, elem, what);
	return 0;
}

/* fcollect and alltoall: @bytes a member */
static int exchange(enum sc_coll_kind kind, shmem_team_t team, void *dest, const void *source,
		    size_t bytes, const char *what)
{
	struct sc_team *t = member_team(team, what);

	if (!t)
		return -1;
	sc_symmetric_require(source, kind == SC_ALLTOALL ? bytes * (size_t)t->size : bytes, what);
	sc_symmetric_require(dest, bytes * (size_t)t->size, what);
	return sc_coll_run(&(struct sc_coll_args){ .kind = kind, .team = t, .dest = dest,
		.source = source, .count = bytes, .dtype = SC_UINT8, .what = what });
}

static int reduce(shmem_team_t team, void *dest, const void *source, size_t count,
		  enum sc_dtype dtype, enum sc_op op, const char *what)
{
	struct sc_team *t = member_team(team, what);
	size_t bytes = count * sc_dtype_size(dtype);

	if (!t)
		return -1;
	sc_symmetric_require(source, bytes, what);
	sc_symmetric_require(dest, bytes, what);
	return sc_coll_run(&(struct sc_coll_args){ .kind = SC_ALLREDUCE, .team = t, .dest = dest,
		.source = source, .count = count, .dtype = dtype, .op = op, .what = what });
}

/* The product of complex numbers, which the kernels lack: reduced here (active.c). */
static int complex_prod(shmem_team_t team, void *dest, const void *source, size_t nreduce,
			size_t elem, const char *what)
{
	struct sc_team *t = member_team(team, what);
	struct sc_local_reduce how = { SC_FP64, SC_PROD, elem, 1 };

	if (!t)
		return -1;
	sc_symmetric_require(source, nreduce * elem, what);
	sc_symmetric_require(dest, nreduce * elem, what);
	sc_coll_reduce_here(&(struct sc_coll_members){ .team = t }, dest, source, nreduce, &how,
			    what);
	return 0;
}

int shmem_complexf_sum_reduce(shmem_team_t team, float _Complex *dest,
			      const float _Complex *source, size_t nreduce)
{
	return reduce(team, dest, source, 2 * nreduce, SC_FP32, SC_SUM,
		      "shmem_complexf_sum_reduce");
}

int shmem_complexd_sum_reduce(shmem_team_t team, double _Complex *dest,
			      const double _Complex *source, size_t nreduce)
{
	return reduce(team, dest, source, 2 * nreduce, SC_FP64, SC_SUM,
		      "shmem_complexd_sum_reduce");
}

int shmem_complexf_prod_reduce(shmem_team_t team, float _Complex *dest,
			       const float _Complex *source, size_t nreduce)
{
	return complex_prod(team, dest, source, nreduce, sizeof(*dest), "shmem_complexf_prod_reduce");
}

int shmem_complexd_prod_reduce(shmem_team_t team, double _Complex *dest,
			       const double _Complex *source, size_t nreduce)
{
	return complex_prod(team, dest, source, nreduce, sizeof(*dest), "shmem_complexd_prod_reduce");
}

/* Every OpenSHMEM reduction type; char is signed on x86-64. */
#define DTYPE_OF(TYPE)                                                                    \
	_Generic((TYPE)0, float: SC_FP32, double: SC_FP64, long double: SC_LDOUBLE,       \
		 char: SC_INT8, signed char: SC_INT8, unsigned char: SC_UINT8,            \
		 short: SC_INT16, unsigned short: SC_UINT16, int: SC_INT32,               \
		 unsigned int: SC_UINT32, long: SC_INT64, unsigned long: SC_UINT64,       \
		 long long: SC_INT64, unsigned long long: SC_UINT64)
#define OP_min SC_MIN
#define OP_max SC_MAX
#define OP_sum SC_SUM
#define OP_prod SC_PROD
#define OP_and SC_BAND
#define OP_or SC_BOR
#define OP_xor SC_BXOR

#define DEFINE_REDUCE(NAME, TYPE, OP)                                                       \
	int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, \
					 size_t nreduce)                                    \
	{                                                                                   \
		return reduce(team, dest, source, nreduce, DTYPE_OF(TYPE), OP_##OP,         \
			      "shmem_" #NAME "_" #OP "_reduce");                            \
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
		return collect(team, dest, source, nelems * sizeof(TYPE),                   \
			       "shmem_" #NAME "_collect");                                  \
	}                                                                                   \
	int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,      \
				    size_t nelems)                                          \
	{                                                                                   \
		return exchange(SC_ALLGATHER, team, dest, source, nelems * sizeof(TYPE),    \
				"shmem_" #NAME "_fcollect");                                \
	}                                                                                   \
	int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,      \
				    size_t nelems)                                          \
	{                                                                                   \
		return exchange(SC_ALLTOALL, team, dest, source, nelems * sizeof(TYPE),     \
				"shmem_" #NAME "_alltoall");                                \
	}                                                                                   \
	int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source,     \
				     ptrdiff_t dst, ptrdiff_t sst, size_t nelems)           \
	{                                                                                   \
		return alltoalls(team, dest, source, dst, sst, nelems, sizeof(TYPE),        \
				 "shmem_" #NAME "_alltoalls");                              \
	}
SHMEMCOMM_RMA_TYPES(DEFINE_DATA_COLLECTIVES)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
		       int PE_root)
{
	return broadcast(team, dest, source, nelems, PE_root, "shmem_broadcastmem");
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
	return collect(team, dest, source, nelems, "shmem_collectmem");
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
	return exchange(SC_ALLGATHER, team, dest, source, nelems, "shmem_fcollectmem");
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
	return exchange(SC_ALLTOALL, team, dest, source, nelems, "shmem_alltoallmem");
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
		       ptrdiff_t sst, size_t nelems)
{
	return alltoalls(team, dest, source, dst, sst, nelems, 1, "shmem_alltoallsmem");
}
