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

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/*
 * What 1.5 deprecates but still contains works, and says so when used
 * (SHMEMCOMM_NO_DEPRECATION_WARNINGS silences it).
 */
#if defined(SHMEMCOMM_NO_DEPRECATION_WARNINGS)
#define SHMEMCOMM_DEPRECATED
#else
#define SHMEMCOMM_DEPRECATED __attribute__((deprecated))
#endif

/* Teams and contexts: opaque handles */
typedef struct shmemcomm_team *shmem_team_t;
typedef struct shmemcomm_ctx *shmem_ctx_t;
typedef struct {
	int num_contexts;
} shmem_team_config_t;

extern shmem_team_t SHMEM_TEAM_WORLD;
extern shmem_team_t SHMEM_TEAM_SHARED;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

extern shmem_ctx_t SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* shmem_malloc_with_hints */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/*
 * The active-set collectives' work arrays (deprecated in 1.5): sizes in
 * longs, each element set to SHMEM_SYNC_VALUE before first use
 */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE 4
#define SHMEM_SYNC_SIZE 4
#define SHMEM_BCAST_SYNC_SIZE 4
#define SHMEM_COLLECT_SYNC_SIZE 4
#define SHMEM_REDUCE_SYNC_SIZE 4
#define SHMEM_ALLTOALL_SYNC_SIZE 4
#define SHMEM_ALLTOALLS_SYNC_SIZE 4
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
/* their deprecated names, and those of the comparisons */
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* Library setup, exit and query */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
/* every PE exits with @status: at once in a wait; under shmemrun, all of them */
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
/* profiling control: accepted at every level, and changes nothing (no profiling interface) */
void shmem_pcontrol(int level, ...);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* Deprecated in 1.5, still in it: the calls that replaced them, under the old names */
SHMEMCOMM_DEPRECATED void start_pes(int npes);
SHMEMCOMM_DEPRECATED int _my_pe(void);
SHMEMCOMM_DEPRECATED int _num_pes(void);
SHMEMCOMM_DEPRECATED void *shmalloc(size_t size);
SHMEMCOMM_DEPRECATED void shfree(void *ptr);
SHMEMCOMM_DEPRECATED void *shrealloc(void *ptr, size_t size);
SHMEMCOMM_DEPRECATED void *shmemalign(size_t alignment, size_t size);
/* caches are coherent here: these do nothing */
SHMEMCOMM_DEPRECATED void shmem_clear_cache_inv(void);
SHMEMCOMM_DEPRECATED void shmem_set_cache_inv(void);
SHMEMCOMM_DEPRECATED void shmem_clear_cache_line_inv(void *dest);
SHMEMCOMM_DEPRECATED void shmem_set_cache_line_inv(void *dest);
SHMEMCOMM_DEPRECATED void shmem_udcflush(void);
SHMEMCOMM_DEPRECATED void shmem_udcflush_line(void *dest);

/* Memory management: collective, with a barrier */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
/* the hints (SHMEM_MALLOC_*) change nothing: every block serves every use */
void *shmem_malloc_with_hints(size_t size, long hints);
/* the address aligned, on every PE; @alignment a power of two up to 1 GiB */
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

/* The standard's operation classes: X(NAME, TYPE, OP) for each OP */
#define SHMEMCOMM_BITWISE_OPS(X, NAME, TYPE) X(NAME, TYPE, and) X(NAME, TYPE, or) X(NAME, TYPE, xor)
#define SHMEMCOMM_ORDERED_OPS(X, NAME, TYPE) \
	X(NAME, TYPE, min) X(NAME, TYPE, max) X(NAME, TYPE, sum) X(NAME, TYPE, prod)

/* Atomics: the standard's three type classes (TYPENAME, TYPE) */
#define SHMEMCOMM_AMO_STANDARD_TYPES(X)                                      \
	X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int) \
	X(ulong, unsigned long) X(ulonglong, unsigned long long)             \
	X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t)              \
	X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)
#define SHMEMCOMM_AMO_EXTENDED_TYPES(X) \
	SHMEMCOMM_AMO_STANDARD_TYPES(X) X(float, float) X(double, double)
#define SHMEMCOMM_AMO_BITWISE_TYPES(X)                                       \
	X(uint, unsigned int) X(ulong, unsigned long)                        \
	X(ulonglong, unsigned long long) X(int32, int32_t) X(int64, int64_t) \
	X(uint32, uint32_t) X(uint64, uint64_t)

#define SHMEMCOMM_DECLARE_AMO_EXTENDED(NAME, TYPE)                                     \
	TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe);                  \
	void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe); \
	void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);                \
	TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);               \
	void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);
SHMEMCOMM_AMO_EXTENDED_TYPES(SHMEMCOMM_DECLARE_AMO_EXTENDED)
#undef SHMEMCOMM_DECLARE_AMO_EXTENDED

#define SHMEMCOMM_DECLARE_AMO_STANDARD(NAME, TYPE)                                     \
	TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe); \
	void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond,  \
						    TYPE value, int pe);                 \
	TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);                      \
	void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe);     \
	void shmem_##NAME##_atomic_inc(TYPE *dest, int pe);                            \
	TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);          \
	void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value,  \
						 int pe);                              \
	void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);
SHMEMCOMM_AMO_STANDARD_TYPES(SHMEMCOMM_DECLARE_AMO_STANDARD)
#undef SHMEMCOMM_DECLARE_AMO_STANDARD

#define SHMEMCOMM_DECLARE_AMO_BITWISE_OP(NAME, TYPE, OP)                               \
	TYPE shmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe);         \
	void shmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE *fetch, TYPE *dest, TYPE value, \
						    int pe);                           \
	void shmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe);
#define SHMEMCOMM_DECLARE_AMO_BITWISE(NAME, TYPE) \
	SHMEMCOMM_BITWISE_OPS(SHMEMCOMM_DECLARE_AMO_BITWISE_OP, NAME, TYPE)
SHMEMCOMM_AMO_BITWISE_TYPES(SHMEMCOMM_DECLARE_AMO_BITWISE)
#undef SHMEMCOMM_DECLARE_AMO_BITWISE
#undef SHMEMCOMM_DECLARE_AMO_BITWISE_OP

/*
 * OpenSHMEM 1.3's atomics, renamed shmem_TYPENAME_atomic_* in 1.4 and still
 * in 1.5 (deprecated): the same operations under the old names, for int,
 * long and long long, and float and double where 1.3 had them (fetch, set,
 * swap). The OSU micro-benchmarks' atomics test uses them.
 */
#define SHMEMCOMM_AMO_13_TYPES(X) X(int, int) X(long, long) X(longlong, long long)
#define SHMEMCOMM_AMO_13_EXTENDED_TYPES(X) \
	SHMEMCOMM_AMO_13_TYPES(X) X(float, float) X(double, double)
#define SHMEMCOMM_DECLARE_AMO_13_EXTENDED(NAME, TYPE)                                     \
	SHMEMCOMM_DEPRECATED TYPE shmem_##NAME##_fetch(const TYPE *target, int pe);       \
	SHMEMCOMM_DEPRECATED void shmem_##NAME##_set(TYPE *target, TYPE value, int pe);   \
	SHMEMCOMM_DEPRECATED TYPE shmem_##NAME##_swap(TYPE *target, TYPE value, int pe);
#define SHMEMCOMM_DECLARE_AMO_13(NAME, TYPE)                                              \
	SHMEMCOMM_DEPRECATED TYPE shmem_##NAME##_cswap(TYPE *target, TYPE cond, TYPE value, \
						       int pe);                           \
	SHMEMCOMM_DEPRECATED TYPE shmem_##NAME##_fadd(TYPE *target, TYPE value, int pe);  \
	SHMEMCOMM_DEPRECATED TYPE shmem_##NAME##_finc(TYPE *target, int pe);              \
	SHMEMCOMM_DEPRECATED void shmem_##NAME##_add(TYPE *target, TYPE value, int pe);   \
	SHMEMCOMM_DEPRECATED void shmem_##NAME##_inc(TYPE *target, int pe);
SHMEMCOMM_AMO_13_EXTENDED_TYPES(SHMEMCOMM_DECLARE_AMO_13_EXTENDED)
SHMEMCOMM_AMO_13_TYPES(SHMEMCOMM_DECLARE_AMO_13)
#undef SHMEMCOMM_DECLARE_AMO_13
#undef SHMEMCOMM_DECLARE_AMO_13_EXTENDED

/* Point-to-point synchronization: the standard's table for wait and test is its
 * standard AMO table */
#define SHMEMCOMM_P2P_TYPES(X) SHMEMCOMM_AMO_STANDARD_TYPES(X)

/* and, deprecated in 1.5 but still in it, short and unsigned short */
#define SHMEMCOMM_P2P_DEPRECATED_TYPES(X) X(short, short) X(ushort, unsigned short)

#define SHMEMCOMM_DECLARE_P2P(NAME, TYPE, ATTR)                                             \
	ATTR void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);           \
	ATTR void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems,                 \
						const int *status, int cmp, TYPE cmp_value); \
	ATTR size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems,               \
						  const int *status, int cmp,               \
						  TYPE cmp_value);                          \
	ATTR size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems,              \
						   size_t *indices, const int *status,      \
						   int cmp, TYPE cmp_value);                \
	ATTR void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,          \
						       const int *status, int cmp,          \
						       TYPE *cmp_values);                   \
	ATTR size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,        \
							 const int *status, int cmp,        \
							 TYPE *cmp_values);                 \
	ATTR size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,       \
							  size_t *indices,                  \
							  const int *status, int cmp,       \
							  TYPE *cmp_values);                \
	ATTR int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                  \
	ATTR int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status,     \
					 int cmp, TYPE cmp_value);                          \
	ATTR size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status,  \
					    int cmp, TYPE cmp_value);                       \
	ATTR size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,   \
					     const int *status, int cmp, TYPE cmp_value);   \
	ATTR int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems,                 \
						const int *status, int cmp,                 \
						TYPE *cmp_values);                          \
	ATTR size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems,              \
						   const int *status, int cmp,              \
						   TYPE *cmp_values);                       \
	ATTR size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems,             \
						    size_t *indices, const int *status,     \
						    int cmp, TYPE *cmp_values);             \
	/* deprecated since 1.4: waits while *ivar equals cmp_value */                     \
	SHMEMCOMM_DEPRECATED void shmem_##NAME##_wait(TYPE *ivar, TYPE cmp_value);
#define SHMEMCOMM_DECLARE_P2P_CURRENT(NAME, TYPE) SHMEMCOMM_DECLARE_P2P(NAME, TYPE, )
#define SHMEMCOMM_DECLARE_P2P_DEPRECATED(NAME, TYPE) \
	SHMEMCOMM_DECLARE_P2P(NAME, TYPE, SHMEMCOMM_DEPRECATED)
SHMEMCOMM_P2P_TYPES(SHMEMCOMM_DECLARE_P2P_CURRENT)
SHMEMCOMM_P2P_DEPRECATED_TYPES(SHMEMCOMM_DECLARE_P2P_DEPRECATED)
#undef SHMEMCOMM_DECLARE_P2P_DEPRECATED
#undef SHMEMCOMM_DECLARE_P2P_CURRENT
#undef SHMEMCOMM_DECLARE_P2P
SHMEMCOMM_DEPRECATED void shmem_wait(long *ivar, long cmp_value);

/* Signals: a put, then an update of a signal word that the target can wait on */
#define SHMEMCOMM_DECLARE_PUT_SIGNAL(NAME, TYPE)                                      \
	void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,  \
				       uint64_t *sig_addr, uint64_t signal, int sig_op, \
				       int pe);                                       \
	void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source,             \
					   size_t nelems, uint64_t *sig_addr,          \
					   uint64_t signal, int sig_op, int pe);
SHMEMCOMM_RMA_TYPES(SHMEMCOMM_DECLARE_PUT_SIGNAL)
#undef SHMEMCOMM_DECLARE_PUT_SIGNAL
#define SHMEMCOMM_DECLARE_PUT_SIGNAL_SIZE(BITS)                                         \
	void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,    \
				      uint64_t *sig_addr, uint64_t signal, int sig_op,  \
				      int pe);                                          \
	void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, \
					  uint64_t *sig_addr, uint64_t signal, int sig_op, \
					  int pe);                                      \
	void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source, \
					  size_t nelems, uint64_t *sig_addr,            \
					  uint64_t signal, int sig_op, int pe);         \
	void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest,              \
					      const void *source, size_t nelems,        \
					      uint64_t *sig_addr, uint64_t signal,      \
					      int sig_op, int pe);
SHMEMCOMM_RMA_SIZES(SHMEMCOMM_DECLARE_PUT_SIGNAL_SIZE)
#undef SHMEMCOMM_DECLARE_PUT_SIGNAL_SIZE
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
			 uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
			     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* Ordering and synchronization */
void shmem_quiet(void);
void shmem_fence(void);
void shmem_barrier_all(void);
void shmem_sync_all(void);

/*
 * Distributed locks: @lock is a symmetric long, 0 before its first use.
 * FIFO (a ticket lock in PE 0's copy); test_lock returns 0 when it took
 * the lock, 1 when another PE holds it or waits for it.
 */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* Teams */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
			     const shmem_team_config_t *config, long config_mask,
			     shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
			const shmem_team_config_t *xaxis_config, long xaxis_mask,
			shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
			long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
int shmem_team_sync(shmem_team_t team);

/* Team collectives. Every member calls them with the same team and sizes;
 * source and dest are symmetric. They return 0, or nonzero after a message. */
#define SHMEMCOMM_REDUCE_BITWISE_TYPES(X)                                          \
	X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int)    \
	X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t)   \
	X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t)    \
	X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)
#define SHMEMCOMM_REDUCE_ORDERED_TYPES(X)                                          \
	X(char, char) X(schar, signed char) X(short, short) X(int, int) X(long, long) \
	X(longlong, long long) X(ptrdiff, ptrdiff_t) X(float, float)               \
	X(double, double) X(longdouble, long double) SHMEMCOMM_REDUCE_BITWISE_TYPES(X)

#define SHMEMCOMM_DECLARE_REDUCE(NAME, TYPE, OP)                                        \
	int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, \
					 size_t nreduce);
#define SHMEMCOMM_DECLARE_REDUCE_BITWISE(NAME, TYPE) \
	SHMEMCOMM_BITWISE_OPS(SHMEMCOMM_DECLARE_REDUCE, NAME, TYPE)
#define SHMEMCOMM_DECLARE_REDUCE_ORDERED(NAME, TYPE) \
	SHMEMCOMM_ORDERED_OPS(SHMEMCOMM_DECLARE_REDUCE, NAME, TYPE)
SHMEMCOMM_REDUCE_BITWISE_TYPES(SHMEMCOMM_DECLARE_REDUCE_BITWISE)
SHMEMCOMM_REDUCE_ORDERED_TYPES(SHMEMCOMM_DECLARE_REDUCE_ORDERED)
#undef SHMEMCOMM_DECLARE_REDUCE_ORDERED
#undef SHMEMCOMM_DECLARE_REDUCE_BITWISE
#undef SHMEMCOMM_DECLARE_REDUCE
#ifndef __cplusplus
/* complex sums and products (optional in 1.5): the same bits on every member */
int shmem_complexf_sum_reduce(shmem_team_t team, float _Complex *dest,
			      const float _Complex *source, size_t nreduce);
int shmem_complexd_sum_reduce(shmem_team_t team, double _Complex *dest,
			      const double _Complex *source, size_t nreduce);
int shmem_complexf_prod_reduce(shmem_team_t team, float _Complex *dest,
			       const float _Complex *source, size_t nreduce);
int shmem_complexd_prod_reduce(shmem_team_t team, double _Complex *dest,
			       const double _Complex *source, size_t nreduce);
#endif

#define SHMEMCOMM_DECLARE_DATA_COLLECTIVES(NAME, TYPE)                                  \
	int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source,  \
				     size_t nelems, int PE_root);                        \
	int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source,    \
				   size_t nelems);                                       \
	int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,   \
				    size_t nelems);                                      \
	int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,   \
				    size_t nelems);                                      \
	int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source,  \
				     ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
SHMEMCOMM_RMA_TYPES(SHMEMCOMM_DECLARE_DATA_COLLECTIVES)
#undef SHMEMCOMM_DECLARE_DATA_COLLECTIVES
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
		       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
/* alltoalls: strides dst and sst in elements (alltoallsmem: in bytes), at least 1 */
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
		       ptrdiff_t sst, size_t nelems);

/*
 * The active-set collectives (deprecated in 1.5, still in it): only the
 * members, PE_start + i * 2^logPE_stride for i < PE_size, call. pSync (and
 * pWrk) must be symmetric, of the sizes above; the library leaves them as
 * they were, so they may be reused at once.
 */
SHMEMCOMM_DEPRECATED void shmem_barrier(int PE_start, int logPE_stride, int PE_size,
					long *pSync);
/* in C11, shmem_sync(team) is shmem_team_sync(team): one generic name for both (below) */
SHMEMCOMM_DEPRECATED void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHMEMCOMM_DECLARE_ACTIVE_DATA(BITS)                                                 \
	SHMEMCOMM_DEPRECATED void shmem_broadcast##BITS(void *dest, const void *source,     \
							size_t nelems, int PE_root,         \
							int PE_start, int logPE_stride,     \
							int PE_size, long *pSync);          \
	SHMEMCOMM_DEPRECATED void shmem_collect##BITS(void *dest, const void *source,       \
						      size_t nelems, int PE_start,          \
						      int logPE_stride, int PE_size,        \
						      long *pSync);                         \
	SHMEMCOMM_DEPRECATED void shmem_fcollect##BITS(void *dest, const void *source,      \
						       size_t nelems, int PE_start,         \
						       int logPE_stride, int PE_size,       \
						       long *pSync);                        \
	SHMEMCOMM_DEPRECATED void shmem_alltoall##BITS(void *dest, const void *source,      \
						       size_t nelems, int PE_start,         \
						       int logPE_stride, int PE_size,       \
						       long *pSync);                        \
	SHMEMCOMM_DEPRECATED void shmem_alltoalls##BITS(void *dest, const void *source,     \
							ptrdiff_t dst, ptrdiff_t sst,       \
							size_t nelems, int PE_start,        \
							int logPE_stride, int PE_size,      \
							long *pSync);
SHMEMCOMM_DECLARE_ACTIVE_DATA(32)
SHMEMCOMM_DECLARE_ACTIVE_DATA(64)
#undef SHMEMCOMM_DECLARE_ACTIVE_DATA
#define SHMEMCOMM_DECLARE_TO_ALL(NAME, TYPE, OP)                                            \
	SHMEMCOMM_DEPRECATED void shmem_##NAME##_##OP##_to_all(                             \
		TYPE *dest, const TYPE *source, int nreduce, int PE_start, int logPE_stride, \
		int PE_size, TYPE *pWrk, long *pSync);
#define SHMEMCOMM_DECLARE_TO_ALL_INTEGER(NAME, TYPE)                                        \
	SHMEMCOMM_BITWISE_OPS(SHMEMCOMM_DECLARE_TO_ALL, NAME, TYPE)                         \
	SHMEMCOMM_ORDERED_OPS(SHMEMCOMM_DECLARE_TO_ALL, NAME, TYPE)
#define SHMEMCOMM_DECLARE_TO_ALL_REAL(NAME, TYPE) \
	SHMEMCOMM_ORDERED_OPS(SHMEMCOMM_DECLARE_TO_ALL, NAME, TYPE)
SHMEMCOMM_DECLARE_TO_ALL_INTEGER(short, short)
SHMEMCOMM_DECLARE_TO_ALL_INTEGER(int, int)
SHMEMCOMM_DECLARE_TO_ALL_INTEGER(long, long)
SHMEMCOMM_DECLARE_TO_ALL_INTEGER(longlong, long long)
SHMEMCOMM_DECLARE_TO_ALL_REAL(float, float)
SHMEMCOMM_DECLARE_TO_ALL_REAL(double, double)
SHMEMCOMM_DECLARE_TO_ALL_REAL(longdouble, long double)
#ifndef __cplusplus
SHMEMCOMM_DECLARE_TO_ALL(complexf, float _Complex, sum)
SHMEMCOMM_DECLARE_TO_ALL(complexf, float _Complex, prod)
SHMEMCOMM_DECLARE_TO_ALL(complexd, double _Complex, sum)
SHMEMCOMM_DECLARE_TO_ALL(complexd, double _Complex, prod)
#endif
#undef SHMEMCOMM_DECLARE_TO_ALL_REAL
#undef SHMEMCOMM_DECLARE_TO_ALL_INTEGER
#undef SHMEMCOMM_DECLARE_TO_ALL

/* Contexts: PE numbers given with a context are numbers in its team */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_ctx_fence(shmem_ctx_t ctx);

#define SHMEMCOMM_DECLARE_CTX_RMA(NAME, TYPE)                                              \
	void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,       \
				    size_t nelems, int pe);                                \
	void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,       \
				    size_t nelems, int pe);                                \
	void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,   \
					size_t nelems, int pe);                            \
	void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,   \
					size_t nelems, int pe);                            \
	void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,      \
				     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
	void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,      \
				     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
	void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);        \
	TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe);            \
	void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, \
					   size_t nelems, uint64_t *sig_addr,              \
					   uint64_t signal, int sig_op, int pe);           \
	void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest,                \
					       const TYPE *source, size_t nelems,          \
					       uint64_t *sig_addr, uint64_t signal,        \
					       int sig_op, int pe);
SHMEMCOMM_RMA_TYPES(SHMEMCOMM_DECLARE_CTX_RMA)
#undef SHMEMCOMM_DECLARE_CTX_RMA

#define SHMEMCOMM_DECLARE_CTX_RMA_SIZE(BITS)                                              \
	void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source,         \
				 size_t nelems, int pe);                                  \
	void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source,         \
				 size_t nelems, int pe);                                  \
	void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,   \
				       size_t nelems, int pe);                            \
	void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,   \
				       size_t nelems, int pe);                            \
	void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source,        \
				  ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);   \
	void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source,        \
				  ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
SHMEMCOMM_RMA_SIZES(SHMEMCOMM_DECLARE_CTX_RMA_SIZE)
#undef SHMEMCOMM_DECLARE_CTX_RMA_SIZE

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
			  int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
			  int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
			     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
				 size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,
				 int pe);

#define SHMEMCOMM_DECLARE_CTX_AMO_EXTENDED(NAME, TYPE)                                     \
	TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe); \
	void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch,             \
						 const TYPE *source, int pe);              \
	void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
	TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe); \
	void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,  \
						TYPE value, int pe);
SHMEMCOMM_AMO_EXTENDED_TYPES(SHMEMCOMM_DECLARE_CTX_AMO_EXTENDED)
#undef SHMEMCOMM_DECLARE_CTX_AMO_EXTENDED

#define SHMEMCOMM_DECLARE_CTX_AMO_STANDARD(NAME, TYPE)                                     \
	TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond, \
						    TYPE value, int pe);                   \
	void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch,      \
							TYPE *dest, TYPE cond, TYPE value, \
							int pe);                           \
	TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe);     \
	void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch,         \
						     TYPE *dest, int pe);                  \
	void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe);           \
	TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *dest, TYPE value,  \
						 int pe);                                  \
	void shmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE *fetch,         \
						     TYPE *dest, TYPE value, int pe);      \
	void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);
SHMEMCOMM_AMO_STANDARD_TYPES(SHMEMCOMM_DECLARE_CTX_AMO_STANDARD)
#undef SHMEMCOMM_DECLARE_CTX_AMO_STANDARD

#define SHMEMCOMM_DECLARE_CTX_AMO_BITWISE_OP(NAME, TYPE, OP)                               \
	TYPE shmem_ctx_##NAME##_atomic_fetch_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, \
						  int pe);                                 \
	void shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, TYPE *fetch,      \
							TYPE *dest, TYPE value, int pe);   \
	void shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);
#define SHMEMCOMM_DECLARE_CTX_AMO_BITWISE(NAME, TYPE) \
	SHMEMCOMM_BITWISE_OPS(SHMEMCOMM_DECLARE_CTX_AMO_BITWISE_OP, NAME, TYPE)
SHMEMCOMM_AMO_BITWISE_TYPES(SHMEMCOMM_DECLARE_CTX_AMO_BITWISE)
#undef SHMEMCOMM_DECLARE_CTX_AMO_BITWISE
#undef SHMEMCOMM_DECLARE_CTX_AMO_BITWISE_OP

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
/*
 * The C11 generic forms. Every one is a macro over its arguments: the
 * element type comes from the first argument, a pointer to it, or, when
 * the first is a shmem_ctx_t, from the second, and the ctx forms then call
 * shmem_ctx_TYPENAME_OP. A type the table lacks fails to compile ("called
 * object is not a function").
 */
#define SHMEMCOMM_ARG1(a, ...) a
#define SHMEMCOMM_ARG2(a, b, ...) b
/* the typed pointer among the first two arguments */
#define SHMEMCOMM_TYPED(...)                                                  \
	(*_Generic((SHMEMCOMM_ARG1(__VA_ARGS__, 0)),                          \
		   shmem_ctx_t: (SHMEMCOMM_ARG2(__VA_ARGS__, 0, 0)),           \
		   default: (SHMEMCOMM_ARG1(__VA_ARGS__, 0))))
/* TABLE(type expression, "" or ctx_, OP): a function designator */
#define SHMEMCOMM_WITH_CTX(TABLE, OP, ...)                                    \
	_Generic((SHMEMCOMM_ARG1(__VA_ARGS__, 0)),                            \
		 shmem_ctx_t: TABLE(SHMEMCOMM_TYPED(__VA_ARGS__), ctx_, OP),  \
		 default: TABLE(SHMEMCOMM_TYPED(__VA_ARGS__), , OP))(__VA_ARGS__)
/* the same without ctx forms: the first argument is the typed pointer */
#define SHMEMCOMM_NO_CTX(TABLE, OP, ...) \
	TABLE((*(SHMEMCOMM_ARG1(__VA_ARGS__, 0))), , OP)(__VA_ARGS__)

/*
 * A compiler warns of every deprecated function a _Generic names, chosen or
 * not, so the tables name deprecated functions (the short waits, 1.3's
 * atomics) by second names that do not warn: the same symbols, by asm
 * label. A deprecated function warns where a program names it, and a
 * deprecated generic where it is used (SHMEMCOMM_DEPRECATED_GENERIC).
 */
#define SHMEMCOMM_QUIET(NAME) __asm__("shmem_" #NAME)
#define SHMEMCOMM_QUIET_P2P(NAME, TYPE)                                                    \
	void shmemcomm_quiet_##NAME##_wait_until(TYPE *, int, TYPE)                        \
		SHMEMCOMM_QUIET(NAME##_wait_until);                                        \
	void shmemcomm_quiet_##NAME##_wait_until_all(TYPE *, size_t, const int *, int, TYPE) \
		SHMEMCOMM_QUIET(NAME##_wait_until_all);                                    \
	size_t shmemcomm_quiet_##NAME##_wait_until_any(TYPE *, size_t, const int *, int,   \
						       TYPE)                               \
		SHMEMCOMM_QUIET(NAME##_wait_until_any);                                    \
	size_t shmemcomm_quiet_##NAME##_wait_until_some(TYPE *, size_t, size_t *,          \
							const int *, int, TYPE)            \
		SHMEMCOMM_QUIET(NAME##_wait_until_some);                                   \
	void shmemcomm_quiet_##NAME##_wait_until_all_vector(TYPE *, size_t, const int *,   \
							    int, TYPE *)                   \
		SHMEMCOMM_QUIET(NAME##_wait_until_all_vector);                             \
	size_t shmemcomm_quiet_##NAME##_wait_until_any_vector(TYPE *, size_t, const int *, \
							      int, TYPE *)                 \
		SHMEMCOMM_QUIET(NAME##_wait_until_any_vector);                             \
	size_t shmemcomm_quiet_##NAME##_wait_until_some_vector(TYPE *, size_t, size_t *,   \
							       const int *, int, TYPE *)   \
		SHMEMCOMM_QUIET(NAME##_wait_until_some_vector);                            \
	int shmemcomm_quiet_##NAME##_test(TYPE *, int, TYPE) SHMEMCOMM_QUIET(NAME##_test); \
	int shmemcomm_quiet_##NAME##_test_all(TYPE *, size_t, const int *, int, TYPE)      \
		SHMEMCOMM_QUIET(NAME##_test_all);                                          \
	size_t shmemcomm_quiet_##NAME##_test_any(TYPE *, size_t, const int *, int, TYPE)   \
		SHMEMCOMM_QUIET(NAME##_test_any);                                          \
	size_t shmemcomm_quiet_##NAME##_test_some(TYPE *, size_t, size_t *, const int *,   \
						  int, TYPE)                               \
		SHMEMCOMM_QUIET(NAME##_test_some);                                         \
	int shmemcomm_quiet_##NAME##_test_all_vector(TYPE *, size_t, const int *, int,     \
						     TYPE *)                               \
		SHMEMCOMM_QUIET(NAME##_test_all_vector);                                   \
	size_t shmemcomm_quiet_##NAME##_test_any_vector(TYPE *, size_t, const int *, int,  \
							TYPE *)                            \
		SHMEMCOMM_QUIET(NAME##_test_any_vector);                                   \
	size_t shmemcomm_quiet_##NAME##_test_some_vector(TYPE *, size_t, size_t *,         \
							 const int *, int, TYPE *)         \
		SHMEMCOMM_QUIET(NAME##_test_some_vector);
SHMEMCOMM_P2P_DEPRECATED_TYPES(SHMEMCOMM_QUIET_P2P)
#undef SHMEMCOMM_QUIET_P2P
#define SHMEMCOMM_QUIET_AMO_13_EXTENDED(NAME, TYPE)                                        \
	TYPE shmemcomm_quiet_##NAME##_fetch(const TYPE *, int) SHMEMCOMM_QUIET(NAME##_fetch); \
	void shmemcomm_quiet_##NAME##_set(TYPE *, TYPE, int) SHMEMCOMM_QUIET(NAME##_set);  \
	TYPE shmemcomm_quiet_##NAME##_swap(TYPE *, TYPE, int) SHMEMCOMM_QUIET(NAME##_swap);
#define SHMEMCOMM_QUIET_AMO_13(NAME, TYPE)                                                 \
	TYPE shmemcomm_quiet_##NAME##_cswap(TYPE *, TYPE, TYPE, int)                       \
		SHMEMCOMM_QUIET(NAME##_cswap);                                             \
	TYPE shmemcomm_quiet_##NAME##_fadd(TYPE *, TYPE, int) SHMEMCOMM_QUIET(NAME##_fadd); \
	TYPE shmemcomm_quiet_##NAME##_finc(TYPE *, int) SHMEMCOMM_QUIET(NAME##_finc);      \
	void shmemcomm_quiet_##NAME##_add(TYPE *, TYPE, int) SHMEMCOMM_QUIET(NAME##_add);  \
	void shmemcomm_quiet_##NAME##_inc(TYPE *, int) SHMEMCOMM_QUIET(NAME##_inc);
SHMEMCOMM_AMO_13_EXTENDED_TYPES(SHMEMCOMM_QUIET_AMO_13_EXTENDED)
SHMEMCOMM_AMO_13_TYPES(SHMEMCOMM_QUIET_AMO_13)
#undef SHMEMCOMM_QUIET_AMO_13
#undef SHMEMCOMM_QUIET_AMO_13_EXTENDED
/* collectives: the dest, after the team */
#define SHMEMCOMM_AFTER_TEAM(TABLE, OP, ...) \
	TABLE((*(SHMEMCOMM_ARG2(__VA_ARGS__, 0, 0))), , OP)(__VA_ARGS__)

/* RMA, and the data collectives: every distinct C type of the RMA table */
#define SHMEMCOMM_TABLE_RMA(T, CTX, OP)                                  \
	_Generic((T),                                                    \
		float: shmem_##CTX##float_##OP,                          \
		double: shmem_##CTX##double_##OP,                        \
		long double: shmem_##CTX##longdouble_##OP,               \
		char: shmem_##CTX##char_##OP,                            \
		signed char: shmem_##CTX##schar_##OP,                    \
		short: shmem_##CTX##short_##OP,                          \
		int: shmem_##CTX##int_##OP,                              \
		long: shmem_##CTX##long_##OP,                            \
		long long: shmem_##CTX##longlong_##OP,                   \
		unsigned char: shmem_##CTX##uchar_##OP,                  \
		unsigned short: shmem_##CTX##ushort_##OP,                \
		unsigned int: shmem_##CTX##uint_##OP,                    \
		unsigned long: shmem_##CTX##ulong_##OP,                  \
		unsigned long long: shmem_##CTX##ulonglong_##OP,         \
		default: 0)
#define shmem_put(...) SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, put, __VA_ARGS__)
#define shmem_get(...) SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, get, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, get_nbi, __VA_ARGS__)
#define shmem_iput(...) SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, iput, __VA_ARGS__)
#define shmem_iget(...) SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, iget, __VA_ARGS__)
#define shmem_p(...) SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, p, __VA_ARGS__)
#define shmem_g(...) SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, g, __VA_ARGS__)
#define shmem_put_signal(...) SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) \
	SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_RMA, put_signal_nbi, __VA_ARGS__)
#define shmem_broadcast(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_RMA, broadcast, __VA_ARGS__)
#define shmem_collect(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_RMA, collect, __VA_ARGS__)
#define shmem_fcollect(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_RMA, fcollect, __VA_ARGS__)
#define shmem_alltoall(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_RMA, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_RMA, alltoalls, __VA_ARGS__)

/* Atomics: the extended, standard and bitwise tables */
#define SHMEMCOMM_TABLE_AMO_STANDARD(T, CTX, OP)                         \
	_Generic((T),                                                    \
		int: shmem_##CTX##int_##OP,                              \
		long: shmem_##CTX##long_##OP,                            \
		long long: shmem_##CTX##longlong_##OP,                   \
		unsigned int: shmem_##CTX##uint_##OP,                    \
		unsigned long: shmem_##CTX##ulong_##OP,                  \
		unsigned long long: shmem_##CTX##ulonglong_##OP,         \
		default: 0)
#define SHMEMCOMM_TABLE_AMO_EXTENDED(T, CTX, OP)                         \
	_Generic((T),                                                    \
		float: shmem_##CTX##float_##OP,                          \
		double: shmem_##CTX##double_##OP,                        \
		default: SHMEMCOMM_TABLE_AMO_STANDARD(T, CTX, OP))
/* the bitwise table's signed types are int32_t and int64_t only */
#define SHMEMCOMM_TABLE_AMO_BITWISE(T, CTX, OP)                          \
	_Generic((T),                                                    \
		int: shmem_##CTX##int32_##OP,                            \
		long: shmem_##CTX##int64_##OP,                           \
		unsigned int: shmem_##CTX##uint_##OP,                    \
		unsigned long: shmem_##CTX##ulong_##OP,                  \
		unsigned long long: shmem_##CTX##ulonglong_##OP,         \
		default: 0)
#define SHMEMCOMM_AMO(TABLE, OP, ...) \
	SHMEMCOMM_WITH_CTX(SHMEMCOMM_TABLE_AMO_##TABLE, atomic_##OP, __VA_ARGS__)
#define shmem_atomic_fetch(...) SHMEMCOMM_AMO(EXTENDED, fetch, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) SHMEMCOMM_AMO(EXTENDED, fetch_nbi, __VA_ARGS__)
#define shmem_atomic_set(...) SHMEMCOMM_AMO(EXTENDED, set, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEMCOMM_AMO(EXTENDED, swap, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SHMEMCOMM_AMO(EXTENDED, swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) SHMEMCOMM_AMO(STANDARD, compare_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
	SHMEMCOMM_AMO(STANDARD, compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMEMCOMM_AMO(STANDARD, fetch_inc, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) SHMEMCOMM_AMO(STANDARD, fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMEMCOMM_AMO(STANDARD, inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SHMEMCOMM_AMO(STANDARD, fetch_add, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) SHMEMCOMM_AMO(STANDARD, fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEMCOMM_AMO(STANDARD, add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SHMEMCOMM_AMO(BITWISE, fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) SHMEMCOMM_AMO(BITWISE, fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEMCOMM_AMO(BITWISE, and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMEMCOMM_AMO(BITWISE, fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) SHMEMCOMM_AMO(BITWISE, fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEMCOMM_AMO(BITWISE, or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMEMCOMM_AMO(BITWISE, fetch_xor, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) SHMEMCOMM_AMO(BITWISE, fetch_xor_nbi, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEMCOMM_AMO(BITWISE, xor, __VA_ARGS__)

/* Waits and tests: the point-to-point table, short ones (deprecated) too */
#define SHMEMCOMM_TABLE_P2P(T, CTX, OP)                                  \
	_Generic((T),                                                    \
		short: shmemcomm_quiet_short_##OP,                       \
		unsigned short: shmemcomm_quiet_ushort_##OP,             \
		default: SHMEMCOMM_TABLE_AMO_STANDARD(T, CTX, OP))
#define shmem_wait_until(...) SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) \
	SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) \
	SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) \
	SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) \
	SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) \
	SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) \
	SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, test, __VA_ARGS__)
#define shmem_test_all(...) SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, test_all, __VA_ARGS__)
#define shmem_test_any(...) SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, test_any, __VA_ARGS__)
#define shmem_test_some(...) SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) \
	SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) \
	SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) \
	SHMEMCOMM_NO_CTX(SHMEMCOMM_TABLE_P2P, test_some_vector, __VA_ARGS__)

/* Reductions: the bitwise table for and, or, xor; the ordered one for the rest */
#define SHMEMCOMM_TABLE_REDUCE_BITWISE(T, CTX, OP)                       \
	_Generic((T),                                                    \
		unsigned char: shmem_uchar_##OP##_reduce,                \
		unsigned short: shmem_ushort_##OP##_reduce,              \
		unsigned int: shmem_uint_##OP##_reduce,                  \
		unsigned long: shmem_ulong_##OP##_reduce,                \
		unsigned long long: shmem_ulonglong_##OP##_reduce,       \
		signed char: shmem_int8_##OP##_reduce,                   \
		short: shmem_int16_##OP##_reduce,                        \
		int: shmem_int32_##OP##_reduce,                          \
		long: shmem_int64_##OP##_reduce,                         \
		default: 0)
#define SHMEMCOMM_TABLE_REDUCE_ORDERED(T, CTX, OP)                       \
	_Generic((T),                                                    \
		char: shmem_char_##OP##_reduce,                          \
		signed char: shmem_schar_##OP##_reduce,                  \
		short: shmem_short_##OP##_reduce,                        \
		int: shmem_int_##OP##_reduce,                            \
		long: shmem_long_##OP##_reduce,                          \
		long long: shmem_longlong_##OP##_reduce,                 \
		float: shmem_float_##OP##_reduce,                        \
		double: shmem_double_##OP##_reduce,                      \
		long double: shmem_longdouble_##OP##_reduce,             \
		unsigned char: shmem_uchar_##OP##_reduce,                \
		unsigned short: shmem_ushort_##OP##_reduce,              \
		unsigned int: shmem_uint_##OP##_reduce,                  \
		unsigned long: shmem_ulong_##OP##_reduce,                \
		unsigned long long: shmem_ulonglong_##OP##_reduce,       \
		default: 0)
#define shmem_and_reduce(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_REDUCE_BITWISE, and, __VA_ARGS__)
#define shmem_or_reduce(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_REDUCE_BITWISE, or, __VA_ARGS__)
#define shmem_xor_reduce(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_REDUCE_BITWISE, xor, __VA_ARGS__)
#define shmem_min_reduce(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_REDUCE_ORDERED, min, __VA_ARGS__)
#define shmem_max_reduce(...) SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_REDUCE_ORDERED, max, __VA_ARGS__)
/* sum and prod: complex too */
#define SHMEMCOMM_TABLE_REDUCE_ARITHMETIC(T, CTX, OP)                    \
	_Generic((T),                                                    \
		float _Complex: shmem_complexf_##OP##_reduce,            \
		double _Complex: shmem_complexd_##OP##_reduce,           \
		default: SHMEMCOMM_TABLE_REDUCE_ORDERED(T, CTX, OP))
#define shmem_sum_reduce(...) \
	SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_REDUCE_ARITHMETIC, sum, __VA_ARGS__)
#define shmem_prod_reduce(...) \
	SHMEMCOMM_AFTER_TEAM(SHMEMCOMM_TABLE_REDUCE_ARITHMETIC, prod, __VA_ARGS__)

/*
 * shmem_sync: 1.5's team form, shmem_sync(team), and the deprecated
 * active-set one, shmem_sync(PE_start, logPE_stride, PE_size, pSync),
 * told apart by the number of arguments. (shmem_sync) in parentheses is
 * the function, never this macro.
 */
#define SHMEMCOMM_ARG5(a, b, c, d, e, ...) e
#define shmem_sync(...) \
	SHMEMCOMM_ARG5(__VA_ARGS__, (shmem_sync), 0, 0, shmem_team_sync, 0)(__VA_ARGS__)

/*
 * 1.3's generic atomics (deprecated), over 1.3's types. Each warns once,
 * under its own name: a function of that name, deprecated and empty, is
 * called first ((shmem_fadd)() is the function, not the macro).
 */
#define SHMEMCOMM_TABLE_AMO_13(T, CTX, OP)                               \
	_Generic((T),                                                    \
		int: shmemcomm_quiet_int_##OP,                           \
		long: shmemcomm_quiet_long_##OP,                         \
		long long: shmemcomm_quiet_longlong_##OP,                \
		default: 0)
#define SHMEMCOMM_TABLE_AMO_13_EXTENDED(T, CTX, OP)                      \
	_Generic((T),                                                    \
		float: shmemcomm_quiet_float_##OP,                       \
		double: shmemcomm_quiet_double_##OP,                     \
		default: SHMEMCOMM_TABLE_AMO_13(T, CTX, OP))
#define SHMEMCOMM_DEPRECATED_GENERIC(NAME, TABLE, ...) \
	((shmem_##NAME)(), SHMEMCOMM_NO_CTX(TABLE, NAME, __VA_ARGS__))
#define SHMEMCOMM_DECLARE_DEPRECATED_GENERIC(NAME) \
	SHMEMCOMM_DEPRECATED static inline void(shmem_##NAME)(void) {}
SHMEMCOMM_DECLARE_DEPRECATED_GENERIC(fetch)
SHMEMCOMM_DECLARE_DEPRECATED_GENERIC(set)
SHMEMCOMM_DECLARE_DEPRECATED_GENERIC(swap)
SHMEMCOMM_DECLARE_DEPRECATED_GENERIC(cswap)
SHMEMCOMM_DECLARE_DEPRECATED_GENERIC(fadd)
SHMEMCOMM_DECLARE_DEPRECATED_GENERIC(finc)
SHMEMCOMM_DECLARE_DEPRECATED_GENERIC(add)
SHMEMCOMM_DECLARE_DEPRECATED_GENERIC(inc)
#undef SHMEMCOMM_DECLARE_DEPRECATED_GENERIC
#define shmem_fetch(...) \
	SHMEMCOMM_DEPRECATED_GENERIC(fetch, SHMEMCOMM_TABLE_AMO_13_EXTENDED, __VA_ARGS__)
#define shmem_set(...) SHMEMCOMM_DEPRECATED_GENERIC(set, SHMEMCOMM_TABLE_AMO_13_EXTENDED, __VA_ARGS__)
#define shmem_swap(...) \
	SHMEMCOMM_DEPRECATED_GENERIC(swap, SHMEMCOMM_TABLE_AMO_13_EXTENDED, __VA_ARGS__)
#define shmem_cswap(...) SHMEMCOMM_DEPRECATED_GENERIC(cswap, SHMEMCOMM_TABLE_AMO_13, __VA_ARGS__)
#define shmem_fadd(...) SHMEMCOMM_DEPRECATED_GENERIC(fadd, SHMEMCOMM_TABLE_AMO_13, __VA_ARGS__)
#define shmem_finc(...) SHMEMCOMM_DEPRECATED_GENERIC(finc, SHMEMCOMM_TABLE_AMO_13, __VA_ARGS__)
#define shmem_add(...) SHMEMCOMM_DEPRECATED_GENERIC(add, SHMEMCOMM_TABLE_AMO_13, __VA_ARGS__)
#define shmem_inc(...) SHMEMCOMM_DEPRECATED_GENERIC(inc, SHMEMCOMM_TABLE_AMO_13, __VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_H */
