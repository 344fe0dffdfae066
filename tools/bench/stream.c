/*
 * A STREAM-style figure for scripts/bench-peers: the copy bandwidth of the
 * machine's memory with one thread per core, arrays far larger than the
 * caches, best of 5 (as STREAM reports). Counts read + written bytes, and
 * moves just those where glibc's memcpy streams its stores: past a
 * threshold of its own (192 MiB on this machine kind), which the benchmarks
 * set low (copy_rate_gbs in scripts/lib.sh). A cached copy would move 3
 * bytes for the 2 it counts (each line read before it is written): 26-28
 * GB/s here against 44-47 streamed. Each thread times its own copy, and a
 * round lasts from the first start to the last end: a timing thread of its
 * own, with every core copying, got a core late after the start barrier and
 * overstated the rate by a fifth.
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
static double began[6][256], ended[6][256];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *copy_worker(void *arg)
{
	long t = (long)arg;
	double *a = malloc(words * sizeof(double)), *b = malloc(words * sizeof(double));

	if (!a || !b)
		abort();
	for (size_t i = 0; i < words; i++)
		a[i] = (double)i, b[i] = 0;
	for (int round = 0; round < 6; round++) {
		pthread_barrier_wait(&start);
		began[round][t] = now();
		for (size_t i = 0; i < words; i++)
			b[i] = a[i];
		ended[round][t] = now();
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
		pthread_create(&threads[t], NULL, copy_worker, (void *)t);
	for (int round = 0; round < 6; round++) {
		double first = 1e300, last = 0, spent;

		pthread_barrier_wait(&start);
		pthread_barrier_wait(&start);
		for (long t = 0; t < cores; t++) {
			first = began[round][t] < first ? began[round][t] : first;
			last = ended[round][t] > last ? ended[round][t] : last;
		}
		spent = last - first;
		/* the first round faults pages in */
		if (round && 2.0 * (double)words * 8 * (double)cores / spent / 1e9 > best)
			best = 2.0 * (double)words * 8 * (double)cores / spent / 1e9;
	}
	for (long t = 0; t < cores; t++)
		pthread_join(threads[t], NULL);
	printf("copy_gbs %.2f\n", best);
	return 0;
}
