#include "mem/regcache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/log.h"

#define REGCACHE_MAX_ENTRIES 65536

/* The stale words' pages: whole pages, so that no other data shares them. */
static size_t stale_bytes(unsigned int entries)
{
	return (entries * sizeof(uint32_t) + 4095) & ~(size_t)4095;
}

int sc_regcache_init(struct sc_regcache *c, struct sc_kmod *dev, unsigned int max_entries,
		     size_t max_bytes)
{
	memset(c, 0, sizeof(*c));
	if (!max_entries || max_entries > REGCACHE_MAX_ENTRIES || !max_bytes) {
		sc_error("registration cache: %u entries and %zu bytes: the entries must be 1..%d and the bytes more than 0",
			 max_entries, max_bytes, REGCACHE_MAX_ENTRIES);
		return -EINVAL;
	}
	c->entries = calloc(max_entries, sizeof(*c->entries));
	/* its own pages: the module pins the page of every word it may set */
	c->stale = mmap(NULL, stale_bytes(max_entries), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!c->entries || c->stale == MAP_FAILED) {
		free(c->entries);
		if (c->stale != MAP_FAILED)
			munmap((void *)c->stale, stale_bytes(max_entries));
		memset(c, 0, sizeof(*c));
		return -ENOMEM;
	}
	c->dev = dev;
	c->max_entries = max_entries;
	c->max_bytes = max_bytes;
	return 0;
}

/*
 * An entry let go while importers still hold its region may still go stale
 * later and set its word, which by then can be a new entry's: that entry is
 * then made again on its next use, which costs a registration, never a
 * wrong page.
 */
static void release(struct sc_regcache *c, unsigned int i)
{
	struct sc_regcache_entry *e = &c->entries[i];

	sc_kmod_release(&e->region);
	c->bytes -= e->length;
	memset(e, 0, sizeof(*e));
	c->stale[i] = 0;
}

void sc_regcache_destroy(struct sc_regcache *c)
{
	if (!c->entries)
		return;
	for (unsigned int i = 0; i < c->max_entries; i++)
		if (c->entries[i].last_use)
			release(c, i);
	free(c->entries);
	munmap((void *)c->stale, stale_bytes(c->max_entries));
	memset(c, 0, sizeof(*c));
}

static int covers(const struct sc_regcache_entry *e, uintptr_t addr, size_t len)
{
	return e->last_use && addr >= e->start && addr - e->start <= e->length &&
	       len <= e->length - (addr - e->start);
}

/* The least recently used entry, or -1 when none is in use. */
static int oldest(const struct sc_regcache *c)
{
	int found = -1;

	for (unsigned int i = 0; i < c->max_entries; i++)
		if (c->entries[i].last_use &&
		    (found < 0 || c->entries[i].last_use < c->entries[found].last_use))
			found = (int)i;
	return found;
}

const struct sc_kmod_region *sc_regcache_get(struct sc_regcache *c, const void *addr, size_t len,
					     int *err)
{
	uintptr_t a = (uintptr_t)addr, start = a & ~(uintptr_t)4095;
	size_t need = ((a + len + 4095) & ~(uintptr_t)4095) - start;
	int slot = -1;

	c->clock++;
	for (unsigned int i = 0; i < c->max_entries; i++) {
		struct sc_regcache_entry *e = &c->entries[i];

		if (!e->last_use) {
			if (slot < 0)
				slot = (int)i;
			continue;
		}
		/* the word first: a stale entry is never served */
		if (__atomic_load_n(&c->stale[i], __ATOMIC_ACQUIRE)) {
			c->stale_seen++;
			release(c, i);
			if (slot < 0)
				slot = (int)i;
			continue;
		}
		if (covers(e, a, len)) {
			e->last_use = c->clock;
			c->hits++;
			return &e->region;
		}
	}
	c->misses++;
	if (need > c->max_bytes) {
		sc_error("registration cache: a buffer of %zu bytes (%zu in pages) is over its limit of %zu pinned bytes",
			 len, need, c->max_bytes);
		*err = -E2BIG;
		return NULL;
	}
	while (slot < 0 || c->bytes + need > c->max_bytes) {
		int old = oldest(c);

		if (old < 0)
			break;
		release(c, (unsigned int)old);
		c->evictions++;
		if (slot < 0)
			slot = old;
	}
	*err = sc_kmod_create_user(c->dev, addr, len, 0, &c->stale[slot],
				   &c->entries[slot].region);
	if (!*err)
		*err = sc_kmod_export(&c->entries[slot].region, SHMEMCOMM_EXPORT_SCOPE_OWNER);
	if (*err) {
		sc_kmod_release(&c->entries[slot].region);
		return NULL;
	}
	c->entries[slot].start = c->entries[slot].region.user_start;
	c->entries[slot].length = c->entries[slot].region.size;
	c->entries[slot].last_use = c->clock;
	c->bytes += c->entries[slot].length;
	return &c->entries[slot].region;
}

void sc_regcache_drop(struct sc_regcache *c, const void *addr)
{
	for (unsigned int i = 0; i < c->max_entries; i++)
		if (covers(&c->entries[i], (uintptr_t)addr, 0))
			release(c, i);
}
