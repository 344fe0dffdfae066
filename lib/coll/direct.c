/*
 * The pipeline (one algorithm for every kind on a node, and all-to-all
 * everywhere), rsag, and one-shot. Stages of one chunk c:
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
 * step is that already, as after it nobody touches another PE's memory.
 * One-shot has a schedule of its own, at the end of this file.
 *
 * A team that spans nodes runs the same stages, with two differences. A
 * step is a dissemination sync over the NIC (step_across), which advances
 * a round per call without waiting, as the step counters do on a node.
 * And a member's buffers are named by their symmetric addresses: compute
 * reads a remote member's slice with RDMA reads and pushes results with
 * RDMA writes (compute_across), in the same kernel calls as on a node, so
 * the results are the same bits.
 */
#include <string.h>

#include "coll/direct.h"
#include "coll/steps.h"
#include "coll/xfer.h"

/* Element @i (of chunk @c) of block @block of member @m's source. */
static const char *source_at(const struct shmemx_request *r, size_t c, int m, int block, size_t i)
{
	size_t lo = c * r->chunk_len;

	if (r->src_of[m])
		return r->src_of[m] + ((size_t)block * r->a.count + i) * r->elem;
	return sc_internal_of(sc_team_world_pe(r->a.team, m))->stage_in[c & 1] +
	       ((size_t)block * r->chunk_len + i - lo) * r->elem;
}

/* Element @i (of chunk @c) of member @m's reduced allreduce result. */
static char *result_at(const struct shmemx_request *r, size_t c, int m, size_t i)
{
	size_t lo = c * r->chunk_len;

	if (r->result_of[m])
		return (char *)r->result_of[m] + i * r->elem;
	return sc_coll_staged_results(r, c, sc_team_world_pe(r->a.team, m)) + (i - lo) * r->elem;
}

/* Member @m's slice [lo, hi) of the chunk [clo, chi). */
static void slice_range(const struct shmemx_request *r, int m, size_t clo, size_t chi,
			size_t *lo, size_t *hi)
{
	sc_coll_cut(r, clo, chi, r->a.team->size, m, lo, hi);
}

void sc_coll_stage(struct shmemx_request *r, size_t c)
{
	size_t lo, hi;

	if (!r->src_staged || (r->a.kind == SC_BROADCAST && r->a.team->my_index != r->a.root))
		return;
	sc_coll_chunk_range(r, c, &lo, &hi);
	for (int b = 0; b < r->nblocks; b++)
		memcpy(sc_internal_of(sc.me)->stage_in[c & 1] +
		       (size_t)b * r->chunk_len * r->elem,
		       (const char *)r->a.source + ((size_t)b * r->a.count + lo) * r->elem,
		       (hi - lo) * r->elem);
}

/*
 * Bytes reduced, then pushed, while in L1. Where the pushes stream, a small
 * block interleaves the reads and the streaming writes as one fused loop
 * does: in a two-thread model of the pattern, 8 KiB blocks got 30 GB/s,
 * 512 B-1 KiB blocks and the fused loop 35-36. 2 PEs on 2 CPUs,
 * medians of 10 interleaved launches, 1 KiB against 8 KiB: 16 MiB 1670
 * against 1797 us, 32 MiB 3119 against 3694, 64 MiB 7586 against 8523;
 * 4 PEs 16 MiB 3417 against 4421. Where they do not, the kernel call per
 * block costs more than it saves: 2 PEs 1 MiB 68 against 54 us.
 */
#define PUSH_BLOCK 8192
#define PUSH_BLOCK_STREAMED 1024

/*
 * Reduces this PE's slice [lo, hi) into its own result and pushes it into
 * every other member's, so that each member then reads only its own
 * memory. Block by block, while the block is in L1. With streaming stores
 * the pushes into peers' heap results stream (not into stage_out, which is
 * read back at once); this PE's own slice streams too where r->stream says
 * so (sc_coll_streams), reduced first into an L1 block of the stack, since
 * a pushed block streamed from its own result would be read back from DRAM.
 * One fence at the end, before the caller publishes.
 */
static void reduce_and_push(const struct shmemx_request *r, size_t c, size_t lo, size_t hi)
{
	int n = r->a.team->size, me = r->a.team->my_index;
	int own_streams = r->stream == SC_STORE_STREAM_ALL && r->result_of[me];
	size_t block = (r->stream ? PUSH_BLOCK_STREAMED : PUSH_BLOCK) / r->elem;
	const void *in[n];
	/* used only where the own slice streams, so blocks are PUSH_BLOCK_STREAMED */
	char l1_block[PUSH_BLOCK_STREAMED] __attribute__((aligned(64)));

	for (size_t at = lo; at < hi; at += block) {
		size_t len = hi - at < block ? hi - at : block;
		char *reduced = own_streams ? l1_block : result_at(r, c, me, at);

		for (int m = 0; m < n; m++)
			in[m] = source_at(r, c, m, 0, at);
		r->kernel(reduced, in, n, len);
		if (own_streams)
			sc_copy_streaming(result_at(r, c, me, at), l1_block, len * r->elem);
		for (int m = 1; m < n; m++) {
			int to = (me + m) % n;

			if (r->stream && r->result_of[to])
				sc_copy_streaming(result_at(r, c, to, at), reduced, len * r->elem);
			else
				memcpy(result_at(r, c, to, at), reduced, len * r->elem);
		}
	}
	if (r->stream)
		sc_stream_fence();
}

/*
 * sc_coll_compute() for a team across nodes: the same slices and kernel calls,
 * with remote members' inputs read by the NIC and results written by it.
 * All of it has landed when this returns, before the step that says so.
 */
static void compute_across(struct shmemx_request *r, size_t c)
{
	int n = r->a.team->size, me = r->a.team->my_index;
	const void *in[n];
	size_t lo, hi, slo, shi, bytes;
	char *reduced;

	sc_coll_chunk_range(r, c, &lo, &hi);
	switch (r->a.kind) {
	case SC_ALLREDUCE:
		slice_range(r, me, lo, hi, &slo, &shi);
		bytes = (shi - slo) * r->elem;
		if (!bytes)
			break;
		sc_coll_fetch_inputs(r, c, in, 0, slo, bytes);
		reduced = result_at(r, c, me, slo);
		r->kernel(reduced, in, n, shi - slo);
		for (int m = 1; m < n; m++) {
			int to = (me + m) % n;

			sc_coll_push(r, to, sc_coll_result_offset(r, c, to, slo), reduced, bytes);
		}
		break;
	case SC_REDUCE_SCATTER:
		bytes = (hi - lo) * r->elem;
		if (!bytes)
			break;
		sc_coll_fetch_inputs(r, c, in, me, lo, bytes);
		r->kernel((char *)r->a.dest + lo * r->elem, in, n, hi - lo);
		break;
	case SC_ALLGATHER:
		for (int m = 0; m < n; m++)
			sc_coll_fetch_to_dest(r, m, sc_coll_source_offset(r, c, m, 0, lo),
				      (size_t)m * r->a.count + lo, hi - lo);
		break;
	case SC_BROADCAST:
		sc_coll_fetch_to_dest(r, r->a.root, sc_coll_source_offset(r, c, r->a.root, 0, lo), lo,
				      hi - lo);
		break;
	case SC_ALLTOALL:
		for (int m = 0; m < n; m++)
			sc_coll_fetch_to_dest(r, m, sc_coll_source_offset(r, c, m, me, lo),
				      (size_t)m * r->a.count + lo, hi - lo);
		break;
	default:
		break;
	}
	sc_coll_land_all();
}

void sc_coll_compute(struct shmemx_request *r, size_t c)
{
	int n = r->a.team->size, me = r->a.team->my_index;
	const void *in[n];
	size_t lo, hi, slo, shi;

	if (r->spans) {
		compute_across(r, c);
		return;
	}
	sc_coll_chunk_range(r, c, &lo, &hi);
	switch (r->a.kind) {
	case SC_ALLREDUCE:
		slice_range(r, me, lo, hi, &slo, &shi);
		reduce_and_push(r, c, slo, shi);
		break;
	case SC_REDUCE_SCATTER:
		for (int m = 0; m < n; m++)
			in[m] = source_at(r, c, m, me, lo);
		if (hi > lo)
			r->kernel((char *)r->a.dest + lo * r->elem, in, n, hi - lo);
		break;
	case SC_ALLGATHER:
		for (int m = 0; m < n; m++)
			sc_coll_to_dest(r, (size_t)m * r->a.count + lo, source_at(r, c, m, 0, lo),
					hi - lo);
		break;
	case SC_BROADCAST:
		sc_coll_to_dest(r, lo, source_at(r, c, r->a.root, 0, lo), hi - lo);
		break;
	case SC_ALLTOALL:
		for (int m = 0; m < n; m++)
			sc_coll_to_dest(r, (size_t)m * r->a.count + lo, source_at(r, c, m, me, lo),
					hi - lo);
		break;
	default:
		break;
	}
}

/* Once every member has pushed its slice: a staged result goes to dest. */
void sc_coll_gather(struct shmemx_request *r, size_t c)
{
	size_t lo, hi;

	if (!r->result_staged)
		return;
	sc_coll_chunk_range(r, c, &lo, &hi);
	sc_coll_to_dest(r, lo, result_at(r, c, r->a.team->my_index, lo), hi - lo);
}

/*
 * One-shot, for the smallest allreduce: each member copies its input into
 * its small buffer of the call's parity and publishes; then each reduces
 * every member's input into its own dest. One step and no end step: a PE
 * cannot finish the next call until every member has started it, so done
 * reading this call's buffers, which the call after next refills.
 */
void sc_coll_oneshot_stage(struct shmemx_request *r)
{
	memcpy(sc_internal_of(sc.me)->small[r->a.team->slot][r->parity], r->a.source,
	       r->a.count * r->elem);
}

void sc_coll_oneshot_reduce(struct shmemx_request *r)
{
	int n = r->a.team->size;
	const void *in[n];

	if (!r->spans) {
		for (int m = 0; m < n; m++)
			in[m] = sc_internal_of(sc_team_world_pe(r->a.team, m))
					->small[r->a.team->slot][r->parity];
	} else {
		/* across nodes: every input read into scratch by the NIC first */
		uint64_t small = sc_internal_offset(
			sc_internal_of(sc.me)->small[r->a.team->slot][r->parity]);
		size_t bytes = r->a.count * r->elem;
		char *scratch = sc_coll_scratch_for((size_t)n * bytes);

		for (int m = 0; m < n; m++)
			in[m] = sc_coll_fetch(r, m, small, bytes, scratch + (size_t)m * bytes);
		sc_coll_land_all();
	}
	r->kernel(r->a.dest, in, n, r->a.count);
}


