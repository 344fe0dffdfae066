/*
 * Registration caches (kmod), for single copy on buffers off the symmetric
 * heap. Two kinds, one structure:
 *   own      this process's buffers as user-memory regions, exported
 *   imports  one peer's regions, imported by handle and mapped here
 *
 * The own cache cannot go stale: each region carries a stale word in the
 * cache's own page, which the module sets as soon as an event may have
 * changed the owner's pages under the region (munmap, free() of an mmap'd
 * buffer, MADV_DONTNEED, mremap, but also a huge page's split or
 * khugepaged, which leave them). A lookup reads the word before it serves
 * an entry, so a hit is a search and a load, with no system call. A set
 * word costs one REGION_INFO, which waits for the module's check of the
 * pages: a stale region is let go, so a buffer freed and reallocated at the
 * same address gets a new region, never the old pages; a kept one is
 * served on, still kept if it was registered ahead.
 * An import cache is keyed by handle: the owner publishes the handle of a
 * live region with every use, so a stale region's handle is never asked
 * for again; an import inside the range of a newer import of the same
 * owner is let go (it was, most likely, the owner's older region over those
 * pages).
 *
 * Bounded by entries and by pinned (own) or mapped (imports) bytes; the
 * least recently used entries go first. An entry in use (sc_regcache_get
 * or _import until sc_regcache_put) or kept (registered ahead) is never
 * let go by the limits. Not thread-safe: the caller serializes.
 */
#ifndef SHMEMCOMM_MEM_REGCACHE_H
#define SHMEMCOMM_MEM_REGCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "mem/kmod.h"
#include "util/log.h"

struct sc_regcache_entry {
	uintptr_t start;	/* pages covered, as the module rounded them (imports: the owner's) */
	size_t length;
	struct sc_kmod_region region;	/* own: exported, scope owner; imports: mapped */
	uint64_t last_use;	/* the cache's clock at the last use; 0: free slot */
	unsigned int busy;	/* gets not yet put */
	int kept;		/* registered ahead: out of the LRU's reach */
	int gone;		/* stale, dropped or superseded while busy: let go at the last put */
};

struct sc_regcache {
	struct sc_kmod *dev;
	struct sc_regcache_entry *entries;
	volatile uint32_t *stale;	/* own: one word per entry, on pages of their own; imports: NULL */
	unsigned int max_entries;
	unsigned int used_end;	/* no entry at or past this index has been used: lookups stop here */
	size_t max_bytes, bytes;
	uint64_t clock;
	unsigned long hits, misses, evictions, stale_seen, checked_kept;
};

#define SC_REGCACHE_MAX_ENTRIES 65536

/* 0, or -EINVAL (logged) for limits out of range, or -ENOMEM. */
int sc_regcache_init(struct sc_regcache *c, struct sc_kmod *dev, unsigned int max_entries,
		     size_t max_bytes);
int sc_regcache_init_imports(struct sc_regcache *c, struct sc_kmod *dev,
			     unsigned int max_entries, size_t max_bytes);
void sc_regcache_destroy(struct sc_regcache *c);

/*
 * Own: the exported region that covers [addr, addr + len), in use until
 * sc_regcache_put: a live cached one, or a new one (made after the least
 * recently used entries that keep it from fitting are let go). NULL with
 * *err when the buffer cannot be a region (the module's errno) or does not
 * fit: -E2BIG over the byte limit, -ENOSPC when what is in use or kept
 * leaves no room. The reason is logged at @level.
 */
struct sc_regcache_entry *sc_regcache_get(struct sc_regcache *c, const void *addr, size_t len,
					  enum sc_log_level level, int *err);
/*
 * Imports: @handle's region imported and mapped (region.addr), in use until
 * sc_regcache_put; @owner_start is where it starts in its owner (the
 * module tells only the owner), for superseding. NULL with *err (the
 * module's or mmap's errno, logged at @level) when it cannot be.
 */
struct sc_regcache_entry *sc_regcache_import(struct sc_regcache *c, uint64_t handle,
					     uint64_t owner_start, enum sc_log_level level,
					     int *err);
void sc_regcache_put(struct sc_regcache *c, struct sc_regcache_entry *e);
/* How many entries the cache holds now. */
unsigned int sc_regcache_entries(const struct sc_regcache *c);

/*
 * Lets go of every entry that covers @addr (an explicit unregister), or
 * marks it gone if in use. How many there were.
 */
int sc_regcache_drop(struct sc_regcache *c, const void *addr);

#endif
