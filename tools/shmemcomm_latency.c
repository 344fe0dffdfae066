/*
 * shmemcomm-latency: the latency of the core operations between PE 0 and
 * PE 1, each figure the median of 5 runs, each PE bound to its own core.
 *
 *   shmemrun -n 2 shmemcomm-latency [-i ITERATIONS]
 */

#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define RUNS 5

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), by_value);
	return v[RUNS / 2];
}

int main(int argc, char **argv)
{
	long iterations = argc > 2 && argv[1][0] == '-' && argv[1][1] == 'i' ? atol(argv[2]) : 20000;
	double barrier[RUNS], put[RUNS], fadd[RUNS], pingpong[RUNS], exchange[RUNS];
	long *word, *ping, *mark;
	long value = 1;
	cpu_set_t cpus;
	int me;

	shmem_init();
	me = shmem_my_pe();
	if (shmem_n_pes() != 2) {
		if (me == 0)
			fprintf(stderr, "shmemcomm-latency: run it on 2 PEs (shmemrun -n 2)\n");
		shmem_global_exit(2);
	}
	if (iterations < 1) {
		if (me == 0)
			fprintf(stderr, "shmemcomm-latency: -i %ld is not a positive count\n", iterations);
		shmem_global_exit(2);
	}
	CPU_ZERO(&cpus);
	CPU_SET(me % sysconf(_SC_NPROCESSORS_ONLN), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	word = shmem_calloc(1, sizeof(long));
	ping = shmem_calloc(1, sizeof(long));
	mark = shmem_calloc(1, sizeof(long));

	for (int run = 0; run < RUNS; run++) {
		double t0;

		shmem_barrier_all();
		t0 = now();
		for (long i = 0; i < iterations; i++)
			shmem_barrier_all();
		barrier[run] = (now() - t0) / iterations;

		shmem_barrier_all();
		if (me == 0) {
			t0 = now();
			for (long i = 0; i < iterations; i++) {
				shmem_long_put(word, &value, 1, 1);
				shmem_quiet();
			}
			put[run] = (now() - t0) / iterations;
			t0 = now();
			for (long i = 0; i < iterations; i++)
				shmem_long_atomic_fetch_add(word, 1, 1);
			fadd[run] = (now() - t0) / iterations;
		}
		shmem_barrier_all();

		/* ping-pong: a put that the other side waits for, and back */
		*ping = 0;
		shmem_barrier_all();
		t0 = now();
		for (long i = 1; i <= iterations; i++) {
			if (me == 0) {
				shmem_long_p(ping, i, 1);
				shmem_long_wait_until(ping, SHMEM_CMP_EQ, i);
			} else {
				shmem_long_wait_until(ping, SHMEM_CMP_EQ, i);
				shmem_long_p(ping, i, 0);
			}
		}
		pingpong[run] = (now() - t0) / iterations / 2;

		/*
		 * exchange: both PEs put at once and wait for the other's, as the
		 * two PEs of an allreduce do; the floor of its time
		 */
		*mark = 0;
		shmem_barrier_all();
		t0 = now();
		for (long i = 1; i <= iterations; i++) {
			shmem_long_p(mark, i, 1 - me);
			shmem_long_wait_until(mark, SHMEM_CMP_GE, i);
		}
		exchange[run] = (now() - t0) / iterations;
		shmem_barrier_all();
	}
	if (me == 0) {
		printf("# shmemcomm-latency: 2 PEs, %ld iterations, median of %d runs\n", iterations,
		       RUNS);
		printf("%-36s %10s\n", "operation", "latency(us)");
		printf("%-36s %10.3f\n", "shmem_barrier_all", median(barrier) * 1e6);
		printf("%-36s %10.3f\n", "shmem_long_put (8 B) + shmem_quiet", median(put) * 1e6);
		printf("%-36s %10.3f\n", "shmem_long_atomic_fetch_add", median(fadd) * 1e6);
		printf("%-36s %10.3f\n", "put + wait_until ping-pong (one way)",
		       median(pingpong) * 1e6);
		printf("%-36s %10.3f\n", "put + wait_until exchange (both ways)",
		       median(exchange) * 1e6);
	}
	shmem_free(mark);
	shmem_free(ping);
	shmem_free(word);
	shmem_finalize();
	return 0;
}
