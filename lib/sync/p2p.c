/*
 * wait_until and test, in all their forms: polls of memory that other PEs
 * write, with acquire loads so that what was put before is visible after.
 * Waits go through sc_wait: they spin, then sleep, and end the job with a
 * message after SHMEMCOMM_TIMEOUT or when a PE of the node dies.
 */
#include <stdint.h>

#include "core/state.h"
#include "shmem.h"
#include "util/wait.h"

static void check_cmp(int cmp, const char *function)
{
	if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
		sc_fatal(1, "PE %d: %s: cmp %d is not one of SHMEM_CMP_EQ, NE, GT, GE, LT, LE",
			 sc.me, function, cmp);
}

/*
 * test_any and wait_until_any start where they left off: after the index
 * they last returned, for the same array, on this thread. With a NULL
 * status, a loop over test_any (the standard's own example) expects to
 * see every satisfied element in turn; a scan from 0 would return the
 * first one for ever.
 */
static _Thread_local struct {
	const void *ivars;
	size_t next;
} any_cursor;

static size_t any_start(const void *ivars, size_t nelems)
{
	return any_cursor.ivars == ivars && any_cursor.next < nelems ? any_cursor.next : 0;
}

static size_t any_returned(const void *ivars, size_t index)
{
	if (index != SIZE_MAX) {
		any_cursor.ivars = ivars;
		any_cursor.next = index + 1;
	}
	return index;
}

#define SATISFIES(cmp, a, b)                                                          \
	((cmp) == SHMEM_CMP_EQ ? (a) == (b) : (cmp) == SHMEM_CMP_NE ? (a) != (b) :     \
	 (cmp) == SHMEM_CMP_GT ? (a) > (b) : (cmp) == SHMEM_CMP_GE ? (a) >= (b) :      \
	 (cmp) == SHMEM_CMP_LT ? (a) < (b) : (a) <= (b))

/* @values: one per element, or NULL to use @value for all */
#define DEFINE_P2P(NAME, TYPE)                                                              \
	static int NAME##_ok(TYPE *ivars, size_t i, int cmp, TYPE value, const TYPE *values) \
	{                                                                                   \
		TYPE now = __atomic_load_n(&ivars[i], __ATOMIC_ACQUIRE);                    \
		return SATISFIES(cmp, now, values ? values[i] : value);                     \
	}                                                                                   \
	/*                                                                                  \
	 * How many of the elements not excluded by @status satisfy; the first @limit of   \
	 * their indices, looking from @from round to it, go to @indices (when not NULL),  \
	 * how many were looked at to @active.                                              \
	 */                                                                                 \
	static size_t NAME##_scan(TYPE *ivars, size_t nelems, const int *status, int cmp,   \
				  TYPE value, const TYPE *values, size_t *indices,          \
				  size_t limit, size_t from, size_t *active)                \
	{                                                                                   \
		size_t hits = 0;                                                            \
		*active = 0;                                                                \
		for (size_t k = 0, i = from; k < nelems; k++, i = i + 1 < nelems ? i + 1 : 0) { \
			if (status && status[i])                                            \
				continue;                                                   \
			(*active)++;                                                        \
			if (!NAME##_ok(ivars, i, cmp, value, values))                       \
				continue;                                                   \
			if (indices && hits < limit)                                        \
				indices[hits] = i;                                          \
			hits++;                                                             \
		}                                                                           \
		return hits;                                                                \
	}                                                                                   \
	/*                                                                                  \
	 * One look for @mode, 'a'll, a'n'y or 's'ome: whether a wait is over (nothing     \
	 * left active counts), and in *@result what the standard's function returns.      \
	 */                                                                                 \
	static int NAME##_look(char mode, TYPE *ivars, size_t nelems, size_t *indices,      \
			       const int *status, int cmp, TYPE value, const TYPE *values,  \
			       size_t *result)                                              \
	{                                                                                   \
		size_t first, active;                                                       \
		size_t hits = NAME##_scan(ivars, nelems, status, cmp, value, values,        \
					  mode == 'n' ? &first : indices,                   \
					  mode == 'n' ? 1 : nelems,                         \
					  mode == 'n' ? any_start(ivars, nelems) : 0, &active); \
		*result = mode == 'a' ? hits == active : mode == 's' ? hits :               \
			  hits ? any_returned(ivars, first) : SIZE_MAX;                     \
		return !active || (mode == 'a' ? hits == active : hits > 0);                \
	}                                                                                   \
	static size_t NAME##_wait(const char *function, char mode, TYPE *ivars, size_t nelems, \
				  size_t *indices, const int *status, int cmp, TYPE value,  \
				  const TYPE *values)                                       \
	{                                                                                   \
		struct sc_wait wait;                                                        \
		size_t result;                                                              \
		sc_require_init(function);                                                  \
		check_cmp(cmp, function);                                                   \
		sc_wait_begin(&wait, function, -1, NULL, NULL);                             \
		while (!NAME##_look(mode, ivars, nelems, indices, status, cmp, value, values, \
				    &result))                                               \
			sc_wait_step(&wait);                                                \
		return result;                                                              \
	}                                                                                   \
	static size_t NAME##_test_for(const char *function, char mode, TYPE *ivars,         \
				      size_t nelems, size_t *indices, const int *status,    \
				      int cmp, TYPE value, const TYPE *values)              \
	{                                                                                   \
		size_t result;                                                              \
		sc_require_init(function);                                                  \
		check_cmp(cmp, function);                                                   \
		NAME##_look(mode, ivars, nelems, indices, status, cmp, value, values, &result); \
		return result;                                                              \
	}                                                                                   \
	void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value)                 \
	{                                                                                   \
		NAME##_wait("shmem_" #NAME "_wait_until", 'a', ivar, 1, NULL, NULL,  \
			    cmp, cmp_value, NULL);                                          \
	}                                                                                   \
	void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status,   \
					   int cmp, TYPE cmp_value)                         \
	{                                                                                   \
		NAME##_wait("shmem_" #NAME "_wait_until_all", 'a', ivars, nelems,    \
			    NULL, status, cmp, cmp_value, NULL);                            \
	}                                                                                   \
	size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status, \
					     int cmp, TYPE cmp_value)                       \
	{                                                                                   \
		return NAME##_wait("shmem_" #NAME "_wait_until_any", 'n', ivars,     \
				   nelems, NULL, status, cmp, cmp_value, NULL);             \
	}                                                                                   \
	size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,  \
					      const int *status, int cmp, TYPE cmp_value)   \
	{                                                                                   \
		return NAME##_wait("shmem_" #NAME "_wait_until_some", 's', ivars,   \
				   nelems, indices, status, cmp, cmp_value, NULL);          \
	}                                                                                   \
	void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,               \
						  const int *status, int cmp,               \
						  TYPE *cmp_values)                         \
	{                                                                                   \
		NAME##_wait("shmem_" #NAME "_wait_until_all_vector", 'a', ivars,     \
			    nelems, NULL, status, cmp, 0, cmp_values);                      \
	}                                                                                   \
	size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,             \
						    const int *status, int cmp,             \
						    TYPE *cmp_values)                       \
	{                                                                                   \
		return NAME##_wait("shmem_" #NAME "_wait_until_any_vector", 'n',     \
				   ivars, nelems, NULL, status, cmp, 0, cmp_values);        \
	}                                                                                   \
	size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,            \
						     size_t *indices, const int *status,    \
						     int cmp, TYPE *cmp_values)             \
	{                                                                                   \
		return NAME##_wait("shmem_" #NAME "_wait_until_some_vector", 's',   \
				   ivars, nelems, indices, status, cmp, 0, cmp_values);     \
	}                                                                                   \
	int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value)                        \
	{                                                                                   \
		sc_require_init("shmem_" #NAME "_test");                                    \
		check_cmp(cmp, "shmem_" #NAME "_test");                                     \
		return NAME##_ok(ivar, 0, cmp, cmp_value, NULL);                            \
	}                                                                                   \
	int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp, \
				    TYPE cmp_value)                                         \
	{                                                                                   \
		return (int)NAME##_test_for("shmem_" #NAME "_test_all", 'a', ivars, nelems, \
					    NULL, status, cmp, cmp_value, NULL);            \
	}                                                                                   \
	size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status,       \
				       int cmp, TYPE cmp_value)                             \
	{                                                                                   \
		return NAME##_test_for("shmem_" #NAME "_test_any", 'n', ivars, nelems, NULL, \
				       status, cmp, cmp_value, NULL);                       \
	}                                                                                   \
	size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,        \
					const int *status, int cmp, TYPE cmp_value)         \
	{                                                                                   \
		return NAME##_test_for("shmem_" #NAME "_test_some", 's', ivars, nelems,     \
				       indices, status, cmp, cmp_value, NULL);              \
	}                                                                                   \
	int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status,   \
					   int cmp, TYPE *cmp_values)                       \
	{                                                                                   \
		return (int)NAME##_test_for("shmem_" #NAME "_test_all_vector", 'a', ivars,  \
					    nelems, NULL, status, cmp, 0, cmp_values);      \
	}                                                                                   \
	size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status, \
					      int cmp, TYPE *cmp_values)                    \
	{                                                                                   \
		return NAME##_test_for("shmem_" #NAME "_test_any_vector", 'n', ivars,       \
				       nelems, NULL, status, cmp, 0, cmp_values);           \
	}                                                                                   \
	size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices, \
					       const int *status, int cmp,                  \
					       TYPE *cmp_values)                            \
	{                                                                                   \
		return NAME##_test_for("shmem_" #NAME "_test_some_vector", 's', ivars,      \
				       nelems, indices, status, cmp, 0, cmp_values);        \
	}                                                                                   \
	void shmem_##NAME##_wait(TYPE *ivar, TYPE cmp_value)                                \
	{                                                                                   \
		NAME##_wait("shmem_" #NAME "_wait", 'a', ivar, 1, NULL, NULL,                \
			    SHMEM_CMP_NE, cmp_value, NULL);                                 \
	}
SHMEMCOMM_P2P_TYPES(DEFINE_P2P)
SHMEMCOMM_P2P_DEPRECATED_TYPES(DEFINE_P2P)

void shmem_wait(long *ivar, long cmp_value)
{
	long_wait("shmem_wait", 'a', ivar, 1, NULL, NULL, SHMEM_CMP_NE, cmp_value, NULL);
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
	sc_require_init("shmem_signal_fetch");
	return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
	shmem_uint64_wait_until(sig_addr, cmp, cmp_value);
	return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
