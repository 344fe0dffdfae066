/*
 * A request's steps (reach.h): on a node a step counter per member in its
 * collective slot, rung on the node's bell; across nodes a dissemination
 * sync of its own per step, run a round at a time.
 */
#include <stdio.h>
#include <stdlib.h>

#include "coll/reach.h"
#include "core/peer.h"
#include "sync/sync.h"
#include "util/ranks.h"
#include "util/wait.h"

void sc_coll_publish(struct shmemx_request *r)
{
	r->target = ++r->a.team->coll_step;
	atomic_store_explicit(&sc_coll_slot_of(r, r->a.team->my_index)->step, r->target,
			      memory_order_release);
	sc_wait_ring();
}

static int all_reached(const struct shmemx_request *r)
{
	for (int m = 0; m < r->a.team->size; m++)
		if (atomic_load_explicit(&sc_coll_slot_of(r, m)->step, memory_order_acquire) < r->target)
			return 0;
	return 1;
}

static void missing_members(void *ctx, char *out, unsigned long len, const char **did)
{
	const struct shmemx_request *waiting = ctx;
	int *missing = malloc(sizeof(int) * (size_t)waiting->a.team->size), n = 0;

	(void)did;
	if (!missing) {
		snprintf(out, len, "(no memory to list them)");
		return;
	}
	for (int m = 0; m < waiting->a.team->size; m++)
		if (atomic_load(&sc_coll_slot_of(waiting, m)->step) < waiting->target)
			missing[n++] = sc_team_world_pe(waiting->a.team, m);
	sc_format_ranks(missing, n, out, len);
	free(missing);
}

/* Across nodes, who is behind the current step, and who owes it a round (step_across). */
static struct sc_behind step_behind(const struct sc_team *t)
{
	struct sc_internal *mine = sc_internal_of(sc.me);

	return (struct sc_behind){ t, &mine->coll_entered[t->slot], mine->coll_arrivals[t->slot],
				   t->coll_epoch };
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
	struct sc_behind behind;
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
			behind = step_behind(t);
			sc_wait_begin(&wait, r->a.what, -1, sc_members_behind, &behind);
			sc_wait_owed(&wait, sc_member_owes);
			waiting_began = 1;
		}
		sc_wait_step(&wait);
	}
	t->coll_stepping = 0;
	return 1;
}

/* Whether every member has reached the target; with @block, waits until so. */
int sc_coll_reached(const struct shmemx_request *r, int block)
{
	struct sc_wait wait;

	if (r->spans)
		return step_across(r, block);
	if (all_reached(r))
		return 1;
	if (!block)
		return 0;
	sc_wait_begin(&wait, r->a.what, -1, missing_members, (void *)r);
	sc_wait_rung(&wait);	/* on the node: every member rings as it publishes */
	while (!all_reached(r))
		sc_wait_step(&wait);
	sc_wait_end(&wait);
	return 1;
}

void sc_coll_behind_across(const struct sc_team *t, char *pes, unsigned long len)
{
	struct sc_behind behind = step_behind(t);

	sc_members_behind(&behind, pes, len, NULL);
}

/* a member whose last published step is behind this PE's has not come this far */
int sc_coll_behind_on_node(const struct shmemx_request *r, int *late)
{
	const struct sc_team *t = r->a.team;
	int n = 0;

	for (int m = 0; m < t->size; m++)
		if (atomic_load(&sc_coll_slot_of(r, m)->step) < t->coll_step)
			late[n++] = sc_team_world_pe(t, m);
	return n;
}
