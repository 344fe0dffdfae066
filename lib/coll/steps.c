/* The algorithms' shared step helpers (steps.h). */
#include <string.h>

#include "coll/steps.h"
#include "coll/xfer.h"

/* Chunk @c's elements [lo, hi) in each block. */
void sc_coll_chunk_range(const struct shmemx_request *r, size_t c, size_t *lo, size_t *hi)
{
	*lo = c * r->chunk_len;
	*hi = *lo + r->chunk_len < r->a.count ? *lo + r->chunk_len : r->a.count;
}

/* Part @index of [lo, hi) cut in @parts: whole cache lines, [*a, *b). */
void sc_coll_cut(const struct shmemx_request *r, size_t lo, size_t hi, int parts, int index,
		 size_t *a, size_t *b)
{
	size_t n = (size_t)parts, line = 64 / r->elem ? 64 / r->elem : 1;
	size_t len = ((hi - lo + n - 1) / n + line - 1) / line * line;

	*a = lo + len * (size_t)index < hi ? lo + len * (size_t)index : hi;
	*b = *a + len < hi ? *a + len : hi;
}

/* Where chunk @c's staged results sit in PE @pe's internal area. */
char *sc_coll_staged_results(const struct shmemx_request *r, size_t c, int pe)
{
	struct sc_internal *in = sc_internal_of(pe);

	if (sc_coll_pairwise(r->algo) && !r->pair.big_buffers)
		return in->pair[r->a.team->slot][c & 1] + r->pair.results_at;
	return in->stage_out[c & 1];
}

/* Across nodes: where member @m's source element (@block, @i) sits in its segment. */
uint64_t sc_coll_source_offset(const struct shmemx_request *r, size_t c, int m, int block,
			       size_t i)
{
	size_t lo = c * r->chunk_len;

	if (r->src_of[m])
		return sc_internal_offset(r->src_of[m]) +
		       ((size_t)block * r->a.count + i) * r->elem;
	return sc_internal_offset(sc_internal_of(sc.me)->stage_in[c & 1]) +
	       ((size_t)block * r->chunk_len + i - lo) * r->elem;
}

/* Across nodes: where member @m's result element @i sits in its segment. */
uint64_t sc_coll_result_offset(const struct shmemx_request *r, size_t c, int m, size_t i)
{
	size_t lo = c * r->chunk_len;

	if (r->result_of[m])
		return sc_internal_offset(r->result_of[m]) + i * r->elem;
	return sc_internal_offset(sc_coll_staged_results(r, c, sc.me)) + (i - lo) * r->elem;
}

/* Copies @len elements from @from to element @i of dest (nothing if in place). */
void sc_coll_to_dest(const struct shmemx_request *r, size_t i, const void *from, size_t len)
{
	char *to = (char *)r->a.dest + i * r->elem;

	if (to != from && len)
		sc_copy(to, from, len * r->elem, r->stream);
}

/* Every member's @bytes of source block @block from element @i of chunk @c, into @in. */
void sc_coll_fetch_inputs(const struct shmemx_request *r, size_t c, const void **in, int block,
			  size_t i, size_t bytes)
{
	int n = r->a.team->size;
	char *scratch = sc_coll_scratch_for((size_t)n * bytes);

	for (int m = 0; m < n; m++)
		in[m] = sc_coll_fetch(r, m, sc_coll_source_offset(r, c, m, block, i), bytes,
			      scratch + (size_t)m * bytes);
	sc_coll_land_all();
}

/* @len elements of member @m at @offset into dest from element @i. */
void sc_coll_fetch_to_dest(const struct shmemx_request *r, int m, uint64_t offset, size_t i,
			   size_t len)
{
	sc_coll_copy_from(r, m, offset, (char *)r->a.dest + i * r->elem, len * r->elem);
}

/* Chunk @c's run of block @block. */
struct run sc_coll_block_run(const struct shmemx_request *r, size_t c, int block)
{
	size_t lo, hi;

	sc_coll_chunk_range(r, c, &lo, &hi);
	return (struct run){ .chunk = c, .at = (size_t)block * r->a.count + lo,
			     .buf = (size_t)block * r->chunk_len, .len = hi - lo };
}

/* This PE's partial at @buf of chunk @c, and where it sits in every PE. */
char *sc_coll_partial_at(const struct shmemx_request *r, size_t c, size_t buf)
{
	struct sc_internal *mine = sc_internal_of(sc.me);

	return (r->pair.big_buffers ? mine->stage_in[c & 1] : mine->pair[r->a.team->slot][c & 1]) +
	       buf * r->pair.partial->size;
}

/*
 * Where member @m keeps the results of @run: its dest on the heap, or its
 * pair buffer; a reduce-scatter's only in this PE's own dest, read by none.
 */
char *sc_coll_run_result(const struct shmemx_request *r, int m, const struct run *run)
{
	if (r->a.kind == SC_REDUCE_SCATTER)
		return (char *)r->a.dest + (run->at - (size_t)r->a.team->my_index * r->a.count) *
		       r->elem;
	if (r->result_of[m])
		return (char *)r->result_of[m] + run->at * r->elem;
	return sc_coll_staged_results(r, run->chunk, sc_team_world_pe(r->a.team, m)) +
	       run->buf * r->elem;
}

/*
 * Combines member @m's partials of @run into this PE's. While the NIC
 * reads a remote member's, the next chunk's node phases run.
 */
void sc_coll_combine_from(struct shmemx_request *r, int m, const struct run *run)
{
	size_t bytes = run->len * r->pair.partial->size;
	const char *theirs;

	if (!bytes)
		return;
	/* the scratch is only touched for remote reads: none is in flight while it grows */
	theirs = sc_coll_fetch(r, m, sc_internal_offset(sc_coll_partial_at(r, run->chunk, run->buf)), bytes,
		       sc_coll_remote(r, m) ? sc_coll_scratch_for(bytes) : NULL);
	sc_coll_land(r, m);
	r->pair.partial->combine(sc_coll_partial_at(r, run->chunk, run->buf), theirs, run->len);
}

/* Copies member @m's results of @run into this PE's (and runs ahead as above). */
void sc_coll_results_from(struct shmemx_request *r, int m, const struct run *run)
{
	/* symmetric addresses: where member @m keeps them, as this PE's segment would */
	const char *theirs = r->result_of[m] ? r->result_of[m] + run->at * r->elem :
			     sc_coll_staged_results(r, run->chunk, sc.me) + run->buf * r->elem;

	if (!run->len)
		return;
	sc_coll_copy_from(r, m, sc_internal_offset(theirs), sc_coll_run_result(r, r->a.team->my_index, run),
		  run->len * r->elem);
	sc_coll_land(r, m);
}

/* Step 0's own data: loaded as partials, or (all-gather, broadcast) put in place. */
void sc_coll_load_run(const struct shmemx_request *r, const struct run *run)
{
	const char *from;
	char *to;

	if (!run->len)
		return;
	from = (const char *)r->a.source +
	       (r->a.kind == SC_ALLGATHER ? run->at % r->a.count : run->at) * r->elem;
	if (r->pair.partial) {
		r->pair.partial->load(sc_coll_partial_at(r, run->chunk, run->buf), from, run->len);
		return;
	}
	to = sc_coll_run_result(r, r->a.team->my_index, run);
	if (to != from && run->len)
		sc_copy(to, from, run->len * r->elem, 0);
}

/* The team's count of pairwise steps at step @k of chunk @c. */
uint64_t sc_coll_step_number(const struct shmemx_request *r, size_t c, int k)
{
	return r->pair.base + c * (uint64_t)r->pair.steps + (uint64_t)k;
}

/* At chunk @c's end: staged results to dest (a reduce-scatter wrote dest itself). */
void sc_coll_pair_gather(struct shmemx_request *r, size_t c)
{
	int blocks = r->a.kind == SC_ALLGATHER ? r->a.team->size : 1;

	if (!r->result_staged || r->a.kind == SC_REDUCE_SCATTER)
		return;
	for (int b = 0; b < blocks; b++) {
		struct run run = sc_coll_block_run(r, c, b);

		sc_coll_to_dest(r, run.at, sc_coll_staged_results(r, c, sc.me) + run.buf * r->elem,
				run.len);
	}
}

/* Local index @l's slice of chunk @c, in the hierarchical scheme. */
void sc_coll_node_slice(const struct shmemx_request *r, size_t c, int l, size_t *lo, size_t *hi)
{
	size_t clo, chi;

	sc_coll_chunk_range(r, c, &clo, &chi);
	sc_coll_cut(r, clo, chi, r->a.team->per_node, l, lo, hi);
}

/* The team index of this node's member with local index @l. */
int sc_coll_node_member(const struct sc_team *t, int l)
{
	return t->by_node[t->node_index * t->per_node + l];
}

/*
 * The line that node member @l tells this PE on, in the hierarchical
 * steps: one set per chunk parity, as the pipeline runs two chunks.
 */
int sc_coll_node_line(size_t c, int l)
{
	return SC_PAIR_RAIL_LINES + (int)(c & 1) * SC_PAIR_LOCAL_MAX + l;
}

/* Every other PE of this node in the team, for the hierarchical steps of chunk @c. */
int sc_coll_node_ready(const struct shmemx_request *r, size_t c, uint64_t step, int block)
{
	const struct sc_team *t = r->a.team;

	for (int l = 0; l < t->per_node; l++)
		if (l != t->local_index &&
		    !sc_coll_partner_ready(r, sc_coll_node_member(t, l), sc_coll_node_line(c, l), step,
					   block))
			return 0;
	return 1;
}

void sc_coll_tell_node(const struct shmemx_request *r, size_t c, uint64_t step)
{
	const struct sc_team *t = r->a.team;

	for (int l = 0; l < t->per_node; l++)
		if (l != t->local_index)
			sc_coll_tell(r, sc_coll_node_member(t, l), sc_coll_node_line(c, t->local_index),
				     step);
}
