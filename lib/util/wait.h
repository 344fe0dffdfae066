/*
 * Waiting on shared memory: spin first, with no system call, then yield,
 * then sleep in growing steps so that oversubscribed PEs make progress.
 * The spin lasts SHMEMCOMM_SPIN_US microseconds: 50 by default, none when
 * the node runs more PEs than it has CPUs, since the PE awaited may then be
 * waiting for this CPU. After the spin every step also checks that no PE
 * has called shmem_global_exit, and every millisecond that the wait has not
 * outlived SHMEMCOMM_TIMEOUT and that the node's PEs are alive, or have
 * left with their part of it done (sc_wait_owed); any of these ends the
 * process with a message naming the PE.
 *
 * A wait whose condition only node peers change, each followed by
 * sc_wait_ring, is rung (sc_wait_rung): past its yields it sleeps on the
 * node's bell, a futex that the writer wakes, instead of sleeping for set
 * times, so that a long wait ends when the writer arrives, not up to a
 * millisecond later. The yields stay first even where PEs outnumber CPUs:
 * a yield hands the CPU to a runnable peer at once, where sleeping at once
 * left this VM's vCPUs idle and slow to wake (docs/architecture.md).
 *
 * What a wait watches (this PE's stop word, its node's PEs and bell, the
 * timeout) is handed over once at init, so that every layer from the NIC
 * up waits the same way without knowing the library's state.
 */
#ifndef SHMEMCOMM_UTIL_WAIT_H
#define SHMEMCOMM_UTIL_WAIT_H

#include <stdatomic.h>

/* The job's stop word, in each PE's segment: written by whoever ends the job. */
struct sc_abort {
	_Atomic int pe;		/* PE + 1 that ended the job, or 0 */
	_Atomic int status;
	_Atomic int fatal;	/* 1: an error, not shmem_global_exit */
};

/*
 * One per node, on a page the node's PEs share (mem/mem.h). Rings
 * cost a system call only while some PE sleeps, and wake every sleeper,
 * each of which looks again at what it waits for: a node runs a few PEs.
 */
struct sc_bell {
	_Atomic unsigned int seq;	/* the futex word: bumped by each ring that wakes */
	_Atomic unsigned int sleepers;	/* waits armed to sleep on it */
} __attribute__((aligned(64)));

struct sc_wait_watch {
	int me;
	double timeout;		/* seconds */
	const struct sc_abort *abort;	/* this PE's */
	int local_size;		/* the node's PEs: local_pes[0..local_size) */
	const int *local_pes;
	const int *pids;	/* by PE */
	struct sc_bell *bell;	/* the node's */
};

/*
 * Writes the names of the PEs that have not arrived into @out, and may
 * point *@did at what they did not do ("never arrived" by default).
 */
typedef void sc_wait_missing_fn(void *ctx, char *out, unsigned long len, const char **did);
/*
 * 1 while the wait may still need a write of @pe's, 0 once every write the
 * wait needs of it has landed: a PE that has done its part may leave, as
 * one leaves right after a barrier while a slower one is still in it.
 */
typedef int sc_wait_owed_fn(void *ctx, int pe);

struct sc_wait {
	const char *what;	/* the operation, for messages */
	int peer;		/* the PE waited for, or -1 */
	sc_wait_missing_fn *missing;	/* optional, for the timeout message */
	void *missing_ctx;	/* also @owed's */
	sc_wait_owed_fn *owed;	/* optional: see sc_wait_owed */
	unsigned long steps;	/* pauses spun */
	unsigned long yields;	/* steps after the spin */
	unsigned long sleeps;	/* timed sleeps taken */
	double start;
	double next_check;
	int lost;		/* a node PE found exited owing, or -1: fatal if the next poll fails too */
	int rung;		/* see sc_wait_rung */
	int armed;		/* counted among the bell's sleepers */
	unsigned int seq;	/* the bell's, read before the caller's last poll */
};

/* Reads SHMEMCOMM_SPIN_US for a node whose PEs share CPUs or not: 0, or -1 after a message. */
int sc_wait_init(int cpus_shared);
/* What every later wait watches; copied. */
void sc_wait_watch(const struct sc_wait_watch *watch);
void sc_wait_begin(struct sc_wait *wait, const char *what, int peer,
		   sc_wait_missing_fn *missing, void *missing_ctx);
/*
 * After sc_wait_begin: every write that can end this wait is a node peer's,
 * followed by sc_wait_ring. Such a wait must end with sc_wait_end.
 */
static inline void sc_wait_rung(struct sc_wait *wait)
{
	wait->rung = 1;
}
/*
 * After sc_wait_begin: a node PE found exited ends the wait only if @owed
 * (given the missing callback's context) says the wait still needs it.
 * Without it, any node PE's exit does, unless the next poll succeeds.
 */
static inline void sc_wait_owed(struct sc_wait *wait, sc_wait_owed_fn *owed)
{
	wait->owed = owed;
}
/* Call after each unsuccessful poll of the condition. */
void sc_wait_step(struct sc_wait *wait);
/* After the poll that succeeded, for a rung wait: no longer a sleeper. */
void sc_wait_end(struct sc_wait *wait);
/*
 * After a write that a rung wait on this node may be watching: wakes the
 * node's sleepers, if any. Costs a read of the bell's line, and a system
 * call only when some PE sleeps.
 */
void sc_wait_ring(void);
/*
 * For a caller that polls instead of waiting: 1, with the reason in @out,
 * when the job cannot go on (a PE stopped it, or one of this node's PEs
 * exited); else 0. It ends nothing.
 */
int sc_wait_broken(char *out, unsigned long len);

#endif
