/* What OpenSHMEM 1.5 deprecates but still contains, working: start_pes,
 * _my_pe, _num_pes; shmalloc, shrealloc, shmemalign, shfree; the cache
 * calls; the _SHMEM_ constants; the short and unsigned short waits and
 * tests, and shmem_wait and shmem_TYPE_wait (wait while equal). run-tests
 * checks apart that using them warns. */
#define SHMEMCOMM_NO_DEPRECATION_WARNINGS
#include <stdint.h>

#include "mp.h"

int main(void)
{
	short *shorts;
	unsigned short *ushorts;
	long *longs;
	int *ints;
	int me, npes, next;

	start_pes(0);
	me = _my_pe();
	npes = _num_pes();
	MP_CHECK(me == shmem_my_pe() && npes == shmem_n_pes());

	/* the old heap calls: symmetric, aligned, and reallocated with their data */
	long *old = shmalloc(4 * sizeof(long)), *aligned = shmemalign(4096, 64);

	MP_CHECK(old && aligned && (uintptr_t)aligned % 4096 == 0);
	old[3] = me;
	old = shrealloc(old, 1024 * sizeof(long));
	MP_CHECK(old && old[3] == me);
	shmem_long_p(&old[1000], me, (me + 1) % npes);
	shmem_barrier_all();
	MP_CHECK(old[1000] == (me + npes - 1) % npes);
	shmem_clear_cache_inv();
	shmem_set_cache_inv();
	shmem_clear_cache_line_inv(old);
	shmem_set_cache_line_inv(old);
	shmem_udcflush();
	shmem_udcflush_line(old);
	MP_CHECK(_SHMEM_CMP_EQ == SHMEM_CMP_EQ && _SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE &&
		 _SHMEM_BCAST_SYNC_SIZE == SHMEM_BCAST_SYNC_SIZE);
	shfree(aligned);
	shfree(old);
	next = (me + 1) % npes;
	shorts = shmem_calloc(4, sizeof(short));
	ushorts = shmem_calloc(4, sizeof(unsigned short));
	longs = shmem_calloc(1, sizeof(long));
	ints = shmem_calloc(1, sizeof(int));

	/* each PE raises its neighbour's words; each waits for its own */
	shmem_short_p(&shorts[1], (short)-(me + 1), next);
	shmem_ushort_p(&ushorts[2], (unsigned short)(60000 + me), next);
	shmem_long_p(longs, 7, next);
	shmem_int_p(ints, me + 1, next);
	shmem_quiet();
	int prev = (me + npes - 1) % npes;

	shmem_short_wait_until(&shorts[1], _SHMEM_CMP_LT, 0);
	MP_CHECK(shorts[1] == -(prev + 1));
	MP_CHECK(shmem_short_wait_until_any(shorts, 4, NULL, SHMEM_CMP_NE, 0) == 1);
	MP_CHECK(shmem_short_test(&shorts[1], SHMEM_CMP_EQ, (short)-(prev + 1)));
	shmem_ushort_wait_until_all(&ushorts[2], 1, NULL, SHMEM_CMP_GE, 60000);
	MP_CHECK(ushorts[2] == 60000 + prev);
	MP_CHECK(shmem_ushort_test_any(ushorts, 4, NULL, SHMEM_CMP_GT, 59999) == 2);
	shmem_long_wait(longs, 0);
	MP_CHECK(*longs == 7);
	shmem_wait(longs, 0);
	shmem_int_wait(ints, 0);
	MP_CHECK(*ints == prev + 1);
	shmem_barrier_all();
	if (me == 0)
		printf("deprecated: %d PEs ok\n", npes);
	shmem_finalize();
	return 0;
}
