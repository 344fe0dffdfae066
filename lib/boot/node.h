/*
 * Which PEs share this node: those whose node key (host name and kernel
 * boot id) equals ours. They reach each other's memory by loads and stores.
 */
#ifndef SHMEMCOMM_BOOT_NODE_H
#define SHMEMCOMM_BOOT_NODE_H

#include "boot/bootstrap.h"

struct sc_node {
	int local_rank;		/* my index among the PEs of my node */
	int local_size;
	int nodes;		/* in the job */
	int *local_pes;		/* [local_size]: their global ranks, ascending */
	int *local_index;	/* [size]: a PE's local index, -1 if on another node */
	int *pids;		/* [size]: every PE's pid (for liveness on this node) */
	int *node_of;		/* [size]: the first PE of each PE's node */
};

/*
 * SHMEMCOMM_NODE_KEY overrides the key (tests use it to make "nodes");
 * @alone makes this PE a node of its own (SHMEMCOMM_TRANSPORT=rdma).
 */
int sc_node_discover(struct sc_node *node, struct sc_boot *boot, int alone);
void sc_node_free(struct sc_node *node);

#endif
