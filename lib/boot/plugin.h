/*
 * A bootstrap in a shared object of its own, loaded at run time: the PMIx
 * one (lib/boot/pmix/pmix.c, built as libshmemcomm-pmix.so.0 where
 * libpmix-dev is). It is a plugin, not a link of libpmix into the library,
 * so that:
 *   - a program that never runs under a PMIx server does not load libpmix
 *     and what it brings (libevent, hwloc) at start-up;
 *   - one build of the library runs on a node that has no libpmix, and says
 *     so only when PMIx is asked for;
 *   - the plugin is compiled against the real pmix.h, so no PMIx type is
 *     declared twice.
 * This header is the whole interface between the two; SC_BOOT_PLUGIN_ABI
 * changes with any change to it, and the loader refuses another.
 */
#ifndef SHMEMCOMM_BOOT_PLUGIN_H
#define SHMEMCOMM_BOOT_PLUGIN_H

#include <stddef.h>

#define SC_BOOT_PLUGIN_ABI 2
#define SC_BOOT_PLUGIN_SYMBOL "shmemcomm_boot_plugin"

struct sc_boot_plugin_job {
	int rank;
	int size;
	int local_rank;		/* among the job's processes on this node */
	int local_size;
	char job[256];		/* the job's name (PMIx: its namespace) */
	char server[300];	/* who vouches for the processes, for messages */
};

struct sc_boot_plugin {
	unsigned int abi;	/* SC_BOOT_PLUGIN_ABI */
	const char *name;
	/*
	 * Every call returns 0, or a negative errno after writing why (one
	 * line) into @why. @timeout is in seconds and bounds every wait.
	 */
	int (*init)(double timeout, struct sc_boot_plugin_job *job, char *why, size_t len);
	/* every rank's @len bytes in rank order into @all; @len 0 is a barrier */
	int (*allgather)(const void *mine, size_t len, void *all, char *why, size_t why_len);
	/* makes @len bytes under @key visible to the job's other processes */
	int (*publish)(const char *key, const void *data, size_t len, char *why, size_t why_len);
	/* rank @rank's bytes under @key (exactly @len), waiting until it has published them */
	int (*lookup)(int rank, const char *key, void *data, size_t len, char *why,
		      size_t why_len);
	/* asks the resource manager to end the whole job with @status */
	void (*abort)(int status, const char *message);
	void (*finalize)(void);
};

typedef const struct sc_boot_plugin *(*sc_boot_plugin_get)(void);

#endif
