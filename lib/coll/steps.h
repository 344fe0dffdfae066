/*
 * What the algorithms share, below all of them: the chunk geometry (a
 * chunk's elements, cut into slices; where a member keeps a chunk's inputs,
 * partials and results), the run helpers (a run of elements loaded,
 * combined from a member, copied from a member), the node helpers of the
 * hierarchical forms (a node member's slice, its lines), and fetching a
 * step's inputs. Each algorithm file (direct.c, ring.c, hier.c, chain.c)
 * is a schedule over these and the transport (xfer.h).
 */
#ifndef SHMEMCOMM_COLL_STEPS_H
#define SHMEMCOMM_COLL_STEPS_H

#include "coll/types.h"

/* Chunk @c's elements [lo, hi) in each block. */
void sc_coll_chunk_range(const struct shmemx_request *r, size_t c, size_t *lo, size_t *hi);
/* Part @index of [lo, hi) cut in @parts: whole cache lines, [*a, *b). */
void sc_coll_cut(const struct shmemx_request *r, size_t lo, size_t hi, int parts, int index,
		 size_t *a, size_t *b);
/* Where chunk @c's staged results sit in PE @pe's internal area. */
char *sc_coll_staged_results(const struct shmemx_request *r, size_t c, int pe);
/* Across nodes: where member @m's source element (@block, @i) sits in its segment. */
uint64_t sc_coll_source_offset(const struct shmemx_request *r, size_t c, int m, int block,
			       size_t i);
/* Across nodes: where member @m's result element @i sits in its segment. */
uint64_t sc_coll_result_offset(const struct shmemx_request *r, size_t c, int m, size_t i);
/* Copies @len elements from @from to element @i of dest (nothing if in place). */
void sc_coll_to_dest(const struct shmemx_request *r, size_t i, const void *from, size_t len);
/* Every member's @bytes of source block @block from element @i of chunk @c, into @in. */
void sc_coll_fetch_inputs(const struct shmemx_request *r, size_t c, const void **in, int block,
			  size_t i, size_t bytes);
/* @len elements of member @m at @offset into dest from element @i. */
void sc_coll_fetch_to_dest(const struct shmemx_request *r, int m, uint64_t offset, size_t i,
			   size_t len);

/* Runs: chunk @c's run of block @block. */
struct run sc_coll_block_run(const struct shmemx_request *r, size_t c, int block);
/* This PE's partial at @buf of chunk @c (where it sits in every PE). */
char *sc_coll_partial_at(const struct shmemx_request *r, size_t c, size_t buf);
/* Where member @m keeps the results of @run. */
char *sc_coll_run_result(const struct shmemx_request *r, int m, const struct run *run);
/* Step 0's own data: loaded as partials, or (all-gather, broadcast) put in place. */
void sc_coll_load_run(const struct shmemx_request *r, const struct run *run);
/* Combines member @m's partials of @run into this PE's (busy while the NIC reads). */
void sc_coll_combine_from(struct shmemx_request *r, int m, const struct run *run);
/* Copies member @m's results of @run into this PE's (busy while the NIC reads). */
void sc_coll_results_from(struct shmemx_request *r, int m, const struct run *run);
/* The team's count of pairwise steps at step @k of chunk @c. */
uint64_t sc_coll_step_number(const struct shmemx_request *r, size_t c, int k);
/* At chunk @c's end: staged results to dest (a reduce-scatter wrote dest itself). */
void sc_coll_pair_gather(struct shmemx_request *r, size_t c);

/* The node, in the hierarchical forms: local index @l's slice of chunk @c. */
void sc_coll_node_slice(const struct shmemx_request *r, size_t c, int l, size_t *lo, size_t *hi);
/* The team index of this node's member with local index @l. */
int sc_coll_node_member(const struct sc_team *t, int l);
/* The line that node member @l tells this PE on, by chunk parity. */
int sc_coll_node_line(size_t c, int l);
/* Whether every other PE of this node has told this PE of @step for chunk @c. */
int sc_coll_node_ready(const struct shmemx_request *r, size_t c, uint64_t step, int block);
/* Tells every other PE of this node of @step for chunk @c. */
void sc_coll_tell_node(const struct shmemx_request *r, size_t c, uint64_t step);

#endif
