#include "mem/regcache.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The stale words' pages: whole pages, so that no other data shares them. */
static size_t stale_bytes(unsigned int entries)
{
	return (entries * sizeof(uint32_t) + 4095) & ~(size_t)4095;
}

static int init(struct sc_regcache *c, struct sc_kmod *dev, unsigned int max_entries,
		size_t max_bytes, int own)
{
	memset(c, 0, sizeof(*c));
	if (!max_entries || max_entries > SC_REGCACHE_MAX_ENTRIES || !max_bytes) {
		sc_error("registration cache: %u entries and %zu bytes: the entries must be 1..%d and the bytes more than 0",
			 max_entries, max_bytes, SC_REGCACHE_MAX_ENTRIES);
		return -EINVAL;
	}
	c->entries = calloc(max_entries, sizeof(*c->entries));
	/* their own pages: the module pins the page of every word it may set */
	c->stale = own ? mmap(NULL, stale_bytes(max_entries), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
	if (!c->entries || c->stale == MAP_FAILED) {
		free(c->entries);
		if (c->stale && c->stale != MAP_FAILED)
			munmap((void *)c->stale, stale_bytes(max_entries));
		memset(c, 0, sizeof(*c));
		return -ENOMEM;
	}
	c->dev = dev;
	c->max_entries = max_entries;
	c->max_bytes = max_bytes;
	return 0;
}

int sc_regcache_init(struct sc_regcache *c, struct sc_kmod *dev, unsigned int max_entries,
		     size_t max_bytes)
{
	return init(c, dev, max_entries, max_bytes, 1);
}

int sc_regcache_init_imports(struct sc_regcache *c, struct sc_kmod *dev,
			     unsigned int max_entries, size_t max_bytes)
{
	return init(c, dev, max_entries, max_bytes, 0);
}

/*
 * An entry let go while importers still hold its region may still go stale
 * later and set its word, which by then can be a new entry's: that entry is
 * then made again on its next use, which costs a registration, never a
 * wrong page.
 */
static void release(struct sc_regcache *c, struct sc_regcache_entry *e)
{
	sc_kmod_release(&e->region);
	c->bytes -= e->length;
	memset(e, 0, sizeof(*e));
	e->region.fd = -1;
	if (c->stale)
		c->stale[e - c->entries] = 0;
}

void sc_regcache_destroy(struct sc_regcache *c)
{
	if (!c->entries)
		return;
	for (unsigned int i = 0; i < c->max_entries; i++)
		if (c->entries[i].last_use)
			release(c, &c->entries[i]);
	free(c->entries);
	if (c->stale)
		munmap((void *)c->stale, stale_bytes(c->max_entries));
	memset(c, 0, sizeof(*c));
}

/*
 * Whether entry @e's region went stale (the owner's pages changed). A load
 * while its word is clear. A set word only says an event may have changed
 * them: it is cleared first (an event from then on sets it again), then
 * REGION_INFO waits for the module's check and gives the verdict.
 */
static int is_stale(struct sc_regcache *c, const struct sc_regcache_entry *e)
{
	volatile uint32_t *word = c->stale ? &c->stale[e - c->entries] : NULL;
	struct shmemcomm_region_info info;

	if (!word || !__atomic_load_n(word, __ATOMIC_ACQUIRE))
		return 0;
	__atomic_store_n(word, 0, __ATOMIC_SEQ_CST);
	if (sc_kmod_region_info(&e->region, &info) || (info.state & SHMEMCOMM_STATE_STALE)) {
		c->stale_seen++;
		return 1;
	}
	c->checked_kept++;
	return 0;
}

/* Stale or dropped: never served again; let go now, or at its last put. */
static void forget(struct sc_regcache *c, struct sc_regcache_entry *e)
{
	if (e->busy)
		e->gone = 1;
	else
		release(c, e);
}

/*
 * A free slot with room for @need more bytes, letting the least recently
 * used entries that are neither in use nor kept go first; NULL if what is
 * in use or kept leaves no room.
 */
static struct sc_regcache_entry *make_room(struct sc_regcache *c, size_t need)
{
	struct sc_regcache_entry *slot = NULL;

	for (;;) {
		struct sc_regcache_entry *old = NULL;

		for (unsigned int i = 0; i < c->max_entries && !slot; i++)
			if (!c->entries[i].last_use)
				slot = &c->entries[i];
		if (slot && c->bytes + need <= c->max_bytes) {
			if ((unsigned int)(slot - c->entries) >= c->used_end)
				c->used_end = (unsigned int)(slot - c->entries) + 1;
			return slot;
		}
		for (unsigned int i = 0; i < c->used_end; i++) {
			struct sc_regcache_entry *e = &c->entries[i];

			if (e->last_use && !e->busy && !e->kept &&
			    (!old || e->last_use < old->last_use))
				old = e;
		}
		if (!old)
			return NULL;
		release(c, old);
		c->evictions++;
	}
}

unsigned int sc_regcache_entries(const struct sc_regcache *c)
{
	unsigned int held = 0;

	for (unsigned int i = 0; i < c->used_end; i++)
		held += c->entries[i].last_use != 0;
	return held;
}

static void log_full(const struct sc_regcache *c, size_t need, enum sc_log_level level)
{
	sc_log(level, "registration cache: no room for %zu more bytes: its %u of %u entries and %zu of %zu bytes are all in use or kept (shmemx_buffer_register); raise SHMEMCOMM_REGCACHE_ENTRIES or _BYTES",
	       need, sc_regcache_entries(c), c->max_entries, c->bytes, c->max_bytes);
}

static int covers(const struct sc_regcache_entry *e, uintptr_t addr, size_t len)
{
	return e->last_use && !e->gone && addr >= e->start && addr - e->start <= e->length &&
	       len <= e->length - (addr - e->start);
}

struct sc_regcache_entry *sc_regcache_get(struct sc_regcache *c, const void *addr, size_t len,
					  enum sc_log_level level, int *err)
{
	uintptr_t a = (uintptr_t)addr, start = a & ~(uintptr_t)4095;
	size_t need = ((a + len + 4095) & ~(uintptr_t)4095) - start;
	struct sc_regcache_entry *e;

	c->clock++;
	for (unsigned int i = 0; i < c->used_end; i++) {
		e = &c->entries[i];
		if (!e->last_use || e->gone)
			continue;
		/* the word first: a stale entry is never served */
		if (is_stale(c, e)) {
			forget(c, e);
			continue;
		}
		if (covers(e, a, len)) {
			e->last_use = c->clock;
			e->busy++;
			c->hits++;
			return e;
		}
	}
	c->misses++;
	if (need > c->max_bytes) {
		sc_log(level, "registration cache: a buffer of %zu bytes (%zu in pages) is over its limit of %zu pinned bytes (SHMEMCOMM_REGCACHE_BYTES)",
		       len, need, c->max_bytes);
		*err = -E2BIG;
		return NULL;
	}
	e = make_room(c, need);
	if (!e) {
		log_full(c, need, level);
		*err = -ENOSPC;
		return NULL;
	}
	*err = sc_kmod_create_user_logged(c->dev, addr, len, 0, &c->stale[e - c->entries],
					  &e->region, level);
	if (!*err)
		*err = sc_kmod_export(&e->region, SHMEMCOMM_EXPORT_SCOPE_OWNER);
	if (*err) {
		sc_kmod_release(&e->region);
		return NULL;
	}
	e->start = e->region.user_start;
	e->length = e->region.size;
	e->last_use = c->clock;
	e->busy = 1;
	c->bytes += e->length;
	return e;
}

/*
 * Lets go of the owner's older imports inside the range of the new entry
 * @fresh: the owner registers pages anew when its old region over them went
 * stale. Only those inside: an in-place all-gather's source lies inside its
 * dest, both live, and letting either go would map one anew every call.
 */
static void supersede(struct sc_regcache *c, const struct sc_regcache_entry *fresh)
{
	for (unsigned int i = 0; i < c->used_end; i++) {
		struct sc_regcache_entry *e = &c->entries[i];

		if (e != fresh && e->last_use && !e->gone && e->start >= fresh->start &&
		    e->start + e->length <= fresh->start + fresh->length)
			forget(c, e);
	}
}

struct sc_regcache_entry *sc_regcache_import(struct sc_regcache *c, uint64_t handle,
					     uint64_t owner_start, enum sc_log_level level,
					     int *err)
{
	struct sc_regcache_entry *e;
	struct sc_kmod_region region;

	c->clock++;
	for (unsigned int i = 0; i < c->used_end; i++) {
		e = &c->entries[i];
		if (e->last_use && !e->gone && e->region.handle == handle) {
			e->last_use = c->clock;
			e->busy++;
			c->hits++;
			return e;
		}
	}
	c->misses++;
	*err = sc_kmod_import(c->dev, handle, 0, &region);
	if (!*err && region.size > c->max_bytes) {
		sc_log(level, "registration cache: a peer's buffer of %" PRIu64 " bytes is over the limit of %zu mapped bytes (SHMEMCOMM_REGCACHE_BYTES, which must be alike on every PE)",
		       region.size, c->max_bytes);
		*err = -E2BIG;
	}
	e = *err ? NULL : make_room(c, region.size);
	if (!*err && !e) {
		log_full(c, region.size, level);
		*err = -ENOSPC;
	}
	if (!*err)
		*err = sc_kmod_map(&region, 1);
	if (*err) {
		if (*err != -E2BIG && *err != -ENOSPC)
			sc_log(level, "registration cache: cannot import and map a peer's buffer (handle %#" PRIx64 "): %s",
			       handle, strerror(-*err));
		sc_kmod_release(&region);
		return NULL;
	}
	e->region = region;
	e->start = owner_start;
	e->length = region.size;
	e->last_use = c->clock;
	e->busy = 1;
	c->bytes += e->length;
	supersede(c, e);
	return e;
}

void sc_regcache_put(struct sc_regcache *c, struct sc_regcache_entry *e)
{
	if (--e->busy)
		return;
	if (e->gone || is_stale(c, e))
		release(c, e);
}

int sc_regcache_drop(struct sc_regcache *c, const void *addr)
{
	int n = 0;

	for (unsigned int i = 0; i < c->max_entries; i++)
		if (covers(&c->entries[i], (uintptr_t)addr, 0)) {
			c->entries[i].kept = 0;
			forget(c, &c->entries[i]);
			n++;
		}
	return n;
}
