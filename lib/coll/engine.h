/*
 * Inside the collective engine: what its files share. request.c runs a
 * request's stages; tune.c chooses the algorithm; agree.c checks that the
 * members made the same call; direct.c is the pipeline of one-shot, rsag
 * and the staged copies; the pairwise algorithms' executor is pair.c,
 * their step planners plan.c, broadcast's chain chain.c and the
 * hierarchical scheme hier.c; xfer.c is how a step reaches a member's
 * bytes and lines, through the node's mapping or the NIC.
 */
#ifndef SHMEMCOMM_COLL_ENGINE_H
#define SHMEMCOMM_COLL_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "coll/plan.h"
#include "core/state.h"

/*
 * A run of a segment's elements in chunk @chunk: @at indexes source and
 * dest (for the block collectives block * count + i), @buf the chunk's
 * pair buffers.
 */
struct run {
	size_t chunk, at, buf, len;
};

/* tune.c: the choice of algorithm */
/* "allreduce", ...: the name of @kind, or "?" */
const char *sc_coll_kind_name(int kind);
/* The hierarchical scheme's algorithm across nodes, for @bytes in all. */
int sc_coll_rail_algo(size_t bytes, const struct sc_team *team);
const char *sc_coll_algo_variable(enum sc_coll_kind kind);

/* request.c: the stages */
int sc_coll_pairwise(int algo);
/* Collectives' buffers staged, and read in place in the buffer pool, since init. */
void sc_coll_buffer_counts(unsigned long *staged, unsigned long *pooled);
int sc_coll_reached(const struct shmemx_request *r, int block);

/* The collective slot of member @member of the request's team, where it is mapped. */
static inline struct sc_coll_slot *sc_coll_slot_of(const struct shmemx_request *r, int member)
{
	return &sc_internal_of(sc_team_world_pe(r->a.team, member))->coll[r->a.team->slot];
}

static inline struct sc_coll_slot *sc_coll_slot_of_me(const struct shmemx_request *r)
{
	return &sc_internal_of(sc.me)->coll[r->a.team->slot];
}

/* agree.c */
/* What a member's call must match: kind, dtype, op, algorithm and root, in one word. */
static inline uint64_t sc_coll_signature(const struct shmemx_request *r)
{
	return (uint64_t)r->a.kind | (uint64_t)r->a.dtype << 8 | (uint64_t)r->a.op << 16 |
	       (uint64_t)(r->algo & 0xff) << 24 | (uint64_t)(uint32_t)r->a.root << 32;
}

void sc_coll_check_members_agree(const struct shmemx_request *r);
void sc_coll_find_buffers(struct shmemx_request *r);

/* register.c: buffers off the heap, single copy */
/*
 * At prepare, its registered[] NULL: this PE's buffers that would be staged,
 * registered where that pays.
 */
void sc_coll_register(struct shmemx_request *r, size_t src_bytes, size_t dst_bytes);
/*
 * Member @m's registered source (@which 0) or result (1), mapped here: its
 * region @handle, which starts at @start in @m; fatal if it cannot be.
 */
const char *sc_coll_registered_view(struct shmemx_request *r, int m, int which,
				    uint64_t handle, uint64_t start, uint64_t offset);
/* At the end: lets go of what the request used. */
void sc_coll_unregister(struct shmemx_request *r);

/* direct.c: the pipeline */
void sc_coll_chunk_range(const struct shmemx_request *r, size_t c, size_t *lo, size_t *hi);
char *sc_coll_staged_results(const struct shmemx_request *r, size_t c, int pe);
void sc_coll_cut(const struct shmemx_request *r, size_t lo, size_t hi, int parts, int index,
		 size_t *a, size_t *b);
void sc_coll_stage(struct shmemx_request *r, size_t c);
void sc_coll_to_dest(const struct shmemx_request *r, size_t i, const void *from, size_t len);
uint64_t sc_coll_source_offset(const struct shmemx_request *r, size_t c, int m, int block,
			       size_t i);
uint64_t sc_coll_result_offset(const struct shmemx_request *r, size_t c, int m, size_t i);
void sc_coll_compute(struct shmemx_request *r, size_t c);
void sc_coll_gather(struct shmemx_request *r, size_t c);
void sc_coll_oneshot_stage(struct shmemx_request *r);
void sc_coll_oneshot_reduce(struct shmemx_request *r);

/* tiny.c: the smallest allreduce on a node, on cache lines */
/* Whether a team's allreduce of @bytes (1..SC_TINY_MAX) with @op runs there (tune.c decides where). */
int sc_coll_tiny_team_fits(const struct sc_team *team, enum sc_op op, size_t bytes);
/*
 * Whether @a runs there. The size is looked at inline: every larger call
 * asks too, and should pay for no call to learn that it does not.
 */
static inline int sc_coll_tiny_fits(const struct sc_coll_args *a)
{
	return a->kind == SC_ALLREDUCE && (unsigned)a->dtype < SC_DTYPE_ALL && a->count &&
	       a->count <= SC_TINY_MAX && a->count * sc_dtype_size(a->dtype) <= SC_TINY_MAX &&
	       sc_coll_tiny_team_fits(a->team, a->op, a->count * sc_dtype_size(a->dtype));
}
/* This PE's input to the team's tiny call number @call (counted from 1 in call order). */
void sc_coll_tiny_write(const struct sc_coll_args *a, uint64_t call);
/* Once every member's input has arrived (with @block, waits until so): the result. */
int sc_coll_tiny_reduce(const struct sc_coll_args *a, uint64_t call, int block);
/* The world PEs of the members whose input to @call has not arrived, into @late: how many. */
int sc_coll_tiny_late(const struct sc_coll_args *a, uint64_t call, int *late);

/* xfer.c: the transport of a step */
char *sc_coll_scratch_for(size_t bytes);
const char *sc_coll_fetch(const struct shmemx_request *r, int m, uint64_t offset, size_t bytes,
			  char *into);
void sc_coll_fetch_inputs(const struct shmemx_request *r, size_t c, const void **in, int block,
			  size_t i, size_t bytes);
void sc_coll_copy_from(const struct shmemx_request *r, int m, uint64_t offset, char *to,
		       size_t bytes);
void sc_coll_fetch_to_dest(const struct shmemx_request *r, int m, uint64_t offset, size_t i,
			   size_t len);
int sc_coll_partner_ready(const struct shmemx_request *r, int m, int line, uint64_t step,
			  int block);
void sc_coll_tell(const struct shmemx_request *r, int m, int line, uint64_t step);
int sc_coll_remote(const struct shmemx_request *r, int m);

/* pair.c: the pairwise executor */
int sc_coll_pair_steps(const struct shmemx_request *r);
struct run sc_coll_block_run(const struct shmemx_request *r, size_t c, int block);
void sc_coll_pair_group_of(const struct shmemx_request *r, size_t c, struct pair_group *g);
void sc_coll_combine_from(struct shmemx_request *r, int m, const struct run *run);
void sc_coll_results_from(struct shmemx_request *r, int m, const struct run *run);
void sc_coll_load_run(const struct shmemx_request *r, const struct run *run);
int sc_coll_group_step(struct shmemx_request *r, const struct pair_group *g, int k,
		       uint64_t step, int block);
void sc_coll_tell_group(const struct shmemx_request *r, const struct pair_group *g, int k,
			uint64_t step);
uint64_t sc_coll_step_number(const struct shmemx_request *r, size_t c, int k);
void sc_coll_pair_gather(struct shmemx_request *r, size_t c);
int sc_coll_pair_step(struct shmemx_request *r, size_t c, int block);

/* chain.c */
int sc_coll_chain_step(struct shmemx_request *r, size_t c, uint64_t step, int block);

/* hier.c */
void sc_coll_node_slice(const struct shmemx_request *r, size_t c, int l, size_t *lo, size_t *hi);
int sc_coll_node_member(const struct sc_team *t, int l);
int sc_coll_node_line(size_t c, int l);
int sc_coll_node_ready(const struct shmemx_request *r, size_t c, uint64_t step, int block);
void sc_coll_tell_node(const struct shmemx_request *r, size_t c, uint64_t step);
void sc_coll_hier_overlap(struct shmemx_request *r, int waited);
int sc_coll_hier_step(struct shmemx_request *r, const struct pair_group *g, int k,
		      uint64_t step, int block);
void sc_coll_hier_tell(struct shmemx_request *r, const struct pair_group *g, int k,
		       uint64_t step);

/*
 * While a step waits (for a partner, or for the NIC to land what it
 * reads), the request's other work: the hierarchical pipelines' node phases
 * (hier.c). Nothing for the other algorithms.
 */
void sc_coll_busy(struct shmemx_request *r, int waited);
/* What this PE read from member @m has landed; while the NIC reads it, sc_coll_busy. */
void sc_coll_land(struct shmemx_request *r, int m);
/* Everything read from or pushed to members has landed. */
void sc_coll_land_all(void);
/* @bytes from @from to @offset in member @m's segment; landed by sc_coll_land_all. */
void sc_coll_push(const struct shmemx_request *r, int m, uint64_t offset, const void *from,
		  size_t bytes);

#endif
