/* The symmetric heap: every PE gets the same offsets for the same calls;
 * calloc zeroes; realloc keeps the data; align aligns the address, up to
 * 1 GiB, and refuses more; malloc_with_hints allocates alike whatever
 * the hints (conformance.c: bits it does not know too); pcontrol is accepted; freed space is reused;
 * exhaustion returns NULL on every PE (and says why). */
#include <stdint.h>
#include <string.h>

#include "mp.h"

#define CALLS 16

int main(void)
{
	size_t *offsets, mine[CALLS];
	void *blocks[CALLS];
	char *base_probe, *grown, *huge;
	int me, npes;

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	offsets = shmem_malloc(sizeof(size_t) * CALLS);
	base_probe = shmem_malloc(1);
	for (int i = 0; i < CALLS; i++) {
		blocks[i] = i % 3 == 0 ? shmem_align(4096, (size_t)(i + 1) * 100) :
			    i % 3 == 1 ? shmem_calloc((size_t)i + 1, 64) :
					 shmem_malloc((size_t)i * 1000 + 1);
		MP_CHECK(blocks[i]);
		mine[i] = (size_t)((char *)blocks[i] - base_probe);
		if (i % 3 == 0)
			MP_CHECK((uintptr_t)blocks[i] % 4096 == 0);
		if (i % 3 == 1)
			for (int k = 0; k < (i + 1) * 64; k++)
				MP_CHECK(((char *)blocks[i])[k] == 0);
		if (i % 4 == 3)
			shmem_free(blocks[i - 1]);
	}
	memcpy(offsets, mine, sizeof(mine));
	shmem_barrier_all();
	/* PE 0's offsets are everyone's offsets */
	size_t theirs[CALLS];

	shmem_getmem(theirs, offsets, sizeof(theirs), 0);
	for (int i = 0; i < CALLS; i++)
		MP_CHECK(theirs[i] == mine[i]);

	/* realloc keeps the contents, grown or moved */
	grown = shmem_malloc(100);
	memset(grown, 'a' + me, 100);
	grown = shmem_realloc(grown, 1 << 20);
	MP_CHECK(grown);
	for (int k = 0; k < 100; k++)
		MP_CHECK(grown[k] == 'a' + me);
	grown[(1 << 20) - 1] = 'z';
	shmem_barrier_all();
	MP_CHECK(shmem_char_g(grown + (1 << 20) - 1, (me + 1) % npes) == 'z');
	shmem_free(grown);

	/*
	 * align aligns the address, not only the offset into the heap: with
	 * offset 0 taken, each block lies past the heap's start
	 */
	huge = shmem_malloc(8);
	for (size_t align = 8; align <= (1 << 20); align *= 2) {
		char *p = shmem_align(align, 64);

		MP_CHECK(p && (uintptr_t)p % align == 0);
		shmem_free(p);
	}
	MP_CHECK(shmem_align((size_t)1 << 31, 64) == NULL);
	shmem_free(huge);

	/*
	 * malloc_with_hints: symmetric memory whatever the standard's hints say
	 * (an atomic on a neighbour's copy)
	 */
	long *hinted = shmem_malloc_with_hints(sizeof(long) * 2,
					       SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);

	MP_CHECK(hinted && shmem_addr_accessible(hinted, (me + 1) % npes));
	hinted[0] = 0;
	shmem_barrier_all();
	shmem_long_atomic_add(hinted, me + 1, (me + 1) % npes);
	shmem_barrier_all();
	MP_CHECK(hinted[0] == (me + npes - 1) % npes + 1);
	shmem_free(hinted);
	shmem_pcontrol(0);
	shmem_pcontrol(2, "level 2 takes arguments of the library's own choosing");

	/* more than the heap: NULL everywhere, and the heap still works */
	huge = shmem_malloc((size_t)1 << 40);
	MP_CHECK(huge == NULL);
	MP_CHECK(shmem_malloc(0) == NULL);
	huge = shmem_malloc(4096);
	MP_CHECK(huge != NULL);
	shmem_free(huge);

	if (me == 0)
		printf("heap: %d PEs ok\n", npes);
	shmem_finalize();
	return 0;
}
