/* What OpenSHMEM 1.5 deprecates but still contains, working: start_pes,
 * _my_pe, _num_pes; shmalloc, shrealloc, shmemalign, shfree; the cache
 * calls; the _SHMEM_ constants; the short and unsigned short waits and
 * tests, and shmem_wait and shmem_TYPE_wait (wait while equal); 1.3's
 * atomics, typed and generic (atomics_13). run-tests checks apart that
 * using them warns. */
#define SHMEMCOMM_NO_DEPRECATION_WARNINGS
#include <stdint.h>

#include "mp.h"

/*
 * 1.3's atomics, each on the next PE's word of its type: every PE applies
 * the same sequence to its neighbour's copy, so each PE checks its own
 * copy's final value and the values fetched on the way.
 */
static void atomics_13(int me, int next)
{
	static int i;
	static long l;
	static long long ll;
	static float f;
	static double d;

	shmem_barrier_all();
	shmem_int_set(&i, 10, next);
	shmem_long_set(&l, 20, next);
	shmem_longlong_set(&ll, 30, next);
	shmem_float_set(&f, 1.5f, next);
	shmem_double_set(&d, 2.5, next);
	shmem_barrier_all();
	MP_CHECK(shmem_int_fetch(&i, next) == 10 && shmem_long_fetch(&l, next) == 20 &&
		 shmem_longlong_fetch(&ll, next) == 30 && shmem_float_fetch(&f, next) == 1.5f &&
		 shmem_double_fetch(&d, next) == 2.5);
	MP_CHECK(shmem_int_fadd(&i, 5, next) == 10 && shmem_long_finc(&l, next) == 20 &&
		 shmem_longlong_cswap(&ll, 30, 31 + me, next) == 30 &&
		 shmem_longlong_cswap(&ll, 30, 99, next) == 31 + me);
	shmem_int_add(&i, 2, next);
	shmem_int_inc(&i, next);
	shmem_long_add(&l, 100, next);
	shmem_longlong_inc(&ll, next);
	MP_CHECK(shmem_float_swap(&f, 4.0f, next) == 1.5f && shmem_double_swap(&d, 8.0, next) == 2.5 &&
		 shmem_int_swap(&i, 50, next) == 18 && shmem_long_cswap(&l, 121, 7, next) == 121);
	/* the C11 generics of 1.3 pick the same functions by type */
	MP_CHECK(shmem_fadd(&l, 3L, next) == 7 && shmem_finc(&i, next) == 50 &&
		 shmem_swap(&d, 16.0, next) == 8.0 && shmem_cswap(&ll, 32LL + me, 0LL, next) == 32 + me);
	shmem_add(&ll, 5LL, next);
	shmem_inc(&l, next);
	shmem_set(&f, 0.25f, next);
	shmem_barrier_all();
	MP_CHECK(i == 51 && l == 11 && ll == 5 && f == 0.25f && d == 16.0);
	MP_CHECK(shmem_fetch(&i, me) == 51 && shmem_fetch(&d, me) == 16.0);
	shmem_barrier_all();
}

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
	atomics_13(me, next);
	shmem_barrier_all();
	if (me == 0)
		printf("deprecated: %d PEs ok\n", npes);
	shmem_finalize();
	return 0;
}
