/*
 * Team sync and the barriers built on it, on shared memory.
 *
 * The sync is a dissemination barrier over the team's members: in round k,
 * member i writes the number of syncs it has entered on this team into
 * round k's counter of the team's slot in member (i + 2^k) mod n, then waits
 * until its own counter for round k has reached that number. Each counter
 * has one writer (member i - 2^k), so a plain store does, across the NIC
 * too; counters only grow while the team lives, so a fast member can run
 * ahead into the next sync safely. ceil(log2 n) rounds, no shared hot spot.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/peer.h"
#include "core/state.h"
#include "shmem.h"
#include "sync/sync.h"
#include "util/ranks.h"
#include "util/wait.h"

void sc_members_behind(void *behind, char *out, unsigned long len, const char **did)
{
	const struct sc_behind *b = behind;
	uint64_t offset = sc_internal_offset(b->entered);
	int *late = malloc(sizeof(int) * (size_t)b->team->size), n = 0;

	(void)did;
	if (!late) {
		snprintf(out, len, "(no memory to list them)");
		return;
	}
	for (int i = 0; i < b->team->size; i++) {
		int pe = sc_team_world_pe(b->team, i);
		uint64_t theirs;

		if (sc_peer_probe(pe, offset, &theirs) || theirs < b->epoch)
			late[n++] = pe;
	}
	sc_format_ranks(late, n, out, len);
	free(late);
}

/*
 * Each round's counter has one writer, member i - 2^k: a member's stores
 * are read where they landed, in members i + 2^k.
 */
int sc_member_owes(void *behind, int pe)
{
	const struct sc_behind *b = behind;
	const struct sc_team *t = b->team;
	int index = sc_team_index_of(t, pe);

	if (index < 0)
		return 0;
	for (int k = 0, step = 1; step < t->size; k++, step <<= 1) {
		int to = sc_team_world_pe(t, (index + step) % t->size);
		uint64_t landed;

		if (sc_peer_probe(to, sc_internal_offset(&b->arrivals[k]), &landed) ||
		    landed < b->epoch)
			return 1;
	}
	return 0;
}

void sc_team_sync(struct sc_team *team, const char *what)
{
	struct sc_internal *mine = sc_internal_of(sc.me);
	uint64_t epoch = ++team->epoch;
	struct sc_behind behind = { team, &mine->entered[team->slot], mine->arrivals[team->slot],
				    epoch };

	atomic_store(&mine->entered[team->slot].value, epoch);
	for (int k = 0, step = 1; step < team->size; k++, step <<= 1) {
		int to = sc_team_world_pe(team, (team->my_index + step) % team->size);
		int from = sc_team_world_pe(team, (team->my_index - step + team->size) % team->size);
		struct sc_wait wait;

		sc_peer_store(to, sc_internal_offset(&mine->arrivals[team->slot][k]), epoch);
		sc_wait_begin(&wait, what, from, sc_members_behind, &behind);
		sc_wait_owed(&wait, sc_member_owes);
		if (sc_peer_view(from, 0))
			sc_wait_rung(&wait);
		while (atomic_load(&mine->arrivals[team->slot][k].value) < epoch)
			sc_wait_step(&wait);
		sc_wait_end(&wait);
	}
}

void sc_active_set(int start, int log_stride, int size, struct sc_active_set *set,
		   const char *what)
{
	sc_require_init(what);
	if (start < 0 || size < 1 || log_stride < 0 || log_stride > 30 ||
	    start + (int64_t)(size - 1) * ((int64_t)1 << log_stride) >= sc.npes) {
		sc_fatal(1, "PE %d: %s: the active set (PE_start %d, logPE_stride %d, PE_size %d) does not fit the %d PEs",
			 sc.me, what, start, log_stride, size, sc.npes);
	}
	*set = (struct sc_active_set){ start, 1 << log_stride, size,
				       (sc.me - start) >> log_stride };
	if (sc.me < start || (sc.me - start) % set->stride || set->me >= size) {
		sc_fatal(1, "PE %d: %s: this PE is not in the active set (PE_start %d, logPE_stride %d, PE_size %d)",
			 sc.me, what, start, log_stride, size);
	}
}

void sc_active_set_sync(const struct sc_active_set *set, const char *what)
{
	/*
	 * on the heap, not in the program's bss: the library's statics are part
	 * of the symmetric globals, registered with the NIC and sized for it
	 */
	static uint64_t *sent_to, *heard_from;

	if (!sent_to) {
		sent_to = calloc((size_t)sc.npes, sizeof(*sent_to));
		heard_from = calloc((size_t)sc.npes, sizeof(*heard_from));
		if (!sent_to || !heard_from)
			sc_fatal(1, "PE %d: %s: no memory for %d counters", sc.me, what,
				 2 * sc.npes);
	}

	for (int step = 1; step < set->size; step <<= 1) {
		int to = sc_active_pe(set, (set->me + step) % set->size);
		int from = sc_active_pe(set, (set->me - step + set->size) % set->size);
		uint64_t expect = ++heard_from[from];
		struct sc_wait wait;

		sc_peer_store(to, sc_internal_offset(sc_active_set_signal(sc.me, sc.me)),
			      ++sent_to[to]);
		sc_wait_begin(&wait, what, from, NULL, NULL);
		if (sc_peer_view(from, 0))
			sc_wait_rung(&wait);
		while (atomic_load(sc_active_set_signal(sc.me, from)) < expect)
			sc_wait_step(&wait);
		sc_wait_end(&wait);
	}
}

void shmem_quiet(void)
{
	sc_require_init("shmem_quiet");
	/* stores to node peers are plain stores to shared memory: order them all */
	atomic_thread_fence(memory_order_seq_cst);
	if (sc.net.active)
		sc_net_quiet(&sc.net);
}

/* The NIC keeps the order of what is posted to one PE (net/net.h): no wait. */
void shmem_fence(void)
{
	sc_require_init("shmem_fence");
	atomic_thread_fence(memory_order_release);
}

void shmem_barrier_all(void)
{
	sc_require_init("shmem_barrier_all");
	shmem_quiet();
	sc_team_sync(&sc_team_world, "shmem_barrier_all");
	atomic_thread_fence(memory_order_seq_cst);
}

void shmem_sync_all(void)
{
	sc_require_init("shmem_sync_all");
	sc_team_sync(&sc_team_world, "shmem_sync_all");
}
