/*
 * regions-demo: N ranks share their buffers through /dev/shmemcomm and sum
 * float vectors across all of them (reduce-scatter, then all-gather, by
 * loads and stores on the imported mappings), then check the result.
 *
 *   regions-demo [-n RANKS] [-c FLOATS] [-i ITERATIONS]
 *
 * It exercises the module end to end: create, export, import, mmap by
 * separate processes. The ranks are forked, and find each other's handles
 * in a shared page; bootstrap across launchers is the library's job.
 */
#include <errno.h>
#include <sched.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mem/kmod.h"
#include "util/log.h"

#define MAX_RANKS 64

struct board {
	atomic_uint arrived;
	atomic_uint generation;
	atomic_uint failed;
	uint64_t handles[MAX_RANKS];
	double seconds[MAX_RANKS];
};

static struct board *board;
static unsigned int ranks;

static void barrier(void)
{
	unsigned int gen = atomic_load(&board->generation);

	if (atomic_fetch_add(&board->arrived, 1) + 1 == ranks) {
		atomic_store(&board->arrived, 0);
		atomic_fetch_add(&board->generation, 1);
		return;
	}
	while (atomic_load(&board->generation) == gen) {
		if (atomic_load(&board->failed))
			_exit(1);
		/* ranks may outnumber cores: let the late ones run */
		sched_yield();
	}
}

static float input_value(unsigned int rank, size_t i)
{
	return (float)((rank + 1) * (i % 97));
}

static int rank_main(unsigned int rank, size_t count, unsigned int iterations)
{
	struct sc_kmod_region mine, peers[MAX_RANKS];
	size_t slice = (count + ranks - 1) / ranks;
	size_t lo = rank * slice, hi = lo + slice > count ? count : lo + slice;
	float *in[MAX_RANKS], *out[MAX_RANKS];
	struct timespec t0, t1;
	struct sc_kmod dev;
	int err;

	if (sc_kmod_open(&dev))
		return 1;
	err = sc_kmod_create(&dev, 2 * count * sizeof(float), SHMEMCOMM_NUMA_ANY, &mine);
	if (!err)
		err = sc_kmod_map(&mine, 1);
	if (!err)
		err = sc_kmod_export(&mine, SHMEMCOMM_EXPORT_SCOPE_OWNER);
	if (err)
		return 1;
	for (size_t i = 0; i < count; i++)
		((float *)mine.addr)[i] = input_value(rank, i);
	board->handles[rank] = mine.handle;
	barrier();

	for (unsigned int p = 0; p < ranks; p++) {
		if (p == rank) {
			peers[p] = mine;
		} else if (sc_kmod_import(&dev, board->handles[p], 0, &peers[p]) ||
			   sc_kmod_map(&peers[p], 1)) {
			sc_error("rank %u: cannot import rank %u's region", rank, p);
			return 1;
		}
		in[p] = peers[p].addr;
		out[p] = in[p] + count;
	}
	barrier();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int it = 0; it < iterations; it++) {
		/* reduce my slice of everyone's input, push it to everyone's output */
		for (size_t i = lo; i < hi; i++) {
			float sum = 0;

			for (unsigned int p = 0; p < ranks; p++)
				sum += in[p][i];
			for (unsigned int p = 0; p < ranks; p++)
				out[p][i] = sum;
		}
		barrier();
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	board->seconds[rank] = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	for (size_t i = 0; i < count; i++) {
		float want = 0;

		for (unsigned int p = 0; p < ranks; p++)
			want += input_value(p, i);
		if (out[rank][i] != want) {
			sc_error("rank %u: element %zu is %g, wanted %g", rank, i,
				 out[rank][i], want);
			return 1;
		}
	}
	barrier();
	for (unsigned int p = 0; p < ranks; p++)
		if (p != rank)
			sc_kmod_release(&peers[p]);
	sc_kmod_release(&mine);
	sc_kmod_close(&dev);
	return 0;
}

static unsigned long parse(const char *opt, const char *text, unsigned long lo,
			   unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 0);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "regions-demo: %s '%s' is not a number in %lu..%lu\n",
			opt, text, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned int iterations = 20, failed = 0;
	size_t count = 1 << 20;
	double slowest = 0;
	int opt, status;

	ranks = 4;
	while ((opt = getopt(argc, argv, "n:c:i:")) != -1) {
		switch (opt) {
		case 'n': ranks = parse("-n", optarg, 1, MAX_RANKS); break;
		case 'c': count = parse("-c", optarg, 1, 1ul << 28); break;
		case 'i': iterations = parse("-i", optarg, 1, 1000000); break;
		default:
			fprintf(stderr, "usage: regions-demo [-n RANKS] [-c FLOATS] [-i ITERATIONS]\n");
			return 2;
		}
	}
	board = mmap(NULL, sizeof(*board), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (board == MAP_FAILED)
		return 1;

	for (unsigned int r = 0; r < ranks; r++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid) {
			int ret = rank_main(r, count, iterations);

			if (ret)
				atomic_store(&board->failed, 1);
			_exit(ret);
		}
	}
	for (unsigned int r = 0; r < ranks; r++) {
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	}
	for (unsigned int r = 0; r < ranks; r++)
		if (board->seconds[r] > slowest)
			slowest = board->seconds[r];
	if (failed) {
		printf("regions-demo: %u of %u ranks failed\n", failed, ranks);
		return 1;
	}
	double per_op = slowest / iterations;
	double bytes = (double)count * sizeof(float);
	printf("%-6s %-12s %-12s %-12s %-12s %s\n", "ranks", "bytes", "time(us)",
	       "algbw(GB/s)", "busbw(GB/s)", "result");
	printf("%-6u %-12.0f %-12.1f %-12.3f %-12.3f %s\n", ranks, bytes, per_op * 1e6,
	       bytes / per_op / 1e9, bytes / per_op / 1e9 * 2 * (ranks - 1) / ranks,
	       "correct on every rank");
	return 0;
}
