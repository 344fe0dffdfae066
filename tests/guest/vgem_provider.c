/* Not a test: a heap provider (include/shmemx.h) that hands out vgem dumb
 * buffers, the stand-in for a GPU runtime's device memory. The guest's
 * mp-device suite loads it with SHMEMCOMM_HEAP_PROVIDER. */
#include <stdio.h>

#include "shmemx.h"
#include "vgem.h"

static int vgem_alloc_dmabuf(void *ctx, int pe, size_t bytes)
{
	int card = vgem_card(), fd;

	(void)ctx;
	if (card < 0) {
		fprintf(stderr, "vgem provider, PE %d: vgem is not loaded (modprobe vgem)\n", pe);
		return -ENODEV;
	}
	fd = vgem_export_dumb(card, bytes, 1);
	if (fd < 0)
		fprintf(stderr, "vgem provider, PE %d: no dumb buffer of %zu bytes: %s\n", pe,
			bytes, strerror(-fd));
	close(card);
	return fd;
}

static const shmemx_heap_provider_t vgem_provider = {
	.name = "vgem",
	.alloc_dmabuf = vgem_alloc_dmabuf,
};

const shmemx_heap_provider_t *shmemx_heap_provider(void);

const shmemx_heap_provider_t *shmemx_heap_provider(void)
{
	return &vgem_provider;
}
