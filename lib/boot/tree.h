/*
 * The bootstrap's tree: after the ranks have met (at rank 0's rendezvous,
 * or through PMIx), each is connected to its parent in a binomial tree over
 * TCP, and every allgather and barrier goes up and down it. The parent of
 * rank r is r with its lowest set bit cleared; the ranks r serves (its
 * subtree) are [r, r + lowbit(r)), so a child's block of an allgather is
 * contiguous. Rank 0 holds ceil(log2 N) connections after init, and an
 * allgather takes 2 ceil(log2 N) steps.
 *
 * A rank that must stop (a child gone, a timeout) sends ABORT with its
 * reason along every edge it has, and each rank passes it on: every rank
 * fails with the same words. A rank waits for its children a second longer
 * per level below it, so the rank nearest a missing one speaks first.
 */
#ifndef SHMEMCOMM_BOOT_TREE_H
#define SHMEMCOMM_BOOT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "boot/wire.h"

#define SC_TREE_MAX_CHILDREN 31	/* ceil(log2) of the largest job */
#define SC_TREE_ADDRS 8		/* IPv4 addresses a rank offers its children */

struct sc_tree {
	const struct sc_wire_self *self;
	int parent_fd;		/* -1 at rank 0 */
	int n_children;
	int child_rank[SC_TREE_MAX_CHILDREN];
	int child_fd[SC_TREE_MAX_CHILDREN];
};

/* Where a rank's gate listens, for its children to dial. */
struct sc_tree_addr {
	char host_key[128];	/* host name and boot id: the same host dials loopback */
	uint32_t port;
	uint32_t n_ipv4;
	uint32_t ipv4[SC_TREE_ADDRS];	/* network order */
};

static inline int sc_tree_parent(int rank)
{
	return rank & (rank - 1);
}

/* The ranks @rank serves: its subtree ends here (exclusive) */
static inline int sc_tree_end(int rank, int size)
{
	long end = rank ? (long)rank + (rank & -rank) : size;

	return end < size ? (int)end : size;
}

/* @rank's children, ascending, into @out; their count */
int sc_tree_children(int rank, int size, int *out);
/* This host's key, and its IPv4 addresses other than loopback, with @port. */
void sc_tree_my_addr(struct sc_tree_addr *addr, int port);

void sc_tree_init(struct sc_tree *tree, const struct sc_wire_self *self);
/*
 * Dials the parent at @addr (loopback first when it is on this host, then
 * each of its addresses), proving @secret. 0, or a negative errno after a
 * message.
 */
int sc_tree_dial_parent(struct sc_tree *tree, const struct sc_tree_addr *addr,
			const struct sc_secret *secret, double deadline);
/* Takes @fd, already admitted, as the edge to child @rank. */
int sc_tree_add_child(struct sc_tree *tree, int rank, int fd);
/* Admits at @gate every child not yet connected, until @deadline. */
int sc_tree_admit_children(struct sc_tree *tree, struct sc_gate *gate, double deadline);
/* Every rank's @len bytes, in rank order, into @all (size * len bytes). */
int sc_tree_allgather(struct sc_tree *tree, const void *mine, size_t len, void *all);
/* Sends @reason as ABORT along every edge (except @except_fd). */
void sc_tree_abort(struct sc_tree *tree, const char *reason, int except_fd);
void sc_tree_close(struct sc_tree *tree);

#endif
