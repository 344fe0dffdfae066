/*
 * The transport of a step: a member's bytes viewed, read or written through
 * the node's mapping or the NIC, and the lines on which partners tell each
 * other of their steps. The rest of coll/ does not know which it is.
 */
#include <stdio.h>
#include <stdlib.h>

#include "coll/xfer.h"
#include "core/peer.h"
#include "util/ranks.h"
#include "util/wait.h"

/* Room for what remote members' slices are read into; per thread, kept. */
char *sc_coll_scratch_for(size_t bytes)
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
const char *sc_coll_fetch(const struct shmemx_request *r, int m, uint64_t offset, size_t bytes,
			  char *into)
{
	int pe = sc_team_world_pe(r->a.team, m);

	const char *mapped = sc_peer_view(pe, offset);

	if (mapped)
		return mapped;
	if (bytes)
		sc_peer_get(into, pe, offset, bytes, 1);
	return into;
}

/* @bytes of member @m at @offset into @to: a copy on this node, else an RDMA read. */
void sc_coll_copy_from(const struct shmemx_request *r, int m, uint64_t offset, char *to,
		       size_t bytes)
{
	int pe = sc_team_world_pe(r->a.team, m);

	const char *mapped = sc_peer_view(pe, offset);

	if (mapped) {
		if (to != mapped)
			sc_copy(to, mapped, bytes, r->stream);
	} else if (bytes) {
		sc_peer_get(to, pe, offset, bytes, 1);
	}
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
	int *lost = malloc(sizeof(int) * (size_t)t->size), n = 0;
	uint64_t theirs = 0;

	for (int m = 0; lost && m < t->size; m++) {
		int pe = sc_team_world_pe(t, m);

		if (sc_peer_probe(pe, offset, &theirs))
			lost[n++] = pe;
	}
	if (n) {
		sc_format_ranks(lost, n, out, len);
		sc_peer_name_lost(lost, n, pair_waiting->did, sizeof(pair_waiting->did));
		*did = pair_waiting->did;
		free(lost);
		return;
	}
	free(lost);
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
int sc_coll_partner_ready(const struct shmemx_request *r, int m, int line, uint64_t step,
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
	if (!sc_coll_remote(r, m))
		sc_wait_rung(&wait);
	while (atomic_load_explicit(told, memory_order_acquire) < step)
		sc_wait_step(&wait);
	sc_wait_end(&wait);
	return 1;
}

/* Tells team member @m, on its @line, that this PE completed step @step - 1. */
void sc_coll_tell(const struct shmemx_request *r, int m, int line, uint64_t step)
{
	const struct sc_team *t = r->a.team;

	sc_peer_store(sc_team_world_pe(t, m),
		      sc_internal_offset(&sc_internal_of(sc.me)->coll_pair[t->slot][line]), step);
}

/* Whether member @m is reached through the NIC. */
int sc_coll_remote(const struct shmemx_request *r, int m)
{
	return !sc_peer_view(sc_team_world_pe(r->a.team, m), 0);
}

void sc_coll_land(struct shmemx_request *r, int m)
{
	if (!sc_coll_remote(r, m))
		return;
	sc_coll_busy(r, 1);
	sc_peer_quiet();
}

void sc_coll_busy(struct shmemx_request *r, int waited)
{
	if (r->while_busy)
		r->while_busy(r, waited);
}

void sc_coll_land_all(void)
{
	sc_peer_quiet();
}

void sc_coll_push(const struct shmemx_request *r, int m, uint64_t offset, const void *from,
		  size_t bytes)
{
	sc_peer_put(sc_team_world_pe(r->a.team, m), offset, from, bytes, 1);
}


