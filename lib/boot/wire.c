#include "boot/wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"

#define WIRE_MAGIC 0x53434233u	/* "SCB3": the handshake with the secret, and the tree */
#define NONCE_BYTES 16
#define REFUSALS_LOGGED 3	/* of each kind; then only their count, when the gate closes */

const char *const sc_wire_refusal_names[SC_WIRE_REFUSALS] = {
	[SC_WIRE_PROTOCOL] = "what it sent is not shmemcomm's rendezvous protocol (of this version)",
	[SC_WIRE_GONE] = "it closed the connection in its handshake",
	[SC_WIRE_SILENT] = "it sent nothing within the handshake's 5 s",
	[SC_WIRE_CUT] = "its hello was cut short (the handshake's 5 s passed)",
	[SC_WIRE_WRONG_PROOF] = "its proof of the job secret is wrong",
	[SC_WIRE_OTHER_JOB] = "it is of another job",
	[SC_WIRE_UNEXPECTED] = "it is a rank that is not to come here",
	[SC_WIRE_FLOOD] = "too many connections in their handshake at once: the oldest is dropped",
	[SC_WIRE_UNFINISHED] = "it was still in its handshake when every rank had come",
};

struct header {
	uint32_t magic;
	uint32_t type;
	uint32_t rank;
	uint32_t len;
};

struct hello {
	uint32_t size;
	char job[64];
	uint8_t nonce[NONCE_BYTES];
	uint8_t proof[SC_SHA256_BYTES];
};

/* a connection in its handshake, at a gate */
struct sc_wire_pending {
	int fd;
	double deadline;
	struct sockaddr_in addr;
	char from[64];		/* "address:port" */
	uint8_t nonce[NONCE_BYTES];
	uint8_t bytes[sizeof(struct header) + sizeof(struct hello)];
	size_t got;
};

static int ms_left(double deadline)
{
	double left = deadline - sc_now();

	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

int sc_wire_read_full(int fd, void *buf, size_t len, double deadline)
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
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			poll(&pfd, 1, 1000);
			continue;
		}
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sc_wire_send(int fd, enum sc_wire_type type, int rank, const void *data, size_t len)
{
	struct header h = { WIRE_MAGIC, type, (uint32_t)rank, (uint32_t)len };
	int err = write_full(fd, &h, sizeof(h));

	return err || !len ? err : write_full(fd, data, len);
}

static int recv_header(int fd, struct header *h, double deadline)
{
	int err = sc_wire_read_full(fd, h, sizeof(*h), deadline);

	return err ? err : h->magic != WIRE_MAGIC ? -EPROTO : 0;
}

static char last_abort[1024];

const char *sc_wire_abort_text(void)
{
	return last_abort;
}

int sc_wire_recv(int fd, enum sc_wire_type type, void *data, size_t len, double deadline)
{
	struct header h;
	char reason[1024];
	int err = recv_header(fd, &h, deadline);

	if (err)
		return err;
	if (h.type == SC_WIRE_ABORT || h.type == SC_WIRE_REFUSED) {
		size_t n = h.len < sizeof(reason) - 1 ? h.len : sizeof(reason) - 1;

		if (sc_wire_read_full(fd, reason, n, deadline))
			n = 0;
		reason[n] = '\0';
		sc_error("%s", reason);
		memcpy(last_abort, reason, n + 1);
		return -ECANCELED;
	}
	if (h.type != type || h.len != len)
		return -EPROTO;
	return sc_wire_read_full(fd, data, len, deadline);
}

/* the proofs: each side's MAC covers both nonces, the rank and the job */
static void prove(const struct sc_secret *secret, const char *job, const char *role,
		  const uint8_t *first_nonce, const uint8_t *second_nonce, uint32_t rank,
		  uint32_t size, uint8_t proof[SC_SHA256_BYTES])
{
	uint8_t numbers[8];
	const void *parts[5] = { role, first_nonce, second_nonce, numbers, job };
	size_t lens[5] = { strlen(role) + 1, NONCE_BYTES, NONCE_BYTES, sizeof(numbers), 64 };

	for (int i = 0; i < 4; i++) {
		numbers[i] = (uint8_t)(rank >> (8 * i));
		numbers[4 + i] = (uint8_t)(size >> (8 * i));
	}
	sc_hmac_sha256(secret->key, sizeof(secret->key), parts, lens, 5, proof);
}

/* Closes a connection that did not get in, and says so: the first few of each kind, then a count. */
static void refuse(struct sc_gate *gate, struct sc_wire_pending *p, enum sc_wire_refusal kind,
		   const char *detail, int tell)
{
	const char *why = detail ? detail : sc_wire_refusal_names[kind];
	char text[1200];

	if (tell) {
		snprintf(text, sizeof(text), "rendezvous at %s (job %s) refused this process: %s",
			 gate->self->where, gate->self->job, why);
		sc_wire_send(p->fd, SC_WIRE_REFUSED, 0, text, strlen(text));
	}
	if (++gate->refused[kind] <= REFUSALS_LOGGED)
		sc_log(SC_LOG_WARN, "rendezvous at %s: refused a connection from %s: %s%s",
		       gate->self->where, p->from, why,
		       gate->refused[kind] == REFUSALS_LOGGED ? " (more of these only counted)" : "");
	close(p->fd);
	p->fd = -1;
}

int sc_gate_open(struct sc_gate *gate, const struct sc_wire_self *self,
		 const struct sc_secret *secret, int port)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				    .sin_addr.s_addr = htonl(INADDR_ANY) };
	socklen_t len = sizeof(addr);
	int one = 1, err;

	memset(gate, 0, sizeof(*gate));
	gate->self = self;
	gate->secret = secret;
	gate->pending = calloc(SC_WIRE_PENDING, sizeof(*gate->pending));
	/* listen on every address: this host's name may resolve to any of them */
	gate->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (!gate->pending || gate->listen_fd < 0 ||
	    setsockopt(gate->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(gate->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(gate->listen_fd, SOMAXCONN) ||
	    getsockname(gate->listen_fd, (struct sockaddr *)&addr, &len)) {
		err = gate->pending ? -errno : -ENOMEM;
		if (port)
			sc_error("rendezvous: rank %d cannot listen on port %d: %s; another job may hold it: set SHMEMCOMM_BOOTSTRAP=host:port to a free one",
				 self->rank, port, strerror(-err));
		else
			sc_error("bootstrap: rank %d cannot listen for the ranks it serves: %s",
				 self->rank, strerror(-err));
		if (gate->listen_fd >= 0)
			close(gate->listen_fd);
		free(gate->pending);
		gate->pending = NULL;
		gate->listen_fd = -1;
		return err;
	}
	gate->port = ntohs(addr.sin_port);
	return 0;
}

static void start_pending(struct sc_gate *gate, struct sc_wire_pending *p, int fd,
			  const struct sockaddr_in *addr)
{
	char ip[INET_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET, &addr->sin_addr, ip, sizeof(ip));
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->addr = *addr;
	p->deadline = sc_now() + SC_WIRE_HANDSHAKE;
	snprintf(p->from, sizeof(p->from), "%s:%u", ip, ntohs(addr->sin_port));
	if (getrandom(p->nonce, sizeof(p->nonce), 0) != sizeof(p->nonce) ||
	    sc_wire_send(fd, SC_WIRE_CHALLENGE, 0, p->nonce, sizeof(p->nonce)))
		refuse(gate, p, SC_WIRE_GONE, NULL, 0);
}

/* The hello is complete in @p: its rank when it gets in, else -1 (refused). */
static int finish_hello(struct sc_gate *gate, struct sc_wire_pending *p,
			int (*expected)(void *ctx, int rank), void *ctx)
{
	const struct sc_wire_self *self = gate->self;
	struct header h;
	struct hello hello;
	uint8_t proof[SC_SHA256_BYTES];
	char why[768];

	memcpy(&h, p->bytes, sizeof(h));
	memcpy(&hello, p->bytes + sizeof(h), sizeof(hello));
	if (h.type != SC_WIRE_HELLO || h.len != sizeof(hello)) {
		refuse(gate, p, SC_WIRE_PROTOCOL, NULL, 0);
		return -1;
	}
	if (strncmp(hello.job, self->job, sizeof(hello.job))) {
		snprintf(why, sizeof(why), "it is of job %.64s, and this is job %s's rendezvous",
			 hello.job, self->job);
		refuse(gate, p, SC_WIRE_OTHER_JOB, why, 1);
		return -1;
	}
	prove(gate->secret, self->job, "hello", p->nonce, hello.nonce, h.rank, hello.size, proof);
	if (!sc_equal_secret(proof, hello.proof, sizeof(proof))) {
		snprintf(why, sizeof(why),
			 "its proof of the job secret is wrong: does every rank have the same secret (here from %s)?",
			 gate->secret->source);
		refuse(gate, p, SC_WIRE_WRONG_PROOF, why, 1);
		return -1;
	}
	if (hello.size != (uint32_t)self->size || h.rank >= (uint32_t)self->size ||
	    !expected(ctx, (int)h.rank)) {
		snprintf(why, sizeof(why),
			 "it says it is rank %u of %u, and rank %d of this job of %d ranks expects no such rank now (here already, or not to come here)",
			 h.rank, hello.size, self->rank, self->size);
		refuse(gate, p, SC_WIRE_UNEXPECTED, why, 1);
		return -1;
	}
	prove(gate->secret, self->job, "welcome", hello.nonce, p->nonce, h.rank, hello.size, proof);
	if (sc_wire_send(p->fd, SC_WIRE_WELCOME, 0, proof, sizeof(proof))) {
		refuse(gate, p, SC_WIRE_GONE, NULL, 0);
		return -1;
	}
	return (int)h.rank;
}

/* Reads what a pending connection sent: its rank when it got in, else -1. */
static int read_hello(struct sc_gate *gate, struct sc_wire_pending *p,
		      int (*expected)(void *ctx, int rank), void *ctx)
{
	ssize_t n = read(p->fd, p->bytes + p->got, sizeof(p->bytes) - p->got);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -1;
	if (n <= 0) {
		refuse(gate, p, SC_WIRE_GONE, NULL, 0);
		return -1;
	}
	p->got += (size_t)n;
	if (p->got < sizeof(struct header))
		return -1;
	if (((struct header *)p->bytes)->magic != WIRE_MAGIC) {
		refuse(gate, p, SC_WIRE_PROTOCOL, NULL, 0);
		return -1;
	}
	return p->got == sizeof(p->bytes) ? finish_hello(gate, p, expected, ctx) : -1;
}

static void accept_one(struct sc_gate *gate)
{
	struct sockaddr_in addr;
	socklen_t addr_len = sizeof(addr);
	int one = 1, fd = accept4(gate->listen_fd, (struct sockaddr *)&addr, &addr_len,
				  SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (gate->n_pending == SC_WIRE_PENDING) {
		/* full: the oldest has had the longest to answer */
		refuse(gate, &gate->pending[0], SC_WIRE_FLOOD, NULL, 0);
		memmove(gate->pending, gate->pending + 1,
			sizeof(*gate->pending) * (SC_WIRE_PENDING - 1));
		gate->n_pending--;
	}
	start_pending(gate, &gate->pending[gate->n_pending], fd, &addr);
	if (gate->pending[gate->n_pending].fd >= 0)
		gate->n_pending++;
}

int sc_gate_admit(struct sc_gate *gate, int (*expected)(void *ctx, int rank), void *ctx,
		  double deadline, int *fd, int *rank, struct sockaddr_in *from)
{
	struct pollfd pfds[SC_WIRE_PENDING + 1];

	for (;;) {
		double now, wake = deadline;
		int ready, kept = 0, admitted = -1;

		pfds[0] = (struct pollfd){ .fd = gate->listen_fd, .events = POLLIN };
		for (int i = 0; i < gate->n_pending; i++) {
			pfds[i + 1] = (struct pollfd){ .fd = gate->pending[i].fd, .events = POLLIN };
			if (gate->pending[i].deadline < wake)
				wake = gate->pending[i].deadline;
		}
		ready = poll(pfds, (nfds_t)gate->n_pending + 1, ms_left(wake));
		if (ready < 0 && errno != EINTR)
			return -errno;
		now = sc_now();
		for (int i = 0; i < gate->n_pending; i++) {
			struct sc_wire_pending *p = &gate->pending[i];

			if (admitted < 0 && pfds[i + 1].revents) {
				int got = read_hello(gate, p, expected, ctx);

				if (got >= 0) {
					admitted = got;
					*fd = p->fd;
					*rank = got;
					if (from)
						*from = p->addr;
					p->fd = -1;
				}
			} else if (now >= p->deadline) {
				refuse(gate, p, p->got ? SC_WIRE_CUT : SC_WIRE_SILENT, NULL, 0);
			}
			if (p->fd >= 0)
				gate->pending[kept++] = *p;
		}
		gate->n_pending = kept;
		if (admitted >= 0) {
			fcntl(*fd, F_SETFL, 0);
			return 0;
		}
		if (pfds[0].revents & POLLIN)
			accept_one(gate);
		if (now >= deadline)
			return -ETIMEDOUT;
	}
}

void sc_gate_close(struct sc_gate *gate)
{
	if (!gate->pending)
		return;
	for (int i = 0; i < gate->n_pending; i++)
		if (gate->pending[i].fd >= 0)
			refuse(gate, &gate->pending[i], SC_WIRE_UNFINISHED, NULL, 0);
	for (int kind = 0; kind < SC_WIRE_REFUSALS; kind++)
		if (gate->refused[kind] > REFUSALS_LOGGED)
			sc_log(SC_LOG_WARN, "rendezvous at %s: refused %d connections in all: %s",
			       gate->self->where, gate->refused[kind], sc_wire_refusal_names[kind]);
	free(gate->pending);
	gate->pending = NULL;
	gate->n_pending = 0;
	if (gate->listen_fd >= 0)
		close(gate->listen_fd);
	gate->listen_fd = -1;
}

/* One attempt on a connected @fd: 0 when in, -EAGAIN to try again (dropped without a word). */
static int handshake(const struct sc_wire_self *self, const struct sc_secret *secret, int fd,
		     const char *where, double deadline)
{
	struct hello hello = { .size = (uint32_t)self->size };
	uint8_t challenge[NONCE_BYTES], proof[SC_SHA256_BYTES], expected[SC_SHA256_BYTES];
	int err;

	memcpy(hello.job, self->job, sizeof(hello.job));
	err = sc_wire_recv(fd, SC_WIRE_CHALLENGE, challenge, sizeof(challenge), deadline);
	if (err == -EPROTO) {
		sc_error("rank %d: the process listening at %s is not a shmemcomm rendezvous of this version; another program holds the port?",
			 self->rank, where);
		return err;
	}
	if (err)
		return err == -ECANCELED || err == -ETIMEDOUT ? err : -EAGAIN;
	if (getrandom(hello.nonce, sizeof(hello.nonce), 0) != sizeof(hello.nonce))
		return -EIO;
	prove(secret, self->job, "hello", challenge, hello.nonce, (uint32_t)self->rank, hello.size,
	      hello.proof);
	if (sc_wire_send(fd, SC_WIRE_HELLO, self->rank, &hello, sizeof(hello)))
		return -EAGAIN;
	err = sc_wire_recv(fd, SC_WIRE_WELCOME, proof, sizeof(proof), deadline);
	if (err == -EPIPE || err == -ECONNRESET)
		return -EAGAIN;	/* dropped while the gate was flooded: try again */
	if (err)
		return err;
	prove(secret, self->job, "welcome", hello.nonce, challenge, (uint32_t)self->rank,
	      hello.size, expected);
	if (!sc_equal_secret(proof, expected, sizeof(proof))) {
		sc_error("rank %d: the process at %s does not know this job's secret (%s): it is not of this job; another program holds the port?",
			 self->rank, where, secret->source);
		return -EACCES;
	}
	return 0;
}

int sc_wire_dial(const struct sc_wire_self *self, const struct sc_secret *secret,
		 const char *host, int port, const char *what, double deadline, int *fd_out)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	int last_err = ETIMEDOUT, one = 1, err;
	struct addrinfo *ai;
	char service[16], where[300];

	snprintf(service, sizeof(service), "%d", port);
	snprintf(where, sizeof(where), "%s:%d", host, port);
	err = getaddrinfo(host, service, &hints, &ai);
	if (err) {
		sc_error("rank %d: cannot resolve %s's host '%s': %s", self->rank, what, host,
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
			err = handshake(self, secret, fd, where, deadline);
			if (!err) {
				*fd_out = fd;
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
		/* the gate may not be listening yet */
		usleep(20000);
	}
	freeaddrinfo(ai);
	if (err == -ETIMEDOUT)
		sc_error("rank %d: could not reach %s at %s within %g s (SHMEMCOMM_TIMEOUT): %s",
			 self->rank, what, where, self->timeout, strerror(last_err));
	return err;
}
