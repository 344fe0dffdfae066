/*
 * The TCP rendezvous: a star of connections to rank 0, for the launchers
 * that give no key-value exchange of their own (shmemrun, torchrun's
 * variables, mpirun's or srun's without PMIx). Every wait has a deadline
 * of SHMEMCOMM_TIMEOUT; when rank 0 gives up it tells every rank why,
 * naming the ranks that never arrived and the address in use.
 *
 * Only the job's processes get in. Rank 0 sends each connection a fresh
 * challenge; the process answers with its rank, the job's name and an
 * HMAC-SHA-256 of the challenge under the job's secret (boot/secret.h);
 * rank 0 answers with a proof of its own, so a rank never takes data from
 * a process that merely holds the port. A connection that does not prove
 * the secret within 5 s is closed and logged with its address; it never
 * stops the job. Many connections at once are served side by side, the
 * oldest dropped past SC_TCP_PENDING.
 */
#ifndef SHMEMCOMM_BOOT_RENDEZVOUS_H
#define SHMEMCOMM_BOOT_RENDEZVOUS_H

#include <stddef.h>

#include "boot/launch.h"
#include "boot/secret.h"

#define SC_TCP_PENDING 128	/* connections in their handshake at once */
#define SC_TCP_HANDSHAKE 5.0	/* seconds a connection has to prove the secret */

/* why rank 0 closed a connection: each kind is logged a few times, then counted */
enum sc_tcp_refusal {
	SC_TCP_PROTOCOL,	/* not our bytes */
	SC_TCP_GONE,		/* closed in the handshake */
	SC_TCP_SILENT,		/* nothing within SC_TCP_HANDSHAKE */
	SC_TCP_CUT,		/* part of a hello within it */
	SC_TCP_WRONG_PROOF,	/* a hello without the secret, or replayed */
	SC_TCP_OTHER_JOB,
	SC_TCP_FLOOD,		/* dropped past SC_TCP_PENDING */
	SC_TCP_UNFINISHED,	/* still in its handshake once every rank had come */
	SC_TCP_REFUSALS
};

extern const char *const sc_tcp_refusal_names[SC_TCP_REFUSALS];

struct sc_tcp {
	int rank;
	int size;
	double timeout;		/* seconds, per operation */
	char where[300];	/* "host:port", for messages */
	char job[64];
	struct sc_secret secret;
	int listen_fd;		/* rank 0 */
	int *fds;		/* rank 0: its connection to each rank */
	int root_fd;		/* the others: their connection to rank 0 */
	int refused[SC_TCP_REFUSALS];	/* rank 0: connections refused, by kind */
};

/* 0, or a negative errno after a message naming the address and the ranks */
int sc_tcp_open(struct sc_tcp *tcp, const struct sc_launch *launch, double timeout);
int sc_tcp_allgather(struct sc_tcp *tcp, const void *mine, size_t len, void *all);
void sc_tcp_close(struct sc_tcp *tcp);

#endif
