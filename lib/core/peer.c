#include "core/peer.h"

#include <dlfcn.h>
#include <string.h>

#include "core/pool.h"
#include "core/state.h"
#include "util/log.h"

/*
 * @pe's byte at @offset where it is mapped here: the segment below its
 * size, the program's globals past it (symmetric), then its buffer pool
 * (each PE's own offsets: core/pool.h); NULL off this node.
 */
static inline char *peer_byte(int pe, uint64_t offset)
{
	char *base;

	if (__builtin_expect(offset < sc.mem.size, 1)) {
		base = sc.mem.base[pe];
		return base ? base + offset : NULL;
	}
	offset -= sc.mem.size;
	if (offset < sc.mem.globals.size) {
		base = sc.mem.globals.base ? sc.mem.globals.base[pe] : NULL;
		return base ? base + offset : NULL;
	}
	offset -= sc.mem.globals.size;
	base = sc_pool_shared.base && offset < sc_pool_shared.size ? sc_pool_shared.base[pe] : NULL;
	return base ? base + offset : NULL;
}

void *sc_peer_view(int pe, uint64_t offset)
{
	return peer_byte(pe, offset);
}

void sc_peer_quiet(void)
{
	if (sc.net.active)
		sc_net_quiet(&sc.net);
}

void sc_peer_name_lost(const int *pes, int n, char *did, unsigned long len)
{
	sc_net_name_lost(&sc.net, pes, n, did, len);
}

void sc_peer_put(int pe, uint64_t offset, const void *source, size_t len, int nbi)
{
	char *to = peer_byte(pe, offset);

	if (to)
		memcpy(to, source, len);
	else
		sc_net_put(&sc.net, pe, offset, source, len, nbi);
}

void sc_peer_get(void *dest, int pe, uint64_t offset, size_t len, int nbi)
{
	const char *from = peer_byte(pe, offset);

	if (from)
		memcpy(dest, from, len);
	else
		sc_net_get(&sc.net, dest, pe, offset, len, nbi);
}

uint64_t sc_peer_load(int pe, uint64_t offset)
{
	char *word = peer_byte(pe, offset);
	uint64_t value;

	if (word)
		return __atomic_load_n((uint64_t *)word, __ATOMIC_ACQUIRE);
	sc_net_get(&sc.net, &value, pe, offset, sizeof(value), 0);
	return value;
}

int sc_peer_probe(int pe, uint64_t offset, uint64_t *value)
{
	if (sc.mem.base[pe]) {
		*value = sc_peer_load(pe, offset);
		return 0;
	}
	return sc_net_probe(&sc.net, value, pe, offset, 1.0);
}

void sc_peer_store(int pe, uint64_t offset, uint64_t value)
{
	char *word = peer_byte(pe, offset);

	if (word) {
		__atomic_store_n((uint64_t *)word, value, __ATOMIC_RELEASE);
		sc_wait_ring();
	} else
		sc_net_put(&sc.net, pe, offset, &value, sizeof(value), 0);
}

int sc_peer_atomic_by_cpu(int pe)
{
	return !sc.net.active || (sc.net.amo_by_message && sc.mem.base[pe]);
}

/* Why [addr, addr + len) is not symmetric, for the message that ends the job. */
static void __attribute__((noreturn, cold))
explain_not_symmetric(const void *addr, size_t len, const char *function)
{
	const struct sc_globals *g = &sc.mem.globals;
	const char *heap = sc_heap_base(sc.me);
	char *start;
	size_t size;
	Dl_info obj;

	sc_globals_range(&start, &size);
	if ((const char *)addr >= start && (const char *)addr < start + size) {
		if (sc.mem.globals_off)
			sc_fatal(1, "PE %d: %s: %p is a global or static variable, and SHMEMCOMM_GLOBALS=0 keeps those private",
				 sc.me, function, addr);
		sc_fatal(1, "PE %d: %s: %p (+%zu bytes) runs past the end of the program's globals [%p, %p)",
			 sc.me, function, addr, len, (void *)g->start, (void *)(g->start + g->size));
	}
	if ((const char *)addr >= heap && (const char *)addr < heap + sc.heap_size)
		sc_fatal(1, "PE %d: %s: %p (+%zu bytes) runs past the end of the symmetric heap [%p, %p)",
			 sc.me, function, addr, len, (const void *)heap,
			 (const void *)(heap + sc.heap_size));
	if (dladdr(addr, &obj) && obj.dli_fname && obj.dli_fname[0])
		sc_fatal(1, "PE %d: %s: %p is in %s, a shared library: only the program's own globals and statics are symmetric, and the symmetric heap (shmem_malloc)",
			 sc.me, function, addr, obj.dli_fname);
	sc_fatal(1, "PE %d: %s: %p is not symmetric: symmetric objects are the program's globals and statics [%p, %p) and the symmetric heap [%p, %p) (shmem_malloc); the stack and malloc are not",
		 sc.me, function, addr, (void *)start, (void *)(start + size), (const void *)heap,
		 (const void *)(heap + sc.heap_size));
}

void sc_symmetric_require(const void *addr, size_t len, const char *function)
{
	if (__builtin_expect(len && !sc_symmetric_contains(addr, len), 0))
		explain_not_symmetric(addr, len, function);
}

uint64_t sc_symmetric_offset(const void *addr, size_t len, int pe, const char *function)
{
	const struct sc_globals *g = &sc.mem.globals;

	sc_check_pe(pe, function);
	if (__builtin_expect(sc_heap_contains(addr, len), 1))
		return sc.internal_size + (uint64_t)((const char *)addr - sc_heap_base(sc.me));
	if (sc_globals_contain(g, addr, len))
		return sc.mem.size + (uint64_t)((const char *)addr - g->start);
	explain_not_symmetric(addr, len, function);
}
