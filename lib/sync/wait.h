/*
 * Waiting on shared memory: spin first, with no system call, then yield,
 * then sleep in growing steps so that oversubscribed PEs make progress.
 * After the spin budget every step also checks that the wait has not
 * outlived SHMEMCOMM_TIMEOUT, that the PE waited for is alive, and that no
 * PE has called shmem_global_exit; any of these ends the process with a
 * message naming the PE.
 */
#ifndef SHMEMCOMM_SYNC_WAIT_H
#define SHMEMCOMM_SYNC_WAIT_H

struct sc_wait {
	const char *what;	/* the operation, for messages */
	int peer;		/* the PE waited for, or -1 */
	/* optional: names the PEs that have not arrived, for the timeout message */
	void (*missing)(char *out, unsigned long len);
	unsigned long steps;
	double start;
	double next_check;
};

void sc_wait_begin(struct sc_wait *wait, const char *what, int peer,
		   void (*missing)(char *out, unsigned long len));
/* Call after each unsuccessful poll of the condition. */
void sc_wait_step(struct sc_wait *wait);

#endif
