/*
 * A request's life: prepare, queue, progress through its stages, and who
 * owns the PE's staging buffers meanwhile; and, once a pairwise algorithm
 * runs, which one takes each step (pairwise_step). The stages are
 * direct.c's; the steps ring.c's, hier.c's and chain.c's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "coll/agree.h"
#include "coll/chain.h"
#include "coll/direct.h"
#include "coll/hier.h"
#include "coll/reach.h"
#include "coll/register.h"
#include "coll/request.h"
#include "coll/ring.h"
#include "coll/steps.h"
#include "coll/tiny.h"
#include "coll/tune.h"
#include "core/pool.h"
#include "util/log.h"
#include "util/ranks.h"

enum {
	PC_TINY, PC_TINY_REDUCE, PC_ONESHOT, PC_ONESHOT_REDUCE,
	PC_STAGE, PC_COMPUTE, PC_GATHER, PC_PAIR, PC_FINAL, PC_FINAL_WAIT, PC_DONE
};

void sc_coll_describe(const struct shmemx_request *r, char *out, unsigned long len)
{
	const struct sc_team *t = r->a.team;
	int *late, n;
	char pes[400];

	if (r->done) {
		snprintf(out, len, "%s on a team of %d has completed", r->a.what, t->size);
		return;
	}
	if (r != t->coll_head) {
		snprintf(out, len, "%s on a team of %d waits for the team's requests before it",
			 r->a.what, t->size);
		return;
	}
	if (r->spans) {
		sc_coll_behind_across(t, pes, sizeof(pes));
		snprintf(out, len, "%s on a team of %d (across nodes) waits for PEs %s, which have not arrived",
			 r->a.what, t->size, *pes ? pes : "(none behind: a transfer is under way)");
		return;
	}
	late = calloc((size_t)t->size, sizeof(int));
	if (!late) {
		snprintf(out, len, "%s on a team of %d waits (no memory to say for whom)", r->a.what,
			 t->size);
		return;
	}
	n = r->pc == PC_TINY_REDUCE ? sc_coll_tiny_late(&r->a, r->tiny_call, late) :
				      sc_coll_behind_on_node(r, late);
	sc_format_ranks(late, n, pes, sizeof(pes));
	free(late);
	if (n)
		snprintf(out, len, "%s on a team of %d waits for PE%s %s, which %s not arrived",
			 r->a.what, t->size, n > 1 ? "s" : "", pes, n > 1 ? "have" : "has");
	else
		snprintf(out, len, "%s on a team of %d: every member has arrived; a step is under way",
			 r->a.what, t->size);
}

/* Entry to the call: says what it is, for sc_coll_check_members_agree. */
static inline void sign(struct shmemx_request *r)
{
	struct sc_coll_slot *mine = sc_coll_slot_of_me(r);

	mine->signature[r->parity] = sc_coll_signature(r);
	mine->count[r->parity] = r->a.count;
}

/*
 * Where a buffer of this call is, as the slot says it (segment.h); if
 * registered, its region's handle and start.
 */
static uint64_t where_is(const void *p, int staged, const struct sc_regcache_entry *registered,
			 uint64_t *handle, uint64_t *start)
{
	*handle = registered ? registered->region.handle : 0;
	*start = registered ? registered->start : 0;
	if (staged)
		return SC_COLL_STAGED;
	if (registered)
		return (uint64_t)((uintptr_t)p - registered->start);
	if (sc_heap_contains(p, 0))
		return (uint64_t)((const char *)p - (const char *)sc.mem.base[sc.me]);
	if (sc_pool_contains(p, 0))
		return sc.mem.size + sc.mem.globals.size + sc_pool_offset(p);
	return sc.mem.size + (uint64_t)((const char *)p - sc.mem.globals.start);
}

/* The same, and where its buffers are (one-shot's are always its small buffers). */
static void describe(struct shmemx_request *r)
{
	struct sc_coll_slot *mine = sc_coll_slot_of_me(r);
	struct sc_coll_where *w = &mine->where[r->parity];

	sign(r);
	w->src_offset = where_is(r->a.source, r->src_staged || sc_coll_pairwise(r->algo),
				 r->registered[0], &w->src_handle, &w->src_start);
	w->result_offset = where_is(r->a.dest, r->result_staged, r->registered[1],
				    &w->result_handle, &w->result_start);
	w->chunk_len = r->chunk_len;
}

/*
 * The PE's staging buffers (stage_in, stage_out) are its own, not a
 * team's: one request at a time stages through them, from its first stage
 * to its end (when no peer reads them any more). Another team's request
 * that needs them waits before its first stage; blocking, it drives the
 * owner's team meanwhile. So requests that stage, on different teams, must
 * start in the same order on the PEs they share (else each waits for the
 * other, and SHMEMCOMM_TIMEOUT ends it). The pairwise algorithms of the
 * world team take them too, for chunks 16 times those of their own
 * buffers; on other teams they use the team's pair buffers.
 */
static struct shmemx_request *stage_owner;

static int stages(const struct shmemx_request *r)
{
	return r->pair.big_buffers || (!sc_coll_pairwise(r->algo) &&
				       (r->src_staged || r->result_staged));
}

/* Whether @r may stage now; with @block, waits (driving the owner) until so. */
static int take_staging(struct shmemx_request *r, int block)
{
	while (stage_owner && stage_owner != r) {
		if (!block)
			return 0;
		sc_coll_finish(stage_owner);
	}
	stage_owner = r;
	return 1;
}

/*
 * A pairwise algorithm's steps per chunk: a broadcast's chain one, a copy
 * from the member before; the rest as their algorithm counts them.
 */
static int pairwise_steps(const struct shmemx_request *r)
{
	if (r->algo == SC_ALGO_CHAIN || r->a.kind == SC_BROADCAST)
		return 1;
	return r->algo == SC_ALGO_HIER ? sc_coll_hier_steps(r) : sc_coll_ring_steps(r);
}

/*
 * The current step of chunk @c, by the request's algorithm (a broadcast,
 * hierarchical or not, is a chain); 0 if a partner is not there and
 * !@block. A step done is published for the timeout's message.
 */
static int pairwise_step(struct shmemx_request *r, size_t c, int block)
{
	int k = r->pair.step, done;
	uint64_t step = sc_coll_step_number(r, c, k);

	if (r->a.kind == SC_BROADCAST)
		done = sc_coll_chain_step(r, c, step, block);
	else if (r->algo == SC_ALGO_HIER)
		done = sc_coll_hier_step(r, c, k, step, block);
	else
		done = sc_coll_ring_step(r, c, k, step, block);
	if (done)
		atomic_store(&sc_internal_of(sc.me)->coll_pair_done[r->a.team->slot].value,
			     step + 1);
	return done;
}

/*
 * Whether an rsag on a node reads and writes every member's source and
 * result where they are (none staged): then its chunks need no step
 * between them. A chunk's step makes its staged inputs visible, and its
 * second step lets a PE copy its staged result out; on buffers in place
 * each member reads and writes only the slices it owns, of every chunk, so
 * the chunks run back to back and one step ends them all. 2 PEs, medians
 * of the ratios of 7 interleaved launches against a step per chunk: 64 MiB
 * 0.95 (7.8 against 8.1 ms), 4 MiB 0.96, 16 MiB 0.99.
 */
static int in_place_everywhere(const struct shmemx_request *r)
{
	if (r->spans)
		return 0;
	for (int m = 0; m < r->a.team->size; m++)
		if (!r->src_of[m] || !r->result_of[m])
			return 0;
	return 1;
}

/* Runs @r as far as it goes; with @block, to the end. Whether it is done. */
static int advance(struct shmemx_request *r, int block)
{
	for (;;) {
		switch (r->pc) {
		case PC_TINY:
			sc_coll_tiny_write(&r->a, r->tiny_call);
			r->pc = PC_TINY_REDUCE;
			/* fall through */
		case PC_TINY_REDUCE:
			if (!sc_coll_tiny_reduce(&r->a, r->tiny_call, block))
				return 0;
			r->pc = PC_DONE;
			break;
		case PC_ONESHOT:
			sign(r);
			sc_coll_oneshot_stage(r);
			sc_coll_publish(r);
			r->pc = PC_ONESHOT_REDUCE;
			/* fall through */
		case PC_ONESHOT_REDUCE:
			if (!sc_coll_reached(r, block))
				return 0;
			sc_coll_check_members_agree(r);
			sc_coll_oneshot_reduce(r);
			r->pc = PC_DONE;
			break;
		case PC_STAGE:
			if (r->chunk == 0 && stages(r) && !take_staging(r, block))
				return 0;
			if (r->chunk == 0)
				describe(r);
			sc_coll_stage(r, r->chunk);
			sc_coll_publish(r);
			r->pc = PC_COMPUTE;
			/* fall through */
		case PC_COMPUTE:
			if (!sc_coll_reached(r, block))
				return 0;
			if (r->chunk == 0) {
				sc_coll_check_members_agree(r);
				sc_coll_find_buffers(r);
			}
			if (sc_coll_pairwise(r->algo)) {
				r->pair.base = r->a.team->coll_pair_seq;
				r->a.team->coll_pair_seq += r->nchunks * (uint64_t)r->pair.steps;
				r->pair.step = 0;
				r->pc = PC_PAIR;
				break;
			}
			if (r->algo == SC_ALGO_RSAG && r->chunk == 0 && in_place_everywhere(r)) {
				for (size_t c = 0; c < r->nchunks; c++)
					sc_coll_compute(r, c);
				/* the last chunk's gather step ends them all */
				r->chunk = r->nchunks - 1;
				sc_coll_publish(r);
				r->pc = PC_GATHER;
				break;
			}
			sc_coll_compute(r, r->chunk);
			if (r->algo == SC_ALGO_RSAG) {
				sc_coll_publish(r);
				r->pc = PC_GATHER;
				break;
			}
			r->pc = ++r->chunk < r->nchunks ? PC_STAGE : PC_FINAL;
			break;
		case PC_GATHER:
			if (!sc_coll_reached(r, block))
				return 0;
			sc_coll_gather(r, r->chunk);
			/* nobody reads this PE's buffers after this step: no final one */
			r->pc = ++r->chunk < r->nchunks ? PC_STAGE : PC_DONE;
			break;
		case PC_PAIR:
			while (r->chunk < r->nchunks) {
				if (!pairwise_step(r, r->chunk, block))
					return 0;
				if (++r->pair.step == r->pair.steps) {
					if (!r->hier.behind)
						sc_coll_pair_gather(r, r->chunk);
					r->pair.step = r->hier.ahead;
					r->hier.ahead = 0;
					r->chunk++;
				}
			}
			if (r->algo == SC_ALGO_HIER && r->a.kind != SC_BROADCAST)
				sc_debug("PE %d: %s: hier, %zu chunk(s); the node phases of %zu ran while the chunk %s crossed the nodes",
					 sc.me, r->a.what, r->nchunks,
					 r->a.kind == SC_ALLGATHER ? r->hier.chunks_behind : r->hier.chunks_ahead,
					 r->a.kind == SC_ALLGATHER ? "after" : "before");
			r->pc = PC_FINAL;
			break;
		case PC_FINAL:
			sc_coll_publish(r);
			r->pc = PC_FINAL_WAIT;
			/* fall through */
		case PC_FINAL_WAIT:
			if (!sc_coll_reached(r, block))
				return 0;
			r->pc = PC_DONE;
			break;
		case PC_DONE:
		default:
			if (stage_owner == r)
				stage_owner = NULL;
			if (r->registered[0] || r->registered[1] || r->imports_held)
				sc_coll_unregister(r);
			r->done = 1;
			return 1;
		}
	}
}

/* Drives the team's queue; with @until, blocks until that request is done. */
static void progress(struct sc_team *team, const struct shmemx_request *until)
{
	struct shmemx_request *head;

	while ((head = team->coll_head)) {
		if (!advance(head, until != NULL))
			return;
		team->coll_head = head->next;
		if (!team->coll_head)
			team->coll_tail = NULL;
		if (head == until)
			return;
	}
}

static int valid_args(const struct sc_coll_args *a)
{
	const struct sc_team *t = a->team;
	size_t elem, blocks;

	if (!t || t->my_index < 0) {
		sc_error("PE %d: %s: the team is invalid or this PE is not in it", sc.me, a->what);
		return 0;
	}
	if ((unsigned)a->dtype >= SC_DTYPE_ALL) {
		sc_error("PE %d: %s: dtype %d is not a shmemx_dtype_t (0..%d)", sc.me, a->what,
			 (int)a->dtype, SC_DTYPE_COUNT - 1);
		return 0;
	}
	if ((a->kind == SC_ALLREDUCE || a->kind == SC_REDUCE_SCATTER) &&
	    !sc_kernel(SC_SIMD_SCALAR, a->dtype, a->op)) {
		if ((unsigned)a->op >= SC_OP_ALL)
			sc_error("PE %d: %s: op %d is not a shmemx_op_t (0..%d)", sc.me, a->what,
				 (int)a->op, SC_OP_ALL - 1);
		else
			sc_error("PE %d: %s: op %s does not apply to dtype %s (bitwise ops take integers)",
				 sc.me, a->what, sc_op_name(a->op), sc_dtype_name(a->dtype));
		return 0;
	}
	if (a->kind == SC_BROADCAST && (a->root < 0 || a->root >= t->size)) {
		sc_error("PE %d: %s: root %d is outside the team of %d PEs", sc.me, a->what,
			 a->root, t->size);
		return 0;
	}
	elem = sc_dtype_size(a->dtype);
	blocks = a->kind == SC_ALLREDUCE || a->kind == SC_BROADCAST ? 1 : (size_t)t->size;
	if (a->count > SIZE_MAX / elem / blocks) {
		sc_error("PE %d: %s: count %zu of %s times %zu blocks overflows the address space",
			 sc.me, a->what, a->count, sc_dtype_name(a->dtype), blocks);
		return 0;
	}
	if (a->count && (!a->dest || (!a->source && (a->kind != SC_BROADCAST ||
						   t->my_index == a->root)))) {
		sc_error("PE %d: %s: %s is NULL with count %zu", sc.me, a->what,
			 a->dest ? "source" : "dest", a->count);
		return 0;
	}
	return 1;
}

/*
 * Whether the members can reach [p, p + len) where it is: on the heap; or
 * in the globals or this PE's buffer pool, on a node (the steps across
 * nodes name buffers by their address in the segment, which neither is in,
 * and the pairwise algorithms by an offset symmetric on every PE, which the
 * pool's are not).
 */
static inline int reachable_here(const struct shmemx_request *r, const void *p, size_t len)
{
	return sc_heap_contains(p, len) ||
	       (!r->spans && !sc_coll_pairwise(r->algo) &&
		(sc_globals_contain(&sc.mem.globals, p, len) || sc_pool_contains(p, len)));
}

/* sc_coll_prepare, for a caller that has asked sc_coll_tiny_fits already (@tiny) */
static int prepare(struct shmemx_request *r, const struct sc_coll_args *a, int tiny)
{
	struct sc_team *t = a->team;
	size_t bytes, src_bytes, dst_bytes, moved, line, len;

	sc_require_init(a->what);
	if (!valid_args(a))
		return -1;
	r->spans = t->spans;
	r->a = *a;
	r->next = NULL;
	r->registered[0] = r->registered[1] = NULL;
	r->imports_held = 0;
	r->done = 0;
	r->elem = sc_dtype_size(a->dtype);
	if (tiny) {
		/* its own lines and count (tiny.c): no step, no parity, no staging */
		r->algo = SC_ALGO_ONESHOT;
		r->nchunks = 1;
		r->pc = PC_TINY;
		r->tiny_call = ++t->tiny_calls;
		return 0;
	}
	r->nblocks = a->kind == SC_REDUCE_SCATTER || a->kind == SC_ALLTOALL ? t->size : 1;
	r->kernel = sc_kernel((enum sc_simd)sc.coll.simd, a->dtype, a->op);
	bytes = a->count * r->elem;
	src_bytes = bytes * (size_t)r->nblocks;
	dst_bytes = a->kind == SC_ALLGATHER || a->kind == SC_ALLTOALL ? bytes * (size_t)t->size :
		    bytes;
	moved = a->kind == SC_ALLREDUCE ? bytes : src_bytes > dst_bytes ? src_bytes : dst_bytes;
	r->algo = a->kind == SC_ALLREDUCE ? sc_coll_pick_algo(bytes, t) :
		  sc_coll_pick_kind_algo(a->kind, moved, t);
	if (r->algo == SC_ALGO_RHD && (t->size & (t->size - 1))) {
		sc_error("PE %d: %s: %s=rhd needs a team of 2^k PEs, and this one has %d; use ring or auto",
			 sc.me, a->what,
			 sc_coll_algo_variable(a->kind),
			 t->size);
		return -1;
	}
	if (r->algo == SC_ALGO_HIER && !sc_coll_hier_fits(t)) {
		sc_error("PE %d: %s: %s=hier needs a team across nodes with 2 to %d PEs on each node, as many on every node; this one has %d PEs on %d node(s)%s",
			 sc.me, a->what,
			 sc_coll_algo_variable(a->kind),
			 SC_PAIR_LOCAL_MAX, t->size, t->spans ? t->nodes : 1,
			 t->spans && !t->per_node ? ", unevenly" : "");
		return -1;
	}
	r->hier.rail_algo = r->algo == SC_ALGO_HIER ? sc_coll_rail_algo(moved, t) : -1;
	r->pair.steps = sc_coll_pairwise(r->algo) ? pairwise_steps(r) : 0;
	r->pair.partial = sc_coll_pairwise(r->algo) && (a->kind == SC_ALLREDUCE || a->kind == SC_REDUCE_SCATTER) ?
		     sc_partial(a->dtype, a->op) : NULL;
	/*
	 * in-place all-to-all overwrites blocks the peers still read: stage it;
	 * the pairwise algorithms never read a peer's source
	 */
	r->src_staged = r->result_staged = 0;
	/* one-shot copies into its own buffers: its source and dest stay where they are */
	if (r->algo != SC_ALGO_ONESHOT) {
		r->src_staged = !sc_coll_pairwise(r->algo) &&
				(!reachable_here(r, a->source, src_bytes) ||
				 (a->kind == SC_ALLTOALL && a->source == a->dest));
		r->result_staged = !reachable_here(r, a->dest, dst_bytes);
		sc_coll_register(r, src_bytes, dst_bytes);
		sc_coll_count_buffers((unsigned long)(r->src_staged + r->result_staged),
				      (unsigned long)(!r->src_staged && !sc_coll_pairwise(r->algo) &&
						      sc_pool_contains(a->source, src_bytes)) +
				      (unsigned long)(!r->result_staged &&
						      sc_pool_contains(a->dest, dst_bytes)));
	}
	/* one-shot's results are its team's smallest: never past the cache */
	r->stream = r->algo == SC_ALGO_ONESHOT ? SC_STORE_CACHED :
		    sc_coll_streams(dst_bytes, t->size);
	line = 64 / r->elem ? 64 / r->elem : 1;
	r->pair.big_buffers = sc_coll_pairwise(r->algo) && t->slot == SC_SLOT_WORLD;
	if (sc_coll_pairwise(r->algo)) {
		/*
		 * a chunk's partials (allreduce, reduce-scatter: every block)
		 * and staged results (the others: every block of an all-gather):
		 * in the staging buffers, partials in stage_in and results in
		 * stage_out; or both in the team's pair buffer
		 */
		size_t blocks = a->kind == SC_ALLREDUCE || a->kind == SC_BROADCAST ? 1 :
				(size_t)t->size;
		size_t partial = r->pair.partial ? r->pair.partial->size : 0;
		size_t result = a->kind == SC_REDUCE_SCATTER ? 0 : r->elem;
		size_t room = r->pair.big_buffers ? SC_COLL_STAGE_MAX : SC_COLL_PAIR_MAX;

		room = sc.coll.chunk < room ? sc.coll.chunk : room;
		len = room / blocks / (r->pair.big_buffers ? (partial > result ? partial : result) :
							partial + result);
	} else {
		len = sc.coll.chunk / r->elem / (size_t)r->nblocks;
	}
	r->chunk_len = len >= line ? len / line * line : len ? len : 1;
	r->pair.results_at = r->pair.partial ? r->chunk_len * r->pair.partial->size *
					  (a->kind == SC_REDUCE_SCATTER ? (size_t)t->size : 1) : 0;
	r->nchunks = r->algo == SC_ALGO_ONESHOT || !a->count ? 1 :
		     (a->count + r->chunk_len - 1) / r->chunk_len;
	r->chunk = 0;
	r->hier.ahead = 0;
	r->hier.overlapping = 0;
	r->while_busy = r->algo == SC_ALGO_HIER ? sc_coll_hier_overlap : NULL;
	r->hier.chunks_ahead = 0;
	r->hier.behind = 0;
	r->hier.chunks_behind = 0;
	r->pc = r->algo == SC_ALGO_ONESHOT ? PC_ONESHOT : PC_STAGE;
	r->parity = (unsigned)(t->coll_calls++ & 1);
	return 0;
}

int sc_coll_prepare(struct shmemx_request *r, const struct sc_coll_args *a)
{
	return prepare(r, a, sc_coll_tiny_fits(a));
}

void sc_coll_start(struct shmemx_request *r)
{
	struct sc_team *t = r->a.team;

	if (t->coll_tail)
		t->coll_tail->next = r;
	else
		t->coll_head = r;
	t->coll_tail = r;
	progress(t, NULL);
}

void sc_coll_finish(struct shmemx_request *r)
{
	if (!r->done)
		progress(r->a.team, r);
}

int sc_coll_poll(struct shmemx_request *r)
{
	if (!r->done)
		progress(r->a.team, NULL);
	return r->done;
}

int sc_coll_run(const struct sc_coll_args *a)
{
	struct shmemx_request r;
	int n = a->team && a->team->size > 0 ? a->team->size : 1;
	void *arrays[SC_COLL_ARRAYS_BYTES(n) / sizeof(void *)];
	int tiny = sc_coll_tiny_fits(a);

	/* with nothing queued on the team, the smallest allreduce needs no request */
	if (tiny && !a->team->coll_head) {
		uint64_t call;

		sc_require_init(a->what);
		if (!valid_args(a))
			return -1;
		call = ++a->team->tiny_calls;
		sc_coll_tiny_write(a, call);
		sc_coll_tiny_reduce(a, call, 1);
		return 0;
	}
	sc_coll_place_arrays(&r, arrays, n);
	if (prepare(&r, a, tiny))
		return -1;
	sc_coll_start(&r);
	sc_coll_finish(&r);
	return 0;
}
