/* Team sync over shared memory and the NIC (barrier.c). */
#ifndef SHMEMCOMM_SYNC_SYNC_H
#define SHMEMCOMM_SYNC_SYNC_H

#include <stdint.h>

#include "core/state.h"

/* Dissemination sync over @team's members; @what names the call for messages. */
void sc_team_sync(struct sc_team *team, const char *what);
/* Who is behind in a sync: @team's members whose copy of @entered is below @epoch. */
struct sc_behind {
	const struct sc_team *team;
	const struct sc_line *entered;	/* in this PE's internal area */
	uint64_t epoch;
};

/*
 * A wait's missing callback (util/wait.h) for a struct sc_behind: those
 * members, and those that do not answer (lost with their node), as "2,5-7".
 */
void sc_members_behind(void *behind, char *out, unsigned long len, const char **did);

#endif
