/*
 * Single copy on buffers off the symmetric heap (kmod with user-memory
 * regions): a collective's source or dest that would go through the
 * staging buffers is made a user-memory region instead, found again by
 * later calls in this PE's registration cache (mem/regcache.h), and its
 * handle and offset go in the PE's slot with the call (request.c's
 * describe). Each node peer imports and maps it on its first sight of that
 * handle and keeps the mapping in its import cache; from then on the
 * engine reads and writes it where it is, as it does the heap.
 *
 * Only on a team within one node, for the pipeline's algorithms (one-shot
 * copies into its own small buffers anyway), for buffers of at least
 * SHMEMCOMM_COLL_REGISTER_MIN bytes: below that, two copies through the
 * staging buffers cost less than a registration's first use. A buffer that
 * cannot be registered (read-only memory, a PFN mapping such as a peer's
 * heap through shmem_ptr, the cache's limits) is staged, and the first such
 * buffer gets a warning saying why. Entries stay in use from the call's
 * start to its end, so no other call's eviction unmaps what a peer reads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll/register.h"
#include "shmemx.h"
#include "util/log.h"

/* Collectives' buffers staged, and read in place in the buffer pool, since init. */
static unsigned long buffers_staged, buffers_pooled;

void sc_coll_count_buffers(unsigned long staged, unsigned long pooled)
{
	buffers_staged += staged;
	buffers_pooled += pooled;
}

/* A buffer that had to be staged: a warning the first time, then debug lines. */
static int staged_before;

static struct sc_regcache_entry *register_one(const struct shmemx_request *r, const void *p,
					      size_t bytes, const char *which)
{
	enum sc_log_level level = staged_before ? SC_LOG_DEBUG : SC_LOG_WARN;
	struct sc_regcache_entry *e;
	int err;

	e = sc_regcache_get(&sc.mem.registered, p, bytes, level, &err);
	if (!e) {
		sc_log(level, "PE %d: %s: so its %s (%zu bytes at %p) goes through the staging buffers (two copies)%s",
		       sc.me, r->a.what, which, bytes, p,
		       staged_before ? "" : "; later buffers staged for a failed registration are named at SHMEMCOMM_LOG=debug");
		staged_before = 1;
	}
	return e;
}

void sc_coll_register(struct shmemx_request *r, size_t src_bytes, size_t dst_bytes)
{
	const struct sc_coll_args *a = &r->a;

	if (!sc.mem.registered.entries || r->spans || sc_coll_pairwise(r->algo) ||
	    r->algo == SC_ALGO_ONESHOT || !a->count)
		return;
	if (r->src_staged && src_bytes >= sc.coll.register_min &&
	    !(a->kind == SC_ALLTOALL && a->source == a->dest) &&
	    (a->kind != SC_BROADCAST || a->team->my_index == a->root)) {
		r->registered[0] = register_one(r, a->source, src_bytes, "source");
		r->src_staged = !r->registered[0];
	}
	if (r->result_staged && dst_bytes >= sc.coll.register_min) {
		r->registered[1] = register_one(r, a->dest, dst_bytes, "dest");
		r->result_staged = !r->registered[1];
	}
}

__attribute__((cold, noreturn))
static void cannot_import(const struct shmemx_request *r, int pe, uint64_t handle, int err)
{
	if (!sc.mem.imports)
		sc_fatal(1, "PE %d: %s: PE %d registered its buffer for the collective, and this PE registers none (SHMEMCOMM_REGCACHE_ENTRIES=0, or its module has no user-memory regions); set SHMEMCOMM_REGCACHE_ENTRIES alike on every PE",
			 sc.me, r->a.what, pe);
	sc_fatal(1, "PE %d: %s: cannot map PE %d's registered buffer (handle %#" PRIx64 "): %s%s",
		 sc.me, r->a.what, pe, handle, strerror(-err),
		 err == -ESTALE ? " (its pages changed under it during the call: was it freed or unmapped before the call returned?)" : "");
}

const char *sc_coll_registered_view(struct shmemx_request *r, int m, int which,
				    uint64_t handle, uint64_t start, uint64_t offset)
{
	int pe = sc_team_world_pe(r->a.team, m);
	struct sc_regcache *cache = sc.mem.imports ? sc_mem_imports_of(&sc.mem, pe) : NULL;
	struct sc_regcache_entry *e;
	int err = -ENOMEM;

	e = cache ? sc_regcache_import(cache, handle, start, SC_LOG_ERROR, &err) : NULL;
	if (!e)
		cannot_import(r, pe, handle, err);
	r->imported[which * r->a.team->size + m] = e;
	r->imports_held = 1;
	return (const char *)e->region.addr + offset;
}

void sc_coll_unregister(struct shmemx_request *r)
{
	int n = r->a.team->size;

	for (int i = 0; i < 2; i++)
		if (r->registered[i]) {
			sc_regcache_put(&sc.mem.registered, r->registered[i]);
			r->registered[i] = NULL;
		}
	if (!r->imports_held)
		return;
	for (int i = 0; i < 2 * n; i++)
		if (r->imported[i]) {
			sc_regcache_put(&sc.mem.imports[sc_team_world_pe(r->a.team, i % n)],
					r->imported[i]);
			r->imported[i] = NULL;
		}
	r->imports_held = 0;
}

/* The public face: registering ahead, as ncclCommRegister does. */

static int registration_ready(const char *what)
{
	sc_require_init(what);
	if (sc.mem.registered.entries)
		return 1;
	sc_error("PE %d: %s: buffers can be registered only on the kmod back end with user-memory regions (module ABI 1.1) and SHMEMCOMM_REGCACHE_ENTRIES above 0; this job runs on %s%s, where the collectives stage buffers off the heap",
		 sc.me, what, sc_mem_name(sc.mem.kind),
		 sc.mem.kind != SC_MEM_KMOD ? "" : sc.mem.regcache_entries ?
		 " without user-memory regions" : " with SHMEMCOMM_REGCACHE_ENTRIES=0");
	return 0;
}

int shmemx_buffer_register(void *addr, size_t bytes)
{
	struct sc_regcache_entry *e;
	int err;

	if (!registration_ready("shmemx_buffer_register"))
		return -1;
	if (!addr || !bytes) {
		sc_error("PE %d: shmemx_buffer_register: %s", sc.me,
			 addr ? "bytes is 0" : "addr is NULL");
		return -1;
	}
	e = sc_regcache_get(&sc.mem.registered, addr, bytes, SC_LOG_ERROR, &err);
	if (!e) {
		sc_error("PE %d: shmemx_buffer_register: cannot register %zu bytes at %p (above)",
			 sc.me, bytes, addr);
		return -1;
	}
	e->kept = 1;
	sc_regcache_put(&sc.mem.registered, e);
	return 0;
}

int shmemx_buffer_unregister(void *addr)
{
	if (!registration_ready("shmemx_buffer_unregister"))
		return -1;
	if (!sc_regcache_drop(&sc.mem.registered, addr)) {
		sc_error("PE %d: shmemx_buffer_unregister: %p is in no registered buffer", sc.me,
			 addr);
		return -1;
	}
	return 0;
}

int shmemx_buffer_stats(shmemx_buffer_stats_t *stats)
{
	const struct sc_regcache *own = &sc.mem.registered;

	sc_require_init("shmemx_buffer_stats");
	if (!stats) {
		sc_error("PE %d: shmemx_buffer_stats: stats is NULL", sc.me);
		return -1;
	}
	*stats = (shmemx_buffer_stats_t){
		.misses = own->misses, .hits = own->hits, .stale = own->stale_seen,
		.evictions = own->evictions, .entries = sc_regcache_entries(own),
		.pinned_bytes = own->bytes,
	};
	stats->staged = buffers_staged;
	stats->pooled = buffers_pooled;
	for (int pe = 0; sc.mem.imports && pe < sc.npes; pe++) {
		stats->imports += sc.mem.imports[pe].misses;
		stats->import_hits += sc.mem.imports[pe].hits;
		stats->mapped_bytes += sc.mem.imports[pe].bytes;
	}
	return 0;
}
