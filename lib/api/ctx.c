/*
 * Contexts. Every operation here completes before it returns (stores and
 * atomics to shared memory), so a context adds no ordering of its own: it
 * names a team, whose PE numbers its calls take, and the calls forward to
 * the plain forms with the PE translated to the world.
 */
#include <stdlib.h>

#include "core/state.h"
#include "shmem.h"
#include "util/log.h"

#define CTX_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

struct sc_ctx {
	struct sc_team *team;
	long options;
};

static struct sc_ctx default_ctx = { &sc_team_world, 0 };
shmem_ctx_t SHMEM_CTX_DEFAULT = (shmem_ctx_t)&default_ctx;

/*
 * RMA and atomics on SHMEM_CTX_INVALID are undefined in the standard: here
 * they end the job, saying so, rather than lose a put or return a value no
 * get fetched. (Quiet, fence and destroy on it do nothing, as it says.)
 */
static struct sc_ctx *ctx_of(shmem_ctx_t ctx, const char *function)
{
	if (!ctx)
		sc_fatal(1, "PE %d: %s: the context is SHMEM_CTX_INVALID (shmem_team_create_ctx gives it for SHMEM_TEAM_INVALID, a team this PE is not in): RMA and atomics need a valid context",
			 sc.me, function);
	return (struct sc_ctx *)ctx;
}

/* @pe in the context's team, as a world PE; fatal when outside the team. */
static int world_pe(shmem_ctx_t ctx, int pe, const char *function)
{
	struct sc_team *team = ctx_of(ctx, function)->team;

	sc_require_init(function);
	if (pe < 0 || pe >= team->size)
		sc_fatal(1, "PE %d: %s: PE %d is outside the context's team of %d PEs", sc.me,
			 function, pe, team->size);
	return sc_team_world_pe(team, pe);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
	struct sc_team *t = (struct sc_team *)team;
	struct sc_ctx *c;

	sc_require_init("shmem_team_create_ctx");
	*ctx = SHMEM_CTX_INVALID;
	/* the standard's answer for a team this PE is not in: no context, quietly */
	if (!t) {
		sc_debug("PE %d: shmem_team_create_ctx: SHMEM_TEAM_INVALID: no context (SHMEM_CTX_INVALID)",
			 sc.me);
		return -1;
	}
	if (t->my_index < 0) {
		sc_error("PE %d: shmem_team_create_ctx: the team is invalid or this PE is not in it",
			 sc.me);
		return -1;
	}
	if (options & ~CTX_OPTIONS) {
		sc_error("PE %d: shmem_ctx_create: options %#lx are not SHMEM_CTX_SERIALIZED, PRIVATE or NOSTORE",
			 sc.me, options);
		return -1;
	}
	c = malloc(sizeof(*c));
	if (!c)
		return -1;
	c->team = t;
	c->options = options;
	*ctx = (shmem_ctx_t)c;
	return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
	return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
	sc_require_init("shmem_ctx_destroy");
	if (ctx == SHMEM_CTX_INVALID)
		return;
	if (ctx == SHMEM_CTX_DEFAULT)
		sc_fatal(1, "PE %d: shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed", sc.me);
	shmem_ctx_quiet(ctx);
	free(ctx_of(ctx, "shmem_ctx_destroy"));
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
	sc_require_init("shmem_ctx_get_team");
	if (!team)
		return -1;
	if (ctx == SHMEM_CTX_INVALID) {
		*team = SHMEM_TEAM_INVALID;
		return -1;
	}
	*team = (shmem_team_t)((struct sc_ctx *)ctx)->team;
	return 0;
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
	if (ctx != SHMEM_CTX_INVALID)
		shmem_quiet();
}

void shmem_ctx_fence(shmem_ctx_t ctx)
{
	if (ctx != SHMEM_CTX_INVALID)
		shmem_fence();
}

#define PE(OP) world_pe(ctx, pe, "shmem_ctx_" OP)

#define DEFINE_CTX_RMA(NAME, TYPE)                                                          \
	void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,        \
				    size_t nelems, int pe)                                  \
	{                                                                                   \
		shmem_##NAME##_put(dest, source, nelems, PE(#NAME "_put"));                 \
	}                                                                                   \
	void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,        \
				    size_t nelems, int pe)                                  \
	{                                                                                   \
		shmem_##NAME##_get(dest, source, nelems, PE(#NAME "_get"));                 \
	}                                                                                   \
	void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,    \
					size_t nelems, int pe)                              \
	{                                                                                   \
		shmem_##NAME##_put_nbi(dest, source, nelems, PE(#NAME "_put_nbi"));         \
	}                                                                                   \
	void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,    \
					size_t nelems, int pe)                              \
	{                                                                                   \
		shmem_##NAME##_get_nbi(dest, source, nelems, PE(#NAME "_get_nbi"));         \
	}                                                                                   \
	void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,       \
				     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)   \
	{                                                                                   \
		shmem_##NAME##_iput(dest, source, dst, sst, nelems, PE(#NAME "_iput"));     \
	}                                                                                   \
	void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,       \
				     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)   \
	{                                                                                   \
		shmem_##NAME##_iget(dest, source, dst, sst, nelems, PE(#NAME "_iget"));     \
	}                                                                                   \
	void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe)          \
	{                                                                                   \
		shmem_##NAME##_p(dest, value, PE(#NAME "_p"));                              \
	}                                                                                   \
	TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe)              \
	{                                                                                   \
		return shmem_##NAME##_g(source, PE(#NAME "_g"));                            \
	}                                                                                   \
	void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, \
					   size_t nelems, uint64_t *sig_addr,               \
					   uint64_t signal, int sig_op, int pe)             \
	{                                                                                   \
		shmem_##NAME##_put_signal(dest, source, nelems, sig_addr, signal, sig_op,   \
					  PE(#NAME "_put_signal"));                         \
	}                                                                                   \
	void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest,                 \
					       const TYPE *source, size_t nelems,           \
					       uint64_t *sig_addr, uint64_t signal,         \
					       int sig_op, int pe)                          \
	{                                                                                   \
		shmem_##NAME##_put_signal_nbi(dest, source, nelems, sig_addr, signal,       \
					      sig_op, PE(#NAME "_put_signal_nbi"));         \
	}
SHMEMCOMM_RMA_TYPES(DEFINE_CTX_RMA)

#define DEFINE_CTX_RMA_SIZE(BITS)                                                           \
	void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source,           \
				 size_t nelems, int pe)                                     \
	{                                                                                   \
		shmem_put##BITS(dest, source, nelems, PE("put" #BITS));                     \
	}                                                                                   \
	void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source,           \
				 size_t nelems, int pe)                                     \
	{                                                                                   \
		shmem_get##BITS(dest, source, nelems, PE("get" #BITS));                     \
	}                                                                                   \
	void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,     \
				       size_t nelems, int pe)                               \
	{                                                                                   \
		shmem_put##BITS##_nbi(dest, source, nelems, PE("put" #BITS "_nbi"));        \
	}                                                                                   \
	void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,     \
				       size_t nelems, int pe)                               \
	{                                                                                   \
		shmem_get##BITS##_nbi(dest, source, nelems, PE("get" #BITS "_nbi"));        \
	}                                                                                   \
	void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source,          \
				  ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)      \
	{                                                                                   \
		shmem_iput##BITS(dest, source, dst, sst, nelems, PE("iput" #BITS));         \
	}                                                                                   \
	void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source,          \
				  ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)      \
	{                                                                                   \
		shmem_iget##BITS(dest, source, dst, sst, nelems, PE("iget" #BITS));         \
	}                                                                                   \
	void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source,  \
					  size_t nelems, uint64_t *sig_addr,                \
					  uint64_t signal, int sig_op, int pe)              \
	{                                                                                   \
		shmem_put##BITS##_signal(dest, source, nelems, sig_addr, signal, sig_op,    \
					 PE("put" #BITS "_signal"));                        \
	}                                                                                   \
	void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest,                  \
					      const void *source, size_t nelems,            \
					      uint64_t *sig_addr, uint64_t signal,          \
					      int sig_op, int pe)                           \
	{                                                                                   \
		shmem_put##BITS##_signal_nbi(dest, source, nelems, sig_addr, signal,        \
					     sig_op, PE("put" #BITS "_signal_nbi"));        \
	}
SHMEMCOMM_RMA_SIZES(DEFINE_CTX_RMA_SIZE)

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
	shmem_putmem(dest, source, nelems, PE("putmem"));
}

void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
	shmem_getmem(dest, source, nelems, PE("getmem"));
}

void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
			  int pe)
{
	shmem_putmem_nbi(dest, source, nelems, PE("putmem_nbi"));
}

void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
			  int pe)
{
	shmem_getmem_nbi(dest, source, nelems, PE("getmem_nbi"));
}

void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
			     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
	shmem_putmem_signal(dest, source, nelems, sig_addr, signal, sig_op, PE("putmem_signal"));
}

void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
				 size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,
				 int pe)
{
	shmem_putmem_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op,
				PE("putmem_signal_nbi"));
}

#define DEFINE_CTX_AMO_EXTENDED(NAME, TYPE)                                                 \
	TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe)   \
	{                                                                                   \
		return shmem_##NAME##_atomic_fetch(source, PE(#NAME "_atomic_fetch"));      \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch,              \
						 const TYPE *source, int pe)                \
	{                                                                                   \
		shmem_##NAME##_atomic_fetch_nbi(fetch, source, PE(#NAME "_atomic_fetch_nbi")); \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) \
	{                                                                                   \
		shmem_##NAME##_atomic_set(dest, value, PE(#NAME "_atomic_set"));            \
	}                                                                                   \
	TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) \
	{                                                                                   \
		return shmem_##NAME##_atomic_swap(dest, value, PE(#NAME "_atomic_swap"));   \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,   \
						TYPE value, int pe)                         \
	{                                                                                   \
		shmem_##NAME##_atomic_swap_nbi(fetch, dest, value,                          \
					       PE(#NAME "_atomic_swap_nbi"));               \
	}
SHMEMCOMM_AMO_EXTENDED_TYPES(DEFINE_CTX_AMO_EXTENDED)

#define DEFINE_CTX_AMO_STANDARD(NAME, TYPE)                                                 \
	TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond, \
						    TYPE value, int pe)                     \
	{                                                                                   \
		return shmem_##NAME##_atomic_compare_swap(dest, cond, value,                \
							  PE(#NAME "_atomic_compare_swap")); \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch,       \
							TYPE *dest, TYPE cond, TYPE value,  \
							int pe)                             \
	{                                                                                   \
		shmem_##NAME##_atomic_compare_swap_nbi(fetch, dest, cond, value,            \
						       PE(#NAME "_atomic_compare_swap_nbi")); \
	}                                                                                   \
	TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe)       \
	{                                                                                   \
		return shmem_##NAME##_atomic_fetch_inc(dest, PE(#NAME "_atomic_fetch_inc")); \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch,          \
						     TYPE *dest, int pe)                    \
	{                                                                                   \
		shmem_##NAME##_atomic_fetch_inc_nbi(fetch, dest,                            \
						    PE(#NAME "_atomic_fetch_inc_nbi"));     \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe)             \
	{                                                                                   \
		shmem_##NAME##_atomic_inc(dest, PE(#NAME "_atomic_inc"));                   \
	}                                                                                   \
	TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *dest, TYPE value,   \
						 int pe)                                    \
	{                                                                                   \
		return shmem_##NAME##_atomic_fetch_add(dest, value,                         \
						       PE(#NAME "_atomic_fetch_add"));      \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE *fetch,          \
						     TYPE *dest, TYPE value, int pe)        \
	{                                                                                   \
		shmem_##NAME##_atomic_fetch_add_nbi(fetch, dest, value,                     \
						    PE(#NAME "_atomic_fetch_add_nbi"));     \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) \
	{                                                                                   \
		shmem_##NAME##_atomic_add(dest, value, PE(#NAME "_atomic_add"));            \
	}
SHMEMCOMM_AMO_STANDARD_TYPES(DEFINE_CTX_AMO_STANDARD)

#define DEFINE_CTX_AMO_BITWISE_OP(NAME, TYPE, OP)                                           \
	TYPE shmem_ctx_##NAME##_atomic_fetch_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value,  \
						  int pe)                                   \
	{                                                                                   \
		return shmem_##NAME##_atomic_fetch_##OP(dest, value,                        \
							PE(#NAME "_atomic_fetch_" #OP));    \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, TYPE *fetch,       \
							TYPE *dest, TYPE value, int pe)     \
	{                                                                                   \
		shmem_##NAME##_atomic_fetch_##OP##_nbi(fetch, dest, value,                  \
						       PE(#NAME "_atomic_fetch_" #OP "_nbi")); \
	}                                                                                   \
	void shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) \
	{                                                                                   \
		shmem_##NAME##_atomic_##OP(dest, value, PE(#NAME "_atomic_" #OP));          \
	}
#define DEFINE_CTX_AMO_BITWISE(NAME, TYPE) \
	SHMEMCOMM_BITWISE_OPS(DEFINE_CTX_AMO_BITWISE_OP, NAME, TYPE)
SHMEMCOMM_AMO_BITWISE_TYPES(DEFINE_CTX_AMO_BITWISE)
