/*
 * How the job's processes meet, at init and teardown only (allgathers of
 * small blobs, barriers), over one of:
 *   tcp       rank 0's rendezvous (boot/rendezvous.h), then the tree
 *   pmix      the PMIx server that started the process, through the PMIx
 *             plugin (boot/plugin.h): each rank publishes where it listens
 *             and finds its parent's, then the tree (boot/tree.h). With
 *             SHMEMCOMM_PMIX_EXCHANGE=fence every allgather is PMIx's
 *             modex instead (put, commit, a fence collecting data, a get
 *             of every rank) and every barrier a fence: no TCP between the
 *             ranks, for sites that allow none, at the server's speed
 *   external  the caller's own (shmemx_bootstrap_t)
 * sc_launch_detect chooses between the first two; shmemx_init_attr gives
 * the third.
 *
 * The PMIx plugin is looked for, first found wins: SHMEMCOMM_PMIX_PLUGIN (a
 * path); libshmemcomm-pmix.so.0 beside the object that holds this library
 * (libshmemcomm.so, or the program linked with libshmemcomm.a); then by
 * that name in the dynamic loader's path.
 */
#ifndef SHMEMCOMM_BOOT_BOOTSTRAP_H
#define SHMEMCOMM_BOOT_BOOTSTRAP_H

#include <stddef.h>

#include "boot/launch.h"
#include "boot/plugin.h"
#include "boot/rendezvous.h"
#include "shmemx.h"

#define SC_PMIX_PLUGIN "libshmemcomm-pmix.so.0"

struct sc_boot {
	int rank;
	int size;
	double timeout;		/* seconds, per operation */
	char where[300];	/* "host:port" or who vouches, for messages */
	char job[64];		/* the job's name: the node's socket names include it */
	const char *kind;	/* "tcp", "pmix" or "external", for messages */
	int local_size;		/* the server's count of this node's ranks, or 0 */
	struct sc_tcp tcp;	/* the tree, from the TCP rendezvous or PMIx */
	int pmix_fence;		/* SHMEMCOMM_PMIX_EXCHANGE=fence: PMIx's modex and fences */
	const struct sc_boot_plugin *plugin;
	void *plugin_object;	/* its dlopen handle */
	const shmemx_bootstrap_t *external;	/* the caller's */
};

/*
 * Opens the bootstrap @launch chose, and fills @launch's rank and size
 * where the server gives them (PMIx). -ENOPKG: the PMIx plugin cannot be
 * loaded (said at info level when @launch did not insist on PMIx, so that
 * the caller can go on with sc_launch_detect_tcp).
 */
int sc_boot_open(struct sc_boot *boot, struct sc_launch *launch, double timeout);
/*
 * The caller's bootstrap (shmemx_init_attr): its rank and size, and a job
 * name that rank 0 picks and the others take, for the node's socket names.
 */
int sc_boot_open_external(struct sc_boot *boot, const shmemx_bootstrap_t *external,
			  double timeout);
/* Every rank's @len bytes, in rank order, into @all (size * len bytes). */
int sc_boot_allgather(struct sc_boot *boot, const void *mine, size_t len, void *all);
int sc_boot_barrier(struct sc_boot *boot);
/*
 * Asks the resource manager to end the whole job with @status, where there
 * is one (PMIx); the processes may be ended before it returns.
 */
void sc_boot_abort(struct sc_boot *boot, int status, const char *message);
void sc_boot_close(struct sc_boot *boot);

#endif
