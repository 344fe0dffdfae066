/* The training collectives of shmemx.h, blocking and not, over the engine. */
#include <stdio.h>
#include <stdlib.h>

#include "coll/request.h"
#include "coll/tune.h"
#include "util/log.h"

_Static_assert(SHMEMX_UINT64 == (int)SC_UINT64 && SHMEMX_BF16 == (int)SC_BF16,
	       "shmemx_dtype_t follows enum sc_dtype");
_Static_assert(SHMEMX_BXOR == (int)SC_BXOR && SHMEMX_AVG == (int)SC_AVG,
	       "shmemx_op_t follows enum sc_op");

size_t shmemx_dtype_size(shmemx_dtype_t dtype)
{
	return (unsigned)dtype < SC_DTYPE_COUNT ? sc_dtype_size((enum sc_dtype)dtype) : 0;
}

static struct sc_coll_args args(enum sc_coll_kind kind, shmem_team_t team, void *dest,
				const void *source, size_t count, shmemx_dtype_t dtype,
				shmemx_op_t op, int root, const char *what)
{
	return (struct sc_coll_args){
		.kind = kind, .team = (struct sc_team *)team, .dest = dest, .source = source,
		.count = count, .dtype = (enum sc_dtype)dtype, .op = (enum sc_op)op,
		.root = root, .what = what,
	};
}

/* The public dtypes stop before the internal ones. */
static int public_dtype(shmemx_dtype_t dtype, const char *what)
{
	if ((unsigned)dtype < SC_DTYPE_COUNT)
		return 1;
	sc_require_init(what);
	sc_error("PE %d: %s: dtype %d is not a shmemx_dtype_t (0..%d)", sc.me, what, (int)dtype,
		 SC_DTYPE_COUNT - 1);
	return 0;
}

static int start_nb(const struct sc_coll_args *a, shmemx_request_t *req)
{
	struct shmemx_request *r;
	int n = a->team && ((struct sc_team *)a->team)->size > 0 ? a->team->size : 1;

	if (!req) {
		sc_require_init(a->what);
		sc_error("PE %d: %s: the request pointer is NULL", sc.me, a->what);
		return -1;
	}
	*req = NULL;
	if (!public_dtype((shmemx_dtype_t)a->dtype, a->what))
		return -1;
	r = malloc(sizeof(*r) + SC_COLL_ARRAYS_BYTES(n));
	if (!r)
		sc_fatal(1, "PE %d: %s: out of memory for a request", sc.me, a->what);
	sc_coll_place_arrays(r, r + 1, n);
	if (sc_coll_prepare(r, a)) {
		free(r);
		return -1;
	}
	sc_coll_start(r);
	*req = r;
	return 0;
}

static int run(const struct sc_coll_args *a)
{
	if (!public_dtype((shmemx_dtype_t)a->dtype, a->what))
		return -1;
	return sc_coll_run(a);
}

int shmemx_allreduce(shmem_team_t team, void *dest, const void *source, size_t count,
		     shmemx_dtype_t dtype, shmemx_op_t op)
{
	struct sc_coll_args a = args(SC_ALLREDUCE, team, dest, source, count, dtype, op, 0,
				     "shmemx_allreduce");
	return run(&a);
}

int shmemx_reduce_scatter(shmem_team_t team, void *dest, const void *source, size_t count,
			  shmemx_dtype_t dtype, shmemx_op_t op)
{
	struct sc_coll_args a = args(SC_REDUCE_SCATTER, team, dest, source, count, dtype, op, 0,
				     "shmemx_reduce_scatter");
	return run(&a);
}

int shmemx_allgather(shmem_team_t team, void *dest, const void *source, size_t count,
		     shmemx_dtype_t dtype)
{
	struct sc_coll_args a = args(SC_ALLGATHER, team, dest, source, count, dtype, SHMEMX_SUM,
				     0, "shmemx_allgather");
	return run(&a);
}

int shmemx_broadcast(shmem_team_t team, void *dest, const void *source, size_t count,
		     shmemx_dtype_t dtype, int root)
{
	struct sc_coll_args a = args(SC_BROADCAST, team, dest, source, count, dtype, SHMEMX_SUM,
				     root, "shmemx_broadcast");
	return run(&a);
}

int shmemx_alltoall(shmem_team_t team, void *dest, const void *source, size_t count,
		    shmemx_dtype_t dtype)
{
	struct sc_coll_args a = args(SC_ALLTOALL, team, dest, source, count, dtype, SHMEMX_SUM, 0,
				     "shmemx_alltoall");
	return run(&a);
}

int shmemx_allreduce_nb(shmem_team_t team, void *dest, const void *source, size_t count,
			shmemx_dtype_t dtype, shmemx_op_t op, shmemx_request_t *req)
{
	struct sc_coll_args a = args(SC_ALLREDUCE, team, dest, source, count, dtype, op, 0,
				     "shmemx_allreduce_nb");
	return start_nb(&a, req);
}

int shmemx_reduce_scatter_nb(shmem_team_t team, void *dest, const void *source, size_t count,
			     shmemx_dtype_t dtype, shmemx_op_t op, shmemx_request_t *req)
{
	struct sc_coll_args a = args(SC_REDUCE_SCATTER, team, dest, source, count, dtype, op, 0,
				     "shmemx_reduce_scatter_nb");
	return start_nb(&a, req);
}

int shmemx_allgather_nb(shmem_team_t team, void *dest, const void *source, size_t count,
			shmemx_dtype_t dtype, shmemx_request_t *req)
{
	struct sc_coll_args a = args(SC_ALLGATHER, team, dest, source, count, dtype, SHMEMX_SUM,
				     0, "shmemx_allgather_nb");
	return start_nb(&a, req);
}

int shmemx_broadcast_nb(shmem_team_t team, void *dest, const void *source, size_t count,
			shmemx_dtype_t dtype, int root, shmemx_request_t *req)
{
	struct sc_coll_args a = args(SC_BROADCAST, team, dest, source, count, dtype, SHMEMX_SUM,
				     root, "shmemx_broadcast_nb");
	return start_nb(&a, req);
}

int shmemx_alltoall_nb(shmem_team_t team, void *dest, const void *source, size_t count,
		       shmemx_dtype_t dtype, shmemx_request_t *req)
{
	struct sc_coll_args a = args(SC_ALLTOALL, team, dest, source, count, dtype, SHMEMX_SUM, 0,
				     "shmemx_alltoall_nb");
	return start_nb(&a, req);
}

int shmemx_test(shmemx_request_t *req, int *done)
{
	sc_require_init("shmemx_test");
	if (!req || !done) {
		sc_error("PE %d: shmemx_test: %s is NULL", sc.me, req ? "done" : "req");
		return -1;
	}
	*done = !*req || sc_coll_poll(*req);
	if (*req && *done) {
		free(*req);
		*req = NULL;
	}
	return 0;
}

int shmemx_wait(shmemx_request_t *req)
{
	sc_require_init("shmemx_wait");
	if (!req) {
		sc_error("PE %d: shmemx_wait: req is NULL", sc.me);
		return -1;
	}
	if (*req) {
		sc_coll_finish(*req);
		free(*req);
		*req = NULL;
	}
	return 0;
}

int shmemx_request_describe(shmemx_request_t req, char *buf, size_t len)
{
	char why[256], late[512];
	int broken;

	sc_require_init("shmemx_request_describe");
	if (!buf || !len)
		return 0;
	broken = sc_wait_broken(why, sizeof(why));
	if (!req) {
		snprintf(buf, len, "the request has completed%s%s", broken ? "; " : "", why);
		return broken;
	}
	sc_coll_describe(req, late, sizeof(late));
	snprintf(buf, len, "%s%s%s", late, broken ? "; " : "", why);
	return broken;
}

const char *shmemx_allreduce_algorithm(shmem_team_t team, size_t bytes)
{
	const struct sc_team *t = (const struct sc_team *)team;

	sc_require_init("shmemx_allreduce_algorithm");
	return sc_coll_algo_name(sc_coll_pick_algo(bytes, t ? t : &sc_team_world));
}

const char *shmemx_collective_algorithm(shmem_team_t team, const char *collective,
					size_t bytes)
{
	const struct sc_team *t = team ? (const struct sc_team *)team : &sc_team_world;
	int kind = sc_coll_kind_parse(collective);

	sc_require_init("shmemx_collective_algorithm");
	if (kind < 0)
		return NULL;
	if (kind == SC_ALLREDUCE)
		return sc_coll_algo_name(sc_coll_pick_algo(bytes, t));
	return sc_coll_algo_name(sc_coll_pick_kind_algo((enum sc_coll_kind)kind, bytes, t));
}

const char *shmemx_simd_name(void)
{
	sc_require_init("shmemx_simd_name");
	return sc_simd_name((enum sc_simd)sc.coll.simd);
}
