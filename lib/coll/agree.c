/* Every member must make the same call: checked at a request's first step. */
#include "coll/engine.h"
#include "core/peer.h"

uint64_t sc_coll_signature(const struct shmemx_request *r)
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
		return sc_coll_slot_of(r, m);
	sc_peer_get(copy, pe, sc_internal_offset(sc_coll_slot_of_me(r)), sizeof(*copy), 0);
	return copy;
}

/* The members' calls must match; a mismatch would corrupt data or hang. */
void sc_coll_check_members_agree(struct shmemx_request *r)
{
	uint64_t sig = sc_coll_signature(r);
	struct sc_coll_slot copy;

	for (int m = 0; m < r->a.team->size; m++) {
		const struct sc_coll_slot *s = read_slot(r, m, &copy);
		uint64_t theirs = s->signature[r->parity], count = s->count[r->parity];
		int pe = sc_team_world_pe(r->a.team, m);

		if (theirs == sig && count == r->a.count)
			continue;
		sc_fatal(1, "PE %d: %s: PE %d called %s of %lu %s (op %s, root %d, algorithm %s) where this PE called %s of %zu %s (op %s, root %d, algorithm %s); every PE of the team must make the same call",
			 sc.me, r->a.what, pe,
			 sc_coll_kind_name((int)(theirs & 0xff)),
			 (unsigned long)count,
			 ((theirs >> 8) & 0xff) < SC_DTYPE_ALL ?
			 sc_dtype_name((enum sc_dtype)((theirs >> 8) & 0xff)) : "?",
			 ((theirs >> 16) & 0xff) < SC_OP_ALL ?
			 sc_op_name((enum sc_op)((theirs >> 16) & 0xff)) : "?",
			 (int)(theirs >> 32), sc_coll_algo_name((int)((theirs >> 24) & 0xff)),
			 sc_coll_kind_name(r->a.kind), r->a.count, sc_dtype_name(r->a.dtype),
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
		char *heap = sc_heap_base(r->spans || sc_coll_pairwise(r->algo) ? sc.me : pe);

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
