/*
 * Passing memfds between the PEs of a node: each PE listens on an abstract
 * unix socket named after the job and its rank, connects to every lower
 * local rank and accepts every higher one, so each pair has one connection.
 * Both ends send their fd (SCM_RIGHTS) as soon as the connection exists,
 * and only then receive: a send of one small message never blocks, so no
 * PE waits on another that waits on it. Connections from another uid are
 * refused.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "mem/mem.h"
#include "util/log.h"

static socklen_t socket_name(struct sockaddr_un *addr, const char *job, int rank)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	/* abstract: nothing in the file system to clean up after a crash */
	int n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1,
			 "shmemcomm.%s.%d", job, rank);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static int wait_fd(int fd, short events, double timeout)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int ready;

	do
		ready = poll(&pfd, 1, (int)(timeout * 1000));
	while (ready < 0 && errno == EINTR);
	return ready == 1 ? 0 : ready ? -errno : -ETIMEDOUT;
}

/* Sends @fd with @rank, the sender's, as the message body. */
static int send_fd_from(int sock, int fd, int rank)
{
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &rank, sizeof(rank) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == sizeof(rank) ? 0 : -errno;
}

static int recv_fd(int sock, double timeout, int *fd, int *rank)
{
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { rank, sizeof(*rank) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	int err = wait_fd(sock, POLLIN, timeout);

	if (err)
		return err;
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(*rank))
		return -EPIPE;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

int sc_memfd_exchange(int my_fd, struct sc_boot *boot, const struct sc_node *node,
		      int *fds)
{
	int me = node->local_rank, n = node->local_size;
	int listener, *out = calloc((size_t)n, sizeof(int));
	struct sockaddr_un addr;
	socklen_t len;
	int err = 0;

	if (!out)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		out[i] = fds[i] = -1;
	fds[me] = my_fd;
	listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	len = socket_name(&addr, boot->job, boot->rank);
	if (listener < 0 || bind(listener, (struct sockaddr *)&addr, len) ||
	    listen(listener, n)) {
		err = -errno;
		sc_error("memfd: PE %d cannot listen on @%s: %s", boot->rank, addr.sun_path + 1,
			 strerror(-err));
		goto out;
	}
	/* every PE of the node listens before anyone connects */
	err = sc_boot_barrier(boot);
	if (err)
		goto out;

	for (int i = 0; i < me && !err; i++) {
		out[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		len = socket_name(&addr, boot->job, node->local_pes[i]);
		if (connect(out[i], (struct sockaddr *)&addr, len))
			err = -errno;
		else
			err = send_fd_from(out[i], my_fd, boot->rank);
	}
	for (int i = me + 1; i < n && !err; i++) {
		struct ucred cred;
		socklen_t cred_len = sizeof(cred);
		int peer;

		err = wait_fd(listener, POLLIN, boot->timeout);
		if (err)
			break;
		peer = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
		if (peer < 0) {
			err = -errno;
			break;
		}
		if (getsockopt(peer, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) ||
		    cred.uid != getuid()) {
			/* not one of ours: it does not count */
			close(peer);
			i--;
			continue;
		}
		/* which PE it is comes with its fd: connections arrive in any order */
		out[i] = peer;
		err = send_fd_from(peer, my_fd, boot->rank);
	}
	for (int i = 0; i < n && !err; i++) {
		int fd, from;

		if (i == me)
			continue;
		err = recv_fd(out[i], boot->timeout, &fd, &from);
		if (err)
			break;
		if (from < 0 || from >= boot->size || node->local_index[from] < 0 ||
		    fds[node->local_index[from]] >= 0) {
			close(fd);
			err = -EPROTO;
			break;
		}
		fds[node->local_index[from]] = fd;
	}
	if (err)
		sc_error("memfd: PE %d could not exchange segments with the %d PEs of its node: %s",
			 boot->rank, n, strerror(-err));
out:
	for (int i = 0; i < n; i++)
		if (out[i] >= 0)
			close(out[i]);
	free(out);
	if (listener >= 0)
		close(listener);
	return err;
}
