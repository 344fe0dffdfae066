/*
 * Waiting on shared memory: spin first, with no system call, then yield,
 * then sleep in growing steps so that oversubscribed PEs make progress.
 * The spin lasts SHMEMCOMM_SPIN_US microseconds: 50 by default, 1 when the
 * node runs more PEs than it has CPUs, since the PE awaited may then be
 * waiting for this CPU. After the spin every step also checks that no PE
 * has called shmem_global_exit, and every millisecond that the wait has not
 * outlived SHMEMCOMM_TIMEOUT and that the node's PEs are alive; any of these
 * ends the process with a message naming the PE.
 */
#ifndef SHMEMCOMM_SYNC_WAIT_H
#define SHMEMCOMM_SYNC_WAIT_H

struct sc_wait {
	const char *what;	/* the operation, for messages */
	int peer;		/* the PE waited for, or -1 */
	/* optional: names the PEs that have not arrived, for the timeout message */
	void (*missing)(char *out, unsigned long len);
	const char *missing_did;	/* what they did not do; "never arrived" by default */
	unsigned long steps;	/* pauses spun */
	unsigned long yields;	/* steps after the spin */
	double start;
	double next_check;
};

/* Reads SHMEMCOMM_SPIN_US for a node running @local_pes PEs: 0, or -1 after a message. */
int sc_wait_init(int local_pes);
void sc_wait_begin(struct sc_wait *wait, const char *what, int peer,
		   void (*missing)(char *out, unsigned long len));
/* Call after each unsuccessful poll of the condition. */
void sc_wait_step(struct sc_wait *wait);

#endif
