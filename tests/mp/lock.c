/* Distributed locks under contention: every PE enters each of three locks
 * ROUNDS times, by shmem_set_lock or by polling shmem_test_lock. Inside, it
 * checks that nobody else is (an occupancy word it raises from 0 and drops
 * back) and adds one to the lock's count with a get and a put, which a
 * second PE inside at the same time would lose. At the end every count is
 * exactly npes * ROUNDS: a lost, doubled or overlapping entry fails. */
#include "mp.h"

#define LOCKS 3
#define ROUNDS 200

static long locks[LOCKS];	/* symmetric (globals), 0 at start as the standard asks */

int main(void)
{
	long *counts, *inside;
	int me, npes, tries = 0;

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	counts = shmem_calloc(LOCKS, sizeof(long));
	inside = shmem_calloc(LOCKS, sizeof(long));

	for (int round = 0; round < ROUNDS; round++) {
		int k = (round + me) % LOCKS, home = (k + 1) % npes;

		if (round % 2) {
			shmem_set_lock(&locks[k]);
		} else {
			while (shmem_test_lock(&locks[k]))
				tries++;
		}
		MP_CHECK(shmem_long_atomic_fetch_inc(&inside[k], home) == 0);
		long n = shmem_long_g(&counts[k], home);

		shmem_long_p(&counts[k], n + 1, home);
		shmem_long_atomic_add(&inside[k], -1, home);
		shmem_clear_lock(&locks[k]);
	}
	shmem_barrier_all();
	for (int k = 0; k < LOCKS; k++) {
		long expected = 0;

		for (int pe = 0; pe < npes; pe++)
			for (int round = 0; round < ROUNDS; round++)
				expected += (round + pe) % LOCKS == k;
		MP_CHECK(shmem_long_g(&counts[k], (k + 1) % npes) == expected);
	}
	/* free again: test_lock takes it, and then reports it held */
	if (me == 0) {
		MP_CHECK(shmem_test_lock(&locks[0]) == 0);
		MP_CHECK(shmem_test_lock(&locks[0]) == 1);
		shmem_clear_lock(&locks[0]);
	}
	shmem_barrier_all();
	if (me == 0)
		printf("lock: %d PEs ok (%d locks, %d entries each PE, %d busy test_locks on PE 0)\n",
		       npes, LOCKS, ROUNDS, tries);
	shmem_free(inside);
	shmem_free(counts);
	shmem_finalize();
	return 0;
}
