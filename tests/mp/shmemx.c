/* shmemx_init_attr wins over the environment; the queries tell the back end,
 * the heap and the node. With argv[1] = bad-size / bad-transport /
 * bad-reserved / bad-provider, init must refuse the attribute with a
 * message. */
#include <shmemx.h>
#include <stdlib.h>
#include <string.h>

#include "mp.h"

int main(int argc, char **argv)
{
	static const shmemx_heap_provider_t no_alloc = { .name = "test" };
	shmemx_init_attr_t attr;
	const char *transport = getenv("SHMEMCOMM_TRANSPORT");
	void *block;
	size_t before;

	memset(&attr, 0, sizeof(attr));
	attr.symmetric_size = 8u << 20;	/* the runner's SHMEM_SYMMETRIC_SIZE is bigger */
	attr.timeout_seconds = 30;
	attr.transport = transport;
	if (argc > 1 && !strcmp(argv[1], "bad-size"))
		attr.symmetric_size = 1000;
	if (argc > 1 && !strcmp(argv[1], "bad-transport"))
		attr.transport = "carrier-pigeon";
	if (argc > 1 && !strcmp(argv[1], "bad-reserved"))
		attr.reserved[1] = 5;
	if (argc > 1 && !strcmp(argv[1], "bad-provider"))
		attr.heap_provider = &no_alloc;
	shmemx_init_attr(&attr);
	if (argc > 1)
		return 3;	/* a bad attribute went unnoticed */

	MP_CHECK(shmemx_heap_size() == 8u << 20);
	MP_CHECK(!transport || !strcmp(shmemx_transport_name(), transport));
	MP_CHECK(shmemx_local_pe() == shmem_my_pe());	/* one node */
	MP_CHECK(shmemx_n_local_pes() == shmem_n_pes());
	before = shmemx_heap_free();
	block = shmem_malloc(1 << 20);
	MP_CHECK(block && shmemx_heap_free() <= before - (1 << 20));
	shmem_free(block);
	MP_CHECK(shmemx_heap_free() == before);
	if (shmem_my_pe() == 0)
		printf("shmemx: %s back end, %zu-byte heap, %d PEs on this node\n",
		       shmemx_transport_name(), shmemx_heap_size(), shmemx_n_local_pes());
	shmem_finalize();
	return 0;
}
