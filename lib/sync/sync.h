/* Team sync over shared memory and the NIC (barrier.c). */
#ifndef SHMEMCOMM_SYNC_SYNC_H
#define SHMEMCOMM_SYNC_SYNC_H

#include <stdint.h>

#include "core/state.h"

/* Dissemination sync over @team's members; @what names the call for messages. */
void sc_team_sync(struct sc_team *team, const char *what);
/*
 * The active set of the deprecated collectives: PEs start, start + 2^log,
 * ..., size of them, this PE's index in it.
 */
struct sc_active_set {
	int start, stride, size, me;
};

/*
 * Fills @set after checking it and this PE's place in it; fatal, naming the
 * call, the set and what is wrong, otherwise: these calls return nothing,
 * and the other members would wait for this PE in vain.
 */
void sc_active_set(int start, int log_stride, int size, struct sc_active_set *set,
		   const char *what);
/* World PE of member @index. */
static inline int sc_active_pe(const struct sc_active_set *set, int index)
{
	return set->start + index * set->stride;
}
/*
 * Dissemination sync over an active set. No team and no pSync: each PE
 * counts the signals it sent to and heard from every other, and a round
 * waits for the next signal of its partner, so any sets, in any order the
 * PEs share, sync correctly.
 */
void sc_active_set_sync(const struct sc_active_set *set, const char *what);

/*
 * Who is behind in a sync: @team's members whose copy of @entered is below
 * @epoch; and who still owes it a round's store, into a copy of @arrivals.
 */
struct sc_behind {
	const struct sc_team *team;
	const struct sc_line *entered;	/* in this PE's internal area */
	const struct sc_line *arrivals;	/* the sync's rounds, in this PE's internal area */
	uint64_t epoch;
};

/*
 * A wait's missing callback (util/wait.h) for a struct sc_behind: those
 * members, and those that do not answer (lost with their node), as "2,5-7".
 */
void sc_members_behind(void *behind, char *out, unsigned long len, const char **did);
/*
 * A wait's owed callback (util/wait.h) for a struct sc_behind: 1 while a
 * member has a round's store of this sync still to make, or one that
 * cannot be read; 0 for a PE outside the team.
 */
int sc_member_owes(void *behind, int pe);

#endif
