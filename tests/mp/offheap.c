/* Collectives on buffers off the symmetric heap: from malloc (small and
 * large), mmap, the stack and the program's statics, misaligned; freed and
 * reallocated, unmapped and mapped again, discarded (MADV_DONTNEED) and
 * moved (mremap) between calls, with new data each time. Every element of
 * every result is checked. On kmod the buffers are registered: later calls
 * find them in the cache (hits on this PE, imports found by the peers), a
 * changed buffer is found stale and registered anew, and a buffer that
 * cannot be registered (read-only) is staged after a warning. On memfd
 * nothing is registered and shmemx_buffer_register says why. Blocks of the
 * buffer pool (shmemx_buffer_malloc) are read in place, none staged, at
 * offsets that differ from PE to PE; a fork child's copy is private; a
 * block outlives shmem_finalize. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "mp.h"

#define LARGE (1 << 20)		/* bytes: glibc's malloc maps a block this big */
#define MEDIUM (96 << 10)	/* from malloc's heap, over SHMEMCOMM_COLL_REGISTER_MIN */

/* kmod: buffers can be registered; single: and collectives use them (no NIC between PEs) */
static int me, n, kmod, single;
static char static_src[256 << 10], static_dst[256 << 10];

/* Element i of member m's source, as every member can compute it. */
static int32_t value(int m, size_t i)
{
	return (int32_t)((m + 1) * 7 + (int32_t)(i % 1013));
}

static void put(void *base, size_t i, int32_t v)
{
	memcpy((char *)base + i * 4, &v, 4);
}

static int32_t get(const void *base, size_t i)
{
	int32_t v;

	memcpy(&v, (const char *)base + i * 4, 4);
	return v;
}

enum kind { ALLREDUCE, REDUCE_SCATTER, ALLGATHER, BROADCAST, ALLTOALL };

/* Runs @kind over @count elements per block with this PE's data in @src and checks @dst. */
static void run(enum kind kind, void *dst, void *src, size_t count, const char *what)
{
	size_t src_n = kind == REDUCE_SCATTER || kind == ALLTOALL ? count * (size_t)n : count;
	size_t dst_n = kind == ALLGATHER || kind == ALLTOALL ? count * (size_t)n : count;
	int root = n - 1, rc = -1;

	for (size_t i = 0; i < src_n; i++)
		put(src, i, value(me, i));
	if (dst != src)
		memset(dst, 0x5a, dst_n * 4);
	switch (kind) {
	case ALLREDUCE:
		rc = shmemx_allreduce(SHMEM_TEAM_WORLD, dst, src, count, SHMEMX_INT32, SHMEMX_SUM);
		break;
	case REDUCE_SCATTER:
		rc = shmemx_reduce_scatter(SHMEM_TEAM_WORLD, dst, src, count, SHMEMX_INT32,
					   SHMEMX_SUM);
		break;
	case ALLGATHER:
		rc = shmemx_allgather(SHMEM_TEAM_WORLD, dst, src, count, SHMEMX_INT32);
		break;
	case BROADCAST:
		rc = shmemx_broadcast(SHMEM_TEAM_WORLD, dst, src, count, SHMEMX_INT32, root);
		break;
	case ALLTOALL:
		rc = shmemx_alltoall(SHMEM_TEAM_WORLD, dst, src, count, SHMEMX_INT32);
		break;
	}
	MP_CHECK(rc == 0);
	for (size_t i = 0; i < dst_n; i++) {
		int32_t want = 0;

		switch (kind) {
		case ALLREDUCE:
		case REDUCE_SCATTER:
			for (int m = 0; m < n; m++)
				want += value(m, kind == ALLREDUCE ? i : (size_t)me * count + i);
			break;
		case ALLGATHER:
			want = value((int)(i / count), i % count);
			break;
		case BROADCAST:
			want = value(root, i);
			break;
		case ALLTOALL:
			want = value((int)(i / count), (size_t)me * count + i % count);
			break;
		}
		if (get(dst, i) != want) {
			fprintf(stderr, "PE %d: %s: element %zu is %d, wanted %d\n", me, what, i,
				get(dst, i), want);
			shmem_global_exit(1);
		}
	}
}

/* @call (an int expression) returns -1 and says @want on stderr. */
#define REFUSED(call, want)                                                       \
	do {                                                                      \
		struct capture said_;                                             \
		capture_start(&said_);                                            \
		int ret_ = (call);                                                \
		capture_end(&said_);                                              \
		if (ret_ != -1 || !strstr(said_.text, want)) {                    \
			fprintf(stderr, "PE %d: %s returned %d and said \"%s\", wanted -1 and \"%s\"\n", \
				me, #call, ret_, said_.text, want);                \
			shmem_global_exit(1);                                     \
		}                                                                 \
	} while (0)

static shmemx_buffer_stats_t stats(void)
{
	shmemx_buffer_stats_t s;

	MP_CHECK(shmemx_buffer_stats(&s) == 0);
	return s;
}

static char *map(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	MP_CHECK(p != MAP_FAILED);
	return p;
}

/* Every collective on malloc'd buffers, twice: on kmod the second call finds them. */
static void every_kind_on_malloc(void)
{
	size_t count = LARGE / 4 / (size_t)n;
	char *src = malloc(LARGE + 64), *dst = malloc(LARGE + 64);

	MP_CHECK(src && dst);
	for (enum kind k = ALLREDUCE; k <= ALLTOALL; k++) {
		shmemx_buffer_stats_t before;

		run(k, dst, src, count, "malloc, first call");
		before = stats();
		run(k, dst, src, count, "malloc, second call");
		if (single) {
			MP_CHECK(stats().misses == before.misses);
			MP_CHECK(stats().hits > before.hits);
			if (k != BROADCAST)	/* its non-roots' sources are not read */
				MP_CHECK(stats().import_hits > before.import_hits);
		}
		/* misaligned, in the same blocks */
		run(k, dst + 3, src + 5, count - 1, "malloc, misaligned");
	}
	free(src);
	free(dst);
}

/*
 * In place as MPI has it: all-gather's source is this PE's block of dest,
 * reduce-scatter's dest this PE's block of the source. Registered, the two
 * regions overlap on every PE; after the first calls the peers map nothing
 * anew.
 */
static void in_place_blocks(void)
{
	size_t count = LARGE / 4 / (size_t)n;
	char *buf = malloc(LARGE);
	shmemx_buffer_stats_t before = { 0 };

	MP_CHECK(buf);
	for (int call = 0; call < 4; call++) {
		char *mine = buf + (size_t)me * count * 4;

		if (call == 2)
			before = stats();
		for (size_t i = 0; i < count; i++)
			put(mine, i, value(me, i));
		MP_CHECK(shmemx_allgather(SHMEM_TEAM_WORLD, buf, mine, count, SHMEMX_INT32) == 0);
		for (size_t i = 0; i < count * (size_t)n; i++)
			MP_CHECK(get(buf, i) == value((int)(i / count), i % count));
		for (size_t i = 0; i < count * (size_t)n; i++)
			put(buf, i, value(me, i));
		MP_CHECK(shmemx_reduce_scatter(SHMEM_TEAM_WORLD, mine, buf, count, SHMEMX_INT32,
					       SHMEMX_SUM) == 0);
		for (size_t i = 0; i < count; i++) {
			int32_t want = 0;

			for (int m = 0; m < n; m++)
				want += value(m, (size_t)me * count + i);
			MP_CHECK(get(mine, i) == want);
		}
	}
	if (single)
		MP_CHECK(stats().imports == before.imports && stats().misses == before.misses);
	free(buf);
}

/* The other kinds of memory, and the buffer that changes between calls. */
static void every_memory(void)
{
	size_t count = LARGE / 4;
	shmemx_buffer_stats_t before;
	char *a, *b, *moved;

	/* malloc's heap, below its mmap threshold; then freed and reallocated */
	a = malloc(MEDIUM);
	b = malloc(MEDIUM);
	MP_CHECK(a && b);
	run(ALLREDUCE, b, a, MEDIUM / 4, "malloc's heap");
	free(a);
	a = malloc(MEDIUM);
	MP_CHECK(a);
	run(ALLREDUCE, b, a, MEDIUM / 4, "malloc's heap, reallocated");
	free(a);
	free(b);

	/* the stack */
	{
		char on_stack[2][128 << 10];

		run(ALLREDUCE, on_stack[1], on_stack[0], sizeof(on_stack[0]) / 4, "the stack");
		run(ALLGATHER, on_stack[1], on_stack[0] + 4, sizeof(on_stack[0]) / 4 / (size_t)n - 1,
		    "the stack, misaligned");
	}

	/* statics: symmetric, so in place, registered nowhere */
	before = stats();
	run(ALLREDUCE, static_dst, static_src, sizeof(static_src) / 4, "statics");
	run(ALLTOALL, static_dst, static_src, sizeof(static_src) / 4 / (size_t)n, "statics");
	MP_CHECK(stats().misses == before.misses && stats().hits == before.hits);

	/* mmap, then unmapped and mapped again at the same address */
	a = map(LARGE);
	b = map(LARGE);
	run(ALLREDUCE, b, a, count, "mmap");
	before = stats();
	MP_CHECK(munmap(a, LARGE) == 0);
	MP_CHECK(mmap(a, LARGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		      -1, 0) == a);
	run(ALLREDUCE, b, a, count, "mmap, unmapped and mapped again");
	if (single)
		MP_CHECK(stats().stale > before.stale);

	/* discarded: new zero pages under the same addresses */
	before = stats();
	MP_CHECK(madvise(a, LARGE, MADV_DONTNEED) == 0);
	MP_CHECK(madvise(b, LARGE, MADV_DONTNEED) == 0);
	run(ALLREDUCE, b, a, count, "after MADV_DONTNEED");
	if (single)
		MP_CHECK(stats().stale >= before.stale + 2);

	/* moved (a larger mapping, wherever the kernel puts it), then grown back */
	moved = mremap(a, LARGE, 2 * LARGE, MREMAP_MAYMOVE);
	MP_CHECK(moved != MAP_FAILED);
	run(ALLREDUCE, b, moved, count, "after mremap");
	run(ALLREDUCE, b, moved + LARGE, count, "the mremap's new half");
	MP_CHECK(munmap(moved, 2 * LARGE) == 0);

	/* mprotect changes no page: the registration stays (found, not made again) */
	MP_CHECK(mprotect(b, LARGE, PROT_READ) == 0);
	MP_CHECK(mprotect(b, LARGE, PROT_READ | PROT_WRITE) == 0);
	before = stats();
	run(ALLREDUCE, b, b, count, "in place, after mprotect");
	if (single)
		MP_CHECK(stats().misses == before.misses && stats().hits == before.hits + 2);
	MP_CHECK(munmap(b, LARGE) == 0);

	/* small: staged, not registered */
	a = malloc(4096);
	b = malloc(4096);
	before = stats();
	run(ALLREDUCE, b, a, 1024, "4 KiB from malloc");
	MP_CHECK(stats().misses == before.misses);
	free(a);
	free(b);
}

/* Registered ahead, and unregistered; and the refusals. */
static void ahead(void)
{
	char *a = map(LARGE), *b = map(LARGE);
	shmemx_buffer_stats_t before;

	if (!kmod) {
		REFUSED(shmemx_buffer_register(a, LARGE), "this job runs on memfd");
		REFUSED(shmemx_buffer_unregister(a), "this job runs on memfd");
		MP_CHECK(stats().misses == 0 && stats().imports == 0);
		munmap(a, LARGE);
		munmap(b, LARGE);
		return;
	}
	MP_CHECK(shmemx_buffer_register(a, LARGE) == 0);
	MP_CHECK(shmemx_buffer_register(b, LARGE) == 0);
	before = stats();
	run(ALLREDUCE, b, a, LARGE / 4, "registered ahead");
	if (single)
		MP_CHECK(stats().misses == before.misses && stats().hits == before.hits + 2);
	MP_CHECK(shmemx_buffer_unregister(a + 100) == 0);
	REFUSED(shmemx_buffer_unregister(a + 100), "is in no registered buffer");
	MP_CHECK(shmemx_buffer_unregister(b) == 0);
	REFUSED(shmemx_buffer_register(NULL, 8), "shmemx_buffer_register: addr is NULL");
	munmap(a, LARGE);
	munmap(b, LARGE);
}

/* @call (a pointer expression) returns NULL and says @want on stderr. */
#define REFUSED_NULL(call, want)                                                  \
	do {                                                                      \
		struct capture said_;                                             \
		capture_start(&said_);                                            \
		void *ret_ = (call);                                              \
		capture_end(&said_);                                              \
		if (ret_ || !strstr(said_.text, want)) {                          \
			fprintf(stderr, "PE %d: %s returned %p and said \"%s\", wanted NULL and \"%s\"\n", \
				me, #call, ret_, said_.text, want);                \
			shmem_global_exit(1);                                     \
		}                                                                 \
	} while (0)

/* Whether @kind's schedule over @bytes is pairwise (ring, rhd, chain, hier). */
static int pairwise(const char *kind, size_t bytes)
{
	const char *algo = shmemx_collective_algorithm(SHMEM_TEAM_WORLD, kind, bytes);

	MP_CHECK(algo);
	return !strcmp(algo, "ring") || !strcmp(algo, "rhd") || !strcmp(algo, "chain") ||
	       !strcmp(algo, "hier");
}

static const char *const kind_names[] = {
	"allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall",
};

/*
 * The buffer pool. Returns a block kept past shmem_finalize (main checks
 * it there), or NULL without a pool, where a call is refused, saying why.
 */
static char *pool(void)
{
	size_t count = LARGE / 4 / (size_t)n, size, used, used_before, page = 4096;
	char *pad, *src, *dst, *kept;
	shmemx_buffer_stats_t before;
	pid_t child;
	int status;

	shmemx_buffer_pool_usage(&size, &used_before);
	if (!size) {
		REFUSED_NULL(shmemx_buffer_malloc(LARGE), "this job has no buffer pool");
		return NULL;
	}
	REFUSED_NULL(shmemx_buffer_malloc(0), "shmemx_buffer_malloc: bytes is 0");
	REFUSED_NULL(shmemx_buffer_malloc(size + 1), "no room for");
	/* PE m's blocks start m + 1 pages further in than PE 0's would */
	pad = shmemx_buffer_malloc((size_t)(me + 1) * page - 100);
	src = shmemx_buffer_malloc(LARGE);
	dst = shmemx_buffer_malloc(LARGE + 1);
	MP_CHECK(pad && src && dst);
	MP_CHECK((uintptr_t)src % page == 0 && (uintptr_t)dst % page == 0);
	shmemx_buffer_pool_usage(&size, &used);
	MP_CHECK(used == used_before + (size_t)(me + 1) * page + LARGE + LARGE + page);

	for (enum kind k = ALLREDUCE; k <= ALLTOALL; k++) {
		size_t bytes = k == ALLREDUCE || k == BROADCAST ? count * 4 : count * 4 * (size_t)n;
		int pw = pairwise(kind_names[k], bytes);

		before = stats();
		run(k, dst, src, count, "the buffer pool");
		run(k, dst + 64, src + 4, count - 17, "the buffer pool, misaligned");
		/*
		 * source and dest in place, twice; the pairwise schedules name
		 * buffers by offsets symmetric on every PE, which the pool's are
		 * not: their results stage (their sources are only read here)
		 */
		if (stats().staged != before.staged + (pw ? 2u : 0u) ||
		    stats().pooled != before.pooled + (pw ? 0u : 4u)) {
			fprintf(stderr, "PE %d: %s (%s) on the buffer pool: %lu staged and %lu in place, wanted %u and %u\n",
				me, kind_names[k], shmemx_collective_algorithm(SHMEM_TEAM_WORLD, kind_names[k], bytes),
				stats().staged - before.staged, stats().pooled - before.pooled,
				pw ? 2u : 0u, pw ? 0u : 4u);
			shmem_global_exit(1);
		}
	}
	before = stats();
	run(ALLREDUCE, src, src, count, "the buffer pool, in place");
	if (!pairwise("allreduce", count * 4))
		MP_CHECK(stats().staged == before.staged && stats().pooled == before.pooled + 2);

	/* a child of fork writes its copy, and the parent's block keeps its data */
	memset(dst, 0x11, LARGE);
	child = fork();
	MP_CHECK(child >= 0);
	if (child == 0) {
		struct capture said;
		void *p;

		memset(dst, 0x22, LARGE);
		capture_start(&said);
		p = shmemx_buffer_malloc(page);
		capture_end(&said);
		_exit(dst[LARGE - 1] == 0x22 && !p && strstr(said.text, "a child of fork()") ? 0 : 1);
	}
	MP_CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		 WEXITSTATUS(status) == 0);
	for (size_t i = 0; i < LARGE; i += 4093)
		MP_CHECK(dst[i] == 0x11);

	{
		struct capture said;

		capture_start(&said);
		shmemx_buffer_free(src + 1);
		capture_end(&said);
		MP_CHECK(strstr(said.text, "is not the start of a live block"));
	}
	shmemx_buffer_free(src);
	shmemx_buffer_free(pad);
	shmemx_buffer_free(NULL);
	kept = dst;
	memset(kept, 0x33, LARGE);
	shmemx_buffer_pool_usage(&size, &used);
	MP_CHECK(used == used_before + LARGE + page);
	return kept;
}

/* A source that cannot be registered writable (read-only memory) is staged, with a warning. */
static void read_only_source(void)
{
	char *src = map(LARGE), *dst = map(LARGE);
	struct capture said;

	for (size_t i = 0; i < LARGE / 4; i++)
		put(src, i, value(me, i));
	MP_CHECK(mprotect(src, LARGE, PROT_READ) == 0);
	capture_start(&said);
	MP_CHECK(shmemx_allreduce(SHMEM_TEAM_WORLD, dst, src, LARGE / 4, SHMEMX_INT32,
				  SHMEMX_SUM) == 0);
	capture_end(&said);
	MP_CHECK(strstr(said.text, "the memory is read-only") &&
		 strstr(said.text, "so its source (1048576 bytes at") &&
		 strstr(said.text, "goes through the staging buffers"));
	for (size_t i = 0; i < LARGE / 4; i++)
		MP_CHECK(get(dst, i) == 7 * n * (n + 1) / 2 + n * (int32_t)(i % 1013));
	munmap(src, LARGE);
	munmap(dst, LARGE);
}

int main(void)
{
	shmemx_buffer_stats_t end;
	size_t pool_size, pool_used;
	char *kept;

	shmem_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	kmod = !strncmp(shmemx_transport_name(), "kmod", 4);
	single = !strcmp(shmemx_transport_name(), "kmod");
	every_kind_on_malloc();
	in_place_blocks();
	every_memory();
	ahead();
	kept = pool();
	if (single)
		read_only_source();
	end = stats();
	if (single)
		MP_CHECK(end.misses > 0 && end.hits > 0 && end.imports > 0 && end.stale > 0);
	else if (!kmod)
		MP_CHECK(end.misses == 0 && end.hits == 0 && end.imports == 0);
	shmem_barrier_all();
	if (me == 0)
		printf("offheap: %d PEs on %s: %lu registrations tried, %lu hits, %lu stale, %lu evicted, %lu imports, %lu import hits; buffers %lu staged, %lu in the pool (PE 0)\n",
		       n, shmemx_transport_name(), end.misses, end.hits, end.stale, end.evictions,
		       end.imports, end.import_hits, end.staged, end.pooled);
	shmem_finalize();
	/* a pool block outlives the job, and goes with the pool after it */
	if (kept) {
		for (size_t i = 0; i < LARGE; i += 4093)
			MP_CHECK(kept[i] == 0x33);
		shmemx_buffer_free(kept);
		shmemx_buffer_pool_usage(&pool_size, &pool_used);
		MP_CHECK(pool_size == 0 && pool_used == 0);
	}
	return 0;
}
