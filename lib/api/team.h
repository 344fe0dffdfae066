/* The predefined teams, set up at init (team.c). */
#ifndef SHMEMCOMM_API_TEAM_H
#define SHMEMCOMM_API_TEAM_H

void sc_teams_init(void);

#endif
