/* The buffer pool's public face (core/pool.h). */
#include <errno.h>
#include <string.h>

#include "core/state.h"
#include "core/pool.h"
#include "shmemx.h"
#include "util/log.h"

void *shmemx_buffer_malloc(size_t bytes)
{
	size_t size, used;
	void *p;
	int err;

	sc_require_init("shmemx_buffer_malloc");
	if (!bytes) {
		sc_error("PE %d: shmemx_buffer_malloc: bytes is 0", sc.me);
		return NULL;
	}
	p = sc_pool_alloc(bytes, &err);
	if (p)
		return p;
	sc_pool_usage(&size, &used);
	if (err == -ENODEV)
		sc_error("PE %d: shmemx_buffer_malloc: this job has no buffer pool (SHMEMCOMM_BUFFER_POOL is 0, the default on %s%s)",
			 sc.me, sc_mem_name(sc.mem.kind),
			 sc.mem.kind == SC_MEM_KMOD ? ", where ordinary buffers are registered in place" : "");
	else if (err == -ENOMEM)
		sc_error("PE %d: shmemx_buffer_malloc: no room for %zu bytes in the buffer pool (%zu of its %zu bytes in use; SHMEMCOMM_BUFFER_POOL)",
			 sc.me, bytes, used, size);
	else if (err == -EPERM)
		sc_error("PE %d: shmemx_buffer_malloc: this process is a child of fork(), whose copy of its parent's buffer pool is private: it takes no new blocks",
			 sc.me);
	else
		sc_error("PE %d: shmemx_buffer_malloc: %zu bytes: %s", sc.me, bytes, strerror(-err));
	return NULL;
}

void shmemx_buffer_free(void *p)
{
	if (p && sc_pool_free(p))
		sc_error("shmemx_buffer_free: %p is not the start of a live block of this process's buffer pool",
			 p);
}

void shmemx_buffer_pool_usage(size_t *size, size_t *used)
{
	sc_pool_usage(size, used);
}

int shmemx_buffer_in_pool(const void *p)
{
	return sc_pool_owns(p);
}
