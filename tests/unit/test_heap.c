/* The symmetric heap allocator: same calls give the same offsets, alignment
 * holds, frees merge, exhaustion and bad frees are refused, resize works in
 * place or moves, and random use keeps the block list consistent. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "heap/heap.h"

#define MIB (1u << 20)

static void check_invariants(const struct sc_heap *heap)
{
	size_t end = 0;

	for (size_t i = 0; i < heap->count; i++) {
		const struct sc_heap_block *b = &heap->blocks[i];

		CHECK_EQ(b->offset, end);
		CHECK(b->size > 0);
		if (i)
			CHECK(!(b->free && b[-1].free));
		end += b->size;
	}
	CHECK_EQ(end, heap->size);
}

static void same_calls_same_offsets(void)
{
	struct sc_heap a, b;
	size_t oa, ob;

	CHECK_OK(sc_heap_init(&a, MIB));
	CHECK_OK(sc_heap_init(&b, MIB));
	for (size_t n = 1; n < 20; n++) {
		CHECK_OK(sc_heap_alloc(&a, n * 100, 0, &oa));
		CHECK_OK(sc_heap_alloc(&b, n * 100, 0, &ob));
		CHECK_EQ(oa, ob);
		if (n % 3 == 0) {
			CHECK_OK(sc_heap_free(&a, oa));
			CHECK_OK(sc_heap_free(&b, ob));
		}
	}
	sc_heap_destroy(&a);
	sc_heap_destroy(&b);
}

static void alignment(void)
{
	struct sc_heap h;
	size_t off;

	CHECK_OK(sc_heap_init(&h, MIB));
	CHECK_OK(sc_heap_alloc(&h, 1, 0, &off));
	CHECK_EQ(off % SC_HEAP_MIN_ALIGN, 0);
	CHECK_OK(sc_heap_alloc(&h, 10, 4096, &off));
	CHECK_EQ(off % 4096, 0);
	CHECK_ERR(sc_heap_alloc(&h, 10, 3000, &off), EINVAL);
	CHECK_ERR(sc_heap_alloc(&h, 0, 0, &off), EINVAL);
	check_invariants(&h);
	sc_heap_destroy(&h);
}

static void frees_merge_and_exhaustion(void)
{
	struct sc_heap h;
	size_t a, b, c, off;

	CHECK_OK(sc_heap_init(&h, 4096));
	CHECK_OK(sc_heap_alloc(&h, 1024, 0, &a));
	CHECK_OK(sc_heap_alloc(&h, 1024, 0, &b));
	CHECK_OK(sc_heap_alloc(&h, 2048, 0, &c));
	CHECK_EQ(sc_heap_free_bytes(&h), 0);
	CHECK_ERR(sc_heap_alloc(&h, 64, 0, &off), ENOMEM);
	CHECK_ERR(sc_heap_alloc(&h, 8192, 0, &off), ENOMEM);
	CHECK_OK(sc_heap_free(&h, b));
	CHECK_ERR(sc_heap_free(&h, b), EINVAL);	/* twice */
	CHECK_ERR(sc_heap_free(&h, b + 64), EINVAL);	/* not a start */
	CHECK_OK(sc_heap_free(&h, a));
	CHECK_EQ(sc_heap_largest_free(&h), 2048);	/* a and b merged */
	CHECK_OK(sc_heap_free(&h, c));
	CHECK_EQ(h.count, 1);
	CHECK_EQ(sc_heap_largest_free(&h), 4096);
	sc_heap_destroy(&h);
}

static void resize(void)
{
	struct sc_heap h;
	size_t a, b, moved_to;
	int moved;

	CHECK_OK(sc_heap_init(&h, 8192));
	CHECK_OK(sc_heap_alloc(&h, 1024, 0, &a));
	CHECK_OK(sc_heap_resize(&h, a, 2048, &moved_to, &moved));	/* grows into free space */
	CHECK_EQ(moved, 0);
	CHECK_EQ(moved_to, a);
	CHECK_EQ(sc_heap_size_of(&h, a), 2048);
	CHECK_OK(sc_heap_alloc(&h, 1024, 0, &b));
	CHECK_OK(sc_heap_resize(&h, a, 4096, &moved_to, &moved));	/* b is in the way */
	CHECK_EQ(moved, 1);
	CHECK(moved_to != a);
	CHECK_OK(sc_heap_free(&h, a));
	CHECK_OK(sc_heap_resize(&h, moved_to, 64, &moved_to, &moved));	/* shrinks in place */
	CHECK_EQ(moved, 0);
	CHECK_EQ(sc_heap_size_of(&h, moved_to), 64);
	check_invariants(&h);
	sc_heap_destroy(&h);
}

static void random_use(void)
{
	size_t live[256], n = 0, off;
	struct sc_heap h;
	uint32_t x = 12345;

	CHECK_OK(sc_heap_init(&h, 4 * MIB));
	for (int step = 0; step < 20000; step++) {
		x = x * 1103515245u + 12345u;
		if (n < 256 && (x >> 16) % 3) {
			if (!sc_heap_alloc(&h, 1 + (x >> 8) % 65536, 64u << ((x >> 4) % 4), &off))
				live[n++] = off;
		} else if (n) {
			size_t k = (x >> 16) % n;

			CHECK_OK(sc_heap_free(&h, live[k]));
			live[k] = live[--n];
		}
		if (step % 97 == 0)
			check_invariants(&h);
	}
	while (n)
		CHECK_OK(sc_heap_free(&h, live[--n]));
	CHECK_EQ(h.count, 1);
	sc_heap_destroy(&h);
}

int main(void)
{
	same_calls_same_offsets();
	alignment();
	frees_merge_and_exhaustion();
	resize();
	random_use();
	return 0;
}
