/*
 * The plain shared-memory baseline for scripts/bench-peers: what a
 * competent hand-written allreduce gets on this machine, so that the
 * library's figures can be judged against the hardware rather than against
 * slow peers. N forked processes share one anonymous mapping holding every
 * rank's source and result; each rank reduces its slice of every source
 * into its own result, then copies the other slices from the peers'
 * results (reduce-scatter + all-gather, buffers inside the mapping, no
 * chunking, no staging), with streaming stores from STREAM_MIN bytes.
 * Ranks are bound to core rank % cores; flags are spun on, yielding after
 * a while (at once when there are more ranks than cores).
 *   plain_allreduce NRANKS MIN_BYTES MAX_BYTES FACTOR ITERS ROUNDS
 * float32 sum; prints "bytes seconds" lines (the slowest rank's time per
 * call, median of the rounds), and exits 1 if a result is wrong.
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RANKS 16
#define STREAM_MIN (16u << 20)

struct flag {
	_Atomic uint64_t value;
	char pad[56];
};

struct shared {
	struct flag step[MAX_RANKS];
	double times[MAX_RANKS];
	int wrong;
};

static struct shared *sh;
static int nranks, rank;
static unsigned spin_limit;	/* pauses before yielding; few when oversubscribed */
static uint64_t my_step;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Every rank publishes a step and waits for all others to reach it. */
static void sync_all(void)
{
	my_step++;
	atomic_store_explicit(&sh->step[rank].value, my_step, memory_order_release);
	for (int r = 0; r < nranks; r++) {
		unsigned spins = 0;

		while (atomic_load_explicit(&sh->step[r].value, memory_order_acquire) < my_step)
			if (++spins > spin_limit)
				sched_yield();
			else
				_mm_pause();
	}
}

static void copy_floats(float *to, const float *from, size_t n, int stream)
{
	size_t i = 0;

	if (!stream) {
		memcpy(to, from, n * sizeof(float));
		return;
	}
	for (; i < n && ((uintptr_t)(to + i) & 31); i++)
		to[i] = from[i];
	for (; i + 8 <= n; i += 8)
		_mm256_stream_ps(to + i, _mm256_loadu_ps(from + i));
	for (; i < n; i++)
		to[i] = from[i];
	_mm_sfence();
}

static void add_floats(float *to, const float *a, const float *restrict b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] = a[i] + b[i];
}

/* Rank @r's slice [lo, hi) of @count elements. */
static void slice_of(int r, size_t count, size_t *lo, size_t *hi)
{
	size_t slice = (count + (size_t)nranks - 1) / (size_t)nranks;

	*lo = slice * (size_t)r < count ? slice * (size_t)r : count;
	*hi = *lo + slice < count ? *lo + slice : count;
}

static void allreduce(float **src, float **dst, size_t count, int stream)
{
	float *out = dst[rank];
	size_t lo, hi;

	slice_of(rank, count, &lo, &hi);

	sync_all();	/* every source is ready */
	add_floats(out + lo, src[0] + lo, src[1] + lo, hi - lo);
	for (int r = 2; r < nranks; r++)
		add_floats(out + lo, out + lo, src[r] + lo, hi - lo);
	sync_all();	/* every slice is reduced */
	for (int r = 1; r < nranks; r++) {
		int peer = (rank + r) % nranks;

		slice_of(peer, count, &lo, &hi);
		copy_floats(out + lo, dst[peer] + lo, hi - lo, stream);
	}
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void run_rank(float **src, float **dst, size_t min_bytes, size_t max_bytes,
		     int factor, int iters, int rounds)
{
	double times[64];
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(rank % (int)sysconf(_SC_NPROCESSORS_ONLN), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	for (size_t i = 0; i < max_bytes / sizeof(float); i++) {
		src[rank][i] = (float)((i + (size_t)rank) % 7);
		dst[rank][i] = 0;
	}
	for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= (size_t)factor) {
		size_t count = bytes / sizeof(float);
		int stream = bytes >= STREAM_MIN;

		for (int w = 0; w < iters; w++)	/* warm up as long as one round */
			allreduce(src, dst, count, stream);
		for (int r = 0; r < rounds; r++) {
			double t0;

			sync_all();
			t0 = now();
			for (int it = 0; it < iters; it++)
				allreduce(src, dst, count, stream);
			sh->times[rank] = (now() - t0) / iters;
			sync_all();
			times[r] = 0;
			for (int p = 0; p < nranks; p++)
				if (sh->times[p] > times[r])
					times[r] = sh->times[p];
			sync_all();	/* nobody overwrites a time still being read */
		}
		for (size_t i = 0; i < count; i++) {
			float want = 0;

			for (int p = 0; p < nranks; p++)
				want += (float)((i + (size_t)p) % 7);
			if (dst[rank][i] != want) {
				fprintf(stderr, "plain_allreduce: rank %d: %zu B: element %zu is %g, not %g\n",
					rank, bytes, i, dst[rank][i], want);
				sh->wrong = 1;
				break;
			}
		}
		qsort(times, (size_t)rounds, sizeof(double), by_value);
		if (rank == 0) {
			printf("%zu %.9f\n", bytes, times[rounds / 2]);
			fflush(stdout);
		}
	}
}

int main(int argc, char **argv)
{
	size_t min_bytes, max_bytes, region, per;
	int factor, iters, rounds, status, failed = 0;
	float *src[MAX_RANKS], *dst[MAX_RANKS];
	char *base;

	if (argc != 7) {
		fprintf(stderr, "usage: plain_allreduce NRANKS MIN_BYTES MAX_BYTES FACTOR ITERS ROUNDS\n");
		return 2;
	}
	nranks = atoi(argv[1]);
	min_bytes = strtoull(argv[2], NULL, 10);
	max_bytes = strtoull(argv[3], NULL, 10);
	factor = atoi(argv[4]);
	iters = atoi(argv[5]);
	rounds = atoi(argv[6]);
	if (nranks < 2 || nranks > MAX_RANKS || min_bytes < sizeof(float) ||
	    max_bytes < min_bytes || factor < 2 || iters < 1 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "plain_allreduce: need 2..%d ranks, 4 <= MIN_BYTES <= MAX_BYTES, FACTOR >= 2, ITERS >= 1, 1..64 ROUNDS\n",
			MAX_RANKS);
		return 2;
	}
	per = (max_bytes + 4095) / 4096 * 4096;
	region = 4096 + 2 * per * (size_t)nranks;
	base = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("plain_allreduce: mmap");
		return 1;
	}
	sh = (struct shared *)base;
	for (int r = 0; r < nranks; r++) {
		src[r] = (float *)(base + 4096 + per * (size_t)r);
		dst[r] = (float *)(base + 4096 + per * (size_t)(nranks + r));
	}
	spin_limit = nranks > sysconf(_SC_NPROCESSORS_ONLN) ? 40 : 20000;
	for (rank = 1; rank < nranks; rank++)
		if (fork() == 0) {
			run_rank(src, dst, min_bytes, max_bytes, factor, iters, rounds);
			_exit(0);
		}
	rank = 0;
	run_rank(src, dst, min_bytes, max_bytes, factor, iters, rounds);
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	return failed || sh->wrong;
}
