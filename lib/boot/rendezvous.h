/*
 * The TCP bootstrap, for the launchers that give no key-value exchange of
 * their own (shmemrun, torchrun's variables, mpirun's or srun's without
 * PMIx): every rank proves the job's secret (boot/wire.h) at rank 0's
 * rendezvous and says where its own gate listens; rank 0 answers each with
 * its parent in the bootstrap's tree (boot/tree.h), keeps the connections
 * of its own children, and closes the others once answered. Every wait has
 * a deadline of SHMEMCOMM_TIMEOUT; when rank 0 gives up it tells every rank
 * why, naming the ranks that never arrived and the address in use.
 */
#ifndef SHMEMCOMM_BOOT_RENDEZVOUS_H
#define SHMEMCOMM_BOOT_RENDEZVOUS_H

#include "boot/launch.h"
#include "boot/secret.h"
#include "boot/tree.h"
#include "boot/wire.h"

struct sc_tcp {
	struct sc_wire_self self;
	struct sc_secret secret;
	struct sc_tree tree;
	/* rank 0's rendezvous: how its refusals went, for tests */
	int refused[SC_WIRE_REFUSALS];
};

/* 0, or a negative errno after a message naming the address and the ranks */
int sc_tcp_open(struct sc_tcp *tcp, const struct sc_launch *launch, double timeout);
int sc_tcp_allgather(struct sc_tcp *tcp, const void *mine, size_t len, void *all);
void sc_tcp_close(struct sc_tcp *tcp);

#endif
