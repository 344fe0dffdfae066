/*
 * The bootstrap network: a star of TCP connections to rank 0, used at
 * init and teardown only (allgather of small blobs, barrier). Every wait has
 * a deadline of SHMEMCOMM_TIMEOUT; when rank 0 gives up it tells every rank
 * why, naming the ranks that never arrived and the address in use.
 */
#ifndef SHMEMCOMM_BOOT_RENDEZVOUS_H
#define SHMEMCOMM_BOOT_RENDEZVOUS_H

#include <stddef.h>

#include "boot/launch.h"

struct sc_boot {
	int rank;
	int size;
	double timeout;		/* seconds, per operation */
	char where[300];	/* "host:port", for messages */
	char job[64];
	int listen_fd;		/* rank 0 */
	int *fds;		/* rank 0: its connection to each rank */
	int root_fd;		/* the others: their connection to rank 0 */
};

int sc_boot_open(struct sc_boot *boot, const struct sc_launch *launch,
		 double timeout);
/* Every rank's @len bytes, in rank order, into @all (size * len bytes). */
int sc_boot_allgather(struct sc_boot *boot, const void *mine, size_t len, void *all);
int sc_boot_barrier(struct sc_boot *boot);
void sc_boot_close(struct sc_boot *boot);

#endif
