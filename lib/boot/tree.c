#include "boot/tree.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/host.h"
#include "util/log.h"

int sc_tree_children(int rank, int size, int *out)
{
	long span = rank ? (rank & -rank) : size;
	int n = 0;

	for (long step = 1; step < span && rank + step < size; step <<= 1)
		out[n++] = (int)(rank + step);
	return n;
}

void sc_tree_my_addr(struct sc_tree_addr *addr, int port)
{
	struct ifaddrs *all, *i;

	memset(addr, 0, sizeof(*addr));
	sc_host_key(addr->host_key, sizeof(addr->host_key));
	addr->port = (uint32_t)port;
	if (getifaddrs(&all))
		return;
	for (i = all; i && addr->n_ipv4 < SC_TREE_ADDRS; i = i->ifa_next) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)i->ifa_addr;

		if (in && in->sin_family == AF_INET && ntohl(in->sin_addr.s_addr) >> 24 != 127)
			addr->ipv4[addr->n_ipv4++] = in->sin_addr.s_addr;
	}
	freeifaddrs(all);
}

void sc_tree_init(struct sc_tree *tree, const struct sc_wire_self *self)
{
	memset(tree, 0, sizeof(*tree));
	tree->self = self;
	tree->parent_fd = -1;
}

int sc_tree_dial_parent(struct sc_tree *tree, const struct sc_tree_addr *addr,
			const struct sc_secret *secret, double deadline)
{
	const struct sc_wire_self *self = tree->self;
	int parent = sc_tree_parent(self->rank), err = -EHOSTUNREACH;
	char mine[128], what[64], host[INET_ADDRSTRLEN];
	uint32_t order[SC_TREE_ADDRS + 1];
	int n = 0;

	sc_host_key(mine, sizeof(mine));
	if (!strncmp(mine, addr->host_key, sizeof(addr->host_key)))
		order[n++] = htonl(INADDR_LOOPBACK);
	for (uint32_t i = 0; i < addr->n_ipv4 && i < SC_TREE_ADDRS; i++)
		order[n++] = addr->ipv4[i];
	snprintf(what, sizeof(what), "its parent in the bootstrap's tree, rank %d", parent);
	for (int i = 0; i < n; i++) {
		/* an address of another network fails fast; the last one may take what is left */
		double until = i + 1 < n ? sc_now() + 2 : deadline;

		inet_ntop(AF_INET, &order[i], host, sizeof(host));
		err = sc_wire_dial(self, secret, host, (int)addr->port, what,
				   until < deadline ? until : deadline, &tree->parent_fd);
		if (err != -ETIMEDOUT)
			break;
	}
	if (!n)
		sc_error("rank %d: its parent in the bootstrap's tree, rank %d on %s, offers no address",
			 self->rank, parent, addr->host_key);
	return n ? err : -EHOSTUNREACH;
}

int sc_tree_add_child(struct sc_tree *tree, int rank, int fd)
{
	if (tree->n_children == SC_TREE_MAX_CHILDREN)
		return -ENOSPC;
	tree->child_rank[tree->n_children] = rank;
	tree->child_fd[tree->n_children++] = fd;
	return 0;
}

struct expecting {
	const struct sc_tree *tree;
	int children[SC_TREE_MAX_CHILDREN];
	int n;
};

static int child_expected(void *ctx, int rank)
{
	const struct expecting *e = ctx;
	int is_child = 0;

	for (int i = 0; i < e->n; i++)
		is_child |= e->children[i] == rank;
	for (int i = 0; i < e->tree->n_children; i++)
		if (e->tree->child_rank[i] == rank)
			return 0;
	return is_child;
}

int sc_tree_admit_children(struct sc_tree *tree, struct sc_gate *gate, double deadline)
{
	const struct sc_wire_self *self = tree->self;
	struct expecting e = { .tree = tree };
	int fd, rank, err = 0;

	e.n = sc_tree_children(self->rank, self->size, e.children);
	while (!err && tree->n_children < e.n) {
		err = sc_gate_admit(gate, child_expected, &e, deadline, &fd, &rank, NULL);
		if (!err)
			err = sc_tree_add_child(tree, rank, fd);
	}
	if (err == -ETIMEDOUT) {
		char reason[512];
		int used = snprintf(reason, sizeof(reason),
				    "bootstrap at %s (job %s): rank %d waited %g s (SHMEMCOMM_TIMEOUT) for the ranks it serves in the bootstrap's tree, and rank",
				    self->where, self->job, self->rank, self->timeout);

		for (int i = 0; i < e.n; i++)
			if (child_expected(&e, e.children[i]) && used < (int)sizeof(reason))
				used += snprintf(reason + used, sizeof(reason) - (size_t)used, " %d",
						 e.children[i]);
		if (used < (int)sizeof(reason))
			snprintf(reason + used, sizeof(reason) - (size_t)used,
				 " never connected: did they start, and can they reach this host?");
		sc_error("%s", reason);
		sc_tree_abort(tree, reason, -1);
	}
	return err;
}

void sc_tree_abort(struct sc_tree *tree, const char *reason, int except_fd)
{
	size_t len = strlen(reason);

	if (tree->parent_fd >= 0 && tree->parent_fd != except_fd)
		sc_wire_send(tree->parent_fd, SC_WIRE_ABORT, tree->self->rank, reason, len);
	for (int i = 0; i < tree->n_children; i++)
		if (tree->child_fd[i] != except_fd)
			sc_wire_send(tree->child_fd[i], SC_WIRE_ABORT, tree->self->rank, reason, len);
}

/* A message on @fd that is not the DATA expected: an ABORT to pass on, or a loss. */
static int fail_edge(struct sc_tree *tree, int fd, int peer, int err, const char *step)
{
	const struct sc_wire_self *self = tree->self;
	char reason[1200];

	if (err == -ECANCELED) {
		/* logged by sc_wire_recv: every rank says the same words */
		snprintf(reason, sizeof(reason), "%s", sc_wire_abort_text());
	} else if (err == -ETIMEDOUT) {
		snprintf(reason, sizeof(reason),
			 "bootstrap at %s (job %s): rank %d (or one of the ranks %d-%d it serves) did not reach the %s within %g s (SHMEMCOMM_TIMEOUT); they are stuck or slow",
			 self->where, self->job, peer, peer, sc_tree_end(peer, self->size) - 1, step,
			 self->timeout);
	} else {
		snprintf(reason, sizeof(reason),
			 "bootstrap at %s (job %s): rank %d left the job during the %s (%s)",
			 self->where, self->job, peer, step,
			 err == -EPIPE || err == -ECONNRESET ? "its connection closed: did it exit or crash?" :
			 strerror(-err));
	}
	if (err != -ECANCELED)
		sc_error("%s", reason);
	sc_tree_abort(tree, reason, fd);
	return err == -ECANCELED ? err : -ECONNABORTED;
}

static int height(int rank, int size)
{
	int h = 0;

	for (long span = 1; span < sc_tree_end(rank, size) - rank; span <<= 1)
		h++;
	return h;
}

int sc_tree_allgather(struct sc_tree *tree, const void *mine, size_t len, void *all)
{
	const struct sc_wire_self *self = tree->self;
	int end = sc_tree_end(self->rank, self->size), pending = tree->n_children, err = 0;
	/* a second more per level below: the rank nearest a missing one speaks first */
	double deadline = sc_now() + self->timeout + height(self->rank, self->size);
	size_t total = len * (size_t)self->size;
	char got[SC_TREE_MAX_CHILDREN] = { 0 };

	if (len)
		memcpy((char *)all + (size_t)self->rank * len, mine, len);
	while (pending) {
		struct pollfd pfds[SC_TREE_MAX_CHILDREN];
		int ready;

		for (int i = 0; i < tree->n_children; i++)
			pfds[i] = (struct pollfd){ .fd = got[i] ? -1 : tree->child_fd[i],
						   .events = POLLIN };
		ready = poll(pfds, (nfds_t)tree->n_children, (int)((deadline - sc_now()) * 1000) + 1);
		if (ready < 0 && errno == EINTR)
			continue;
		for (int i = 0; i < tree->n_children; i++) {
			int child = tree->child_rank[i];

			if (got[i] || (ready > 0 && !pfds[i].revents))
				continue;
			err = ready > 0 ? sc_wire_recv(tree->child_fd[i], SC_WIRE_DATA,
						       (char *)all + (size_t)child * len,
						       len * (size_t)(sc_tree_end(child, self->size) - child),
						       deadline) : -ETIMEDOUT;
			if (err)
				return fail_edge(tree, tree->child_fd[i], child, err, "bootstrap's step");
			got[i] = 1;
			pending--;
		}
	}
	if (tree->parent_fd >= 0) {
		int parent = sc_tree_parent(self->rank);

		err = sc_wire_send(tree->parent_fd, SC_WIRE_DATA, self->rank,
				   (char *)all + (size_t)self->rank * len,
				   len * (size_t)(end - self->rank));
		/* the parent waits up to the timeout and its levels for the others: allow that */
		if (!err)
			err = sc_wire_recv(tree->parent_fd, SC_WIRE_DATA, all, total,
					   sc_now() + self->timeout + 2.0 * height(0, self->size) + 5);
		if (err)
			return fail_edge(tree, tree->parent_fd, parent, err, "bootstrap's step");
	}
	for (int i = 0; i < tree->n_children; i++) {
		err = sc_wire_send(tree->child_fd[i], SC_WIRE_DATA, self->rank, all, total);
		if (err)
			return fail_edge(tree, tree->child_fd[i], tree->child_rank[i], err,
					 "bootstrap's step");
	}
	return 0;
}

void sc_tree_close(struct sc_tree *tree)
{
	if (tree->parent_fd >= 0)
		close(tree->parent_fd);
	for (int i = 0; i < tree->n_children; i++)
		close(tree->child_fd[i]);
	tree->parent_fd = -1;
	tree->n_children = 0;
}
