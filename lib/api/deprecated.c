/*
 * The API that OpenSHMEM 1.5 deprecates but still contains, as the calls
 * that replaced it (shmem.h marks each deprecated). The cache calls are for
 * machines whose caches were not coherent with remote writes; on this one
 * they have nothing to do. 1.3's atomics are 1.4's under their old names.
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

#define DEFINE_AMO_13_EXTENDED(NAME, TYPE)                                                 \
	TYPE shmem_##NAME##_fetch(const TYPE *target, int pe)                              \
	{                                                                                  \
		return shmem_##NAME##_atomic_fetch(target, pe);                            \
	}                                                                                  \
	void shmem_##NAME##_set(TYPE *target, TYPE value, int pe)                          \
	{                                                                                  \
		shmem_##NAME##_atomic_set(target, value, pe);                              \
	}                                                                                  \
	TYPE shmem_##NAME##_swap(TYPE *target, TYPE value, int pe)                         \
	{                                                                                  \
		return shmem_##NAME##_atomic_swap(target, value, pe);                      \
	}
SHMEMCOMM_AMO_13_EXTENDED_TYPES(DEFINE_AMO_13_EXTENDED)

#define DEFINE_AMO_13(NAME, TYPE)                                                          \
	TYPE shmem_##NAME##_cswap(TYPE *target, TYPE cond, TYPE value, int pe)             \
	{                                                                                  \
		return shmem_##NAME##_atomic_compare_swap(target, cond, value, pe);        \
	}                                                                                  \
	TYPE shmem_##NAME##_fadd(TYPE *target, TYPE value, int pe)                         \
	{                                                                                  \
		return shmem_##NAME##_atomic_fetch_add(target, value, pe);                 \
	}                                                                                  \
	TYPE shmem_##NAME##_finc(TYPE *target, int pe)                                     \
	{                                                                                  \
		return shmem_##NAME##_atomic_fetch_inc(target, pe);                        \
	}                                                                                  \
	void shmem_##NAME##_add(TYPE *target, TYPE value, int pe)                          \
	{                                                                                  \
		shmem_##NAME##_atomic_add(target, value, pe);                              \
	}                                                                                  \
	void shmem_##NAME##_inc(TYPE *target, int pe)                                      \
	{                                                                                  \
		shmem_##NAME##_atomic_inc(target, pe);                                     \
	}
SHMEMCOMM_AMO_13_TYPES(DEFINE_AMO_13)
