#include "boot/rendezvous.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/ranks.h"

#define BOOT_MAGIC 0x53434231u	/* "SCB1" */

enum boot_type { BOOT_HELLO = 1, BOOT_DATA = 2, BOOT_ABORT = 3 };

struct boot_header {
	uint32_t magic;
	uint32_t type;
	uint32_t rank;
	uint32_t len;
};

struct boot_hello {
	uint32_t size;
	char job[64];
};

static int ms_left(double deadline)
{
	double left = deadline - sc_now();

	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* Reads exactly @len bytes before @deadline: 0, -ETIMEDOUT, -EPIPE on EOF. */
static int read_full(int fd, void *buf, size_t len, double deadline)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int ready = poll(&pfd, 1, ms_left(deadline));

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return ready ? -errno : -ETIMEDOUT;
		n = read(fd, p, len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_message(int fd, uint32_t type, int rank, const void *data, size_t len)
{
	struct boot_header h = { BOOT_MAGIC, type, (uint32_t)rank, (uint32_t)len };
	int err = write_full(fd, &h, sizeof(h));

	return err ? err : write_full(fd, data, len);
}

/*
 * Receives one message of @type into @data (@len bytes exactly). An ABORT
 * is logged with rank 0's reason and gives -ECANCELED.
 */
static int recv_message(int fd, uint32_t type, void *data, size_t len, double deadline,
			uint32_t *from)
{
	struct boot_header h;
	char reason[1024];
	int err;

	err = read_full(fd, &h, sizeof(h), deadline);
	if (err)
		return err;
	if (h.magic != BOOT_MAGIC)
		return -EPROTO;
	if (from)
		*from = h.rank;
	if (h.type == BOOT_ABORT) {
		size_t n = h.len < sizeof(reason) - 1 ? h.len : sizeof(reason) - 1;

		if (read_full(fd, reason, n, deadline))
			n = 0;
		reason[n] = '\0';
		sc_error("%s", reason);
		return -ECANCELED;
	}
	if (h.type != type || h.len != len)
		return -EPROTO;
	return read_full(fd, data, len, deadline);
}

static void abort_all(struct sc_boot *boot, const char *reason)
{
	sc_error("%s", reason);
	for (int r = 1; r < boot->size; r++)
		if (boot->fds[r] >= 0)
			send_message(boot->fds[r], BOOT_ABORT, 0, reason, strlen(reason));
}

static void abort_missing(struct sc_boot *boot, const char *what, const int *missing,
			  int n, const char *detail)
{
	char ranks[512], reason[1024];

	sc_format_ranks(missing, n, ranks, sizeof(ranks));
	snprintf(reason, sizeof(reason),
		 "rendezvous at %s (job %s): rank%s %s %s within %g s (SHMEMCOMM_TIMEOUT)%s",
		 boot->where, boot->job, n > 1 ? "s" : "", ranks, what, boot->timeout,
		 detail);
	abort_all(boot, reason);
}

static int root_accept(struct sc_boot *boot, const struct sc_launch *l)
{
	double deadline = sc_now() + boot->timeout;
	int connected = 0;
	int one = 1;
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	char port[16];
	int err;

	snprintf(port, sizeof(port), "%d", l->port);
	/* listen on every address: rank 0's host name may resolve to any of them */
	err = getaddrinfo(NULL, port, &hints, &ai);
	if (err) {
		sc_error("rendezvous: cannot resolve port %s: %s", port, gai_strerror(err));
		return -EINVAL;
	}
	boot->listen_fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	setsockopt(boot->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (boot->listen_fd < 0 || bind(boot->listen_fd, ai->ai_addr, ai->ai_addrlen) ||
	    listen(boot->listen_fd, boot->size)) {
		err = -errno;
		sc_error("rendezvous: rank 0 cannot listen on port %d: %s; another job may hold it: set SHMEMCOMM_BOOTSTRAP=host:port to a free one",
			 l->port, strerror(-err));
		freeaddrinfo(ai);
		return err;
	}
	freeaddrinfo(ai);

	while (connected < boot->size - 1) {
		struct pollfd pfd = { .fd = boot->listen_fd, .events = POLLIN };
		struct boot_hello hello;
		uint32_t rank;
		int fd, ready = poll(&pfd, 1, ms_left(deadline));

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0) {
			int missing[SC_MAX_PES], n = 0;

			for (int r = 1; r < boot->size; r++)
				if (boot->fds[r] < 0)
					missing[n++] = r;
			abort_missing(boot, "never arrived", missing, n,
				      "; did they start, and can they reach this address?");
			return -ETIMEDOUT;
		}
		fd = accept4(boot->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (recv_message(fd, BOOT_HELLO, &hello, sizeof(hello), sc_now() + 5, &rank) ||
		    strncmp(hello.job, boot->job, sizeof(hello.job))) {
			/* a stray connection, or another job that picked the same port */
			close(fd);
			continue;
		}
		if (rank == 0 || rank >= (uint32_t)boot->size || hello.size != (uint32_t)boot->size ||
		    boot->fds[rank] >= 0) {
			char reason[512];

			snprintf(reason, sizeof(reason),
				 "rendezvous at %s: a PE says it is rank %u of %u, but this job has %d ranks%s",
				 boot->where, rank, hello.size, boot->size,
				 rank < (uint32_t)boot->size && rank && boot->fds[rank] >= 0 ?
				 " and that rank is here already" : "");
			send_message(fd, BOOT_ABORT, 0, reason, strlen(reason));
			close(fd);
			abort_all(boot, reason);
			return -EINVAL;
		}
		boot->fds[rank] = fd;
		connected++;
	}
	return 0;
}

static int connect_root(struct sc_boot *boot, const struct sc_launch *l)
{
	double deadline = sc_now() + boot->timeout;
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct boot_hello hello = { .size = (uint32_t)boot->size };
	int last_err = ETIMEDOUT, one = 1;
	struct addrinfo *ai;
	char port[16];
	int err;

	snprintf(port, sizeof(port), "%d", l->port);
	err = getaddrinfo(l->host, port, &hints, &ai);
	if (err) {
		sc_error("rank %d: cannot resolve rank 0's host '%s': %s", boot->rank, l->host,
			 gai_strerror(err));
		return -EINVAL;
	}
	while (sc_now() < deadline) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		socklen_t len = sizeof(last_err);

		if (fd < 0) {
			last_err = errno;
			break;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
			last_err = errno;
		} else if (poll(&pfd, 1, ms_left(deadline)) == 1 &&
			   !getsockopt(fd, SOL_SOCKET, SO_ERROR, &last_err, &len) && !last_err) {
			fcntl(fd, F_SETFL, 0);
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			boot->root_fd = fd;
			break;
		}
		close(fd);
		/* rank 0 may not be listening yet */
		usleep(20000);
	}
	freeaddrinfo(ai);
	if (boot->root_fd < 0) {
		sc_error("rank %d: could not reach rank 0's rendezvous at %s within %g s (SHMEMCOMM_TIMEOUT): %s",
			 boot->rank, boot->where, boot->timeout, strerror(last_err));
		return -ETIMEDOUT;
	}
	memcpy(hello.job, boot->job, sizeof(hello.job));
	return send_message(boot->root_fd, BOOT_HELLO, boot->rank, &hello, sizeof(hello));
}

static void boot_reset(struct sc_boot *boot, int rank, int size, double timeout)
{
	memset(boot, 0, sizeof(*boot));
	boot->rank = rank;
	boot->size = size;
	boot->timeout = timeout;
	boot->listen_fd = -1;
	boot->root_fd = -1;
}

int sc_boot_open(struct sc_boot *boot, const struct sc_launch *l, double timeout)
{
	int err;

	boot_reset(boot, l->rank, l->size, timeout);
	snprintf(boot->where, sizeof(boot->where), "%s:%d", l->host, l->port);
	memcpy(boot->job, l->job, sizeof(boot->job));
	if (boot->size == 1)
		return 0;
	if (boot->rank) {
		err = connect_root(boot, l);
	} else {
		boot->fds = malloc(sizeof(int) * (size_t)boot->size);
		if (!boot->fds)
			return -ENOMEM;
		for (int r = 0; r < boot->size; r++)
			boot->fds[r] = -1;
		err = root_accept(boot, l);
	}
	if (err)
		sc_boot_close(boot);
	return err;
}

int sc_boot_open_external(struct sc_boot *boot, const shmemx_bootstrap_t *external,
			  double timeout)
{
	char (*jobs)[sizeof(boot->job)];
	char mine[sizeof(boot->job)] = "";
	struct timespec now;
	int err;

	boot_reset(boot, external->rank, external->size, timeout);
	boot->external = external;
	snprintf(boot->where, sizeof(boot->where), "%s",
		 external->name ? external->name : "the caller's bootstrap");
	/* unique among the jobs of this host: rank 0's pid and clock */
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(mine, sizeof(mine), "ext-%ld-%ld.%09ld", (long)getpid(), (long)now.tv_sec,
		 now.tv_nsec);
	jobs = calloc((size_t)boot->size, sizeof(*jobs));
	if (!jobs)
		return -ENOMEM;
	err = sc_boot_allgather(boot, mine, sizeof(mine), jobs);
	if (!err)
		memcpy(boot->job, jobs[0], sizeof(boot->job));
	free(jobs);
	return err;
}

static int root_allgather(struct sc_boot *boot, const void *mine, size_t len, void *all)
{
	double deadline = sc_now() + boot->timeout;
	struct pollfd pfds[SC_MAX_PES];
	int who[SC_MAX_PES];
	int pending = boot->size - 1;
	char *got = calloc((size_t)boot->size, 1);
	int err = 0;

	if (!got)
		return -ENOMEM;
	memcpy(all, mine, len);
	while (pending && !err) {
		int n = 0, ready;

		for (int r = 1; r < boot->size; r++) {
			if (got[r])
				continue;
			who[n] = r;
			pfds[n++] = (struct pollfd){ .fd = boot->fds[r], .events = POLLIN };
		}
		ready = poll(pfds, (nfds_t)n, ms_left(deadline));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0) {
			abort_missing(boot, "did not reach this step", who, n,
				      "; they are stuck or slow");
			err = -ETIMEDOUT;
			break;
		}
		for (int i = 0; i < n && !err; i++) {
			int r = who[i];

			if (!pfds[i].revents)
				continue;
			err = recv_message(boot->fds[r], BOOT_DATA, (char *)all + (size_t)r * len,
					   len, deadline, NULL);
			if (err) {
				char reason[512];

				snprintf(reason, sizeof(reason),
					 "rendezvous at %s: rank %d left the job (%s)", boot->where, r,
					 err == -EPIPE ? "its connection closed: did it exit or crash?" :
					 strerror(-err));
				close(boot->fds[r]);
				boot->fds[r] = -1;
				abort_all(boot, reason);
				break;
			}
			got[r] = 1;
			pending--;
		}
	}
	for (int r = 1; r < boot->size && !err; r++)
		err = send_message(boot->fds[r], BOOT_DATA, 0, all, len * (size_t)boot->size);
	free(got);
	return err;
}

int sc_boot_allgather(struct sc_boot *boot, const void *mine, size_t len, void *all)
{
	int err;

	if (boot->size == 1) {
		memcpy(all, mine, len);
		return 0;
	}
	if (boot->external) {
		err = boot->external->allgather(boot->external->ctx, mine, len, all);
		if (err)
			sc_error("rank %d: the allgather of %s failed (%d)", boot->rank, boot->where,
				 err);
		return err ? -EIO : 0;
	}
	if (!boot->rank)
		return root_allgather(boot, mine, len, all);

	err = send_message(boot->root_fd, BOOT_DATA, boot->rank, mine, len);
	if (!err)
		/* rank 0 waits up to the timeout for the others: allow it that, and a margin */
		err = recv_message(boot->root_fd, BOOT_DATA, all, len * (size_t)boot->size,
				   sc_now() + boot->timeout + 5, NULL);
	if (err == -EPIPE || err == -ECONNRESET)
		sc_error("rank %d: rank 0 closed the rendezvous at %s: did it exit or crash?",
			 boot->rank, boot->where);
	else if (err == -ETIMEDOUT)
		sc_error("rank %d: rank 0 did not answer at %s within %g s (SHMEMCOMM_TIMEOUT)",
			 boot->rank, boot->where, boot->timeout);
	return err;
}

int sc_boot_barrier(struct sc_boot *boot)
{
	char none[1] = { 0 };

	return sc_boot_allgather(boot, none, 0, none);
}

void sc_boot_close(struct sc_boot *boot)
{
	if (boot->fds) {
		for (int r = 1; r < boot->size; r++)
			if (boot->fds[r] >= 0)
				close(boot->fds[r]);
		free(boot->fds);
		boot->fds = NULL;
	}
	if (boot->listen_fd >= 0)
		close(boot->listen_fd);
	if (boot->root_fd >= 0)
		close(boot->root_fd);
	boot->listen_fd = boot->root_fd = -1;
}
