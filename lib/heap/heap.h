/*
 * The symmetric heap's allocator. It only does offset arithmetic over
 * [0, size): every PE runs the same calls in the same order, so every PE
 * gets the same offsets, and an address on one PE translates to another by
 * offset. First fit, with neighbouring free blocks merged.
 */
#ifndef SHMEMCOMM_HEAP_HEAP_H
#define SHMEMCOMM_HEAP_HEAP_H

#include <stddef.h>

#define SC_HEAP_MIN_ALIGN 64	/* a cache line: no false sharing between objects */

struct sc_heap_block {
	size_t offset;
	size_t size;
	int free;
};

struct sc_heap {
	size_t size;
	struct sc_heap_block *blocks;	/* ascending by offset, covering [0, size) */
	size_t count;
	size_t capacity;
};

int sc_heap_init(struct sc_heap *heap, size_t size);
void sc_heap_destroy(struct sc_heap *heap);
/* @align: a power of two (raised to SC_HEAP_MIN_ALIGN). -ENOMEM when no block fits. */
int sc_heap_alloc(struct sc_heap *heap, size_t size, size_t align, size_t *offset);
/* -EINVAL unless @offset starts a live allocation. */
int sc_heap_free(struct sc_heap *heap, size_t offset);
/*
 * Resizes in place when the block or its free neighbour allows; otherwise
 * allocates anew (*moved = 1) and the caller copies and frees the old one.
 */
int sc_heap_resize(struct sc_heap *heap, size_t offset, size_t size, size_t *new_offset,
		   int *moved);
/* The size of the live allocation at @offset, or 0. */
size_t sc_heap_size_of(const struct sc_heap *heap, size_t offset);
size_t sc_heap_free_bytes(const struct sc_heap *heap);
size_t sc_heap_largest_free(const struct sc_heap *heap);

#endif
