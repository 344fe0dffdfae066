#include "boot/rendezvous.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/ranks.h"

/* rank 0's answer to a JOIN: dial @addr, or stay (rank 0 is the parent) */
struct parent_msg {
	uint32_t stay;
	struct sc_tree_addr addr;
};

struct registry {
	int size;
	char *joined;			/* [size] */
	struct sc_tree_addr *addr;	/* [size]: where each rank's gate listens */
	int *waiting_fd;		/* [size]: a rank whose parent has not joined yet, or -1 */
};

static int not_joined(void *ctx, int rank)
{
	const struct registry *r = ctx;

	return rank > 0 && !r->joined[rank];
}

static void abort_waiting(struct sc_tcp *tcp, struct registry *r, const char *reason)
{
	sc_error("%s", reason);
	sc_tree_abort(&tcp->tree, reason, -1);
	for (int rank = 0; rank < r->size; rank++)
		if (r->waiting_fd[rank] >= 0) {
			sc_wire_send(r->waiting_fd[rank], SC_WIRE_ABORT, 0, reason, strlen(reason));
			close(r->waiting_fd[rank]);
			r->waiting_fd[rank] = -1;
		}
}

/* Sends each waiting rank whose parent has joined where to dial it. */
static int answer_waiting(struct registry *r)
{
	for (int rank = 1; rank < r->size; rank++) {
		int parent = sc_tree_parent(rank);
		struct parent_msg answer = { 0 };

		if (r->waiting_fd[rank] < 0 || !r->joined[parent])
			continue;
		answer.addr = r->addr[parent];
		/* a rank that left meanwhile finds out when it dials; its parent says so */
		sc_wire_send(r->waiting_fd[rank], SC_WIRE_PARENT, 0, &answer, sizeof(answer));
		close(r->waiting_fd[rank]);
		r->waiting_fd[rank] = -1;
	}
	return 0;
}

/*
 * Rank 0 holds a connection to each rank until its parent has come: up to
 * N at once, beyond the usual soft limit of 1024 descriptors. Raised to
 * the hard limit where that is needed, else an error that says so.
 */
static int enough_descriptors(const struct sc_wire_self *self)
{
	rlim_t need = (rlim_t)self->size + SC_WIRE_PENDING + 64;
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) || lim.rlim_cur >= need)
		return 0;
	lim.rlim_cur = lim.rlim_max < need ? lim.rlim_max : need;
	setrlimit(RLIMIT_NOFILE, &lim);
	if (lim.rlim_cur >= need)
		return 0;
	sc_error("rendezvous at %s: rank 0 needs %lu file descriptors to meet %d ranks, and RLIMIT_NOFILE allows %lu: raise it (ulimit -n, or nofile in /etc/security/limits.conf)",
		 self->where, (unsigned long)need, self->size, (unsigned long)lim.rlim_max);
	return -EMFILE;
}

static int root_register(struct sc_tcp *tcp, struct sc_gate *gate)
{
	struct sc_wire_self *self = &tcp->self;
	double deadline = sc_now() + self->timeout;
	struct registry r = { .size = self->size };
	int joined = 0, err = enough_descriptors(self);

	r.joined = calloc((size_t)self->size, 1);
	r.addr = calloc((size_t)self->size, sizeof(*r.addr));
	r.waiting_fd = malloc(sizeof(int) * (size_t)self->size);
	if (!err && (!r.joined || !r.addr || !r.waiting_fd))
		err = -ENOMEM;
	for (int rank = 0; !err && rank < self->size; rank++)
		r.waiting_fd[rank] = -1;
	if (!err)
		r.joined[0] = 1;
	while (!err && joined < self->size - 1) {
		struct parent_msg stay = { .stay = 1 };
		struct sc_tree_addr addr;
		int fd, rank;

		err = sc_gate_admit(gate, not_joined, &r, deadline, &fd, &rank, NULL);
		if (err == -ETIMEDOUT) {
			int *missing = malloc(sizeof(int) * (size_t)self->size), n = 0;
			char ranks[512], reason[1024];

			for (int m = 1; missing && m < self->size; m++)
				if (!r.joined[m])
					missing[n++] = m;
			sc_format_ranks(missing, n, ranks, sizeof(ranks));
			free(missing);
			snprintf(reason, sizeof(reason),
				 "rendezvous at %s (job %s): rank%s %s never arrived within %g s (SHMEMCOMM_TIMEOUT); did they start, and can they reach this address?",
				 self->where, self->job, n > 1 ? "s" : "", ranks, self->timeout);
			abort_waiting(tcp, &r, reason);
			break;
		}
		if (err)
			break;
		err = sc_wire_recv(fd, SC_WIRE_JOIN, &addr, sizeof(addr), sc_now() + SC_WIRE_HANDSHAKE);
		if (err) {
			char reason[512];

			snprintf(reason, sizeof(reason),
				 "rendezvous at %s (job %s): rank %d proved the job's secret, then left before saying where it listens (%s)",
				 self->where, self->job, rank, strerror(-err));
			close(fd);
			abort_waiting(tcp, &r, reason);
			break;
		}
		r.joined[rank] = 1;
		r.addr[rank] = addr;
		joined++;
		if (sc_tree_parent(rank) == 0) {
			err = sc_wire_send(fd, SC_WIRE_PARENT, 0, &stay, sizeof(stay));
			if (!err)
				err = sc_tree_add_child(&tcp->tree, rank, fd);
		} else {
			r.waiting_fd[rank] = fd;
		}
		if (!err)
			err = answer_waiting(&r);
	}
	free(r.joined);
	free(r.addr);
	free(r.waiting_fd);
	return err;
}

/* A rank other than 0: join at the rendezvous, then dial its parent unless that is rank 0. */
static int join(struct sc_tcp *tcp, const struct sc_launch *l, const struct sc_gate *gate)
{
	struct sc_wire_self *self = &tcp->self;
	double deadline = sc_now() + self->timeout;
	struct sc_tree_addr mine;
	struct parent_msg answer;
	int fd, err;

	sc_tree_my_addr(&mine, gate ? gate->port : 0);
	err = sc_wire_dial(self, &tcp->secret, l->host, l->port, "rank 0's rendezvous", deadline,
			   &fd);
	if (err)
		return err;
	err = sc_wire_send(fd, SC_WIRE_JOIN, self->rank, &mine, sizeof(mine));
	if (!err)
		/* rank 0 answers once the parent has come, within its own timeout */
		err = sc_wire_recv(fd, SC_WIRE_PARENT, &answer, sizeof(answer),
				   deadline + SC_WIRE_HANDSHAKE);
	if (err) {
		if (err != -ECANCELED)
			sc_error("rank %d: rank 0's rendezvous at %s closed before it named this rank's parent (%s): did rank 0 exit or crash?",
				 self->rank, self->where, strerror(-err));
		close(fd);
		return err;
	}
	if (answer.stay) {
		tcp->tree.parent_fd = fd;
		return 0;
	}
	close(fd);
	return sc_tree_dial_parent(&tcp->tree, &answer.addr, &tcp->secret, deadline);
}

int sc_tcp_open(struct sc_tcp *tcp, const struct sc_launch *l, double timeout)
{
	int children[SC_TREE_MAX_CHILDREN];
	struct sc_gate gate;
	int err, has_children;

	memset(tcp, 0, sizeof(*tcp));
	tcp->self.rank = l->rank;
	tcp->self.size = l->size;
	tcp->self.timeout = timeout;
	snprintf(tcp->self.where, sizeof(tcp->self.where), "%s:%d", l->host, l->port);
	memcpy(tcp->self.job, l->job, sizeof(tcp->self.job));
	sc_tree_init(&tcp->tree, &tcp->self);
	if (tcp->self.size == 1)
		return 0;
	err = sc_secret_find(&tcp->secret);
	if (err)
		return err;
	has_children = sc_tree_children(l->rank, l->size, children) > 0;
	if (!l->rank || has_children) {
		err = sc_gate_open(&gate, &tcp->self, &tcp->secret, l->rank ? 0 : l->port);
		if (err)
			return err;
	}
	if (!l->rank) {
		err = root_register(tcp, &gate);
	} else {
		err = join(tcp, l, has_children ? &gate : NULL);
		if (!err && has_children)
			err = sc_tree_admit_children(&tcp->tree, &gate,
						     sc_now() + timeout);
	}
	if (!l->rank || has_children) {
		/* nobody else joins: the port is free again for the next job */
		sc_gate_close(&gate);
		memcpy(tcp->refused, gate.refused, sizeof(tcp->refused));
	}
	if (err)
		sc_tcp_close(tcp);
	return err;
}

int sc_tcp_allgather(struct sc_tcp *tcp, const void *mine, size_t len, void *all)
{
	if (tcp->self.size == 1) {
		if (len)
			memcpy(all, mine, len);
		return 0;
	}
	return sc_tree_allgather(&tcp->tree, mine, len, all);
}

void sc_tcp_close(struct sc_tcp *tcp)
{
	sc_tree_close(&tcp->tree);
}
