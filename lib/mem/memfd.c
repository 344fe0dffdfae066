/*
 * Passing memfds between the PEs of a node: each PE listens on an abstract
 * unix socket named after the job and its rank, connects to every lower
 * local rank and accepts every higher one, sends its fd over each accepted
 * connection (SCM_RIGHTS) and receives over each it made. Connections from
 * another uid are refused. The ordering needs no threads and cannot
 * deadlock: connects complete into the listen backlog.
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

static int send_fd(int sock, int fd)
{
	char byte = 'f', control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

static int recv_fd(int sock, double timeout, int *fd)
{
	char byte, control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	int err = wait_fd(sock, POLLIN, timeout);

	if (err)
		return err;
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
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
		err = send_fd(peer, my_fd);
		close(peer);
	}
	for (int i = 0; i < me && !err; i++)
		err = recv_fd(out[i], boot->timeout, &fds[i]);
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
