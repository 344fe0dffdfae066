/*
 * The API that OpenSHMEM 1.5 deprecates but still contains, as the calls
 * that replaced it (shmem.h marks each deprecated). The cache calls are for
 * machines whose caches were not coherent with remote writes; on this one
 * they have nothing to do.
 */
#include "shmem.h"

void start_pes(int npes)
{
	(void)npes;	/* the standard ignores it: the launcher says how many */
	shmem_init();
}

int _my_pe(void)
{
	return shmem_my_pe();
}

int _num_pes(void)
{
	return shmem_n_pes();
}

void *shmalloc(size_t size)
{
	return shmem_malloc(size);
}

void shfree(void *ptr)
{
	shmem_free(ptr);
}

void *shrealloc(void *ptr, size_t size)
{
	return shmem_realloc(ptr, size);
}

void *shmemalign(size_t alignment, size_t size)
{
	return shmem_align(alignment, size);
}

void shmem_clear_cache_inv(void)
{
}

void shmem_set_cache_inv(void)
{
}

void shmem_clear_cache_line_inv(void *dest)
{
	(void)dest;
}

void shmem_set_cache_line_inv(void *dest)
{
	(void)dest;
}

void shmem_udcflush(void)
{
}

void shmem_udcflush_line(void *dest)
{
	(void)dest;
}
