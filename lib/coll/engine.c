/*
 * The collective engine (see coll.h). Stages of one chunk c:
 *
 *   stage    the PE copies its source's chunk into stage_in[c % 2] if the
 *            source is not on the heap, and publishes a step;
 *   compute  once every member has reached it: reduce-scatter (this PE's
 *            slice of every member's chunk, written into every member's
 *            result: its dest on the heap, or its stage_out), or the copies
 *            of an all-gather, broadcast or all-to-all; an allreduce
 *            publishes again;
 *   gather   (allreduce) once every member has reached that: a staged
 *            result is copied to dest.
 *
 * Two staging buffers suffice: a PE refills buffer c % 2 only after every
 * member has published a later stage, which it does only after reading
 * chunk c. A pipeline call other than allreduce ends with one more step, so
 * no PE returns while a peer still reads its buffers; an allreduce's last
 * step is that already, as after it nobody touches another PE's memory. A one-shot allreduce needs no end step:
 * its inputs sit in buffers chosen by call parity, and a PE cannot finish
 * the next call until every member has started it, so done with this one.
 *
 * A team that spans nodes runs the same stages, with two differences. A
 * step is a dissemination sync over the NIC (step_across), which advances
 * a round per call without waiting, as the step counters do on a node.
 * And a member's buffers are named by their symmetric addresses: compute
 * reads a remote member's slice with RDMA reads and pushes results with
 * RDMA writes (compute_across), in the same kernel calls as on a node, so
 * the results are the same bits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "sync/sync.h"
#include "core/peer.h"
#include "util/wait.h"
#include "util/env.h"
#include "util/log.h"
#include "util/ranks.h"

enum { PC_STAGE, PC_COMPUTE, PC_GATHER, PC_PAIR, PC_FINAL, PC_FINAL_WAIT, PC_DONE };

static const char *const kind_names[SC_COLL_KINDS] = {
	"allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall",
};
static const char *const algo_names[SC_ALGO_COUNT] = { "oneshot", "rsag", "ring", "rhd",
							 "hier", "chain" };

int sc_coll_kind_parse(const char *name)
{
	for (int k = 0; name && k < SC_COLL_KINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

/*
 * @var's value among @allowed (SC_ALGO_DIRECT: "direct"), or -1 for auto
 * or unset: 0, or -1 after a message listing the choices.
 */
static int parse_algo(const char *var, const int *allowed, int count, int *out)
{
	const char *value = sc_env_string(var);
	char list[128] = "auto";

	*out = -1;
	if (!value || !*value || !strcmp(value, "auto"))
		return 0;
	for (int i = 0; i < count; i++) {
		const char *name = allowed[i] == SC_ALGO_DIRECT ? "direct" : algo_names[allowed[i]];

		if (!strcmp(value, name)) {
			*out = allowed[i];
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ", %s", name);
	}
	sc_error("%s=%s: not one of %s", var, value, list);
	return -1;
}

const char *sc_coll_algo_name(int algo)
{
	return algo >= 0 && algo < SC_ALGO_COUNT ? algo_names[algo] : "pipeline";
}

int sc_coll_tune(struct sc_coll_tuning *t)
{
	static const int allreduce[] = { SC_ALGO_ONESHOT, SC_ALGO_RSAG, SC_ALGO_RING, SC_ALGO_RHD,
					 SC_ALGO_HIER };
	static const int blocks[] = { SC_ALGO_DIRECT, SC_ALGO_RING, SC_ALGO_RHD, SC_ALGO_HIER };
	static const int broadcast[] = { SC_ALGO_DIRECT, SC_ALGO_CHAIN, SC_ALGO_HIER };
	const char *simd = sc_env_string("SHMEMCOMM_SIMD");
	uint64_t oneshot, chunk, stream, rhd;
	long pipeline;
	enum sc_simd chosen;
	int err;

	if (parse_algo("SHMEMCOMM_ALLREDUCE_ALGO", allreduce, 5, &t->algorithm) ||
	    parse_algo("SHMEMCOMM_COLL_ALGO", blocks, 4, &t->block_algorithm) ||
	    parse_algo("SHMEMCOMM_BROADCAST_ALGO", broadcast, 3, &t->broadcast_algorithm))
		return -1;
	if (sc_env_size("SHMEMCOMM_ALLREDUCE_ONESHOT_MAX", 512, 0, SC_COLL_SMALL_MAX,
			&oneshot) ||
	    sc_env_size("SHMEMCOMM_COLL_CHUNK", SC_COLL_STAGE_MAX, 4u << 10, SC_COLL_STAGE_MAX, &chunk) ||
	    sc_env_size("SHMEMCOMM_COLL_STREAM_MIN", 16u << 20, 0, UINT64_MAX, &stream) ||
	    sc_env_size("SHMEMCOMM_ALLREDUCE_RHD_MAX", 256u << 10, 0, UINT64_MAX, &rhd) ||
	    sc_env_long("SHMEMCOMM_HIER_PIPELINE", 1, 0, 1, &pipeline))
		return -1;
	err = sc_simd_parse(simd, &chosen);
	if (err) {
		sc_error("SHMEMCOMM_SIMD=%s: %s", simd,
			 err == -EINVAL ? "not one of auto, scalar, avx2, avx512" :
					  "this CPU does not support it");
		return -1;
	}
	t->oneshot_max = oneshot;
	t->chunk = chunk;
	t->stream_min = stream;
	t->rhd_max = rhd;
	t->hier_pipeline = (int)pipeline;
	t->simd = chosen;
	return 0;
}

/*
 * On a node every PE reads the others' memory at memory speed: one-shot,
 * else the single-copy reduce-scatter. Across nodes each step costs a
 * network round trip and a link carries one stream best: one-shot for
 * the tiniest, then recursive halving and doubling (log2 n steps), then
 * the ring (2(n-1) steps, each PE talking to its neighbours only).
 */
int sc_coll_pick_algo(size_t bytes, const struct sc_team *team)
{
	int power_of_two = !(team->size & (team->size - 1));

	if (sc.coll.algorithm >= 0 && (sc.coll.algorithm != SC_ALGO_ONESHOT ||
				       bytes <= SC_COLL_SMALL_MAX))
		return sc.coll.algorithm;
	if (bytes <= sc.coll.oneshot_max)
		return SC_ALGO_ONESHOT;
	if (!team->spans)
		return SC_ALGO_RSAG;
	if (sc_coll_hier_fits(team))
		return SC_ALGO_HIER;
	return bytes <= sc.coll.rhd_max && power_of_two ? SC_ALGO_RHD : SC_ALGO_RING;
}

int sc_coll_hier_fits(const struct sc_team *team)
{
	return team->nodes >= 2 && team->per_node >= 2 && team->per_node <= SC_PAIR_LOCAL_MAX;
}

/*
 * Across nodes: hier where the team fits it; else reduce-scatter and
 * all-gather by the allreduce's rule (rhd for small on 2^k PEs, else the
 * ring), broadcast a chain from the root, so that the root's link carries
 * the data once. On a node, and for
 * all-to-all (each PE reads its blocks from each: pairs already), the
 * pipeline.
 */
int sc_coll_pick_kind_algo(enum sc_coll_kind kind, size_t bytes, const struct sc_team *team)
{
	int power_of_two = !(team->size & (team->size - 1));
	int forced = kind == SC_BROADCAST ? sc.coll.broadcast_algorithm : sc.coll.block_algorithm;

	if (kind != SC_REDUCE_SCATTER && kind != SC_ALLGATHER && kind != SC_BROADCAST)
		return -1;
	if (forced != -1)
		return forced == SC_ALGO_DIRECT ? -1 : forced;
	if (!team->spans)
		return -1;
	if (sc_coll_hier_fits(team))
		return SC_ALGO_HIER;
	if (kind == SC_BROADCAST)
		return SC_ALGO_CHAIN;
	return bytes <= sc.coll.rhd_max && power_of_two ? SC_ALGO_RHD : SC_ALGO_RING;
}

/* The rail's algorithm in the hierarchical scheme: by size and node count. */
static int rail_algo(size_t bytes, const struct sc_team *team)
{
	int power_of_two = !(team->nodes & (team->nodes - 1));

	return bytes <= sc.coll.rhd_max && power_of_two ? SC_ALGO_RHD : SC_ALGO_RING;
}

static int pairwise(int algo)
{
	return algo == SC_ALGO_RING || algo == SC_ALGO_RHD || algo == SC_ALGO_HIER ||
	       algo == SC_ALGO_CHAIN;
}

static struct sc_coll_slot *slot_of(const struct shmemx_request *r, int member)
{
	return &sc_internal_of(sc_team_world_pe(r->a.team, member))->coll[r->a.team->slot];
}

static struct sc_coll_slot *slot_of_me(const struct shmemx_request *r)
{
	return &sc_internal_of(sc.me)->coll[r->a.team->slot];
}

static uint64_t signature(const struct shmemx_request *r)
{
	return (uint64_t)r->a.kind | (uint64_t)r->a.dtype << 8 | (uint64_t)r->a.op << 16 |
	       (uint64_t)(r->algo & 0xff) << 24 | (uint64_t)(uint32_t)r->a.root << 32;
}

/* Member @m's slot: where it is, or for a team across nodes a copy in @copy. */
static const struct sc_coll_slot *read_slot(const struct shmemx_request *r, int m,
					    struct sc_coll_slot *copy)
{
	int pe = sc_team_world_pe(r->a.team, m);

	if (!r->spans)
		return slot_of(r, m);
	sc_peer_get(copy, pe, sc_internal_offset(slot_of_me(r)), sizeof(*copy), 0);
	return copy;
}

/* The members' calls must match; a mismatch would corrupt data or hang. */
static void check_members_agree(struct shmemx_request *r)
{
	uint64_t sig = signature(r);
	struct sc_coll_slot copy;

	for (int m = 0; m < r->a.team->size; m++) {
		const struct sc_coll_slot *s = read_slot(r, m, &copy);
		uint64_t theirs = s->signature[r->parity], count = s->count[r->parity];
		int pe = sc_team_world_pe(r->a.team, m);

		if (theirs == sig && count == r->a.count)
			continue;
		sc_fatal(1, "PE %d: %s: PE %d called %s of %lu %s (op %s, root %d, algorithm %s) where this PE called %s of %zu %s (op %s, root %d, algorithm %s); every PE of the team must make the same call",
			 sc.me, r->a.what, pe,
			 (theirs & 0xff) < SC_COLL_KINDS ? kind_names[theirs & 0xff] : "?",
			 (unsigned long)count,
			 ((theirs >> 8) & 0xff) < SC_DTYPE_ALL ?
			 sc_dtype_name((enum sc_dtype)((theirs >> 8) & 0xff)) : "?",
			 ((theirs >> 16) & 0xff) < SC_OP_ALL ?
			 sc_op_name((enum sc_op)((theirs >> 16) & 0xff)) : "?",
			 (int)(theirs >> 32), sc_coll_algo_name((int)((theirs >> 24) & 0xff)),
			 kind_names[r->a.kind], r->a.count, sc_dtype_name(r->a.dtype),
			 sc_op_name(r->a.op), r->a.root, sc_coll_algo_name(r->algo));
	}
	if (r->algo == SC_ALGO_ONESHOT)
		return;
	for (int m = 0; m < r->a.team->size; m++) {
		const struct sc_coll_slot *s = read_slot(r, m, &copy);
		int pe = sc_team_world_pe(r->a.team, m);
		/*
		 * across nodes, and for the pairwise algorithms (which reach
		 * every member through offsets): symmetric addresses, as this
		 * PE's heap holds them
		 */
		char *heap = sc_heap_base(r->spans || pairwise(r->algo) ? sc.me : pe);

		if (s->where[r->parity].chunk_len != r->chunk_len)
			sc_fatal(1, "PE %d: %s: PE %d pipelines %lu elements a chunk and this PE %zu; set SHMEMCOMM_COLL_CHUNK alike on every PE",
				 sc.me, r->a.what, pe,
				 (unsigned long)s->where[r->parity].chunk_len, r->chunk_len);
		r->src_of[m] = s->where[r->parity].src_offset == SC_COLL_STAGED ? NULL :
			       heap + s->where[r->parity].src_offset;
		r->result_of[m] = s->where[r->parity].result_offset == SC_COLL_STAGED ? NULL :
				  heap + s->where[r->parity].result_offset;
	}
}

/* The chunk's elements [lo, hi) in each block. */
static void chunk_range(const struct shmemx_request *r, size_t *lo, size_t *hi)
{
	*lo = r->chunk * r->chunk_len;
	*hi = *lo + r->chunk_len < r->a.count ? *lo + r->chunk_len : r->a.count;
}

/* Element @i of block @block of member @m's source, during this chunk. */
static const char *source_at(const struct shmemx_request *r, int m, int block, size_t i)
{
	size_t lo = r->chunk * r->chunk_len;

	if (r->src_of[m])
		return r->src_of[m] + ((size_t)block * r->a.count + i) * r->elem;
	return sc_internal_of(sc_team_world_pe(r->a.team, m))->stage_in[r->chunk & 1] +
	       ((size_t)block * r->chunk_len + i - lo) * r->elem;
}

/* Where the current chunk's staged results sit in PE @pe's internal area. */
static char *staged_results(const struct shmemx_request *r, int pe)
{
	struct sc_internal *in = sc_internal_of(pe);

	if (pairwise(r->algo) && !r->big_buffers)
		return in->pair[r->a.team->slot][r->chunk & 1] + r->pair_results_at;
	return in->stage_out[r->chunk & 1];
}

/* Element @i of member @m's reduced allreduce result, during this chunk. */
static char *result_at(const struct shmemx_request *r, int m, size_t i)
{
	size_t lo = r->chunk * r->chunk_len;

	if (r->result_of[m])
		return (char *)r->result_of[m] + i * r->elem;
	return staged_results(r, sc_team_world_pe(r->a.team, m)) + (i - lo) * r->elem;
}

/* Part @index of [lo, hi) cut in @parts: whole cache lines, [*a, *b). */
static void cut(const struct shmemx_request *r, size_t lo, size_t hi, int parts, int index,
		size_t *a, size_t *b)
{
	size_t n = (size_t)parts, line = 64 / r->elem ? 64 / r->elem : 1;
	size_t len = ((hi - lo + n - 1) / n + line - 1) / line * line;

	*a = lo + len * (size_t)index < hi ? lo + len * (size_t)index : hi;
	*b = *a + len < hi ? *a + len : hi;
}

/* Member @m's slice [lo, hi) of the chunk [clo, chi). */
static void slice_range(const struct shmemx_request *r, int m, size_t clo, size_t chi,
			size_t *lo, size_t *hi)
{
	cut(r, clo, chi, r->a.team->size, m, lo, hi);
}

static void publish(struct shmemx_request *r)
{
	r->target = ++r->a.team->coll_step;
	atomic_store_explicit(&slot_of(r, r->a.team->my_index)->step, r->target,
			      memory_order_release);
}

static int all_reached(const struct shmemx_request *r)
{
	for (int m = 0; m < r->a.team->size; m++)
		if (atomic_load_explicit(&slot_of(r, m)->step, memory_order_acquire) < r->target)
			return 0;
	return 1;
}

static void missing_members(void *ctx, char *out, unsigned long len, const char **did)
{
	const struct shmemx_request *waiting = ctx;
	int missing[SC_MAX_PES], n = 0;

	(void)did;
	for (int m = 0; m < waiting->a.team->size; m++)
		if (atomic_load(&slot_of(waiting, m)->step) < waiting->target)
			missing[n++] = sc_team_world_pe(waiting->a.team, m);
	sc_format_ranks(missing, n, out, len);
}

/* The members that have not begun this step. */
static void members_behind(void *ctx, char *out, unsigned long len, const char **did)
{
	const struct sc_team *t = ctx;

	(void)did;
	sc_members_behind(t, &sc_internal_of(sc.me)->coll_entered[t->slot], t->coll_epoch, out,
			  len);
}

/* Round @t->coll_round of the current step: this PE's arrival at its partner. */
static void step_send(struct sc_team *t)
{
	int to = sc_team_world_pe(t, (t->my_index + (1 << t->coll_round)) % t->size);

	sc_peer_store(to, sc_internal_offset(
			      &sc_internal_of(sc.me)->coll_arrivals[t->slot][t->coll_round]),
		      t->coll_epoch);
}

/*
 * Across nodes a step is a dissemination sync of its own (counters apart
 * from the team sync's, so that syncs the program makes between a
 * request's steps do not mix with them), in phases: it starts at the first
 * call and moves a round further whenever one has arrived, so that without
 * @block it returns at once and a request across nodes moves while the PE
 * is in the library, as one on a node does.
 */
static int step_across(const struct shmemx_request *r, int block)
{
	struct sc_team *t = r->a.team;
	struct sc_internal *mine = sc_internal_of(sc.me);
	struct sc_wait wait;
	int waiting_began = 0;

	if (!t->coll_stepping) {
		t->coll_stepping = 1;
		t->coll_epoch++;
		t->coll_round = 0;
		atomic_store(&mine->coll_entered[t->slot].value, t->coll_epoch);
		if (t->size > 1)
			step_send(t);
	}
	while ((1 << t->coll_round) < t->size) {
		if (atomic_load_explicit(&mine->coll_arrivals[t->slot][t->coll_round].value,
					 memory_order_acquire) >= t->coll_epoch) {
			if ((1 << ++t->coll_round) < t->size)
				step_send(t);
			continue;
		}
		if (!block)
			return 0;
		if (!waiting_began) {
			sc_wait_begin(&wait, r->a.what, -1, members_behind, t);
			waiting_began = 1;
		}
		sc_wait_step(&wait);
	}
	t->coll_stepping = 0;
	return 1;
}

/* Whether every member has reached the target; with @block, waits until so. */
static int reached(const struct shmemx_request *r, int block)
{
	struct sc_wait wait;

	if (r->spans)
		return step_across(r, block);
	if (all_reached(r))
		return 1;
	if (!block)
		return 0;
	sc_wait_begin(&wait, r->a.what, -1, missing_members, (void *)r);
	while (!all_reached(r))
		sc_wait_step(&wait);
	return 1;
}

/* Entry to the call: says what it is and where its buffers are. */
static void describe(struct shmemx_request *r)
{
	struct sc_coll_slot *mine = slot_of(r, r->a.team->my_index);
	const char *heap = sc_heap_base(sc.me);

	mine->signature[r->parity] = signature(r);
	mine->count[r->parity] = r->a.count;
	if (r->algo == SC_ALGO_ONESHOT)
		return;
	mine->where[r->parity].src_offset = r->src_staged || pairwise(r->algo) ? SC_COLL_STAGED :
					    (uint64_t)((const char *)r->a.source - heap);
	mine->where[r->parity].result_offset = r->result_staged ? SC_COLL_STAGED :
					       (uint64_t)((char *)r->a.dest - heap);
	mine->where[r->parity].chunk_len = r->chunk_len;
}

static void stage(struct shmemx_request *r)
{
	size_t lo, hi;

	if (r->algo == SC_ALGO_ONESHOT) {
		memcpy(sc_internal_of(sc.me)->small[r->a.team->slot][r->parity], r->a.source,
		       r->a.count * r->elem);
		return;
	}
	if (!r->src_staged || (r->a.kind == SC_BROADCAST && r->a.team->my_index != r->a.root))
		return;
	chunk_range(r, &lo, &hi);
	for (int b = 0; b < r->nblocks; b++)
		memcpy(sc_internal_of(sc.me)->stage_in[r->chunk & 1] +
		       (size_t)b * r->chunk_len * r->elem,
		       (const char *)r->a.source + ((size_t)b * r->a.count + lo) * r->elem,
		       (hi - lo) * r->elem);
}

/* Copies @len elements from @from to element @i of dest (nothing if in place). */
static void to_dest(const struct shmemx_request *r, size_t i, const void *from, size_t len)
{
	char *to = (char *)r->a.dest + i * r->elem;

	if (to != from && len)
		sc_copy(to, from, len * r->elem, r->stream);
}

#define PUSH_BLOCK 8192	/* bytes reduced, then pushed, while in L1 */

/*
 * Reduces this PE's slice [lo, hi) into its own result and pushes it into
 * every other member's, so that each member then reads only its own
 * memory. Block by block, while the block is in L1. With streaming stores
 * only the pushes into peers' heap results stream: measured here, also
 * streaming this PE's own result, or into stage_out (read back at once),
 * is slower (16 MiB: 1.76 ms against 2.0 ms).
 */
static void reduce_and_push(const struct shmemx_request *r, size_t lo, size_t hi)
{
	int n = r->a.team->size, me = r->a.team->my_index;
	size_t block = PUSH_BLOCK / r->elem;
	const void *in[n];

	for (size_t at = lo; at < hi; at += block) {
		size_t len = hi - at < block ? hi - at : block;
		char *reduced = result_at(r, me, at);

		for (int m = 0; m < n; m++)
			in[m] = source_at(r, m, 0, at);
		r->kernel(reduced, in, n, len);
		for (int m = 1; m < n; m++) {
			int to = (me + m) % n;

			sc_copy(result_at(r, to, at), reduced, len * r->elem,
				r->stream && r->result_of[to]);
		}
	}
}

/* Across nodes: where member @m's source element (@block, @i) sits in its segment. */
static uint64_t source_offset(const struct shmemx_request *r, int m, int block, size_t i)
{
	size_t lo = r->chunk * r->chunk_len;

	if (r->src_of[m])
		return sc_internal_offset(r->src_of[m]) +
		       ((size_t)block * r->a.count + i) * r->elem;
	return sc_internal_offset(sc_internal_of(sc.me)->stage_in[r->chunk & 1]) +
	       ((size_t)block * r->chunk_len + i - lo) * r->elem;
}

/* Across nodes: where member @m's result element @i sits in its segment. */
static uint64_t result_offset(const struct shmemx_request *r, int m, size_t i)
{
	size_t lo = r->chunk * r->chunk_len;

	if (r->result_of[m])
		return sc_internal_offset(r->result_of[m]) + i * r->elem;
	return sc_internal_offset(staged_results(r, sc.me)) + (i - lo) * r->elem;
}

/* Room for what remote members' slices are read into; per thread, kept. */
static char *scratch_for(size_t bytes)
{
	static _Thread_local char *scratch;
	static _Thread_local size_t size;

	if (bytes > size) {
		char *grown = realloc(scratch, bytes);

		if (!grown)
			sc_fatal(1, "PE %d: no memory for %zu bytes of a collective across nodes",
				 sc.me, bytes);
		scratch = grown;
		size = bytes;
	}
	return scratch;
}

/* Member @m's @bytes at @offset: where they are on this node, else read into @into. */
static const char *fetch(const struct shmemx_request *r, int m, uint64_t offset, size_t bytes,
			 char *into)
{
	int pe = sc_team_world_pe(r->a.team, m);

	if (sc.mem.base[pe])
		return (const char *)sc.mem.base[pe] + offset;
	if (bytes)
		sc_net_get(&sc.net, into, pe, offset, bytes, 1);
	return into;
}

/* Every member's @bytes of source block @block from element @i, into @in. */
static void fetch_inputs(const struct shmemx_request *r, const void **in, int block, size_t i,
			 size_t bytes)
{
	int n = r->a.team->size;
	char *scratch = scratch_for((size_t)n * bytes);

	for (int m = 0; m < n; m++)
		in[m] = fetch(r, m, source_offset(r, m, block, i), bytes,
			      scratch + (size_t)m * bytes);
	sc_net_quiet(&sc.net);
}

/* @bytes of member @m at @offset into @to: a copy on this node, else an RDMA read. */
static void copy_from(const struct shmemx_request *r, int m, uint64_t offset, char *to,
		      size_t bytes)
{
	int pe = sc_team_world_pe(r->a.team, m);

	if (sc.mem.base[pe]) {
		if (to != (const char *)sc.mem.base[pe] + offset)
			sc_copy(to, (const char *)sc.mem.base[pe] + offset, bytes, r->stream);
	} else if (bytes) {
		sc_net_get(&sc.net, to, pe, offset, bytes, 1);
	}
}

/* @len elements of member @m at @offset into dest from element @i. */
static void fetch_to_dest(const struct shmemx_request *r, int m, uint64_t offset, size_t i,
			  size_t len)
{
	copy_from(r, m, offset, (char *)r->a.dest + i * r->elem, len * r->elem);
}

/*
 * compute() for a team across nodes: the same slices and kernel calls,
 * with remote members' inputs read by the NIC and results written by it.
 * All of it has landed when this returns, before the step that says so.
 */
static void compute_across(struct shmemx_request *r)
{
	int n = r->a.team->size, me = r->a.team->my_index;
	const void *in[n];
	size_t lo, hi, slo, shi, bytes;
	char *scratch, *reduced;

	if (r->algo == SC_ALGO_ONESHOT) {
		uint64_t small = sc_internal_offset(
			sc_internal_of(sc.me)->small[r->a.team->slot][r->parity]);

		bytes = r->a.count * r->elem;
		scratch = scratch_for((size_t)n * bytes);
		for (int m = 0; m < n; m++)
			in[m] = fetch(r, m, small, bytes, scratch + (size_t)m * bytes);
		sc_net_quiet(&sc.net);
		r->kernel(r->a.dest, in, n, r->a.count);
		return;
	}
	chunk_range(r, &lo, &hi);
	switch (r->a.kind) {
	case SC_ALLREDUCE:
		slice_range(r, me, lo, hi, &slo, &shi);
		bytes = (shi - slo) * r->elem;
		if (!bytes)
			break;
		fetch_inputs(r, in, 0, slo, bytes);
		reduced = result_at(r, me, slo);
		r->kernel(reduced, in, n, shi - slo);
		for (int m = 1; m < n; m++) {
			int to = (me + m) % n;

			sc_peer_put(sc_team_world_pe(r->a.team, to), result_offset(r, to, slo),
				    reduced, bytes, 1);
		}
		break;
	case SC_REDUCE_SCATTER:
		bytes = (hi - lo) * r->elem;
		if (!bytes)
			break;
		fetch_inputs(r, in, me, lo, bytes);
		r->kernel((char *)r->a.dest + lo * r->elem, in, n, hi - lo);
		break;
	case SC_ALLGATHER:
		for (int m = 0; m < n; m++)
			fetch_to_dest(r, m, source_offset(r, m, 0, lo),
				      (size_t)m * r->a.count + lo, hi - lo);
		break;
	case SC_BROADCAST:
		fetch_to_dest(r, r->a.root, source_offset(r, r->a.root, 0, lo), lo, hi - lo);
		break;
	case SC_ALLTOALL:
		for (int m = 0; m < n; m++)
			fetch_to_dest(r, m, source_offset(r, m, me, lo),
				      (size_t)m * r->a.count + lo, hi - lo);
		break;
	default:
		break;
	}
	sc_net_quiet(&sc.net);
}

static void compute(struct shmemx_request *r)
{
	int n = r->a.team->size, me = r->a.team->my_index;
	const void *in[n];
	size_t lo, hi, slo, shi;

	if (r->spans) {
		compute_across(r);
		return;
	}

	if (r->algo == SC_ALGO_ONESHOT) {
		for (int m = 0; m < n; m++)
			in[m] = sc_internal_of(sc_team_world_pe(r->a.team, m))
					->small[r->a.team->slot][r->parity];
		r->kernel(r->a.dest, in, n, r->a.count);
		return;
	}
	chunk_range(r, &lo, &hi);
	switch (r->a.kind) {
	case SC_ALLREDUCE:
		slice_range(r, me, lo, hi, &slo, &shi);
		reduce_and_push(r, slo, shi);
		break;
	case SC_REDUCE_SCATTER:
		for (int m = 0; m < n; m++)
			in[m] = source_at(r, m, me, lo);
		if (hi > lo)
			r->kernel((char *)r->a.dest + lo * r->elem, in, n, hi - lo);
		break;
	case SC_ALLGATHER:
		for (int m = 0; m < n; m++)
			to_dest(r, (size_t)m * r->a.count + lo, source_at(r, m, 0, lo), hi - lo);
		break;
	case SC_BROADCAST:
		to_dest(r, lo, source_at(r, r->a.root, 0, lo), hi - lo);
		break;
	case SC_ALLTOALL:
		for (int m = 0; m < n; m++)
			to_dest(r, (size_t)m * r->a.count + lo, source_at(r, m, me, lo), hi - lo);
		break;
	default:
		break;
	}
}

/* Once every member has pushed its slice: a staged result goes to dest. */
static void gather(struct shmemx_request *r)
{
	size_t lo, hi;

	if (!r->result_staged)
		return;
	chunk_range(r, &lo, &hi);
	to_dest(r, lo, result_at(r, r->a.team->my_index, lo), hi - lo);
}

/*
 * The pairwise algorithms, ring and recursive halving/doubling, run by a
 * group of members over a range of elements: the whole team over the
 * chunk, or in the hierarchical scheme one rail (the members with the same
 * index on every node) over its node slice. The range is cut into one
 * segment per group member. Step 0 loads this PE's input into its partial
 * buffer (widened: reduce/partial.h); each later step waits for one
 * partner to have completed the step before, then either combines the
 * partner's partial of some segments into its own, or copies the
 * partner's final result of some segments into its own result. The member
 * that combines a segment last rounds it into its result (finish): one PE
 * computes each element, so every PE gets the same bits.
 *
 *   ring, 2n-1 steps: step k in 1..n-1 combines segment me-k from the
 *   left neighbour, the last of them finishes segment me+1; step k in
 *   n..2n-2 copies segment me-(k-n) from the left neighbour.
 *   rhd, 2L+1 steps (n = 2^L): step k in 1..L halves the segments kept
 *   (partner me ^ n>>k) and combines them; step k in L+1..2L copies back
 *   the partner's segments, the rounds in reverse.
 *
 * Hierarchical (hier), per chunk: load; combine the node's partials of
 * this PE's node slice, read in shared memory from the node's PEs; the
 * rail's ring or rhd over that slice, through the NIC, from its step 1;
 * then copy the node's other slices from their owners' results. Only
 * 2(N-1)/N of the chunk per node crosses the network, spread over the
 * node's PEs, each on its own QPs.
 *
 * A PE tells whoever waits for it in their next step when a step is
 * complete, on a line of its own in their internal area (coll_pair), with
 * the team's running count of steps, so lines only grow. A partner writes
 * only segments the reader does not read in the same chunk, and reaches
 * chunk c + 2, which reuses the buffers of chunk c, only after every PE
 * that read them has told it of a step of chunk c + 1. Between calls the
 * request's first and last steps are team syncs, as for the pipeline.
 */
struct pair_group {
	int algo;		/* SC_ALGO_RING or SC_ALGO_RHD */
	int size, me;
	int rail;		/* the rail's local index; -1: the group is the team */
	size_t lo, hi;		/* its elements */
};

struct pair_plan {
	enum { PAIR_LOAD, PAIR_COMBINE, PAIR_COPY } action;
	int partner;		/* group index waited for and read from; -1 for none */
	int line;		/* its line in this PE's coll_pair */
	int first, last;	/* segments [first, last) */
	int finish;		/* then round segment @finish_seg into the result */
	int finish_seg;
};

static int log2_of(int n)
{
	int l = 0;

	while ((1 << l) < n)
		l++;
	return l;
}

static int group_steps(int algo, int n)
{
	return algo == SC_ALGO_RING ? 2 * n - 1 : 2 * log2_of(n) + 1;
}

/* The last step that combines: after it, each segment has one owner. */
static int last_combine(int algo, int n)
{
	return algo == SC_ALGO_RING ? n - 1 : log2_of(n);
}

/*
 * Steps per chunk. A reduce-scatter stops where each member owns its
 * block; an all-gather starts there (its step 0 puts this PE's own block
 * in place); the hierarchical scheme adds the node's combine (allreduce,
 * reduce-scatter) and copy (allreduce, all-gather); a broadcast chain is
 * one step, a copy from the member before.
 */
static int pair_steps(const struct shmemx_request *r)
{
	const struct sc_team *t = r->a.team;

	if (r->algo == SC_ALGO_CHAIN || r->a.kind == SC_BROADCAST)
		return 1;
	if (r->algo == SC_ALGO_HIER && r->a.kind == SC_REDUCE_SCATTER)
		return last_combine(r->rail_algo, t->nodes) + 2;
	if (r->algo == SC_ALGO_HIER && r->a.kind == SC_ALLGATHER)
		return group_steps(r->rail_algo, t->nodes) - last_combine(r->rail_algo, t->nodes) + 1;
	if (r->algo == SC_ALGO_HIER)
		return group_steps(r->rail_algo, t->nodes) + 2;
	if (r->a.kind == SC_REDUCE_SCATTER)
		return last_combine(r->algo, t->size) + 1;
	if (r->a.kind == SC_ALLGATHER)
		return group_steps(r->algo, t->size) - last_combine(r->algo, t->size);
	return group_steps(r->algo, t->size);
}

static int wrap(int i, int n)
{
	return ((i % n) + n) % n;
}

/* What group member @me does in the group's step @k. */
static void plan_group_step(const struct pair_group *g, int me, int k, struct pair_plan *p)
{
	int n = g->size, l = log2_of(n);
	int last_combine = g->algo == SC_ALGO_RING ? n - 1 : l;

	p->partner = -1;
	p->line = 0;
	p->finish = k == last_combine;
	p->finish_seg = g->algo == SC_ALGO_RING ? (me + 1) % n : me;
	if (k == 0) {
		p->action = PAIR_LOAD;
		p->first = 0;
		p->last = n;
		return;
	}
	p->action = k <= last_combine ? PAIR_COMBINE : PAIR_COPY;
	if (g->algo == SC_ALGO_RING) {
		p->partner = wrap(me - 1, n);
		p->first = wrap(p->action == PAIR_COMBINE ? me - k : me - (k - n), n);
		p->last = p->first + 1;
		return;
	}
	/* rhd: round @line, partner across bit @half; halving keeps this PE's half */
	p->line = k <= l ? k - 1 : 2 * l - k;
	{
		int half = n >> (p->line + 1);
		int owner = p->action == PAIR_COMBINE ? me : me ^ half;

		p->partner = me ^ half;
		p->first = owner / half * half;
		p->last = p->first + half;
	}
}

/* Group step @k as the request's kind runs it (see pair_steps). */
static void plan_kind_step(const struct shmemx_request *r, const struct pair_group *g, int me,
			   int k, struct pair_plan *p)
{
	if (r->a.kind != SC_ALLGATHER) {
		plan_group_step(g, me, k, p);
		return;
	}
	if (k) {
		plan_group_step(g, me, k + last_combine(g->algo, g->size), p);
		return;
	}
	/* all-gather step 0: this PE's own block, the segment an allreduce would finish */
	plan_group_step(g, me, last_combine(g->algo, g->size), p);
	p->action = PAIR_LOAD;
	p->partner = -1;
	p->first = p->finish_seg;
	p->last = p->first + 1;
	p->finish = 0;
}

/* The team index of group member @index. */
static int group_member(const struct shmemx_request *r, const struct pair_group *g, int index)
{
	const struct sc_team *t = r->a.team;

	return g->rail < 0 ? index : t->by_node[index * t->per_node + g->rail];
}

/*
 * A run of a segment's elements: @at indexes source and dest (for the
 * block collectives block * count + i), @buf the chunk's pair buffers.
 */
struct run {
	size_t at, buf, len;
};

/*
 * Segments are slices of the group's range, or for reduce-scatter and
 * all-gather whole blocks, each the block of a group member: the ring's
 * finished segment me+1 is member me's. (A rail's member is on each node,
 * so a rail carries the blocks of the team members of its local index.)
 */
static int block_of(const struct shmemx_request *r, const struct pair_group *g, int segment)
{
	return group_member(r, g, g->algo == SC_ALGO_RING ? (segment + g->size - 1) % g->size :
							       segment);
}

/* The current chunk's run of block @block. */
static struct run block_run(const struct shmemx_request *r, int block)
{
	size_t lo, hi;

	chunk_range(r, &lo, &hi);
	return (struct run){ (size_t)block * r->a.count + lo, (size_t)block * r->chunk_len, hi - lo };
}

/* Run @index of the group's segments [first, last); 0 past the last. */
static int segment_run(const struct shmemx_request *r, const struct pair_group *g, int first,
		       int last, int index, struct run *run)
{
	size_t lo, hi, a, b, unused;

	if (r->a.kind != SC_REDUCE_SCATTER && r->a.kind != SC_ALLGATHER) {
		if (index)
			return 0;
		chunk_range(r, &lo, &hi);
		cut(r, g->lo, g->hi, g->size, first, &a, &unused);
		cut(r, g->lo, g->hi, g->size, last - 1, &unused, &b);
		*run = (struct run){ a, a - lo, b - a };
		return 1;
	}
	if (first + index >= last)
		return 0;
	*run = block_run(r, block_of(r, g, first + index));
	return 1;
}

/* Local index @l's slice of the current chunk, in the hierarchical scheme. */
static void node_slice(const struct shmemx_request *r, int l, size_t *lo, size_t *hi)
{
	size_t clo, chi;

	chunk_range(r, &clo, &chi);
	cut(r, clo, chi, r->a.team->per_node, l, lo, hi);
}

/* The group this PE's pairwise steps run in, for the current chunk. */
static void pair_group_of(const struct shmemx_request *r, struct pair_group *g)
{
	const struct sc_team *t = r->a.team;

	if (r->algo == SC_ALGO_HIER) {
		g->algo = r->rail_algo;
		g->size = t->nodes;
		g->me = t->node_index;
		g->rail = t->local_index;
		node_slice(r, t->local_index, &g->lo, &g->hi);
	} else {
		g->algo = r->algo;
		g->size = t->size;
		g->me = t->my_index;
		g->rail = -1;
		chunk_range(r, &g->lo, &g->hi);
	}
}

/* This PE's partial of element @i of the current chunk, and where it sits in every PE. */
static char *partial_at(const struct shmemx_request *r, size_t buf)
{
	struct sc_internal *mine = sc_internal_of(sc.me);

	return (r->big_buffers ? mine->stage_in[r->chunk & 1] :
				 mine->pair[r->a.team->slot][r->chunk & 1]) +
	       buf * r->partial->size;
}

/*
 * Where member @m keeps the results of @run: its dest on the heap, or its
 * pair buffer; a reduce-scatter's only in this PE's own dest, read by none.
 */
static char *run_result(const struct shmemx_request *r, int m, const struct run *run)
{
	if (r->a.kind == SC_REDUCE_SCATTER)
		return (char *)r->a.dest + (run->at - (size_t)r->a.team->my_index * r->a.count) *
		       r->elem;
	if (r->result_of[m])
		return (char *)r->result_of[m] + run->at * r->elem;
	return staged_results(r, sc_team_world_pe(r->a.team, m)) + run->buf * r->elem;
}

struct pair_wait {
	const struct sc_team *team;
	int partner;		/* world PE */
	uint64_t step;		/* its step awaited, counted in the team */
	char did[600];
};

/* For a timeout: the members that do not answer (lost), else the partner. */
static void pair_missing(void *ctx, char *out, unsigned long len, const char **did)
{
	struct pair_wait *pair_waiting = ctx;
	const struct sc_team *t = pair_waiting->team;
	uint64_t offset = sc_internal_offset(&sc_internal_of(sc.me)->coll_pair_done[t->slot]);
	int lost[SC_MAX_PES], n = 0;
	uint64_t theirs = 0;

	for (int m = 0; m < t->size; m++) {
		int pe = sc_team_world_pe(t, m);

		if (sc_peer_probe(pe, offset, &theirs))
			lost[n++] = pe;
	}
	if (n) {
		sc_format_ranks(lost, n, out, len);
		sc_net_name_lost(&sc.net, lost, n, pair_waiting->did, sizeof(pair_waiting->did));
		*did = pair_waiting->did;
		return;
	}
	sc_peer_probe(pair_waiting->partner, offset, &theirs);
	sc_format_ranks(&pair_waiting->partner, 1, out, len);
	*did = pair_waiting->did;
	snprintf(pair_waiting->did, sizeof(pair_waiting->did),
		 "has completed %llu of the team's pairwise collective steps where this PE needs %llu (it answers: it waits for another PE, or is busy)",
		 (unsigned long long)theirs, (unsigned long long)pair_waiting->step);
}

/*
 * Whether team member @m has told this PE, on @line, that it completed the
 * step before @step; with @block waits until so, or the timeout.
 */
static int partner_ready(const struct shmemx_request *r, int m, int line, uint64_t step,
			 int block)
{
	const struct sc_team *t = r->a.team;
	_Atomic uint64_t *told = &sc_internal_of(sc.me)->coll_pair[t->slot][line].value;
	struct pair_wait waited;
	struct sc_wait wait;

	if (atomic_load_explicit(told, memory_order_acquire) >= step)
		return 1;
	if (!block)
		return 0;
	waited.team = t;
	waited.partner = sc_team_world_pe(t, m);
	waited.step = step;
	sc_wait_begin(&wait, r->a.what, -1, pair_missing, &waited);
	while (atomic_load_explicit(told, memory_order_acquire) < step)
		sc_wait_step(&wait);
	return 1;
}

/* Tells team member @m, on its @line, that this PE completed step @step - 1. */
static void tell(const struct shmemx_request *r, int m, int line, uint64_t step)
{
	const struct sc_team *t = r->a.team;

	sc_peer_store(sc_team_world_pe(t, m),
		      sc_internal_offset(&sc_internal_of(sc.me)->coll_pair[t->slot][line]), step);
}

/* The team index of this node's member with local index @l. */
static int node_member(const struct sc_team *t, int l)
{
	return t->by_node[t->node_index * t->per_node + l];
}

/*
 * The line that node member @l tells this PE on, in the hierarchical
 * steps: one set per chunk parity, as the pipeline runs two chunks.
 */
static int node_line(const struct shmemx_request *r, int l)
{
	return SC_PAIR_RAIL_LINES + (int)(r->chunk & 1) * SC_PAIR_LOCAL_MAX + l;
}

/* Every other PE of this node in the team, for the hierarchical steps. */
static int node_ready(const struct shmemx_request *r, uint64_t step, int block)
{
	const struct sc_team *t = r->a.team;

	for (int l = 0; l < t->per_node; l++)
		if (l != t->local_index &&
		    !partner_ready(r, node_member(t, l), node_line(r, l), step, block))
			return 0;
	return 1;
}

static void tell_node(const struct shmemx_request *r, uint64_t step)
{
	const struct sc_team *t = r->a.team;

	for (int l = 0; l < t->per_node; l++)
		if (l != t->local_index)
			tell(r, node_member(t, l), node_line(r, t->local_index), step);
}

static void overlap(struct shmemx_request *r, int waited);

/* Whether member @m is reached through the NIC. */
static int remote(const struct shmemx_request *r, int m)
{
	return !sc.mem.base[sc_team_world_pe(r->a.team, m)];
}

/*
 * Combines member @m's partials of @run into this PE's. While the NIC
 * reads a remote member's, the next chunk's node phases run.
 */
static void combine_from(struct shmemx_request *r, int m, const struct run *run)
{
	size_t bytes = run->len * r->partial->size;
	const char *theirs;

	if (!bytes)
		return;
	/* the scratch is only touched for remote reads: none is in flight while it grows */
	theirs = fetch(r, m, sc_internal_offset(partial_at(r, run->buf)), bytes,
		       remote(r, m) ? scratch_for(bytes) : NULL);
	if (remote(r, m)) {
		overlap(r, 1);
		sc_net_quiet(&sc.net);
	}
	r->partial->combine(partial_at(r, run->buf), theirs, run->len);
}

/* Copies member @m's results of @run into this PE's (and runs ahead as above). */
static void results_from(struct shmemx_request *r, int m, const struct run *run)
{
	/* symmetric addresses: where member @m keeps them, as this PE's segment would */
	const char *theirs = r->result_of[m] ? r->result_of[m] + run->at * r->elem :
			     staged_results(r, sc.me) + run->buf * r->elem;

	if (!run->len)
		return;
	copy_from(r, m, sc_internal_offset(theirs), run_result(r, r->a.team->my_index, run),
		  run->len * r->elem);
	if (remote(r, m)) {
		overlap(r, 1);
		sc_net_quiet(&sc.net);
	}
}

/* Step 0's own data: loaded as partials, or (all-gather, broadcast) put in place. */
static void load_run(const struct shmemx_request *r, const struct run *run)
{
	const char *from;
	char *to;

	if (!run->len)
		return;
	from = (const char *)r->a.source +
	       (r->a.kind == SC_ALLGATHER ? run->at % r->a.count : run->at) * r->elem;
	if (r->partial) {
		r->partial->load(partial_at(r, run->buf), from, run->len);
		return;
	}
	to = run_result(r, r->a.team->my_index, run);
	if (to != from && run->len)
		sc_copy(to, from, run->len * r->elem, 0);
}

/* Group step @k: 0 if its partner is not there and !@block. */
static int group_step(struct shmemx_request *r, const struct pair_group *g, int k,
		      uint64_t step, int block)
{
	struct pair_plan p;
	struct run run;

	plan_kind_step(r, g, g->me, k, &p);
	if (p.partner >= 0 && !partner_ready(r, group_member(r, g, p.partner), p.line, step, 0)) {
		overlap(r, 0);
		if (!partner_ready(r, group_member(r, g, p.partner), p.line, step, block))
			return 0;
	}
	for (int i = 0; segment_run(r, g, p.first, p.last, i, &run); i++) {
		if (p.action == PAIR_LOAD)
			load_run(r, &run);
		else if (p.action == PAIR_COMBINE)
			combine_from(r, group_member(r, g, p.partner), &run);
		else
			results_from(r, group_member(r, g, p.partner), &run);
	}
	if (p.finish && segment_run(r, g, p.finish_seg, p.finish_seg + 1, 0, &run))
		r->partial->finish(run_result(r, r->a.team->my_index, &run),
				   partial_at(r, run.buf), run.len, r->a.team->size);
	return 1;
}

/* Tells whoever waits for this PE in the group's step @k. */
static void tell_group(const struct shmemx_request *r, const struct pair_group *g, int k,
		       uint64_t step)
{
	struct pair_plan mine, theirs;
	int waiter;

	if (g->algo == SC_ALGO_RING) {
		waiter = (g->me + 1) % g->size;
	} else {
		plan_kind_step(r, g, g->me, k, &mine);
		waiter = mine.partner;
	}
	plan_kind_step(r, g, waiter, k, &theirs);
	tell(r, group_member(r, g, waiter), theirs.line, step);
}

/*
 * A broadcast chain: each member copies the chunk from the member before
 * it, from the root on, and says so to the member after it (line 0). The
 * chain does not close, so a member also tells the one before it when it
 * has read a chunk (line 1), and a member refills the buffers of chunk c
 * only once the member after it has read them.
 *
 * The hierarchical broadcast runs the chain along the root's rail (the
 * team members of the root's local index, from the root's node on), and
 * each rail member hands the chunk to its node members: they copy it by
 * loads once told on their node line, and say so on the rail member's, so
 * it also waits for them before refilling a chunk's buffers.
 */
static int chain_step(struct shmemx_request *r, uint64_t step, int block)
{
	const struct sc_team *t = r->a.team;
	int root = r->a.root, hier = r->algo == SC_ALGO_HIER;
	int n = hier ? t->nodes : t->size;
	int root_local = hier ? t->local_of[root] : 0;
	int first = hier ? t->node_of[root] : root, me = hier ? t->node_index : t->my_index;
	int left, right, is_first = me == first, is_last = (me + 1) % n == first;
	struct run run;
	size_t lo, hi;

	chunk_range(r, &lo, &hi);
	run = (struct run){ lo, 0, hi - lo };
	if (hier && t->local_index != root_local) {
		int feeder = node_member(t, root_local);

		if (!partner_ready(r, feeder, node_line(r, root_local), step + 1, block))
			return 0;
		results_from(r, feeder, &run);
		tell(r, feeder, node_line(r, t->local_index), step + 1);
		return 1;
	}
	left = hier ? t->by_node[(me + n - 1) % n * t->per_node + root_local] : (me + n - 1) % n;
	right = hier ? t->by_node[(me + 1) % n * t->per_node + root_local] : (me + 1) % n;
	if (!is_first && !partner_ready(r, left, 0, step + 1, block))
		return 0;
	if (r->chunk >= 2 && ((!is_last && !partner_ready(r, right, 1, step - 1, block)) ||
			      (hier && !node_ready(r, step - 1, block))))
		return 0;
	if (is_first)
		load_run(r, &run);
	else
		results_from(r, left, &run);
	if (!is_last)
		tell(r, right, 0, step + 1);
	if (!is_first)
		tell(r, left, 1, step + 1);
	if (hier)
		tell_node(r, step + 1);
	return 1;
}

/* The team's count of pairwise steps at step @k of the current chunk. */
static uint64_t step_number(const struct shmemx_request *r, int k)
{
	return r->pair_base + r->chunk * (uint64_t)pair_steps(r) + (uint64_t)k;
}

/*
 * The hierarchical scheme's phases, by step @k of a chunk. Allreduce:
 * load, node combine, the rail's steps, node copy. Reduce-scatter: load,
 * node combine, the rail's steps (the last leaves each PE its block).
 * All-gather: the rail's steps (the first puts this PE's block in place),
 * node copy.
 */
enum hier_phase { HIER_LOAD, HIER_NODE_COMBINE, HIER_RAIL, HIER_NODE_COPY };

static enum hier_phase hier_phase(const struct shmemx_request *r, int k)
{
	int steps = pair_steps(r);

	if (r->a.kind == SC_ALLGATHER)
		return k == steps - 1 ? HIER_NODE_COPY : HIER_RAIL;
	if (k <= 1)
		return k ? HIER_NODE_COMBINE : HIER_LOAD;
	return r->a.kind == SC_ALLREDUCE && k == steps - 1 ? HIER_NODE_COPY : HIER_RAIL;
}

/* The rail's group step at chunk step @k (a rail one). */
static int rail_step(const struct shmemx_request *r, int k)
{
	return r->a.kind == SC_ALLGATHER ? k : k - 1;
}

/* The chunk step after which the rail is done with the chunk. */
static int last_rail_step(const struct shmemx_request *r)
{
	return pair_steps(r) - (r->a.kind == SC_REDUCE_SCATTER ? 1 : 2);
}

/*
 * Run @index of what node member @l (a local index) owns of the current
 * chunk: in an allreduce its slice, in the block collectives the blocks
 * of the team members of its local index (its rail's). 0 past the last.
 */
static int node_share(const struct shmemx_request *r, int l, int index, struct run *run)
{
	const struct sc_team *t = r->a.team;
	size_t clo, chi, lo, hi;

	if (r->a.kind == SC_ALLREDUCE) {
		if (index)
			return 0;
		chunk_range(r, &clo, &chi);
		node_slice(r, l, &lo, &hi);
		*run = (struct run){ lo, lo - clo, hi - lo };
		return 1;
	}
	if (index >= t->nodes)
		return 0;
	*run = block_run(r, t->by_node[index * t->per_node + l]);
	return 1;
}

/*
 * The node phases. Node members are on this node, mapped (nodes are found
 * by what maps what): these are loads and stores.
 */
static void hier_load(struct shmemx_request *r)
{
	int blocks = r->a.kind == SC_REDUCE_SCATTER ? r->a.team->size : 1;

	for (int b = 0; b < blocks; b++) {
		struct run run = block_run(r, b);

		load_run(r, &run);
	}
}

/* This PE's share: the other node members' partials combined into its own. */
static void hier_node_combine(struct shmemx_request *r)
{
	const struct sc_team *t = r->a.team;
	struct run run;

	for (int i = 0; node_share(r, t->local_index, i, &run); i++)
		for (int l = 0; l < t->per_node; l++)
			if (l != t->local_index)
				combine_from(r, node_member(t, l), &run);
}

/* The other node members' finished shares copied into this PE's results. */
static void hier_node_copy(struct shmemx_request *r)
{
	const struct sc_team *t = r->a.team;
	struct run run;

	for (int l = 0; l < t->per_node; l++)
		for (int i = 0; l != t->local_index && node_share(r, l, i, &run); i++)
			results_from(r, node_member(t, l), &run);
}

/* Tells the rail that this PE combined the node's partials of the next chunk. */
static void tell_rail_ahead(struct shmemx_request *r)
{
	struct pair_group g;

	r->chunk++;
	pair_group_of(r, &g);
	tell_group(r, &g, 1, step_number(r, 2));
	r->chunk--;
}

/*
 * The hierarchical scheme's pipeline (allreduce and reduce-scatter): while
 * this PE's rail runs chunk c across nodes (its partner not there yet, or
 * the NIC reading), the node phases of chunk c + 1 run: its load, and once
 * every node member has loaded it, the node combine. Called from c's waits
 * and reads (@waited: past the wait of the rail step under way).
 *
 * Chunk c + 1's partial buffers held chunk c - 1's, and nobody reads them
 * any more. The node members combined them before loading c, which this
 * PE's node combine of c waited for. The rail partners: an allreduce's
 * rail has completed c - 1, whose every step waits for the partner's step
 * before it (around the ring, or across the rhd rounds), so each partner
 * is past its last combine of c - 1. A reduce-scatter's rail ends at its
 * last combine, so that chain reaches the last partner only at the wait of
 * c's last rail step: it runs ahead from there. The node lines are kept by
 * chunk parity, so that "loaded c + 1" never passes for "finished c"; the
 * rail lines count steps in order, so the rail hears that c + 1 is
 * combined only once this PE's rail is past c.
 */
static void run_ahead(struct shmemx_request *r, int waited)
{
	uint64_t step;

	if (r->algo != SC_ALGO_HIER || r->a.kind == SC_ALLGATHER || !sc.coll.hier_pipeline ||
	    r->ahead == 2 || r->chunk + 1 >= r->nchunks || r->pair_step < 2)
		return;
	if (r->a.kind == SC_REDUCE_SCATTER && (r->pair_step != last_rail_step(r) || !waited))
		return;
	r->chunk++;
	step = step_number(r, r->ahead);
	if (r->ahead == 0) {
		hier_load(r);
		tell_node(r, step + 1);
		r->ahead = 1;
		step++;
	}
	if (node_ready(r, step, 0)) {
		hier_node_combine(r);
		r->ahead = 2;
		r->chunks_ahead++;
	}
	r->chunk--;
	if (r->ahead == 2 && r->pair_step > last_rail_step(r))
		tell_rail_ahead(r);
}

/* At a chunk's end: staged results to dest (a reduce-scatter wrote dest itself). */
static void pair_gather(struct shmemx_request *r)
{
	int blocks = r->a.kind == SC_ALLGATHER ? r->a.team->size : 1;

	if (!r->result_staged || r->a.kind == SC_REDUCE_SCATTER)
		return;
	for (int b = 0; b < blocks; b++) {
		struct run run = block_run(r, b);

		to_dest(r, run.at, staged_results(r, sc.me) + run.buf * r->elem, run.len);
	}
}

/*
 * The all-gather's pipeline runs the other way: chunk c's node copy is
 * left for the waits of chunk c + 1's rail (at most one chunk behind).
 * Then its results are read by the node after this PE's rail has moved
 * on, so each PE says when it has copied a chunk ("copied c", after
 * "finished c" on the same node line), and a PE puts chunk c + 2 into
 * c's buffers only once its node has copied c. The rail partners are past
 * c by the argument above.
 */
static uint64_t copied_value(const struct shmemx_request *r)
{
	/*
	 * past "finished c" (step_number(r, steps - 1)), short of what the
	 * next request tells first ("loaded", step_number + 1 of its step 0)
	 */
	return step_number(r, pair_steps(r));
}

/* Chunk c - 1's node copy (and staged results to dest): 0 if the node is not there and !@block. */
static int catch_up(struct shmemx_request *r, int block)
{
	int done;

	r->chunk--;
	done = node_ready(r, step_number(r, last_rail_step(r)) + 1, block);
	if (done) {
		hier_node_copy(r);
		pair_gather(r);
		tell_node(r, copied_value(r));
		r->behind = 0;
		r->chunks_behind++;
	}
	r->chunk++;
	return done;
}

/* The hierarchical pipelines' work, while a rail step waits (see run_ahead). */
static void overlap(struct shmemx_request *r, int waited)
{
	if (r->overlapping)
		return;
	r->overlapping = 1;
	if (r->behind)
		catch_up(r, 0);
	else
		run_ahead(r, waited);
	r->overlapping = 0;
}

/* The all-gather's node copy step: chunk c - 1's first, then c's, or left for later. */
static int allgather_node_copy(struct shmemx_request *r, uint64_t step, int block)
{
	if (r->behind && !catch_up(r, block))
		return 0;
	if (sc.coll.hier_pipeline && r->chunk + 1 < r->nchunks) {
		r->behind = 1;
		return 1;
	}
	if (!node_ready(r, step, block))
		return 0;
	hier_node_copy(r);
	/* as catch_up does: a node member may run the pipeline (its own SHMEMCOMM_HIER_PIPELINE) */
	tell_node(r, copied_value(r));
	return 1;
}

/* Step @k of the hierarchical scheme; 0 if a partner is not there and !@block. */
static int hier_step(struct shmemx_request *r, const struct pair_group *g, int k,
		     uint64_t step, int block)
{
	switch (hier_phase(r, k)) {
	case HIER_LOAD:
		hier_load(r);
		return 1;
	case HIER_RAIL:
		/* an all-gather's chunk c refills chunk c - 2's buffers: copied by the node? */
		if (r->a.kind == SC_ALLGATHER && k == 0 && r->chunk >= 2) {
			uint64_t copied = copied_value(r) - 2 * (uint64_t)pair_steps(r);

			if (!node_ready(r, copied, 0)) {
				overlap(r, 0);
				if (!node_ready(r, copied, block))
					return 0;
			}
		}
		return group_step(r, g, rail_step(r, k), step, block);
	case HIER_NODE_COMBINE:
	case HIER_NODE_COPY:
	default:
		if (r->a.kind == SC_ALLGATHER)
			return allgather_node_copy(r, step, block);
		if (!node_ready(r, step, 0)) {
			overlap(r, 0);
			if (!node_ready(r, step, block))
				return 0;
		}
		if (hier_phase(r, k) == HIER_NODE_COMBINE)
			hier_node_combine(r);
		else
			hier_node_copy(r);
		return 1;
	}
}

/* After hierarchical step @k: tells whoever waits for this PE in the next. */
static void hier_tell(struct shmemx_request *r, const struct pair_group *g, int k,
		      uint64_t step)
{
	enum hier_phase phase = hier_phase(r, k);

	if (phase == HIER_RAIL && k == last_rail_step(r)) {
		if (k + 1 < pair_steps(r))
			tell_node(r, step + 1);
		if (r->ahead == 2)
			tell_rail_ahead(r);
	} else if (phase == HIER_LOAD) {
		tell_node(r, step + 1);
	} else if (phase != HIER_NODE_COPY) {
		/* after the node combine, or a rail step: the rail's next */
		tell_group(r, g, phase == HIER_RAIL ? rail_step(r, k) + 1 : 1, step + 1);
	}
}

/* One step of a pairwise algorithm; 0 if its partner is not there and !@block. */
static int pair_step(struct shmemx_request *r, int block)
{
	struct sc_team *t = r->a.team;
	int k = r->pair_step, steps = pair_steps(r);
	uint64_t step = step_number(r, k);
	struct pair_group g;

	if (r->a.kind == SC_BROADCAST) {
		if (!chain_step(r, step, block))
			return 0;
		atomic_store(&sc_internal_of(sc.me)->coll_pair_done[t->slot].value, step + 1);
		return 1;
	}
	pair_group_of(r, &g);
	if (r->algo == SC_ALGO_HIER ? !hier_step(r, &g, k, step, block) :
				      !group_step(r, &g, k, step, block))
		return 0;
	atomic_store(&sc_internal_of(sc.me)->coll_pair_done[t->slot].value, step + 1);
	if (r->algo == SC_ALGO_HIER)
		hier_tell(r, &g, k, step);
	else if (k + 1 < steps)
		tell_group(r, &g, k + 1, step + 1);
	return 1;
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
	return r->big_buffers || (!pairwise(r->algo) && r->algo != SC_ALGO_ONESHOT &&
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

/* Runs @r as far as it goes; with @block, to the end. Whether it is done. */
static int advance(struct shmemx_request *r, int block)
{
	for (;;) {
		switch (r->pc) {
		case PC_STAGE:
			if (r->chunk == 0 && stages(r) && !take_staging(r, block))
				return 0;
			if (r->chunk == 0)
				describe(r);
			stage(r);
			publish(r);
			r->pc = PC_COMPUTE;
			/* fall through */
		case PC_COMPUTE:
			if (!reached(r, block))
				return 0;
			if (r->chunk == 0)
				check_members_agree(r);
			if (pairwise(r->algo)) {
				r->pair_base = r->a.team->coll_pair_seq;
				r->a.team->coll_pair_seq += r->nchunks * (uint64_t)pair_steps(r);
				r->pair_step = 0;
				r->pc = PC_PAIR;
				break;
			}
			compute(r);
			if (r->algo == SC_ALGO_RSAG) {
				publish(r);
				r->pc = PC_GATHER;
				break;
			}
			if (r->algo == SC_ALGO_ONESHOT) {
				r->pc = PC_DONE;
				break;
			}
			r->pc = ++r->chunk < r->nchunks ? PC_STAGE : PC_FINAL;
			break;
		case PC_GATHER:
			if (!reached(r, block))
				return 0;
			gather(r);
			/* nobody reads this PE's buffers after this step: no final one */
			r->pc = ++r->chunk < r->nchunks ? PC_STAGE : PC_DONE;
			break;
		case PC_PAIR:
			while (r->chunk < r->nchunks) {
				if (!pair_step(r, block))
					return 0;
				if (++r->pair_step == pair_steps(r)) {
					if (!r->behind)
						pair_gather(r);
					r->pair_step = r->ahead;
					r->ahead = 0;
					r->chunk++;
				}
			}
			if (r->algo == SC_ALGO_HIER && r->a.kind != SC_BROADCAST)
				sc_debug("PE %d: %s: hier, %zu chunk(s); the node phases of %zu ran while the chunk %s crossed the nodes",
					 sc.me, r->a.what, r->nchunks,
					 r->a.kind == SC_ALLGATHER ? r->chunks_behind : r->chunks_ahead,
					 r->a.kind == SC_ALLGATHER ? "after" : "before");
			r->pc = PC_FINAL;
			break;
		case PC_FINAL:
			publish(r);
			r->pc = PC_FINAL_WAIT;
			/* fall through */
		case PC_FINAL_WAIT:
			if (!reached(r, block))
				return 0;
			r->pc = PC_DONE;
			break;
		case PC_DONE:
		default:
			if (stage_owner == r)
				stage_owner = NULL;
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

/* The variable that forces @kind's algorithm, for messages. */
static const char *algo_variable(enum sc_coll_kind kind)
{
	return kind == SC_ALLREDUCE ? "SHMEMCOMM_ALLREDUCE_ALGO" :
	       kind == SC_BROADCAST ? "SHMEMCOMM_BROADCAST_ALGO" : "SHMEMCOMM_COLL_ALGO";
}

int sc_coll_prepare(struct shmemx_request *r, const struct sc_coll_args *a)
{
	struct sc_team *t = a->team;
	size_t bytes, src_bytes, dst_bytes, moved, line, len;

	sc_require_init(a->what);
	if (!valid_args(a))
		return -1;
	r->spans = t->spans;
	r->a = *a;
	r->next = NULL;
	r->elem = sc_dtype_size(a->dtype);
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
			 algo_variable(a->kind),
			 t->size);
		return -1;
	}
	if (r->algo == SC_ALGO_HIER && !sc_coll_hier_fits(t)) {
		sc_error("PE %d: %s: %s=hier needs a team across nodes with 2 to %d PEs on each node, as many on every node; this one has %d PEs on %d node(s)%s",
			 sc.me, a->what,
			 algo_variable(a->kind),
			 SC_PAIR_LOCAL_MAX, t->size, t->spans ? t->nodes : 1,
			 t->spans && !t->per_node ? ", unevenly" : "");
		return -1;
	}
	r->rail_algo = r->algo == SC_ALGO_HIER ? rail_algo(moved, t) : -1;
	r->partial = pairwise(r->algo) && (a->kind == SC_ALLREDUCE || a->kind == SC_REDUCE_SCATTER) ?
		     sc_partial(a->dtype, a->op) : NULL;
	/*
	 * in-place all-to-all overwrites blocks the peers still read: stage it;
	 * the pairwise algorithms never read a peer's source
	 */
	r->src_staged = !pairwise(r->algo) && (!sc_heap_contains(a->source, src_bytes) ||
					       (a->kind == SC_ALLTOALL && a->source == a->dest));
	r->result_staged = !sc_heap_contains(a->dest, dst_bytes);
	r->stream = dst_bytes >= sc.coll.stream_min;
	line = 64 / r->elem ? 64 / r->elem : 1;
	r->big_buffers = pairwise(r->algo) && t->slot == SC_SLOT_WORLD;
	if (pairwise(r->algo)) {
		/*
		 * a chunk's partials (allreduce, reduce-scatter: every block)
		 * and staged results (the others: every block of an all-gather):
		 * in the staging buffers, partials in stage_in and results in
		 * stage_out; or both in the team's pair buffer
		 */
		size_t blocks = a->kind == SC_ALLREDUCE || a->kind == SC_BROADCAST ? 1 :
				(size_t)t->size;
		size_t partial = r->partial ? r->partial->size : 0;
		size_t result = a->kind == SC_REDUCE_SCATTER ? 0 : r->elem;
		size_t room = r->big_buffers ? SC_COLL_STAGE_MAX : SC_COLL_PAIR_MAX;

		room = sc.coll.chunk < room ? sc.coll.chunk : room;
		len = room / blocks / (r->big_buffers ? (partial > result ? partial : result) :
							partial + result);
	} else {
		len = sc.coll.chunk / r->elem / (size_t)r->nblocks;
	}
	r->chunk_len = len >= line ? len / line * line : len ? len : 1;
	r->pair_results_at = r->partial ? r->chunk_len * r->partial->size *
					  (a->kind == SC_REDUCE_SCATTER ? (size_t)t->size : 1) : 0;
	r->nchunks = r->algo == SC_ALGO_ONESHOT || !a->count ? 1 :
		     (a->count + r->chunk_len - 1) / r->chunk_len;
	r->chunk = 0;
	r->ahead = 0;
	r->overlapping = 0;
	r->chunks_ahead = 0;
	r->behind = 0;
	r->chunks_behind = 0;
	r->pc = PC_STAGE;
	r->done = 0;
	r->parity = (unsigned)(t->coll_calls++ & 1);
	return 0;
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
	int n = a->team ? a->team->size : 0;
	const char *views[2 * (n > 0 ? n : 1)];

	r.src_of = views;
	r.result_of = views + n;
	if (sc_coll_prepare(&r, a))
		return -1;
	sc_coll_start(&r);
	sc_coll_finish(&r);
	return 0;
}
