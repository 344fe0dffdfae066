/*
 * A registration cache of this process's own buffers as user-memory regions
 * (kmod), for single copy on buffers off the symmetric heap.
 *
 * It cannot go stale: each region carries a stale word in the cache's own
 * page, which the module sets when the owner's pages under the region change
 * (munmap, free() of an mmap'd buffer, MADV_DONTNEED, mremap). A lookup reads
 * the word before it serves an entry, so a hit is a search and a load, with
 * no system call, and a buffer freed and reallocated at the same address
 * gets a new region, never the old pages.
 *
 * Bounded by entries and by pinned bytes; the least recently used entries
 * go first. Not thread-safe: the caller serializes.
 *
 * Not used by the collectives yet (issue 17): they stage buffers off the
 * heap. The guest test tests/guest/regcache.c checks it on the module.
 */
#ifndef SHMEMCOMM_MEM_REGCACHE_H
#define SHMEMCOMM_MEM_REGCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "mem/kmod.h"

struct sc_regcache_entry {
	uintptr_t start;	/* pages covered, as the module rounded them */
	size_t length;
	struct sc_kmod_region region;	/* exported, scope owner */
	uint64_t last_use;	/* the cache's clock at the last hit; 0: free slot */
};

struct sc_regcache {
	struct sc_kmod *dev;
	struct sc_regcache_entry *entries;
	volatile uint32_t *stale;	/* one word per entry, on pages of their own */
	unsigned int max_entries;
	size_t max_bytes, bytes;
	uint64_t clock;
	unsigned long hits, misses, evictions, stale_seen;
};

/* 0, or -EINVAL for limits out of range, or -ENOMEM. */
int sc_regcache_init(struct sc_regcache *c, struct sc_kmod *dev, unsigned int max_entries,
		     size_t max_bytes);
void sc_regcache_destroy(struct sc_regcache *c);

/*
 * The exported region that covers [addr, addr + len): a live cached one, or
 * a new one (made after the least recently used entries that keep it from
 * fitting are let go). NULL with *err set (and a message logged) when the
 * buffer cannot be a region or does not fit the limits at all.
 */
const struct sc_kmod_region *sc_regcache_get(struct sc_regcache *c, const void *addr, size_t len,
					     int *err);

/* Lets go of every entry that covers @addr (an explicit unregister). */
void sc_regcache_drop(struct sc_regcache *c, const void *addr);

#endif
