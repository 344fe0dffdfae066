#include "core/state.h"

#include <stdlib.h>

#include "util/log.h"

struct sc_state sc;

void sc_require_init(const char *function)
{
	if (__builtin_expect(sc.initialized, 1))
		return;
	sc_error("%s called %s; call shmem_init first", function,
		 sc.finalized ? "after shmem_finalize" : "before shmem_init");
	exit(1);
}

size_t sc_heap_offset(const void *addr, size_t len, const char *function)
{
	const char *base = sc_heap_base(sc.me);
	size_t offset = (size_t)((const char *)addr - base);

	if (!sc_heap_contains(addr, len))
		sc_fatal(1, "PE %d: %s: %p (+%zu bytes) is not inside the symmetric heap [%p, %p); only what shmem_malloc returned is freed or reallocated",
			 sc.me, function, addr, len, (const void *)base,
			 (const void *)(base + sc.heap_size));
	return offset;
}

void sc_pe_out_of_range(int pe, const char *function)
{
	sc_fatal(1, "PE %d: %s: PE %d is outside 0..%d", sc.me, function, pe, sc.npes - 1);
}

int sc_team_index_of(const struct sc_team *t, int pe)
{
	if (t->members) {
		for (int i = 0; i < t->size; i++)
			if (t->members[i] == pe)
				return i;
		return -1;
	}
	if (pe < t->start || (pe - t->start) % t->stride || (pe - t->start) / t->stride >= t->size)
		return -1;
	return (pe - t->start) / t->stride;
}
