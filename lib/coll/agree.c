/*
 * Every member must make the same call, and pipeline it alike: checked at
 * a request's first step, where each PE also learns where the others'
 * buffers are.
 */
#include "coll/agree.h"
#include "coll/register.h"
#include "coll/tune.h"
#include "core/peer.h"

/* Across nodes: member @m's slot, read into @copy by the NIC. */
static const struct sc_coll_slot *fetch_slot(const struct shmemx_request *r, int m,
					     struct sc_coll_slot *copy)
{
	sc_peer_get(copy, sc_team_world_pe(r->a.team, m), sc_internal_offset(sc_coll_slot_of_me(r)),
		    sizeof(*copy), 0);
	return copy;
}

/* Member @m's slot: where it is, or for a team across nodes a copy in @copy. */
static inline const struct sc_coll_slot *read_slot(const struct shmemx_request *r, int m,
						   struct sc_coll_slot *copy)
{
	return r->spans ? fetch_slot(r, m, copy) : sc_coll_slot_of(r, m);
}

/*
 * Member @m called with signature @theirs and @count: not what this PE
 * called. Apart from the check, so that the check stays a short loop on
 * the small messages' path.
 */
__attribute__((cold, noreturn))
static void disagree(const struct shmemx_request *r, int m, uint64_t theirs, uint64_t count)
{
	sc_fatal(1, "PE %d: %s: PE %d called %s of %lu %s (op %s, root %d, algorithm %s) where this PE called %s of %zu %s (op %s, root %d, algorithm %s); every PE of the team must make the same call",
		 sc.me, r->a.what, sc_team_world_pe(r->a.team, m),
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

/* The members' calls must match; a mismatch would corrupt data or hang. */
void sc_coll_check_members_agree(const struct shmemx_request *r)
{
	uint64_t sig = sc_coll_signature(r);
	struct sc_coll_slot copy;

	for (int m = 0; m < r->a.team->size; m++) {
		const struct sc_coll_slot *s = read_slot(r, m, &copy);
		uint64_t theirs = s->signature[r->parity], count = s->count[r->parity];

		if (theirs != sig || count != r->a.count)
			disagree(r, m, theirs, count);
	}
}

/*
 * Member @m's buffer as its slot says where it is (@which: 0 its source, 1
 * its result): NULL when staged. Across nodes, and for the pairwise
 * algorithms (which reach every member through offsets), a symmetric
 * address as this PE's segment holds it; else where it is mapped here.
 */
static const char *buffer_of(struct shmemx_request *r, int m, int which, uint64_t offset,
			     uint64_t handle, uint64_t start)
{
	if (offset == SC_COLL_STAGED)
		return NULL;
	if (handle)
		return m == r->a.team->my_index ? which ? r->a.dest : r->a.source :
		       sc_coll_registered_view(r, m, which, handle, start, offset);
	if (r->spans || sc_coll_pairwise(r->algo))
		return (const char *)sc.mem.base[sc.me] + offset;
	return sc_peer_view(sc_team_world_pe(r->a.team, m), offset);
}

/*
 * Where each member's source and results are (the steps read and write
 * them there), and that all chunk alike. One-shot needs neither.
 */
void sc_coll_find_buffers(struct shmemx_request *r)
{
	int n = r->a.team->size;
	struct sc_coll_slot copy;

	for (int m = 0; m < n; m++) {
		const struct sc_coll_slot *s = read_slot(r, m, &copy);
		int pe = sc_team_world_pe(r->a.team, m);

		if (s->where[r->parity].chunk_len != r->chunk_len)
			sc_fatal(1, "PE %d: %s: PE %d pipelines %lu elements a chunk and this PE %zu; set SHMEMCOMM_COLL_CHUNK alike on every PE",
				 sc.me, r->a.what, pe,
				 (unsigned long)s->where[r->parity].chunk_len, r->chunk_len);
		r->imported[m] = r->imported[n + m] = NULL;
		r->src_of[m] = buffer_of(r, m, 0, s->where[r->parity].src_offset,
					 s->where[r->parity].src_handle,
					 s->where[r->parity].src_start);
		r->result_of[m] = buffer_of(r, m, 1, s->where[r->parity].result_offset,
					    s->where[r->parity].result_handle,
					    s->where[r->parity].result_start);
	}
}
