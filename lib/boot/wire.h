/*
 * The bootstrap's TCP connections: framed messages, and a handshake that
 * admits only processes that know a secret. The side that listens (a gate)
 * sends each connection a fresh challenge; the process answers with its
 * rank, the job's name and an HMAC-SHA-256 of the challenge under the
 * secret (boot/secret.h); the gate answers with a proof of its own, so the
 * dialler never takes data from a process that merely holds the port. A
 * connection that does not prove the secret within SC_WIRE_HANDSHAKE
 * seconds is closed and logged with its address; it never stops the job.
 * Many connections at once are served side by side, the oldest dropped
 * past SC_WIRE_PENDING. IPv4 only.
 */
#ifndef SHMEMCOMM_BOOT_WIRE_H
#define SHMEMCOMM_BOOT_WIRE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/secret.h"

#define SC_WIRE_PENDING 128	/* connections in their handshake at once */
#define SC_WIRE_HANDSHAKE 5.0	/* seconds a connection has to prove the secret */

enum sc_wire_type {
	SC_WIRE_CHALLENGE = 1,	/* the gate to a new connection: its nonce */
	SC_WIRE_HELLO,		/* the answer: rank, job, nonce, proof */
	SC_WIRE_WELCOME,	/* the gate's proof back */
	SC_WIRE_REFUSED,	/* the gate: the proof or the job was wrong, and why */
	SC_WIRE_JOIN,		/* a rank to rank 0's rendezvous: where its own gate listens */
	SC_WIRE_PARENT,		/* rank 0's answer: whom to dial in the tree */
	SC_WIRE_DATA,
	SC_WIRE_ABORT,		/* the job stops, and why */
};

/* Who this process is on the wire: for the proofs and the messages. */
struct sc_wire_self {
	int rank;
	int size;
	double timeout;		/* seconds */
	char job[64];
	char where[300];	/* the bootstrap, for messages ("127.0.0.1:2000", "PMIx ...") */
};

/* why a gate closed a connection: each kind is logged a few times, then counted */
enum sc_wire_refusal {
	SC_WIRE_PROTOCOL,	/* not our bytes */
	SC_WIRE_GONE,		/* closed in the handshake */
	SC_WIRE_SILENT,		/* nothing within SC_WIRE_HANDSHAKE */
	SC_WIRE_CUT,		/* part of a hello within it */
	SC_WIRE_WRONG_PROOF,	/* a hello without the secret, or replayed */
	SC_WIRE_OTHER_JOB,
	SC_WIRE_UNEXPECTED,	/* a rank of this job that is not to come here */
	SC_WIRE_FLOOD,		/* dropped past SC_WIRE_PENDING */
	SC_WIRE_UNFINISHED,	/* still in its handshake when the gate closed */
	SC_WIRE_REFUSALS
};

extern const char *const sc_wire_refusal_names[SC_WIRE_REFUSALS];

struct sc_wire_pending;

struct sc_gate {
	const struct sc_wire_self *self;
	const struct sc_secret *secret;	/* what diallers must prove */
	int listen_fd;
	int port;
	struct sc_wire_pending *pending;	/* [SC_WIRE_PENDING] */
	int n_pending;
	int refused[SC_WIRE_REFUSALS];
};

/* Framing: 0, or a negative errno (-EPIPE on EOF, -ETIMEDOUT, -EPROTO). */
int sc_wire_send(int fd, enum sc_wire_type type, int rank, const void *data, size_t len);
/*
 * One message of @type, exactly @len bytes. An ABORT or a REFUSED is logged
 * with its reason and gives -ECANCELED; sc_wire_abort_text() keeps the
 * reason, to be passed on as it is.
 */
int sc_wire_recv(int fd, enum sc_wire_type type, void *data, size_t len, double deadline);
const char *sc_wire_abort_text(void);
int sc_wire_read_full(int fd, void *buf, size_t len, double deadline);

/*
 * Listens on @port (0: any) on every address. @self and @secret must outlive
 * the gate. 0, or a negative errno after a message.
 */
int sc_gate_open(struct sc_gate *gate, const struct sc_wire_self *self,
		 const struct sc_secret *secret, int port);
/*
 * Serves the gate until one process proves the secret as a rank for which
 * @expected(@ctx, rank) is true; then *@fd is its connection (blocking) and
 * *@rank its rank, *@from its address. -ETIMEDOUT at @deadline. Others are
 * refused and logged.
 */
int sc_gate_admit(struct sc_gate *gate, int (*expected)(void *ctx, int rank), void *ctx,
		  double deadline, int *fd, int *rank, struct sockaddr_in *from);
/* Refuses what is still pending, says the counts, and stops listening. */
void sc_gate_close(struct sc_gate *gate);

/*
 * Connects to @host:@port, retrying until @deadline while nobody listens,
 * and proves @secret as @self's rank; checks the gate's proof back. *@fd
 * on success. -ECANCELED: refused (logged); -EACCES: the gate does not know
 * the secret (logged); -ETIMEDOUT: nobody answered (logged, naming @what).
 */
int sc_wire_dial(const struct sc_wire_self *self, const struct sc_secret *secret,
		 const char *host, int port, const char *what, double deadline, int *fd);

#endif
