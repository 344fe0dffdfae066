/*
 * A STREAM-style figure for scripts/bench-peers: the copy bandwidth of the
 * machine's memory with one thread per core, arrays far larger than the
 * caches, best of 5 (as STREAM reports). Counts read + written bytes, and
 * moves just those where glibc's memcpy streams its stores: past a
 * threshold of its own (192 MiB on this machine kind), which the benchmarks
 * set low (copy_rate_gbs in scripts/lib.sh). A cached copy would move 3
 * bytes for the 2 it counts (each line read before it is written): 26-28
 * GB/s here against 40-54 streamed.
 *   stream [MIB_PER_THREAD]   prints "copy_gbs N"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static size_t words;
static pthread_barrier_t start;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *copy_worker(void *arg)
{
	double *a = malloc(words * sizeof(double)), *b = malloc(words * sizeof(double));

	(void)arg;
	if (!a || !b)
		abort();
	for (size_t i = 0; i < words; i++)
		a[i] = (double)i, b[i] = 0;
	for (int round = 0; round < 6; round++) {
		pthread_barrier_wait(&start);
		for (size_t i = 0; i < words; i++)
			b[i] = a[i];
		pthread_barrier_wait(&start);
	}
	free(a);
	free(b);
	return NULL;
}

int main(int argc, char **argv)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	pthread_t threads[256];
	double best = 0;

	words = mib * 1024 * 1024 / sizeof(double);
	if (cores > 256)
		cores = 256;
	pthread_barrier_init(&start, NULL, (unsigned)cores + 1);
	for (long t = 0; t < cores; t++)
		pthread_create(&threads[t], NULL, copy_worker, NULL);
	for (int round = 0; round < 6; round++) {
		double t0, spent;

		pthread_barrier_wait(&start);
		t0 = now();
		pthread_barrier_wait(&start);
		spent = now() - t0;
		/* the first round faults pages in */
		if (round && 2.0 * (double)words * 8 * (double)cores / spent / 1e9 > best)
			best = 2.0 * (double)words * 8 * (double)cores / spent / 1e9;
	}
	for (long t = 0; t < cores; t++)
		pthread_join(threads[t], NULL);
	printf("copy_gbs %.2f\n", best);
	return 0;
}
