/*
 * shmem_malloc and friends: collective, ending in a barrier, and symmetric
 * because every PE runs the same allocator on the same calls. With
 * SHMEMCOMM_DEBUG=1 every PE also checks that the others made the same call.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/state.h"
#include "shmem.h"
#include "util/log.h"

/* Sent to other PEs, so by number: a pointer means nothing in another process. */
static const char *const alloc_functions[] = {
	"shmem_malloc", "shmem_calloc", "shmem_align", "shmem_realloc", "shmem_malloc_with_hints",
};

struct alloc_call {
	unsigned long number;
	size_t size;
	size_t align;
	int function;	/* index into alloc_functions */
};

static int function_index(const char *function)
{
	for (int i = 0; i < (int)(sizeof(alloc_functions) / sizeof(alloc_functions[0])); i++)
		if (!strcmp(alloc_functions[i], function))
			return i;
	return -1;
}

static void check_symmetric(const char *function, size_t size, size_t align)
{
	struct alloc_call mine = { sc.allocations, size, align, function_index(function) };
	struct alloc_call *all;

	if (!sc.debug)
		return;
	all = calloc((size_t)sc.npes, sizeof(*all));
	if (!all || sc_boot_allgather(&sc.boot, &mine, sizeof(mine), all))
		sc_fatal(1, "PE %d: SHMEMCOMM_DEBUG: cannot compare allocations", sc.me);
	for (int pe = 0; pe < sc.npes; pe++)
		if (all[pe].size != size || all[pe].align != align ||
		    all[pe].function != mine.function || all[pe].number != mine.number)
			sc_fatal(1, "SHMEMCOMM_DEBUG: symmetric allocation #%lu differs: PE %d called %s(%zu bytes, align %zu), PE %d called %s(%zu bytes, align %zu) as its call #%lu",
				 mine.number, sc.me, function, size, align, pe,
				 all[pe].function >= 0 ? alloc_functions[all[pe].function] : "?",
				 all[pe].size, all[pe].align, all[pe].number);
	free(all);
}

static void *allocate(const char *function, size_t size, size_t align, int zero)
{
	size_t offset;
	void *ptr = NULL;
	int err;

	sc_require_init(function);
	sc.allocations++;
	check_symmetric(function, size, align);
	if (align > SC_MEM_ALIGN) {
		sc_error("PE %d: %s: alignment %zu is above the largest the heap offers, %zu (1 GiB)",
			 sc.me, function, align, SC_MEM_ALIGN);
	} else if (size) {
		err = sc_heap_alloc(&sc.heap, size, align, &offset);
		if (err == -ENOMEM)
			sc_error("PE %d: %s(%zu) failed: the symmetric heap has %zu bytes free (largest block %zu) of %zu; raise SHMEM_SYMMETRIC_SIZE",
				 sc.me, function, size, sc_heap_free_bytes(&sc.heap),
				 sc_heap_largest_free(&sc.heap), sc.heap_size);
		else if (err)
			sc_error("PE %d: %s: alignment %zu is not a power of two", sc.me, function,
				 align);
		else
			ptr = sc_heap_base(sc.me) + offset;
	}
	if (ptr && zero)
		memset(ptr, 0, size);
	shmem_barrier_all();
	return ptr;
}

void *shmem_malloc(size_t size)
{
	return allocate("shmem_malloc", size, 0, 0);
}

/*
 * The hints say how the memory will be used; every block here serves every
 * use alike (CPU atomics on the node, the NIC's across), so they change
 * nothing. The standard lets a library ignore hints it cannot use, and
 * programs pass their own implementations' bits: those are ignored too, and
 * named at debug level, where a misspelt hint can still be found.
 */
void *shmem_malloc_with_hints(size_t size, long hints)
{
	const long known = SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE;

	if (hints & ~known) {
		sc_require_init("shmem_malloc_with_hints");
		sc_debug("PE %d: shmem_malloc_with_hints(%zu, %#lx): hints %#lx are not SHMEM_MALLOC_ATOMICS_REMOTE (%#lx) or SHMEM_MALLOC_SIGNAL_REMOTE (%#lx), and change nothing, as those do not",
			 sc.me, size, (unsigned long)hints, (unsigned long)(hints & ~known),
			 (unsigned long)SHMEM_MALLOC_ATOMICS_REMOTE,
			 (unsigned long)SHMEM_MALLOC_SIGNAL_REMOTE);
	}
	return allocate("shmem_malloc_with_hints", size, 0, 0);
}

void *shmem_calloc(size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size) {
		sc_require_init("shmem_calloc");
		sc_error("PE %d: shmem_calloc(%zu, %zu): the product overflows size_t", sc.me,
			 count, size);
		shmem_barrier_all();
		return NULL;
	}
	return allocate("shmem_calloc", count * size, 0, 1);
}

void *shmem_align(size_t alignment, size_t size)
{
	return allocate("shmem_align", size, alignment, 0);
}

void shmem_free(void *ptr)
{
	sc_require_init("shmem_free");
	shmem_barrier_all();
	if (!ptr)
		return;
	if (sc_heap_free(&sc.heap, sc_heap_offset(ptr, 0, "shmem_free")))
		sc_fatal(1, "PE %d: shmem_free(%p): not a live symmetric allocation", sc.me, ptr);
}

void *shmem_realloc(void *ptr, size_t size)
{
	size_t offset, new_offset, old_size;
	void *moved_to;
	int moved;

	if (!ptr)
		return shmem_malloc(size);
	if (!size) {
		shmem_free(ptr);
		return NULL;
	}
	sc_require_init("shmem_realloc");
	sc.allocations++;
	check_symmetric("shmem_realloc", size, 0);
	offset = sc_heap_offset(ptr, 0, "shmem_realloc");
	old_size = sc_heap_size_of(&sc.heap, offset);
	if (!old_size)
		sc_fatal(1, "PE %d: shmem_realloc(%p): not a live symmetric allocation", sc.me, ptr);
	/* no PE may still be writing into the old block */
	shmem_barrier_all();
	if (sc_heap_resize(&sc.heap, offset, size, &new_offset, &moved)) {
		sc_error("PE %d: shmem_realloc(%zu) failed: the symmetric heap has %zu bytes free (largest block %zu) of %zu; raise SHMEM_SYMMETRIC_SIZE",
			 sc.me, size, sc_heap_free_bytes(&sc.heap), sc_heap_largest_free(&sc.heap),
			 sc.heap_size);
		shmem_barrier_all();
		return NULL;
	}
	moved_to = sc_heap_base(sc.me) + new_offset;
	if (moved) {
		memcpy(moved_to, ptr, old_size < size ? old_size : size);
		sc_heap_free(&sc.heap, offset);
	}
	shmem_barrier_all();
	return moved_to;
}
