/* The registration cache (lib/mem/regcache.c) on the module: a second use of
 * a buffer is a hit on the same region; a buffer unmapped and mapped again at
 * the same address gets a new region, found out through its stale word; the
 * entry and byte limits let the least recently used go; a buffer over the
 * byte limit is refused; nothing stays pinned after. */
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

int main(void)
{
	const struct sc_kmod_region *r;
	uint8_t *buf, *small[5], *half[3];
	struct counters baseline;
	struct sc_regcache c;
	struct sc_kmod dev;
	uint64_t first;
	int err;

	read_baseline(&baseline);
	open_device(&dev);
	CHECK_ERR_LOGGED(sc_regcache_init(&c, &dev, 0, 1 << 20), EINVAL, "the entries must be 1..");
	CHECK_OK(sc_regcache_init(&c, &dev, 4, 1 << 20));

	buf = anon(16 * PAGE);
	r = sc_regcache_get(&c, buf, 16 * PAGE, &err);
	CHECK(r != NULL && r->handle != 0);
	first = r->handle;
	r = sc_regcache_get(&c, buf + 100, 1000, &err);
	CHECK(r != NULL && r->handle == first);
	CHECK_EQ(c.hits, 1);

	/* unmapped and mapped again at the same address: a new region */
	CHECK(munmap(buf, 16 * PAGE) == 0);
	CHECK(mmap(buf, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		   -1, 0) == buf);
	r = sc_regcache_get(&c, buf, 16 * PAGE, &err);
	CHECK(r != NULL && r->handle != first);
	CHECK_EQ(c.stale_seen, 1);
	CHECK_EQ(c.hits, 1);

	/* four entries at most: the fifth buffer lets the least recently used go */
	for (int i = 0; i < 5; i++) {
		small[i] = anon(PAGE);
		CHECK(sc_regcache_get(&c, small[i], PAGE, &err) != NULL);
	}
	CHECK_EQ(c.evictions, 2);	/* buf, then small[0] */
	CHECK(sc_regcache_get(&c, small[4], 8, &err) != NULL);
	CHECK_EQ(c.hits, 2);

	/* 1 MiB pinned at most: the third half-megabyte lets the oldest go */
	for (int i = 0; i < 3; i++) {
		half[i] = anon(512 << 10);
		CHECK(sc_regcache_get(&c, half[i], 512 << 10, &err) != NULL);
	}
	CHECK(c.bytes <= 1 << 20);
	CHECK_ERR_LOGGED((long)(sc_regcache_get(&c, anon(2 << 20), 2 << 20, &err) ? 0 : err),
			 E2BIG, "over its limit of 1048576 pinned bytes");

	/* an explicit unregister */
	sc_regcache_drop(&c, half[2]);
	CHECK(sc_regcache_get(&c, half[2], PAGE, &err) != NULL);
	printf("regcache: %lu hits, %lu misses, %lu evictions, %lu stale entries found\n", c.hits,
	       c.misses, c.evictions, c.stale_seen);

	sc_regcache_destroy(&c);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
