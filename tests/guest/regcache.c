/* The registration caches (lib/mem/regcache.c) on the module. Own buffers: a
 * second use of a buffer is a hit on the same region; a buffer unmapped and
 * mapped again at the same address gets a new region, found out through its
 * stale word, while an event that leaves the pages (a huge page's split)
 * only has the module check them and keeps the entry; the entry and byte
 * limits let the least recently used go, but never an entry in use or
 * kept; a buffer over the byte limit is refused.
 * Imports: a handle is imported and mapped once, and a newer region of the
 * owner over the same pages supersedes the old import. Nothing stays pinned
 * after. */
#include <sys/mman.h>
#include <unistd.h>

#include "guest.h"
#include "mem/regcache.h"

#define PAGE 4096u

static uint8_t *anon(size_t len)
{
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	memset(p, 1, len);
	return p;
}

/* A use of [p, p + len) from start to end: its handle, or 0 with the errno in *err. */
static uint64_t use_or_fail(struct sc_regcache *c, const void *p, size_t len, int *err)
{
	struct sc_regcache_entry *e;
	uint64_t handle;

	e = sc_regcache_get(c, p, len, SC_LOG_ERROR, err);
	if (!e)
		return 0;
	handle = e->region.handle;
	CHECK(handle != 0);
	sc_regcache_put(c, e);
	return handle;
}

/* The handle of a use that must work. */
static uint64_t use(struct sc_regcache *c, const void *p, size_t len)
{
	int err = 0;
	uint64_t handle = use_or_fail(c, p, len, &err);

	CHECK_EQ(err, 0);
	return handle;
}

/* The errno of a use that must fail. */
static long refused(struct sc_regcache *c, const void *p, size_t len)
{
	int err = 0;

	CHECK_EQ(use_or_fail(c, p, len, &err), 0);
	return err;
}

static void own_buffers(struct sc_kmod *dev)
{
	uint8_t *buf, *small[5], *half[3], *huge, *huge_map;
	struct sc_regcache_entry *busy;
	unsigned long stale_before, kept_before;
	struct sc_regcache c;
	uint64_t first, h;
	int err;

	CHECK_ERR_LOGGED(sc_regcache_init(&c, dev, 0, 1 << 20), EINVAL, "the entries must be 1..");
	CHECK_OK(sc_regcache_init(&c, dev, 4, 1 << 20));

	buf = anon(16 * PAGE);
	first = use(&c, buf, 16 * PAGE);
	CHECK_EQ(use(&c, buf + 100, 1000), first);
	CHECK_EQ(c.hits, 1);

	/* unmapped and mapped again at the same address: a new region */
	CHECK(munmap(buf, 16 * PAGE) == 0);
	CHECK(mmap(buf, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		   -1, 0) == buf);
	h = use(&c, buf, 16 * PAGE);
	CHECK(h != first);
	CHECK_EQ(c.stale_seen, 1);
	CHECK_EQ(c.hits, 1);

	/* four entries at most: the fifth buffer lets the least recently used go */
	for (int i = 0; i < 5; i++) {
		small[i] = anon(PAGE);
		use(&c, small[i], PAGE);
	}
	CHECK_EQ(c.evictions, 2);	/* buf, then small[0] */
	use(&c, small[4], 8);
	CHECK_EQ(c.hits, 2);

	/* 1 MiB pinned at most: the third half-megabyte lets the oldest go */
	for (int i = 0; i < 3; i++) {
		half[i] = anon(512 << 10);
		use(&c, half[i], 512 << 10);
	}
	CHECK(c.bytes <= 1 << 20);
	CHECK_ERR_LOGGED(refused(&c, anon(2 << 20), 2 << 20), E2BIG,
			 "over its limit of 1048576 pinned bytes");

	/* in use: never let go; stale meanwhile: let go at its last put */
	busy = sc_regcache_get(&c, half[2], PAGE, SC_LOG_ERROR, &err);
	CHECK(busy != NULL);
	use(&c, half[1], 512 << 10);
	CHECK_ERR_LOGGED(refused(&c, anon(768 << 10), 768 << 10), ENOSPC, "all in use or kept");
	CHECK(madvise(half[2], PAGE, MADV_DONTNEED) == 0);
	h = busy->region.handle;
	CHECK(use(&c, half[2], PAGE) != h);	/* the stale entry is not served */
	sc_regcache_put(&c, busy);
	CHECK(busy->last_use == 0 || busy->region.handle != h);

	/* kept: out of the LRU's reach, until dropped */
	busy = sc_regcache_get(&c, small[3], PAGE, SC_LOG_ERROR, &err);
	CHECK(busy != NULL);
	busy->kept = 1;
	h = busy->region.handle;
	sc_regcache_put(&c, busy);
	for (int i = 0; i < 6; i++)
		use(&c, anon(PAGE), PAGE);
	CHECK_EQ(use(&c, small[3], PAGE), h);
	CHECK_EQ(sc_regcache_drop(&c, small[3] + 10), 1);
	CHECK_EQ(sc_regcache_drop(&c, small[3] + 10), 0);
	CHECK(use(&c, small[3], PAGE) != h);

	/*
	 * An event that sets the word but leaves the pages (a huge page split
	 * by an mprotect beside the buffer): the module's check keeps the
	 * region, and the entry is served on, still kept.
	 */
	huge = huge_page(&huge_map);
	busy = sc_regcache_get(&c, huge, 256 << 10, SC_LOG_ERROR, &err);
	CHECK(busy != NULL);
	busy->kept = 1;
	h = busy->region.handle;
	sc_regcache_put(&c, busy);
	CHECK(mprotect(huge + HUGE_PAGE - PAGE, PAGE, PROT_READ) == 0);
	CHECK_EQ(anon_huge_kb(huge), 0);
	CHECK_EQ(c.stale[busy - c.entries], 1);
	stale_before = c.stale_seen;
	kept_before = c.checked_kept;
	CHECK_EQ(use(&c, huge, 256 << 10), h);
	CHECK(c.checked_kept > kept_before);
	CHECK_EQ(c.stale_seen, stale_before);
	CHECK(busy->kept && busy->region.handle == h);
	CHECK_EQ(c.stale[busy - c.entries], 0);
	CHECK_EQ(sc_regcache_drop(&c, huge), 1);
	CHECK(munmap(huge_map, HUGE_PAGE_MAP) == 0);
	printf("regcache: own: %lu hits, %lu misses, %lu evictions, %lu stale entries found, %lu checked and kept\n",
	       c.hits, c.misses, c.evictions, c.stale_seen, c.checked_kept);
	sc_regcache_destroy(&c);
}

static void imports(struct sc_kmod *dev)
{
	struct sc_regcache own, in;
	struct sc_regcache_entry *a, *b, *again;
	uint8_t *buf = anon(8 * PAGE);
	uint64_t first;
	int err;

	CHECK_OK(sc_regcache_init(&own, dev, 4, 1 << 20));
	CHECK_OK(sc_regcache_init_imports(&in, dev, 4, 1 << 20));
	first = use(&own, buf, 8 * PAGE);
	a = sc_regcache_import(&in, first, (uintptr_t)buf, SC_LOG_ERROR, &err);
	CHECK(a != NULL && a->region.addr != NULL);
	CHECK_EQ(a->start, (uintptr_t)buf);
	CHECK_EQ(a->length, 8 * PAGE);
	buf[5] = 42;
	CHECK_EQ(((uint8_t *)a->region.addr)[5], 42);
	sc_regcache_put(&in, a);
	again = sc_regcache_import(&in, first, (uintptr_t)buf, SC_LOG_ERROR, &err);
	CHECK(again == a);
	CHECK_EQ(in.hits, 1);
	sc_regcache_put(&in, again);

	/* the owner's pages change: its new region supersedes the old import */
	CHECK(madvise(buf, 8 * PAGE, MADV_DONTNEED) == 0);
	buf[5] = 7;
	b = sc_regcache_import(&in, use(&own, buf, 8 * PAGE), (uintptr_t)buf, SC_LOG_ERROR, &err);
	CHECK(b != NULL && b->region.handle != first);
	CHECK_EQ(((uint8_t *)b->region.addr)[5], 7);
	CHECK(a->last_use == 0 || a == b);
	sc_regcache_put(&in, b);

	/* a handle nobody holds any more */
	CHECK(sc_regcache_import(&in, first, (uintptr_t)buf, SC_LOG_DEBUG, &err) == NULL);
	CHECK(err == -ENOENT || err == -ESTALE);
	printf("regcache: imports: %lu hits, %lu misses\n", in.hits, in.misses);
	sc_regcache_destroy(&in);
	sc_regcache_destroy(&own);
}

int main(void)
{
	struct counters baseline;
	struct sc_kmod dev;

	read_baseline(&baseline);
	open_device(&dev);
	own_buffers(&dev);
	imports(&dev);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
