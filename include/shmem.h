/*
 * shmemcomm: the OpenSHMEM 1.5 API.
 *
 * What is declared here is implemented; the rest of the standard (atomics,
 * signals, teams, contexts, collectives) arrives with later issues, and
 * programs that use it fail to build rather than to run.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "shmemcomm"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Library setup, exit and query */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* Memory management: collective, with a barrier */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);

/* The standard's RMA types: TYPENAME, TYPE */
#define SHMEMCOMM_RMA_TYPES(X)                                          \
	X(float, float) X(double, double) X(longdouble, long double)    \
	X(char, char) X(schar, signed char) X(short, short) X(int, int) \
	X(long, long) X(longlong, long long) X(uchar, unsigned char)    \
	X(ushort, unsigned short) X(uint, unsigned int)                 \
	X(ulong, unsigned long) X(ulonglong, unsigned long long)        \
	X(int8, int8_t) X(int16, int16_t) X(int32, int32_t)             \
	X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t)         \
	X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)         \
	X(ptrdiff, ptrdiff_t)

#define SHMEMCOMM_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

#define SHMEMCOMM_DECLARE_RMA(NAME, TYPE)                                          \
	void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
	void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
	void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems,       \
				    int pe);                                             \
	void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems,       \
				    int pe);                                             \
	void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst,          \
				 ptrdiff_t sst, size_t nelems, int pe);                  \
	void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst,          \
				 ptrdiff_t sst, size_t nelems, int pe);                  \
	void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                           \
	TYPE shmem_##NAME##_g(const TYPE *source, int pe);
SHMEMCOMM_RMA_TYPES(SHMEMCOMM_DECLARE_RMA)
#undef SHMEMCOMM_DECLARE_RMA

#define SHMEMCOMM_DECLARE_RMA_SIZE(BITS)                                              \
	void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);      \
	void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);      \
	void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe); \
	void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe); \
	void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
			      size_t nelems, int pe);                                     \
	void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
			      size_t nelems, int pe);
SHMEMCOMM_RMA_SIZES(SHMEMCOMM_DECLARE_RMA_SIZE)
#undef SHMEMCOMM_DECLARE_RMA_SIZE

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);

/* Ordering and synchronization */
void shmem_quiet(void);
void shmem_fence(void);
void shmem_barrier_all(void);
void shmem_sync_all(void);

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
/* The C11 generic forms, over the distinct C types of the table above */
#define SHMEMCOMM_GENERIC(dest, OP)                                \
	_Generic(*(dest),                                          \
		float: shmem_float_##OP,                           \
		double: shmem_double_##OP,                         \
		long double: shmem_longdouble_##OP,                \
		char: shmem_char_##OP,                             \
		signed char: shmem_schar_##OP,                     \
		short: shmem_short_##OP,                           \
		int: shmem_int_##OP,                               \
		long: shmem_long_##OP,                             \
		long long: shmem_longlong_##OP,                    \
		unsigned char: shmem_uchar_##OP,                   \
		unsigned short: shmem_ushort_##OP,                 \
		unsigned int: shmem_uint_##OP,                     \
		unsigned long: shmem_ulong_##OP,                   \
		unsigned long long: shmem_ulonglong_##OP)
#define shmem_put(dest, source, nelems, pe) \
	SHMEMCOMM_GENERIC(dest, put)(dest, source, nelems, pe)
#define shmem_get(dest, source, nelems, pe) \
	SHMEMCOMM_GENERIC(dest, get)(dest, source, nelems, pe)
#define shmem_put_nbi(dest, source, nelems, pe) \
	SHMEMCOMM_GENERIC(dest, put_nbi)(dest, source, nelems, pe)
#define shmem_get_nbi(dest, source, nelems, pe) \
	SHMEMCOMM_GENERIC(dest, get_nbi)(dest, source, nelems, pe)
#define shmem_iput(dest, source, dst, sst, nelems, pe) \
	SHMEMCOMM_GENERIC(dest, iput)(dest, source, dst, sst, nelems, pe)
#define shmem_iget(dest, source, dst, sst, nelems, pe) \
	SHMEMCOMM_GENERIC(dest, iget)(dest, source, dst, sst, nelems, pe)
#define shmem_p(dest, value, pe) SHMEMCOMM_GENERIC(dest, p)(dest, value, pe)
#define shmem_g(source, pe) SHMEMCOMM_GENERIC(source, g)(source, pe)
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_H */
