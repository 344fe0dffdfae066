/*
 * The bootstrap network: a star of TCP connections to rank 0, or the
 * caller's own (shmemx_bootstrap_t), used at init and teardown only
 * (allgather of small blobs, barrier). Every wait has
 * a deadline of SHMEMCOMM_TIMEOUT; when rank 0 gives up it tells every rank
 * why, naming the ranks that never arrived and the address in use.
 */
#ifndef SHMEMCOMM_BOOT_RENDEZVOUS_H
#define SHMEMCOMM_BOOT_RENDEZVOUS_H

#include <stddef.h>

#include "boot/launch.h"
#include "shmemx.h"

struct sc_boot {
	int rank;
	int size;
	double timeout;		/* seconds, per operation */
	char where[300];	/* "host:port", for messages */
	char job[64];
	int listen_fd;		/* rank 0 */
	int *fds;		/* rank 0: its connection to each rank */
	int root_fd;		/* the others: their connection to rank 0 */
	const shmemx_bootstrap_t *external;	/* the caller's, instead of the TCP star */
};

int sc_boot_open(struct sc_boot *boot, const struct sc_launch *launch,
		 double timeout);
/*
 * The caller's bootstrap (shmemx_init_attr): its rank and size, and a job
 * name that rank 0 picks and the others take, for the node's socket names.
 */
int sc_boot_open_external(struct sc_boot *boot, const shmemx_bootstrap_t *external,
			  double timeout);
/* Every rank's @len bytes, in rank order, into @all (size * len bytes). */
int sc_boot_allgather(struct sc_boot *boot, const void *mine, size_t len, void *all);
int sc_boot_barrier(struct sc_boot *boot);
void sc_boot_close(struct sc_boot *boot);

#endif
