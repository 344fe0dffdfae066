/*
 * A STREAM-style figure for the benchmarks' memory floor (scripts/lib.sh):
 * how fast all cores copy a given number of bytes, one thread per core,
 * best of 5 rounds (as STREAM reports). Counts read + written bytes.
 *
 * Each round is timed both ways a copy can store, and the faster counts:
 * with streaming stores, which move just the bytes counted (a cached store
 * first reads the line it writes: 3 bytes moved for 2 counted, 26 GB/s
 * against 40 here once the data is in DRAM), and with cached stores, which
 * win where the data fits in the cache. So the figure is the cache's speed
 * where the copy fits there and DRAM's past it, as the floor of an
 * allreduce that moves the same bytes should be. glibc's memcpy cannot be
 * told to stream below its own threshold (190 MiB here; the tunable's
 * lowest value, 0x4040, is refused), so the streaming copy is this file's,
 * in the widest stores the CPU has.
 *
 * Each thread times its own copy, and a round lasts from the first start to
 * the last end: a timing thread of its own, with every core copying, got a
 * core late after the start barrier and overstated the rate by a fifth.
 * Small copies repeat within a round, so that a round moves 800 MB.
 *   stream [MIB_PER_THREAD]   prints "copy_gbs N" (default 256 MiB a thread)
 *   stream --footprint BYTES  the same for BYTES in all, sources and
 *                             destinations (an allreduce of B bytes on n
 *                             ranks reads n x B and writes n x B: 2 x n x B)
 *   stream --cache            prints "llc_bytes N sharing N level N source S
 *                             hypervisor H": the last-level cache as the
 *                             library sees it (lib/util/cache.c, built in)
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/cache.h"

#define ROUNDS 6

static size_t bytes;		/* a thread's copy */
static int repeats;		/* copies a round */
static pthread_barrier_t start;
static double began[2][ROUNDS][256], ended[2][ROUNDS][256];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((target("avx512f"))) static void stream_avx512(char *d, const char *s, size_t n)
{
	for (size_t i = 0; i + 64 <= n; i += 64)
		_mm512_stream_si512((__m512i *)(d + i), _mm512_load_si512(s + i));
}

__attribute__((target("avx"))) static void stream_avx(char *d, const char *s, size_t n)
{
	for (size_t i = 0; i + 32 <= n; i += 32)
		_mm256_stream_si256((__m256i *)(d + i), _mm256_load_si256((const __m256i *)(s + i)));
}

static void stream_sse2(char *d, const char *s, size_t n)
{
	for (size_t i = 0; i + 16 <= n; i += 16)
		_mm_stream_si128((__m128i *)(d + i), _mm_load_si128((const __m128i *)(s + i)));
}

static void (*streaming)(char *d, const char *s, size_t n);

static void *copy_worker(void *arg)
{
	long t = (long)arg;
	char *a = aligned_alloc(4096, bytes), *b = aligned_alloc(4096, bytes);

	if (!a || !b)
		abort();
	memset(a, 1, bytes);
	memset(b, 0, bytes);
	for (int round = 0; round < ROUNDS; round++) {
		for (int mode = 0; mode < 2; mode++) {
			pthread_barrier_wait(&start);
			began[mode][round][t] = now();
			for (int i = 0; i < repeats; i++) {
				if (mode)
					memcpy(b, a, bytes);
				else
					streaming(b, a, bytes);
			}
			_mm_sfence();
			ended[mode][round][t] = now();
			pthread_barrier_wait(&start);
		}
	}
	free(a);
	free(b);
	return NULL;
}

int main(int argc, char **argv)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t total = 0;
	pthread_t threads[256];
	double best = 0;

	if (argc > 1 && !strcmp(argv[1], "--cache")) {
		struct sc_cache llc;

		sc_last_level_cache(&llc);
		printf("llc_bytes %zu sharing %u level %d source %s hypervisor %d\n", llc.bytes,
		       llc.sharing, llc.level, llc.source, llc.hypervisor);
		return 0;
	}
	if (cores > 256)
		cores = 256;
	if (argc > 2 && !strcmp(argv[1], "--footprint"))
		total = strtoull(argv[2], NULL, 10);
	else
		total = (argc > 1 ? strtoull(argv[1], NULL, 10) : 256) * 2 * (size_t)cores << 20;
	/* each thread copies its share of half the footprint, whole 4 KiB pages */
	bytes = (total / 2 / (size_t)cores + 4095) / 4096 * 4096;
	if (!bytes)
		bytes = 4096;
	/*
	 * 800 MB a round (20 ms at 40 GB/s), at least one copy: the threads
	 * start a round up to a few hundred microseconds apart, which cut a
	 * 2 ms round's rate by a third (37-41 against 53-57 GB/s for 16 MiB a
	 * thread, each thread timing only its own copies)
	 */
	repeats = (int)(800000000 / (2 * bytes * (size_t)cores) + 1);
	__builtin_cpu_init();
	streaming = __builtin_cpu_supports("avx512f") ? stream_avx512 :
		    __builtin_cpu_supports("avx") ? stream_avx : stream_sse2;
	pthread_barrier_init(&start, NULL, (unsigned)cores + 1);
	for (long t = 0; t < cores; t++)
		pthread_create(&threads[t], NULL, copy_worker, (void *)t);
	for (int round = 0; round < ROUNDS; round++) {
		for (int mode = 0; mode < 2; mode++) {
			double first = 1e300, last = 0, rate;

			pthread_barrier_wait(&start);
			pthread_barrier_wait(&start);
			for (long t = 0; t < cores; t++) {
				first = began[mode][round][t] < first ? began[mode][round][t] : first;
				last = ended[mode][round][t] > last ? ended[mode][round][t] : last;
			}
			rate = 2.0 * (double)bytes * repeats * (double)cores / (last - first) / 1e9;
			/* the first round faults pages in */
			if (round && rate > best)
				best = rate;
		}
	}
	for (long t = 0; t < cores; t++)
		pthread_join(threads[t], NULL);
	printf("copy_gbs %.2f\n", best);
	return 0;
}
