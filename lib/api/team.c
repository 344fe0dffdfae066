/*
 * Teams: strided sets of PEs, each with its own sync slot. Splitting is
 * collective over the parent team; its members agree on free slots by
 * offering their free-slot masks (in their internal areas), syncing, and
 * taking the lowest slots free everywhere, then syncing again before anyone
 * may offer anew.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/team.h"
#include "coll/tiny.h"
#include "core/state.h"
#include "sync/sync.h"
#include "core/peer.h"
#include "shmem.h"
#include "util/log.h"

struct sc_team sc_team_world, sc_team_shared;
shmem_team_t SHMEM_TEAM_WORLD = (shmem_team_t)&sc_team_world;
shmem_team_t SHMEM_TEAM_SHARED = (shmem_team_t)&sc_team_shared;

static struct sc_team *team_of(shmem_team_t team)
{
	return (struct sc_team *)team;
}

/*
 * How a team across nodes lies on them, for the hierarchical collectives:
 * its nodes in the order of their first member, and each node's members
 * in team order. per_node stays 0 unless every node holds as many.
 */
static void find_nodes(struct sc_team *t)
{
	int *node_first = malloc(sizeof(int) * (size_t)t->size);
	/* by_node, then node_of, then local_of: one allocation */
	int *by_node = malloc(3 * sizeof(int) * (size_t)t->size);
	int *count = calloc((size_t)t->size, sizeof(int));
	int nodes = 0, per_node, size = t->size;

	if (!node_first || !by_node || !count)
		goto out;
	for (int i = 0; i < t->size; i++) {
		int first = sc.node.node_of[sc_team_world_pe(t, i)], v = 0;

		while (v < nodes && node_first[v] != first)
			v++;
		if (v == nodes)
			node_first[nodes++] = first;
		count[v]++;
	}
	t->nodes = nodes;
	per_node = count[0];
	for (int v = 1; v < nodes; v++)
		if (count[v] != per_node)
			goto out;
	memset(count, 0, sizeof(int) * (size_t)nodes);
	for (int i = 0; i < t->size; i++) {
		int first = sc.node.node_of[sc_team_world_pe(t, i)], v = 0;

		while (node_first[v] != first)
			v++;
		if (i == t->my_index) {
			t->node_index = v;
			t->local_index = count[v];
		}
		by_node[size + i] = v;
		by_node[2 * size + i] = count[v];
		by_node[v * per_node + count[v]++] = i;
	}
	t->per_node = per_node;
	t->by_node = by_node;
	t->node_of = by_node + size;
	t->local_of = by_node + 2 * size;
	by_node = NULL;
out:
	free(node_first);
	free(by_node);
	free(count);
}

/* @members (taken over, may be NULL) or else @start and @stride say who is in it */
static void team_set(struct sc_team *t, int start, int stride, int size, int *members,
		     int slot)
{
	memset(t, 0, sizeof(*t));
	t->start = start;
	t->stride = stride;
	t->size = size;
	t->members = members;
	t->slot = slot;
	t->my_index = sc_team_index_of(t, sc.me);
	for (int i = 0; i < size; i++)
		t->spans |= !sc.mem.base[sc_team_world_pe(t, i)];
	if (t->spans && t->my_index >= 0)
		find_nodes(t);
}

/*
 * SHARED: the PEs of this node, the ones shmem_ptr reaches. A team is an
 * arithmetic progression of PEs; when the node's are not one (a launcher's
 * odd placement), the standard lets SHARED be just this PE.
 */
static void shared_team_init(void)
{
	const struct sc_node *node = &sc.node;
	int n = node->local_size, start = node->local_pes[0];
	int stride = n > 1 ? node->local_pes[1] - start : 1;

	for (int i = 2; i < n; i++)
		if (node->local_pes[i] - node->local_pes[i - 1] != stride)
			n = 0;
	if (n)
		team_set(&sc_team_shared, start, stride, n, NULL, SC_SLOT_SHARED);
	else
		team_set(&sc_team_shared, sc.me, 1, 1, NULL, SC_SLOT_SHARED);
}

void sc_teams_init(void)
{
	sc.free_slots = ~0ull & ~(1ull << SC_SLOT_WORLD) & ~(1ull << SC_SLOT_SHARED);
	team_set(&sc_team_world, 0, 1, sc.npes, NULL, SC_SLOT_WORLD);
	shared_team_init();
	sc_team_world.predefined = sc_team_shared.predefined = 1;
}

/*
 * The members of @parent agree on @count slots free on all of them; 0, or
 * -ENOSPC (on every member alike) when there are not that many.
 */
static int agree_on_slots(struct sc_team *parent, int count, int *slots, const char *what)
{
	uint64_t common = ~0ull;
	int found = 0;

	atomic_store(&sc_internal_of(sc.me)->free_slots, sc.free_slots);
	sc_team_sync(parent, what);
	for (int i = 0; i < parent->size; i++)
		common &= sc_peer_load(sc_team_world_pe(parent, i),
				       sc_internal_offset(&sc_internal_of(sc.me)->free_slots));
	sc_team_sync(parent, what);
	for (int slot = 0; slot < SC_MAX_TEAMS && found < count; slot++)
		if (common & (1ull << slot))
			slots[found++] = slot;
	return found == count ? 0 : -ENOSPC;
}

static void claim_slot(struct sc_team *team)
{
	sc.free_slots &= ~(1ull << team->slot);
	atomic_store(&sc_internal_of(sc.me)->entered[team->slot].value, 0);
}

static int valid_config(const shmem_team_config_t *config, long mask, const char *what)
{
	if (mask & ~SHMEM_TEAM_NUM_CONTEXTS) {
		sc_error("PE %d: %s: config_mask %#lx has bits other than SHMEM_TEAM_NUM_CONTEXTS",
			 sc.me, what, mask);
		return 0;
	}
	if ((mask & SHMEM_TEAM_NUM_CONTEXTS) && (!config || config->num_contexts < 0)) {
		sc_error("PE %d: %s: SHMEM_TEAM_NUM_CONTEXTS asks for a config with num_contexts >= 0",
			 sc.me, what);
		return 0;
	}
	return 1;
}

/*
 * A new team object for this PE if it is a member, else SHMEM_TEAM_INVALID:
 * the members are @parent's @size members from index @first, @step apart.
 */
static shmem_team_t make_team(const struct sc_team *parent, int first, int step, int size,
			      int slot, const shmem_team_config_t *config, long mask)
{
	struct sc_team *t;
	int *members = NULL;
	int me = sc_team_index_of(parent, sc.me) - first;

	if (me < 0 || me % step || me / step >= size)
		return SHMEM_TEAM_INVALID;
	t = malloc(sizeof(*t));
	if (parent->members)
		members = malloc(sizeof(int) * (size_t)size);
	if (!t || (parent->members && !members))
		sc_fatal(1, "PE %d: out of memory for a team", sc.me);
	for (int i = 0; members && i < size; i++)
		members[i] = parent->members[first + i * step];
	team_set(t, sc_team_world_pe(parent, first), parent->stride * step, size, members, slot);
	if (mask & SHMEM_TEAM_NUM_CONTEXTS)
		t->num_contexts = config->num_contexts;
	claim_slot(t);
	return (shmem_team_t)t;
}

/*
 * A split of SHMEM_TEAM_INVALID (as a PE outside a team has it) makes no
 * team, and the standard has it say so by its value alone.
 */
static int invalid_parent(const char *what)
{
	sc_debug("PE %d: %s: the parent is SHMEM_TEAM_INVALID: no team (SHMEM_TEAM_INVALID)",
		 sc.me, what);
	return -1;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
			     const shmem_team_config_t *config, long config_mask,
			     shmem_team_t *new_team)
{
	const char *what = "shmem_team_split_strided";
	struct sc_team *parent = team_of(parent_team);
	int slot, valid;

	sc_require_init(what);
	*new_team = SHMEM_TEAM_INVALID;
	if (!parent)
		return invalid_parent(what);
	if (parent->my_index < 0) {
		sc_error("PE %d: %s: the parent team is invalid or this PE is not in it", sc.me,
			 what);
		return -1;
	}
	valid = start >= 0 && size >= 1 && (stride >= 1 || (stride == 0 && size == 1)) &&
		(long)start + (long)(size - 1) * (stride ? stride : 1) < parent->size;
	if (!valid)
		sc_error("PE %d: %s: start %d, stride %d, size %d do not fit a parent of %d PEs",
			 sc.me, what, start, stride, size, parent->size);
	if (!valid_config(config, config_mask, what))
		valid = 0;
	/* every member takes part in the agreement, so that none is left waiting */
	if (agree_on_slots(parent, 1, &slot, what)) {
		sc_error("PE %d: %s: all %d team slots are in use; destroy teams no longer needed",
			 sc.me, what, SC_MAX_TEAMS);
		return -1;
	}
	if (!valid)
		return -1;
	*new_team = make_team(parent, start, stride ? stride : 1, size, slot, config, config_mask);
	return 0;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
			const shmem_team_config_t *xaxis_config, long xaxis_mask,
			shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
			long yaxis_mask, shmem_team_t *yaxis_team)
{
	const char *what = "shmem_team_split_2d";
	struct sc_team *parent = team_of(parent_team);
	int slots[2 * SC_MAX_TEAMS], rows, columns, row, column, valid;

	sc_require_init(what);
	*xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
	if (!parent)
		return invalid_parent(what);
	if (parent->my_index < 0) {
		sc_error("PE %d: %s: the parent team is invalid or this PE is not in it", sc.me,
			 what);
		return -1;
	}
	valid = xrange >= 1 && valid_config(xaxis_config, xaxis_mask, what) &&
		valid_config(yaxis_config, yaxis_mask, what);
	if (xrange < 1)
		sc_error("PE %d: %s: xrange %d is not positive", sc.me, what, xrange);
	columns = xrange > parent->size ? parent->size : (xrange < 1 ? 1 : xrange);
	rows = (parent->size + columns - 1) / columns;
	/* one slot per row team and one per column team, agreed all at once */
	if (agree_on_slots(parent, rows + columns, slots, what)) {
		sc_error("PE %d: %s: %d row and column teams need more than the free team slots",
			 sc.me, what, rows + columns);
		return -1;
	}
	if (!valid)
		return -1;
	row = parent->my_index / columns;
	column = parent->my_index % columns;
	*xaxis_team = make_team(parent, row * columns, 1,
				parent->size - row * columns < columns ?
				parent->size - row * columns : columns,
				slots[row], xaxis_config, xaxis_mask);
	*yaxis_team = make_team(parent, column, columns,
				(parent->size - column + columns - 1) / columns,
				slots[rows + column], yaxis_config, yaxis_mask);
	return 0;
}

void shmem_team_destroy(shmem_team_t team)
{
	struct sc_team *t = team_of(team);

	sc_require_init("shmem_team_destroy");
	if (!t)
		return;
	if (t->predefined)
		sc_fatal(1, "PE %d: shmem_team_destroy: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed",
			 sc.me);
	if (t->coll_head)
		sc_fatal(1, "PE %d: shmem_team_destroy: the team has non-blocking collectives not yet completed; wait for them first",
			 sc.me);
	/* after this sync no member signals into the slot again: clear it for reuse */
	sc_team_sync(t, "shmem_team_destroy");
	atomic_store(&sc_internal_of(sc.me)->coll[t->slot].step, 0);
	for (int k = 0; k < SC_BARRIER_ROUNDS; k++) {
		atomic_store(&sc_internal_of(sc.me)->arrivals[t->slot][k].value, 0);
		atomic_store(&sc_internal_of(sc.me)->coll_arrivals[t->slot][k].value, 0);
	}
	for (int k = 0; k < SC_PAIR_LINES; k++)
		atomic_store(&sc_internal_of(sc.me)->coll_pair[t->slot][k].value, 0);
	atomic_store(&sc_internal_of(sc.me)->coll_pair_done[t->slot].value, 0);
	atomic_store(&sc_internal_of(sc.me)->entered[t->slot].value, 0);
	atomic_store(&sc_internal_of(sc.me)->coll_entered[t->slot].value, 0);
	sc_coll_tiny_forget(t->slot);
	sc.free_slots |= 1ull << t->slot;
	free(t->by_node);
	free(t->members);
	free(t);
}

int shmem_team_my_pe(shmem_team_t team)
{
	sc_require_init("shmem_team_my_pe");
	return team ? team_of(team)->my_index : -1;
}

int shmem_team_n_pes(shmem_team_t team)
{
	sc_require_init("shmem_team_n_pes");
	return team ? team_of(team)->size : -1;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
	sc_require_init("shmem_team_get_config");
	/* a mask of 0 fetches nothing, so config may be NULL then */
	if (!team || (config_mask && !config) || (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS))
		return -1;
	if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
		config->num_contexts = team_of(team)->num_contexts;
	return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
	struct sc_team *src = team_of(src_team), *dest = team_of(dest_team);
	int pe;

	sc_require_init("shmem_team_translate_pe");
	if (!src || !dest || src_pe < 0 || src_pe >= src->size)
		return -1;
	pe = sc_team_world_pe(src, src_pe);
	return sc_team_index_of(dest, pe);
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
	struct sc_team *t = team_of(team);

	sc_require_init("shmem_team_ptr");
	if (!t || pe < 0 || pe >= t->size)
		return NULL;
	return shmem_ptr(dest, sc_team_world_pe(t, pe));
}

int shmem_team_sync(shmem_team_t team)
{
	struct sc_team *t = team_of(team);

	sc_require_init("shmem_team_sync");
	if (!t || t->my_index < 0) {
		sc_error("PE %d: shmem_team_sync: the team is invalid or this PE is not in it", sc.me);
		return -1;
	}
	sc_team_sync(t, "shmem_team_sync");
	return 0;
}

/* FNV-1a over the member list, so that members given different lists find out */
static uint64_t members_hash(const int *pes, int n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < n; i++) {
		h ^= (uint32_t)pes[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int valid_members(const int *pes, int n, const shmemx_bootstrap_t *members,
			 const char *what)
{
	if (!members || !members->allgather) {
		sc_error("PE %d: %s: no bootstrap for the members to meet through", sc.me, what);
		return 0;
	}
	if (!pes || n < 1 || n > sc.npes || members->size != n || members->rank < 0 ||
	    members->rank >= n) {
		sc_error("PE %d: %s: %d members (of %d PEs), the bootstrap's rank %d of %d: they do not fit",
			 sc.me, what, n, sc.npes, members->rank, members->size);
		return 0;
	}
	if (pes[members->rank] != sc.me) {
		sc_error("PE %d: %s: member %d of the list is PE %d, not this PE (the bootstrap's rank is %d)",
			 sc.me, what, members->rank, pes[members->rank], members->rank);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		if (pes[i] < 0 || pes[i] >= sc.npes) {
			sc_error("PE %d: %s: member %d is PE %d, outside 0..%d", sc.me, what, i,
				 pes[i], sc.npes - 1);
			return 0;
		}
		for (int j = 0; j < i; j++)
			if (pes[j] == pes[i]) {
				sc_error("PE %d: %s: PE %d is in the list twice (members %d and %d)",
					 sc.me, what, pes[i], j, i);
				return 0;
			}
	}
	return 1;
}

int shmemx_team_create(const int *pes, int n, const shmemx_bootstrap_t *members,
		       shmem_team_t *team)
{
	const char *what = "shmemx_team_create";
	struct offer {
		uint64_t free_slots;
		uint64_t list;
		int32_t valid;
		int32_t pe;
	} mine, *all;
	uint64_t common = ~0ull;
	int valid, slot = -1, size;
	int *list;
	struct sc_team *t;

	sc_require_init(what);
	*team = SHMEM_TEAM_INVALID;
	valid = valid_members(pes, n, members, what);
	if (!members || !members->allgather || members->size < 1)
		return -1;
	size = members->size;
	mine = (struct offer){ sc.free_slots, valid ? members_hash(pes, n) : 0, valid, sc.me };
	all = calloc((size_t)size, sizeof(*all));
	if (!all || members->allgather(members->ctx, &mine, sizeof(mine), all)) {
		sc_error("PE %d: %s: the members could not meet through %s", sc.me, what,
			 members->name ? members->name : "the bootstrap");
		free(all);
		return -1;
	}
	for (int i = 0; i < size && valid; i++) {
		if (!all[i].valid) {
			sc_error("PE %d: %s: PE %d, member %d, refused its arguments (its message says why)",
				 sc.me, what, all[i].pe, i);
			valid = 0;
		} else if (all[i].list != mine.list) {
			sc_error("PE %d: %s: PE %d, member %d, was given another member list",
				 sc.me, what, all[i].pe, i);
			valid = 0;
		}
		common &= all[i].free_slots;
	}
	free(all);
	if (!valid)
		return -1;
	for (int s = 0; s < SC_MAX_TEAMS && slot < 0; s++)
		if (common & (1ull << s))
			slot = s;
	if (slot < 0) {
		sc_error("PE %d: %s: no team slot is free on all %d members (%d slots); destroy teams no longer needed",
			 sc.me, what, n, SC_MAX_TEAMS);
		return -1;
	}
	t = malloc(sizeof(*t));
	list = malloc(sizeof(int) * (size_t)n);
	if (!t || !list)
		sc_fatal(1, "PE %d: out of memory for a team", sc.me);
	memcpy(list, pes, sizeof(int) * (size_t)n);
	team_set(t, pes[0], 1, n, list, slot);
	claim_slot(t);
	*team = (shmem_team_t)t;
	return 0;
}
