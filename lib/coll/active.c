/*
 * Collectives done by plain reads between two syncs (active.h: collect,
 * alltoalls and the local reductions, for teams and active sets alike), and
 * the active-set collectives, deprecated in OpenSHMEM 1.5 but still in it:
 * shmem_barrier, shmem_sync, broadcast, collect, fcollect, alltoall(s) in
 * 32- and 64-bit forms, and shmem_TYPE_OP_to_all. The members are PE_start,
 * PE_start + 2^logPE_stride, ..., PE_size of them; only they call. They
 * sync with sc_active_set_sync, which needs no team and no pSync (the pSync
 * and pWrk arrays are checked to be symmetric, and left as they were). Each
 * call is one or two syncs around reads of the members' symmetric memory;
 * a reduction reads every member's source and reduces it here, in member
 * order, so that every member gets the same bits (sc_coll_reduce_here).
 */
#include <stdlib.h>
#include <string.h>

#include "coll/active.h"
#include "core/peer.h"
#include "core/state.h"
#include "shmem.h"
#include "sync/sync.h"
#include "util/log.h"

static int member_pe(const struct sc_coll_members *g, int index)
{
	return g->team ? sc_team_world_pe(g->team, index) : sc_active_pe(g->set, index);
}

static int members_size(const struct sc_coll_members *g)
{
	return g->team ? g->team->size : g->set->size;
}

static int my_index(const struct sc_coll_members *g)
{
	return g->team ? g->team->my_index : g->set->me;
}

static void members_sync(const struct sc_coll_members *g, const char *what)
{
	if (g->team)
		sc_team_sync((struct sc_team *)g->team, what);
	else
		sc_active_set_sync(g->set, what);
}

static void multiply_complex(void *product, const void *factor, size_t count, size_t elem)
{
	for (size_t i = 0; i < count; i++) {
		if (elem == sizeof(double _Complex))
			((double _Complex *)product)[i] *= ((const double _Complex *)factor)[i];
		else
			((float _Complex *)product)[i] *= ((const float _Complex *)factor)[i];
	}
}

void sc_coll_reduce_here(const struct sc_coll_members *g, void *dest, const void *source,
			 size_t count, const struct sc_local_reduce *how, const char *what)
{
	int size = members_size(g);
	size_t bytes = count * how->elem;
	char *all = malloc(bytes * (size_t)size + 1);
	const void **in = calloc((size_t)size, sizeof(*in));

	if (!all || !in)
		sc_fatal(1, "PE %d: %s: no memory for %zu bytes", sc.me, what,
			 bytes * (size_t)size);
	members_sync(g, what);
	for (int m = 0; m < size && bytes; m++) {
		int pe = member_pe(g, m);

		in[m] = all + (size_t)m * bytes;
		sc_peer_get(all + (size_t)m * bytes, pe, sc_symmetric_offset(source, bytes, pe, what),
			    bytes, 1);
	}
	sc_peer_quiet();
	/* dest may be the source: written once nobody reads it any more */
	members_sync(g, what);
	if (bytes && how->complex_prod) {
		for (int m = 1; m < size; m++)
			multiply_complex(all, in[m], count, how->elem);
		memcpy(dest, all, bytes);
	} else if (bytes) {
		sc_reduce_reference(how->dtype, how->op, dest, in, size, count);
	}
	free(in);
	free(all);
}

void sc_coll_collect_here(const struct sc_coll_members *g, void *dest, const void *source,
			  size_t bytes, const char *what)
{
	struct sc_internal *mine = sc_internal_of(sc.me);
	int size = members_size(g);
	size_t *counts = malloc(sizeof(size_t) * (size_t)size), total = 0, offset = 0;

	if (!counts)
		sc_fatal(1, "PE %d: %s: no memory for %d counts", sc.me, what, size);
	sc_symmetric_require(source, bytes, what);
	atomic_store(&mine->collect_count, bytes);
	members_sync(g, what);
	for (int m = 0; m < size; m++) {
		counts[m] = sc_peer_load(member_pe(g, m), sc_internal_offset(&mine->collect_count));
		total += counts[m];
	}
	/* the whole result must fit in dest before anything is written */
	sc_symmetric_require(dest, total, what);
	for (int m = 0; m < size; m++) {
		int pe = member_pe(g, m);

		if (counts[m])
			sc_peer_get((char *)dest + offset, pe,
				    sc_symmetric_offset(source, counts[m], pe, what), counts[m], 1);
		offset += counts[m];
	}
	free(counts);
	sc_peer_quiet();
	members_sync(g, what);
}

/* none reads a source before its owner has come, or leaves while another still reads its own */
void sc_coll_alltoalls_here(const struct sc_coll_members *g, void *dest, const void *source,
			    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem,
			    const char *what)
{
	static void (*const strided_get[])(void *, const void *, ptrdiff_t, ptrdiff_t, size_t,
					    int) = { shmem_iget8, shmem_iget16, shmem_iget32,
						     shmem_iget64, shmem_iget128 };
	size_t all = nelems * (size_t)members_size(g);

	if (all) {
		sc_symmetric_require(source, ((all - 1) * (size_t)sst + 1) * elem, what);
		sc_symmetric_require(dest, ((all - 1) * (size_t)dst + 1) * elem, what);
	}
	members_sync(g, what);
	for (int m = 0; m < members_size(g) && nelems; m++)
		strided_get[__builtin_ctzl(elem)]((char *)dest + (size_t)m * nelems * (size_t)dst * elem,
						  (const char *)source + (size_t)my_index(g) * nelems *
						  (size_t)sst * elem, dst, sst, nelems, member_pe(g, m));
	members_sync(g, what);
}

/* The active set, checked, and the work array symmetric (fatal otherwise). */
static void active_set(int start, int log_stride, int size, const long *psync,
		       struct sc_active_set *set, const char *what)
{
	sc_active_set(start, log_stride, size, set, what);
	sc_symmetric_require(psync, sizeof(long), what);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
	struct sc_active_set set;

	active_set(PE_start, logPE_stride, PE_size, pSync, &set, "shmem_barrier");
	shmem_quiet();
	sc_active_set_sync(&set, "shmem_barrier");
}

/* in parentheses: shmem.h's generic shmem_sync would take the name */
void (shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
	struct sc_active_set set;

	active_set(PE_start, logPE_stride, PE_size, pSync, &set, "shmem_sync");
	sc_active_set_sync(&set, "shmem_sync");
}

/*
 * Each member's @bytes (with @alltoall, its block for this PE) to dest + m *
 * bytes, between two syncs.
 */
static void read_blocks(const struct sc_active_set *set, void *dest, const void *source,
			size_t bytes, int alltoall, const char *what)
{
	struct sc_coll_members g = { .set = set };

	sc_symmetric_require(source, alltoall ? bytes * (size_t)set->size : bytes, what);
	members_sync(&g, what);
	for (int m = 0; m < set->size && bytes; m++) {
		int pe = member_pe(&g, m);
		size_t at = alltoall ? (size_t)set->me * bytes : 0;

		sc_peer_get((char *)dest + (size_t)m * bytes, pe,
			    sc_symmetric_offset((const char *)source + at, bytes, pe, what), bytes, 1);
	}
	sc_peer_quiet();
	members_sync(&g, what);
}

#define DEFINE_ACTIVE_DATA(BITS)                                                           \
	void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems,          \
				   int PE_root, int PE_start, int logPE_stride,            \
				   int PE_size, long *pSync)                               \
	{                                                                                  \
		const char *what = "shmem_broadcast" #BITS;                                \
		size_t bytes = nelems * BITS / 8;                                          \
		struct sc_active_set set;                                                  \
		struct sc_coll_members g = { .set = &set };                                        \
		active_set(PE_start, logPE_stride, PE_size, pSync, &set, what);            \
		if (PE_root < 0 || PE_root >= PE_size)                                     \
			sc_fatal(1, "PE %d: %s: PE_root %d is outside the active set of %d PEs", \
				 sc.me, what, PE_root, PE_size);                           \
		int root = sc_active_pe(&set, PE_root);                                    \
		sc_symmetric_require(source, bytes, what);                                 \
		members_sync(&g, what);                                                    \
		/* the root's dest is left as it was, as the standard says */              \
		if (set.me != PE_root && bytes) {                                          \
			sc_peer_get(dest, root, sc_symmetric_offset(source, bytes, root, what), \
				    bytes, 1);                                             \
			sc_peer_quiet();                                                   \
		}                                                                          \
		members_sync(&g, what);                                                    \
	}                                                                                  \
	void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems,           \
				  int PE_start, int logPE_stride, int PE_size, long *pSync) \
	{                                                                                  \
		struct sc_active_set set;                                                  \
		active_set(PE_start, logPE_stride, PE_size, pSync, &set,                   \
			   "shmem_fcollect" #BITS);                                      \
		read_blocks(&set, dest, source, nelems * BITS / 8, 0,                      \
			    "shmem_fcollect" #BITS);                                     \
	}                                                                                  \
	void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems,           \
				  int PE_start, int logPE_stride, int PE_size, long *pSync) \
	{                                                                                  \
		struct sc_active_set set;                                                  \
		active_set(PE_start, logPE_stride, PE_size, pSync, &set,                   \
			   "shmem_alltoall" #BITS);                                      \
		read_blocks(&set, dest, source, nelems * BITS / 8, 1,                      \
			    "shmem_alltoall" #BITS);                                     \
	}                                                                                  \
	void shmem_collect##BITS(void *dest, const void *source, size_t nelems,            \
				 int PE_start, int logPE_stride, int PE_size, long *pSync)  \
	{                                                                                  \
		struct sc_active_set set;                                                  \
		active_set(PE_start, logPE_stride, PE_size, pSync, &set,                   \
			   "shmem_collect" #BITS);                                       \
		sc_coll_collect_here(&(struct sc_coll_members){ .set = &set }, dest, source, \
				     nelems * BITS / 8, "shmem_collect" #BITS);            \
	}                                                                                  \
	void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst,          \
				   ptrdiff_t sst, size_t nelems, int PE_start,             \
				   int logPE_stride, int PE_size, long *pSync)             \
	{                                                                                  \
		const char *what = "shmem_alltoalls" #BITS;                                \
		struct sc_active_set set;                                                  \
		active_set(PE_start, logPE_stride, PE_size, pSync, &set, what);            \
		if (dst < 1 || sst < 1)                                                    \
			sc_fatal(1, "PE %d: %s: the strides dst %td and sst %td must be at least 1", \
				 sc.me, what, dst, sst);                                   \
		sc_coll_alltoalls_here(&(struct sc_coll_members){ .set = &set }, dest, source, \
				       dst, sst, nelems, BITS / 8, what);                  \
	}
DEFINE_ACTIVE_DATA(32)
DEFINE_ACTIVE_DATA(64)

/* shmem_TYPE_OP_to_all: reduced here from every member's source */
static void to_all(void *dest, const void *source, int nreduce, int start, int log_stride,
		   int size, const void *pwrk, long *psync, const struct sc_local_reduce *how,
		   const char *what)
{
	struct sc_active_set set;
	struct sc_coll_members g = { .set = &set };

	active_set(start, log_stride, size, psync, &set, what);
	if (nreduce < 0)
		sc_fatal(1, "PE %d: %s: nreduce %d is negative", sc.me, what, nreduce);
	if (pwrk)
		sc_symmetric_require(pwrk, 1, what);
	sc_symmetric_require(source, (size_t)nreduce * how->elem, what);
	sc_symmetric_require(dest, (size_t)nreduce * how->elem, what);
	sc_coll_reduce_here(&g, dest, source, (size_t)nreduce, how, what);
}

#define OP_and SC_BAND
#define OP_or SC_BOR
#define OP_xor SC_BXOR
#define OP_min SC_MIN
#define OP_max SC_MAX
#define OP_sum SC_SUM
#define OP_prod SC_PROD
#define DEFINE_TO_ALL(NAME, TYPE, DTYPE, OP)                                               \
	void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce,     \
					  int PE_start, int logPE_stride, int PE_size,     \
					  TYPE *pWrk, long *pSync)                         \
	{                                                                                  \
		struct sc_local_reduce how = { DTYPE, OP_##OP, sizeof(TYPE), 0 };          \
		to_all(dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync, \
		       &how, "shmem_" #NAME "_" #OP "_to_all");                            \
	}
#define DEFINE_TO_ALL_INTEGER(NAME, TYPE, DTYPE)                                           \
	DEFINE_TO_ALL(NAME, TYPE, DTYPE, and) DEFINE_TO_ALL(NAME, TYPE, DTYPE, or)         \
	DEFINE_TO_ALL(NAME, TYPE, DTYPE, xor) DEFINE_TO_ALL(NAME, TYPE, DTYPE, min)        \
	DEFINE_TO_ALL(NAME, TYPE, DTYPE, max) DEFINE_TO_ALL(NAME, TYPE, DTYPE, sum)        \
	DEFINE_TO_ALL(NAME, TYPE, DTYPE, prod)
#define DEFINE_TO_ALL_REAL(NAME, TYPE, DTYPE)                                              \
	DEFINE_TO_ALL(NAME, TYPE, DTYPE, min) DEFINE_TO_ALL(NAME, TYPE, DTYPE, max)        \
	DEFINE_TO_ALL(NAME, TYPE, DTYPE, sum) DEFINE_TO_ALL(NAME, TYPE, DTYPE, prod)
DEFINE_TO_ALL_INTEGER(short, short, SC_INT16)
DEFINE_TO_ALL_INTEGER(int, int, SC_INT32)
DEFINE_TO_ALL_INTEGER(long, long, SC_INT64)
DEFINE_TO_ALL_INTEGER(longlong, long long, SC_INT64)
DEFINE_TO_ALL_REAL(float, float, SC_FP32)
DEFINE_TO_ALL_REAL(double, double, SC_FP64)
DEFINE_TO_ALL_REAL(longdouble, long double, SC_LDOUBLE)

/* complex: a sum is one of pairs of reals; a product multiplies */
#define DEFINE_TO_ALL_COMPLEX(NAME, TYPE, REAL)                                            \
	void shmem_##NAME##_sum_to_all(TYPE *dest, const TYPE *source, int nreduce,        \
				       int PE_start, int logPE_stride, int PE_size,        \
				       TYPE *pWrk, long *pSync)                            \
	{                                                                                  \
		struct sc_local_reduce how = { REAL, SC_SUM, sizeof(TYPE) / 2, 0 };        \
		to_all(dest, source, nreduce < 0 ? nreduce : 2 * nreduce, PE_start,        \
		       logPE_stride, PE_size, pWrk, pSync, &how, "shmem_" #NAME "_sum_to_all"); \
	}                                                                                  \
	void shmem_##NAME##_prod_to_all(TYPE *dest, const TYPE *source, int nreduce,       \
					int PE_start, int logPE_stride, int PE_size,       \
					TYPE *pWrk, long *pSync)                           \
	{                                                                                  \
		struct sc_local_reduce how = { REAL, SC_PROD, sizeof(TYPE), 1 };           \
		to_all(dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync, \
		       &how, "shmem_" #NAME "_prod_to_all");                               \
	}
DEFINE_TO_ALL_COMPLEX(complexf, float _Complex, SC_FP32)
DEFINE_TO_ALL_COMPLEX(complexd, double _Complex, SC_FP64)
