/* Team sync over shared memory and the NIC (barrier.c). */
#ifndef SHMEMCOMM_SYNC_SYNC_H
#define SHMEMCOMM_SYNC_SYNC_H

#include <stdint.h>

#include "core/state.h"

/* Dissemination sync over @team's members; @what names the call for messages. */
void sc_team_sync(struct sc_team *team, const char *what);
/*
 * For a timeout message: @team's members whose copy of the counter
 * @entered (in this PE's internal area) is below @epoch, or that do not
 * answer (lost with their node), as "2,5-7" in @out.
 */
void sc_members_behind(const struct sc_team *team, const struct sc_line *entered,
		       uint64_t epoch, char *out, unsigned long len);

#endif
