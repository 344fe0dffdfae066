/* Every PE adds to a counter on PE 0, many times; PE 0 checks the total.
 * Standard API only. */
#include <shmem.h>
#include <stdio.h>

#define ADDS 1000

int main(void)
{
	long *counter;
	int me, npes;

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	counter = shmem_calloc(1, sizeof(long));
	for (int i = 0; i < ADDS; i++)
		shmem_long_atomic_inc(counter, 0);
	shmem_barrier_all();
	if (me == 0) {
		printf("counter = %ld (want %d)\n", *counter, ADDS * npes);
		if (*counter != (long)ADDS * npes)
			shmem_global_exit(1);
	}
	shmem_free(counter);
	shmem_finalize();
	return 0;
}
