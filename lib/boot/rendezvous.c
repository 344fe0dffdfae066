#include "boot/rendezvous.h"

#include <arpa/inet.h>
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
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/ranks.h"

const char *const sc_tcp_refusal_names[SC_TCP_REFUSALS] = {
	[SC_TCP_PROTOCOL] = "what it sent is not shmemcomm's rendezvous protocol (of this version)",
	[SC_TCP_GONE] = "it closed the connection in its handshake",
	[SC_TCP_SILENT] = "it sent nothing within the handshake's 5 s",
	[SC_TCP_CUT] = "its hello was cut short (the handshake's 5 s passed)",
	[SC_TCP_WRONG_PROOF] = "its proof of the job secret is wrong",
	[SC_TCP_OTHER_JOB] = "it is of another job",
	[SC_TCP_FLOOD] = "too many connections in their handshake at once: the oldest is dropped",
	[SC_TCP_UNFINISHED] = "it was still in its handshake when every rank had come",
};

#define BOOT_MAGIC 0x53434232u	/* "SCB2": the handshake with the secret */
#define NONCE_BYTES 16
#define REFUSALS_LOGGED 3	/* of each kind; then only their count, at the end */

enum boot_type {
	BOOT_CHALLENGE = 1,	/* rank 0 to a new connection: its nonce */
	BOOT_HELLO = 2,		/* the answer: rank, job, nonce, proof */
	BOOT_WELCOME = 3,	/* rank 0's proof back */
	BOOT_REFUSED = 4,	/* rank 0: the proof or the job was wrong, and why */
	BOOT_DATA = 5,
	BOOT_ABORT = 6,		/* rank 0 gives up, and why */
};

struct boot_header {
	uint32_t magic;
	uint32_t type;
	uint32_t rank;
	uint32_t len;
};

struct boot_hello {
	uint32_t size;
	char job[64];
	uint8_t nonce[NONCE_BYTES];
	uint8_t proof[SC_SHA256_BYTES];
};

/* a connection in its handshake, at rank 0 */
struct pending {
	int fd;
	double deadline;
	char from[64];		/* "address:port" */
	uint8_t nonce[NONCE_BYTES];
	uint8_t bytes[sizeof(struct boot_header) + sizeof(struct boot_hello)];
	size_t got;
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
 * or a REFUSED is logged with rank 0's reason and gives -ECANCELED.
 */
static int recv_message(int fd, uint32_t type, void *data, size_t len, double deadline)
{
	struct boot_header h;
	char reason[1024];
	int err;

	err = read_full(fd, &h, sizeof(h), deadline);
	if (err)
		return err;
	if (h.magic != BOOT_MAGIC)
		return -EPROTO;
	if (h.type == BOOT_ABORT || h.type == BOOT_REFUSED) {
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

/* the proofs: each side's MAC covers both nonces, the rank and the job */
static void prove(const struct sc_tcp *tcp, const char *role, const uint8_t *first_nonce,
		  const uint8_t *second_nonce, uint32_t rank, uint32_t size,
		  uint8_t proof[SC_SHA256_BYTES])
{
	uint8_t numbers[8];
	const void *parts[5] = { role, first_nonce, second_nonce, numbers, tcp->job };
	size_t lens[5] = { strlen(role) + 1, NONCE_BYTES, NONCE_BYTES, sizeof(numbers),
			   sizeof(tcp->job) };

	for (int i = 0; i < 4; i++) {
		numbers[i] = (uint8_t)(rank >> (8 * i));
		numbers[4 + i] = (uint8_t)(size >> (8 * i));
	}
	sc_hmac_sha256(tcp->secret.key, sizeof(tcp->secret.key), parts, lens, 5, proof);
}

static void abort_all(struct sc_tcp *tcp, const char *reason)
{
	sc_error("%s", reason);
	for (int r = 1; r < tcp->size; r++)
		if (tcp->fds[r] >= 0)
			send_message(tcp->fds[r], BOOT_ABORT, 0, reason, strlen(reason));
}

static void abort_missing(struct sc_tcp *tcp, const char *what, const int *missing, int n,
			  const char *detail)
{
	char ranks[512], reason[1024];

	sc_format_ranks(missing, n, ranks, sizeof(ranks));
	snprintf(reason, sizeof(reason),
		 "rendezvous at %s (job %s): rank%s %s %s within %g s (SHMEMCOMM_TIMEOUT)%s",
		 tcp->where, tcp->job, n > 1 ? "s" : "", ranks, what, tcp->timeout, detail);
	abort_all(tcp, reason);
}

/* Closes a connection that did not get in, and says so: the first few of each kind, then a count. */
static void refuse(struct sc_tcp *tcp, struct pending *p, enum sc_tcp_refusal kind,
		   const char *detail, int tell)
{
	const char *why = detail ? detail : sc_tcp_refusal_names[kind];
	char text[1200];

	if (tell) {
		snprintf(text, sizeof(text), "rendezvous at %s (job %s) refused this process: %s",
			 tcp->where, tcp->job, why);
		send_message(p->fd, BOOT_REFUSED, 0, text, strlen(text));
	}
	if (++tcp->refused[kind] <= REFUSALS_LOGGED)
		sc_log(SC_LOG_WARN, "rendezvous at %s: refused a connection from %s: %s%s",
		       tcp->where, p->from, why,
		       tcp->refused[kind] == REFUSALS_LOGGED ? " (more of these only counted)" : "");
	close(p->fd);
	p->fd = -1;
}

/* the count of each kind of refusal past the ones logged */
static void say_refusals(struct sc_tcp *tcp)
{
	for (int kind = 0; kind < SC_TCP_REFUSALS; kind++)
		if (tcp->refused[kind] > REFUSALS_LOGGED)
			sc_log(SC_LOG_WARN, "rendezvous at %s: refused %d connections in all: %s",
			       tcp->where, tcp->refused[kind], sc_tcp_refusal_names[kind]);
}

static void start_pending(struct sc_tcp *tcp, struct pending *p, int fd,
			  const struct sockaddr_in *addr)
{
	char ip[INET_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET, &addr->sin_addr, ip, sizeof(ip));
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->deadline = sc_now() + SC_TCP_HANDSHAKE;
	snprintf(p->from, sizeof(p->from), "%s:%u", ip, ntohs(addr->sin_port));
	if (getrandom(p->nonce, sizeof(p->nonce), 0) != sizeof(p->nonce) ||
	    send_message(fd, BOOT_CHALLENGE, 0, p->nonce, sizeof(p->nonce)))
		refuse(tcp, p, SC_TCP_GONE, NULL, 0);
}

/*
 * The hello is complete in @p: 1 if it made a rank of this job, 0 if the
 * connection was refused, -1 if the job must stop (a rank of this job, with
 * the secret, that does not fit: rank 0 aborts as before).
 */
static int finish_hello(struct sc_tcp *tcp, struct pending *p)
{
	struct boot_header h;
	struct boot_hello hello;
	uint8_t proof[SC_SHA256_BYTES];
	char why[768];

	memcpy(&h, p->bytes, sizeof(h));
	memcpy(&hello, p->bytes + sizeof(h), sizeof(hello));
	if (h.magic != BOOT_MAGIC || h.type != BOOT_HELLO || h.len != sizeof(hello)) {
		refuse(tcp, p, SC_TCP_PROTOCOL, NULL, 0);
		return 0;
	}
	if (strncmp(hello.job, tcp->job, sizeof(hello.job))) {
		snprintf(why, sizeof(why), "it is of job %.64s, and this is job %s's rendezvous",
			 hello.job, tcp->job);
		refuse(tcp, p, SC_TCP_OTHER_JOB, why, 1);
		return 0;
	}
	prove(tcp, "hello", p->nonce, hello.nonce, h.rank, hello.size, proof);
	if (!sc_equal_secret(proof, hello.proof, sizeof(proof))) {
		snprintf(why, sizeof(why),
			 "its proof of the job secret is wrong: does every rank have the same secret (here from %s)?",
			 tcp->secret.source);
		refuse(tcp, p, SC_TCP_WRONG_PROOF, why, 1);
		return 0;
	}
	if (!h.rank || h.rank >= (uint32_t)tcp->size || hello.size != (uint32_t)tcp->size ||
	    tcp->fds[h.rank] >= 0) {
		snprintf(why, sizeof(why),
			 "rendezvous at %s: a PE says it is rank %u of %u, but this job has %d ranks%s",
			 tcp->where, h.rank, hello.size, tcp->size,
			 h.rank < (uint32_t)tcp->size && h.rank && tcp->fds[h.rank] >= 0 ?
			 " and that rank is here already" : "");
		send_message(p->fd, BOOT_ABORT, 0, why, strlen(why));
		close(p->fd);
		p->fd = -1;
		abort_all(tcp, why);
		return -1;
	}
	prove(tcp, "welcome", hello.nonce, p->nonce, h.rank, hello.size, proof);
	if (send_message(p->fd, BOOT_WELCOME, 0, proof, sizeof(proof))) {
		refuse(tcp, p, SC_TCP_GONE, NULL, 0);
		return 0;
	}
	fcntl(p->fd, F_SETFL, 0);
	tcp->fds[h.rank] = p->fd;
	p->fd = -1;
	return 1;
}

/* Reads what a pending connection sent: as finish_hello, or 0 while it is not complete. */
static int read_hello(struct sc_tcp *tcp, struct pending *p)
{
	ssize_t n = read(p->fd, p->bytes + p->got, sizeof(p->bytes) - p->got);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		refuse(tcp, p, SC_TCP_GONE, NULL, 0);
		return 0;
	}
	p->got += (size_t)n;
	if (p->got < sizeof(struct boot_header))
		return 0;
	if (((struct boot_header *)p->bytes)->magic != BOOT_MAGIC) {
		refuse(tcp, p, SC_TCP_PROTOCOL, NULL, 0);
		return 0;
	}
	return p->got == sizeof(p->bytes) ? finish_hello(tcp, p) : 0;
}

static int listen_on(struct sc_tcp *tcp, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	char service[16];
	int one = 1, err;

	snprintf(service, sizeof(service), "%d", port);
	/* listen on every address: rank 0's host name may resolve to any of them */
	err = getaddrinfo(NULL, service, &hints, &ai);
	if (err) {
		sc_error("rendezvous: cannot resolve port %s: %s", service, gai_strerror(err));
		return -EINVAL;
	}
	tcp->listen_fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (tcp->listen_fd < 0 ||
	    setsockopt(tcp->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(tcp->listen_fd, ai->ai_addr, ai->ai_addrlen) ||
	    listen(tcp->listen_fd, SOMAXCONN)) {
		err = -errno;
		sc_error("rendezvous: rank 0 cannot listen on port %d: %s; another job may hold it: set SHMEMCOMM_BOOTSTRAP=host:port to a free one",
			 port, strerror(-err));
		freeaddrinfo(ai);
		return err;
	}
	freeaddrinfo(ai);
	return 0;
}

static void accept_one(struct sc_tcp *tcp, struct pending *pending, int *n_pending)
{
	struct sockaddr_in addr;
	socklen_t addr_len = sizeof(addr);
	int one = 1, fd = accept4(tcp->listen_fd, (struct sockaddr *)&addr, &addr_len,
				  SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (*n_pending == SC_TCP_PENDING) {
		/* full: the oldest has had the longest to answer */
		refuse(tcp, &pending[0], SC_TCP_FLOOD, NULL, 0);
		memmove(pending, pending + 1, sizeof(*pending) * (SC_TCP_PENDING - 1));
		(*n_pending)--;
	}
	start_pending(tcp, &pending[*n_pending], fd, &addr);
	if (pending[*n_pending].fd >= 0)
		(*n_pending)++;
}

static int root_accept(struct sc_tcp *tcp, int port)
{
	double deadline = sc_now() + tcp->timeout;
	struct pending *pending = calloc(SC_TCP_PENDING, sizeof(*pending));
	struct pollfd *pfds = calloc(SC_TCP_PENDING + 1, sizeof(*pfds));
	int connected = 0, n_pending = 0, err;

	err = pending && pfds ? listen_on(tcp, port) : -ENOMEM;
	while (!err && connected < tcp->size - 1) {
		double now = sc_now(), wake = deadline;
		int ready, kept = 0;

		pfds[0] = (struct pollfd){ .fd = tcp->listen_fd, .events = POLLIN };
		for (int i = 0; i < n_pending; i++) {
			pfds[i + 1] = (struct pollfd){ .fd = pending[i].fd, .events = POLLIN };
			if (pending[i].deadline < wake)
				wake = pending[i].deadline;
		}
		ready = poll(pfds, (nfds_t)n_pending + 1, ms_left(wake));
		if (ready < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		now = sc_now();
		for (int i = 0; i < n_pending; i++) {
			struct pending *p = &pending[i];
			int made = 0;

			if (pfds[i + 1].revents)
				made = read_hello(tcp, p);
			else if (now >= p->deadline)
				refuse(tcp, p, p->got ? SC_TCP_CUT : SC_TCP_SILENT, NULL, 0);
			if (made < 0) {
				err = -EINVAL;
				break;
			}
			connected += made;
			if (p->fd >= 0)
				pending[kept++] = *p;
		}
		n_pending = err ? n_pending : kept;
		if (!err && (pfds[0].revents & POLLIN))
			accept_one(tcp, pending, &n_pending);
		if (!err && connected < tcp->size - 1 && now >= deadline) {
			int *missing = malloc(sizeof(int) * (size_t)tcp->size), n = 0;

			for (int r = 1; missing && r < tcp->size; r++)
				if (tcp->fds[r] < 0)
					missing[n++] = r;
			abort_missing(tcp, "never arrived", missing, n,
				      "; did they start, and can they reach this address?");
			free(missing);
			err = -ETIMEDOUT;
		}
	}
	for (int i = 0; pending && i < n_pending; i++)
		if (pending[i].fd >= 0)
			refuse(tcp, &pending[i], SC_TCP_UNFINISHED, NULL, 0);
	say_refusals(tcp);
	free(pending);
	free(pfds);
	/* nobody else joins: the port is free again for the next job */
	if (tcp->listen_fd >= 0)
		close(tcp->listen_fd);
	tcp->listen_fd = -1;
	return err;
}

/* One attempt: 0 when in, -EAGAIN to try again (refused or dropped without a word), or fatal. */
static int handshake(struct sc_tcp *tcp, int fd, double deadline)
{
	struct boot_hello hello = { .size = (uint32_t)tcp->size };
	uint8_t challenge[NONCE_BYTES], proof[SC_SHA256_BYTES], expected[SC_SHA256_BYTES];
	int err;

	memcpy(hello.job, tcp->job, sizeof(hello.job));
	err = recv_message(fd, BOOT_CHALLENGE, challenge, sizeof(challenge), deadline);
	if (err == -EPROTO) {
		sc_error("rank %d: the process listening at %s is not a shmemcomm rendezvous of this version; another program holds the port?",
			 tcp->rank, tcp->where);
		return err;
	}
	if (err)
		return err == -ECANCELED || err == -ETIMEDOUT ? err : -EAGAIN;
	if (getrandom(hello.nonce, sizeof(hello.nonce), 0) != sizeof(hello.nonce))
		return -EIO;
	prove(tcp, "hello", challenge, hello.nonce, (uint32_t)tcp->rank, hello.size, hello.proof);
	if (send_message(fd, BOOT_HELLO, tcp->rank, &hello, sizeof(hello)))
		return -EAGAIN;
	err = recv_message(fd, BOOT_WELCOME, proof, sizeof(proof), deadline);
	if (err == -EPIPE || err == -ECONNRESET)
		return -EAGAIN;	/* dropped while rank 0 was flooded: try again */
	if (err)
		return err;
	prove(tcp, "welcome", hello.nonce, challenge, (uint32_t)tcp->rank, hello.size, expected);
	if (!sc_equal_secret(proof, expected, sizeof(proof))) {
		sc_error("rank %d: the process at %s does not know this job's secret (%s): it is not this job's rank 0; another program holds the port?",
			 tcp->rank, tcp->where, tcp->secret.source);
		return -EACCES;
	}
	return 0;
}

static int connect_root(struct sc_tcp *tcp, const struct sc_launch *l)
{
	double deadline = sc_now() + tcp->timeout;
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	int last_err = ETIMEDOUT, one = 1, err = -ETIMEDOUT;
	struct addrinfo *ai;
	char port[16];

	snprintf(port, sizeof(port), "%d", l->port);
	err = getaddrinfo(l->host, port, &hints, &ai);
	if (err) {
		sc_error("rank %d: cannot resolve rank 0's host '%s': %s", tcp->rank, l->host,
			 gai_strerror(err));
		return -EINVAL;
	}
	err = -ETIMEDOUT;
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
			err = handshake(tcp, fd, deadline);
			if (!err) {
				tcp->root_fd = fd;
				break;
			}
			if (err != -EAGAIN) {
				close(fd);
				break;
			}
			last_err = ECONNRESET;
			err = -ETIMEDOUT;
		}
		close(fd);
		/* rank 0 may not be listening yet */
		usleep(20000);
	}
	freeaddrinfo(ai);
	if (err == -ETIMEDOUT)
		sc_error("rank %d: could not reach rank 0's rendezvous at %s within %g s (SHMEMCOMM_TIMEOUT): %s",
			 tcp->rank, tcp->where, tcp->timeout, strerror(last_err));
	return err;
}

int sc_tcp_open(struct sc_tcp *tcp, const struct sc_launch *l, double timeout)
{
	int err;

	memset(tcp, 0, sizeof(*tcp));
	tcp->rank = l->rank;
	tcp->size = l->size;
	tcp->timeout = timeout;
	tcp->listen_fd = -1;
	tcp->root_fd = -1;
	snprintf(tcp->where, sizeof(tcp->where), "%s:%d", l->host, l->port);
	memcpy(tcp->job, l->job, sizeof(tcp->job));
	if (tcp->size == 1)
		return 0;
	err = sc_secret_find(&tcp->secret);
	if (err)
		return err;
	if (tcp->rank) {
		err = connect_root(tcp, l);
	} else {
		tcp->fds = malloc(sizeof(int) * (size_t)tcp->size);
		if (!tcp->fds)
			return -ENOMEM;
		for (int r = 0; r < tcp->size; r++)
			tcp->fds[r] = -1;
		err = root_accept(tcp, l->port);
	}
	if (err)
		sc_tcp_close(tcp);
	return err;
}

static int root_allgather(struct sc_tcp *tcp, const void *mine, size_t len, void *all)
{
	double deadline = sc_now() + tcp->timeout;
	struct pollfd *pfds = calloc((size_t)tcp->size, sizeof(*pfds));
	int *who = calloc((size_t)tcp->size, sizeof(int));
	char *got = calloc((size_t)tcp->size, 1);
	int pending = tcp->size - 1;
	int err = pfds && who && got ? 0 : -ENOMEM;

	if (!err)
		memcpy(all, mine, len);
	while (pending && !err) {
		int n = 0, ready;

		for (int r = 1; r < tcp->size; r++) {
			if (got[r])
				continue;
			who[n] = r;
			pfds[n++] = (struct pollfd){ .fd = tcp->fds[r], .events = POLLIN };
		}
		ready = poll(pfds, (nfds_t)n, ms_left(deadline));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0) {
			abort_missing(tcp, "did not reach this step", who, n,
				      "; they are stuck or slow");
			err = -ETIMEDOUT;
			break;
		}
		for (int i = 0; i < n && !err; i++) {
			int r = who[i];

			if (!pfds[i].revents)
				continue;
			err = recv_message(tcp->fds[r], BOOT_DATA, (char *)all + (size_t)r * len,
					   len, deadline);
			if (err) {
				char reason[512];

				snprintf(reason, sizeof(reason),
					 "rendezvous at %s: rank %d left the job (%s)", tcp->where, r,
					 err == -EPIPE ? "its connection closed: did it exit or crash?" :
					 strerror(-err));
				close(tcp->fds[r]);
				tcp->fds[r] = -1;
				abort_all(tcp, reason);
				break;
			}
			got[r] = 1;
			pending--;
		}
	}
	for (int r = 1; r < tcp->size && !err; r++)
		err = send_message(tcp->fds[r], BOOT_DATA, 0, all, len * (size_t)tcp->size);
	free(pfds);
	free(who);
	free(got);
	return err;
}

int sc_tcp_allgather(struct sc_tcp *tcp, const void *mine, size_t len, void *all)
{
	int err;

	if (tcp->size == 1) {
		memcpy(all, mine, len);
		return 0;
	}
	if (!tcp->rank)
		return root_allgather(tcp, mine, len, all);

	err = send_message(tcp->root_fd, BOOT_DATA, tcp->rank, mine, len);
	if (!err)
		/* rank 0 waits up to the timeout for the others: allow it that, and a margin */
		err = recv_message(tcp->root_fd, BOOT_DATA, all, len * (size_t)tcp->size,
				   sc_now() + tcp->timeout + 5);
	if (err == -EPIPE || err == -ECONNRESET)
		sc_error("rank %d: rank 0 closed the rendezvous at %s: did it exit or crash?",
			 tcp->rank, tcp->where);
	else if (err == -ETIMEDOUT)
		sc_error("rank %d: rank 0 did not answer at %s within %g s (SHMEMCOMM_TIMEOUT)",
			 tcp->rank, tcp->where, tcp->timeout);
	return err;
}

void sc_tcp_close(struct sc_tcp *tcp)
{
	if (tcp->fds) {
		for (int r = 1; r < tcp->size; r++)
			if (tcp->fds[r] >= 0)
				close(tcp->fds[r]);
		free(tcp->fds);
		tcp->fds = NULL;
	}
	if (tcp->listen_fd >= 0)
		close(tcp->listen_fd);
	if (tcp->root_fd >= 0)
		close(tcp->root_fd);
	tcp->listen_fd = tcp->root_fd = -1;
}
