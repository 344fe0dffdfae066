#include "heap.h"

#include <pthread.h>
#include <stdio.h>

#include <shmem.h>
#include <shmemx.h>

#define WORDS (SCT_HEAP_BLOCKS / 64)
#define ALIGNMENT 64	/* as torch's CPU allocator gives */

static struct {
	pthread_mutex_t lock;
	/* changed only by sct_heap_commit, at points agreed by every PE */
	void *ptr[SCT_HEAP_BLOCKS];
	size_t bytes[SCT_HEAP_BLOCKS];
	uint64_t used[WORDS];
	/* this PE's: set by a dying tensor, cleared when the block is freed */
	uint64_t released[WORDS];
} heap = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int bit(const uint64_t *map, int i)
{
	return (int)(map[i / 64] >> (i % 64) & 1);
}

static void set_bit(uint64_t *map, int i, int on)
{
	if (on)
		map[i / 64] |= 1ull << (i % 64);
	else
		map[i / 64] &= ~(1ull << (i % 64));
}

void sct_heap_propose(uint64_t agreement[SCT_HEAP_AGREEMENT_WORDS], size_t bytes)
{
	pthread_mutex_lock(&heap.lock);
	for (int w = 0; w < WORDS; w++)
		agreement[w] = heap.released[w] & heap.used[w];
	pthread_mutex_unlock(&heap.lock);
	agreement[WORDS] = bytes;
	agreement[WORDS + 1] = ~(uint64_t)bytes;
}

int sct_heap_commit(const uint64_t agreed[SCT_HEAP_AGREEMENT_WORDS], size_t bytes, void **ptr,
		    char *error, size_t len)
{
	int index = -1;
	void *p;

	/* AND of the sizes equals their OR only if every PE asked for the same */
	if (agreed[WORDS] != ~agreed[WORDS + 1]) {
		snprintf(error, len,
			 "the ranks asked for different sizes (this one for %zu bytes): empty() is collective, so every rank asks for the same shape and dtype, in the same order",
			 bytes);
		return -1;
	}
	for (int i = 0; i < SCT_HEAP_BLOCKS; i++) {
		if (!bit(agreed, i))
			continue;
		/* collective, and in block order on every PE */
		shmem_free(heap.ptr[i]);
		pthread_mutex_lock(&heap.lock);
		set_bit(heap.used, i, 0);
		set_bit(heap.released, i, 0);
		heap.ptr[i] = NULL;
		heap.bytes[i] = 0;
		pthread_mutex_unlock(&heap.lock);
	}
	for (int i = 0; i < SCT_HEAP_BLOCKS && index < 0; i++)
		if (!bit(heap.used, i))
			index = i;
	if (index < 0) {
		snprintf(error, len,
			 "%d heap tensors are alive on some rank, the most there can be at once: drop some (a block is reused once every rank has dropped its tensor)",
			 SCT_HEAP_BLOCKS);
		return -1;
	}
	/* the heap is the same on every PE, so all find room or none does */
	if (bytes > shmemx_heap_free()) {
		snprintf(error, len,
			 "no room for %zu bytes on the symmetric heap: %zu of its %zu bytes are free; raise SHMEM_SYMMETRIC_SIZE, or drop heap tensors on every rank",
			 bytes, shmemx_heap_free(), shmemx_heap_size());
		return -1;
	}
	p = shmem_align(ALIGNMENT, bytes);
	if (!p) {
		snprintf(error, len,
			 "no block of %zu bytes on the symmetric heap (%zu bytes free, but not in one piece; the library's message is above): raise SHMEM_SYMMETRIC_SIZE",
			 bytes, shmemx_heap_free());
		return -1;
	}
	pthread_mutex_lock(&heap.lock);
	heap.ptr[index] = p;
	heap.bytes[index] = bytes;
	set_bit(heap.used, index, 1);
	pthread_mutex_unlock(&heap.lock);
	*ptr = p;
	return index;
}

void sct_heap_release(int index)
{
	if (index < 0 || index >= SCT_HEAP_BLOCKS)
		return;
	pthread_mutex_lock(&heap.lock);
	set_bit(heap.released, index, 1);
	pthread_mutex_unlock(&heap.lock);
}

static int live(int i)
{
	return bit(heap.used, i) && !bit(heap.released, i);
}

int sct_heap_contains(const void *p, size_t len)
{
	const char *c = p;
	int found = 0;

	pthread_mutex_lock(&heap.lock);
	for (int i = 0; i < SCT_HEAP_BLOCKS && !found; i++)
		found = live(i) && c >= (const char *)heap.ptr[i] &&
			c + len <= (const char *)heap.ptr[i] + heap.bytes[i];
	pthread_mutex_unlock(&heap.lock);
	return found;
}

void sct_heap_usage(unsigned *blocks, size_t *bytes)
{
	*blocks = 0;
	*bytes = 0;
	pthread_mutex_lock(&heap.lock);
	for (int i = 0; i < SCT_HEAP_BLOCKS; i++) {
		if (!live(i))
			continue;
		(*blocks)++;
		*bytes += heap.bytes[i];
	}
	pthread_mutex_unlock(&heap.lock);
}

void *sct_heap_block(int index, size_t *bytes)
{
	void *p = NULL;

	pthread_mutex_lock(&heap.lock);
	if (live(index)) {
		p = heap.ptr[index];
		*bytes = heap.bytes[index];
	}
	pthread_mutex_unlock(&heap.lock);
	return p;
}
