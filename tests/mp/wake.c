/* Not a test on its own; run-tests runs it. How soon a PE sleeping in a
 * wait wakes when the PE it waits for arrives, and what the sleep costs:
 *   wake ROUNDS PAUSE_MS MAX_MEDIAN_US MAX_CPU_PERCENT
 * In each round the last PE sleeps PAUSE_MS outside the library while the
 * others wait in shmem_barrier_all, long past their spin and yields, then
 * notes the time and enters the barrier. Every other PE measures from that
 * note to its own return. Fails if the median over rounds and PEs exceeds
 * MAX_MEDIAN_US, or if a waiting PE used more than MAX_CPU_PERCENT of a CPU
 * while it waited. Prints "median U us, CPU C% while waiting".
 */
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mp.h"

#define MAX_ROUNDS 64

static double arrived;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_seconds(void)
{
	struct rusage use;

	getrusage(RUSAGE_SELF, &use);
	return (double)(use.ru_utime.tv_sec + use.ru_stime.tv_sec) +
	       (double)(use.ru_utime.tv_usec + use.ru_stime.tv_usec) * 1e-6;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static double late[MAX_ROUNDS], all[MAX_ROUNDS * 64];
	int rounds, me, npes, last;
	double pause_s, max_us, max_cpu, cpu = 0, waited = 0;

	if (argc != 5 || (rounds = atoi(argv[1])) < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: wake ROUNDS(1..%d) PAUSE_MS MAX_MEDIAN_US MAX_CPU_PERCENT\n",
			MAX_ROUNDS);
		return 2;
	}
	pause_s = atof(argv[2]) * 1e-3;
	max_us = atof(argv[3]);
	max_cpu = atof(argv[4]) / 100;
	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	last = npes - 1;
	MP_CHECK(npes >= 2 && npes <= 64);

	for (int r = 0; r < rounds; r++) {
		shmem_barrier_all();
		if (me == last) {
			usleep((useconds_t)(pause_s * 1e6));
			arrived = now();
			for (int pe = 0; pe < last; pe++)
				shmem_double_p(&arrived, arrived, pe);
			shmem_barrier_all();
		} else {
			double t0 = now(), c0 = cpu_seconds();

			shmem_barrier_all();
			late[r] = now() - arrived;
			waited += now() - t0;
			cpu += cpu_seconds() - c0;
		}
	}
	if (me != last)
		MP_CHECK(cpu <= max_cpu * waited ||
			 (fprintf(stderr, "PE %d: CPU %.1f%% of %.3f s waiting\n", me,
				  100 * cpu / waited, waited), 0));

	/* PE 0 gathers every waiting PE's latencies */
	double *gathered = shmem_malloc(sizeof(late) * (size_t)npes);

	MP_CHECK(gathered);
	shmem_putmem(gathered + (size_t)me * MAX_ROUNDS, late, sizeof(late), 0);
	shmem_barrier_all();
	if (!me) {
		int n = 0;

		for (int pe = 0; pe < last; pe++)
			for (int r = 0; r < rounds; r++)
				all[n++] = gathered[pe * MAX_ROUNDS + r];
		qsort(all, (size_t)n, sizeof(all[0]), by_value);
		printf("median %.0f us, CPU %.1f%% while waiting\n", all[n / 2] * 1e6,
		       100 * cpu / waited);
		MP_CHECK(all[n / 2] * 1e6 <= max_us);
	}
	shmem_free(gathered);
	shmem_finalize();
	return 0;
}
