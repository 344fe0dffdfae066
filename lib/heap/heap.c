#include "heap/heap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t round_up(size_t v, size_t align)
{
	return (v + align - 1) & ~(align - 1);
}

static int reserve(struct sc_heap *heap, size_t extra)
{
	struct sc_heap_block *grown;
	size_t capacity;

	if (heap->count + extra <= heap->capacity)
		return 0;
	capacity = heap->capacity ? heap->capacity * 2 : 64;
	while (capacity < heap->count + extra)
		capacity *= 2;
	grown = realloc(heap->blocks, capacity * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	heap->blocks = grown;
	heap->capacity = capacity;
	return 0;
}

/* Splits block @i at @at (relative): [offset, offset+at) and the rest. */
static void split(struct sc_heap *heap, size_t i, size_t at)
{
	struct sc_heap_block *b = &heap->blocks[i];

	memmove(b + 2, b + 1, (heap->count - i - 1) * sizeof(*b));
	b[1] = (struct sc_heap_block){ b->offset + at, b->size - at, b->free };
	b->size = at;
	heap->count++;
}

static void merge_with_next(struct sc_heap *heap, size_t i)
{
	struct sc_heap_block *b = &heap->blocks[i];

	b->size += b[1].size;
	memmove(b + 1, b + 2, (heap->count - i - 2) * sizeof(*b));
	heap->count--;
}

int sc_heap_init(struct sc_heap *heap, size_t size)
{
	memset(heap, 0, sizeof(*heap));
	if (reserve(heap, 1))
		return -ENOMEM;
	heap->size = size;
	heap->blocks[0] = (struct sc_heap_block){ 0, size, 1 };
	heap->count = 1;
	return 0;
}

void sc_heap_destroy(struct sc_heap *heap)
{
	free(heap->blocks);
	memset(heap, 0, sizeof(*heap));
}

int sc_heap_alloc(struct sc_heap *heap, size_t size, size_t align, size_t *offset)
{
	if (align < SC_HEAP_MIN_ALIGN)
		align = SC_HEAP_MIN_ALIGN;
	if (!size || (align & (align - 1)) || size > heap->size)
		return size > heap->size ? -ENOMEM : -EINVAL;
	size = round_up(size, SC_HEAP_MIN_ALIGN);
	/* room for two more blocks: a leading pad and a tail */
	if (reserve(heap, 2))
		return -ENOMEM;
	for (size_t i = 0; i < heap->count; i++) {
		struct sc_heap_block *b = &heap->blocks[i];
		size_t start = round_up(b->offset, align), pad = start - b->offset;

		if (!b->free || pad > b->size || b->size - pad < size)
			continue;
		if (pad) {
			split(heap, i, pad);
			i++;
		}
		if (heap->blocks[i].size > size)
			split(heap, i, size);
		heap->blocks[i].free = 0;
		*offset = heap->blocks[i].offset;
		return 0;
	}
	return -ENOMEM;
}

static long find(const struct sc_heap *heap, size_t offset)
{
	size_t lo = 0, hi = heap->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (heap->blocks[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < heap->count && heap->blocks[lo].offset == offset ? (long)lo : -1;
}

int sc_heap_free(struct sc_heap *heap, size_t offset)
{
	long i = find(heap, offset);

	if (i < 0 || heap->blocks[i].free)
		return -EINVAL;
	heap->blocks[i].free = 1;
	if ((size_t)i + 1 < heap->count && heap->blocks[i + 1].free)
		merge_with_next(heap, (size_t)i);
	if (i > 0 && heap->blocks[i - 1].free)
		merge_with_next(heap, (size_t)i - 1);
	return 0;
}

int sc_heap_resize(struct sc_heap *heap, size_t offset, size_t size, size_t *new_offset,
		   int *moved)
{
	long i = find(heap, offset);
	struct sc_heap_block *b;

	*moved = 0;
	if (i < 0 || heap->blocks[i].free || !size)
		return -EINVAL;
	size = round_up(size, SC_HEAP_MIN_ALIGN);
	if (reserve(heap, 1))
		return -ENOMEM;
	b = &heap->blocks[i];
	if (size > b->size && (size_t)i + 1 < heap->count && b[1].free &&
	    b->size + b[1].size >= size)
		merge_with_next(heap, (size_t)i);
	if (size <= b->size) {
		if (b->size > size) {
			split(heap, (size_t)i, size);
			b = &heap->blocks[i];
			b[1].free = 1;
			if ((size_t)i + 2 < heap->count && b[2].free)
				merge_with_next(heap, (size_t)i + 1);
		}
		*new_offset = offset;
		return 0;
	}
	*moved = 1;
	return sc_heap_alloc(heap, size, SC_HEAP_MIN_ALIGN, new_offset);
}

size_t sc_heap_size_of(const struct sc_heap *heap, size_t offset)
{
	long i = find(heap, offset);

	return i < 0 || heap->blocks[i].free ? 0 : heap->blocks[i].size;
}

size_t sc_heap_free_bytes(const struct sc_heap *heap)
{
	size_t total = 0;

	for (size_t i = 0; i < heap->count; i++)
		total += heap->blocks[i].free ? heap->blocks[i].size : 0;
	return total;
}

size_t sc_heap_largest_free(const struct sc_heap *heap)
{
	size_t best = 0;

	for (size_t i = 0; i < heap->count; i++)
		if (heap->blocks[i].free && heap->blocks[i].size > best)
			best = heap->blocks[i].size;
	return best;
}
