/* Every typed entry point, by name, over every type of its table (shmem.h's
 * tables, which tests/mp/index-check holds to the standard's): RMA and its
 * ctx forms, the atomics and theirs, waits and tests, the reductions and
 * the data collectives. Each moves or combines a value that only the right
 * width and signedness give back. */
#include <stdint.h>
#include <string.h>

#include "mp.h"

static int me, npes, next, prev, checked;

/* a value of TYPE that differs per PE and survives the type's range */
#define VAL(TYPE, pe, k) ((TYPE)((pe) * 3 + (k) + 1))

#define CHECK_RMA(NAME, TYPE)                                                                 \
	do {                                                                                  \
		TYPE *buf = shmem_calloc(16, sizeof(TYPE)), src[4], back[4];                  \
		uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));                            \
		for (int k = 0; k < 4; k++)                                                   \
			src[k] = VAL(TYPE, me, k);                                            \
		shmem_##NAME##_put(buf, src, 2, next);                                        \
		shmem_ctx_##NAME##_put(SHMEM_CTX_DEFAULT, buf + 2, src + 2, 2, next);         \
		shmem_##NAME##_put_nbi(buf + 4, src, 1, next);                                \
		shmem_ctx_##NAME##_put_nbi(SHMEM_CTX_DEFAULT, buf + 5, src + 1, 1, next);     \
		shmem_##NAME##_iput(buf + 6, src, 2, 1, 2, next);                             \
		shmem_ctx_##NAME##_iput(SHMEM_CTX_DEFAULT, buf + 7, src + 1, 2, 2, 2, next);  \
		shmem_##NAME##_p(buf + 10, VAL(TYPE, me, 7), next);                           \
		shmem_ctx_##NAME##_p(SHMEM_CTX_DEFAULT, buf + 11, VAL(TYPE, me, 8), next);    \
		shmem_quiet();                                                                \
		shmem_##NAME##_put_signal(buf + 12, src + 3, 1, sig, 1, SHMEM_SIGNAL_ADD, next); \
		shmem_ctx_##NAME##_put_signal_nbi(SHMEM_CTX_DEFAULT, buf + 13, src, 1, sig, 1, \
						  SHMEM_SIGNAL_ADD, next);                    \
		shmem_##NAME##_put_signal_nbi(buf + 14, src + 1, 1, sig, 1, SHMEM_SIGNAL_ADD, next); \
		shmem_ctx_##NAME##_put_signal(SHMEM_CTX_DEFAULT, buf + 15, src + 2, 1, sig, 1, \
					      SHMEM_SIGNAL_ADD, next);                        \
		shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, 4);                                \
		shmem_barrier_all();                                                          \
		for (int k = 0; k < 4; k++)                                                   \
			MP_CHECK(buf[k] == VAL(TYPE, prev, k));                               \
		MP_CHECK(buf[4] == VAL(TYPE, prev, 0) && buf[5] == VAL(TYPE, prev, 1));       \
		MP_CHECK(buf[6] == VAL(TYPE, prev, 0) && buf[8] == VAL(TYPE, prev, 1));       \
		MP_CHECK(buf[7] == VAL(TYPE, prev, 1) && buf[9] == VAL(TYPE, prev, 3));       \
		MP_CHECK(buf[10] == VAL(TYPE, prev, 7) && buf[11] == VAL(TYPE, prev, 8));     \
		MP_CHECK(buf[12] == VAL(TYPE, prev, 3) && buf[13] == VAL(TYPE, prev, 0));     \
		MP_CHECK(buf[14] == VAL(TYPE, prev, 1) && buf[15] == VAL(TYPE, prev, 2));     \
		shmem_##NAME##_get(back, buf, 2, next);                                       \
		shmem_ctx_##NAME##_get(SHMEM_CTX_DEFAULT, back + 2, buf + 2, 2, next);        \
		for (int k = 0; k < 4; k++)                                                   \
			MP_CHECK(back[k] == VAL(TYPE, me, k));                                \
		shmem_##NAME##_get_nbi(back, buf + 10, 1, next);                              \
		shmem_ctx_##NAME##_get_nbi(SHMEM_CTX_DEFAULT, back + 1, buf + 11, 1, next);   \
		shmem_quiet();                                                                \
		MP_CHECK(back[0] == VAL(TYPE, me, 7) && back[1] == VAL(TYPE, me, 8));         \
		shmem_##NAME##_iget(back, buf + 6, 2, 2, 2, next);                            \
		MP_CHECK(back[0] == VAL(TYPE, me, 0) && back[2] == VAL(TYPE, me, 1));         \
		shmem_ctx_##NAME##_iget(SHMEM_CTX_DEFAULT, back, buf + 7, 1, 2, 2, next);     \
		MP_CHECK(back[1] == VAL(TYPE, me, 3));                                        \
		MP_CHECK(shmem_##NAME##_g(buf + 10, next) == VAL(TYPE, me, 7));               \
		MP_CHECK(shmem_ctx_##NAME##_g(SHMEM_CTX_DEFAULT, buf + 11, next) == VAL(TYPE, me, 8)); \
		shmem_barrier_all();                                                          \
		shmem_free(sig);                                                              \
		shmem_free(buf);                                                              \
		checked++;                                                                    \
	} while (0)

/* the data collectives: broadcast, collect, fcollect, alltoall(s) */
#define CHECK_DATA(NAME, TYPE)                                                                \
	do {                                                                                  \
		TYPE *in = shmem_calloc(2 * (size_t)npes, sizeof(TYPE));                      \
		TYPE *out = shmem_calloc(2 * (size_t)npes, sizeof(TYPE));                     \
		for (int j = 0; j < 2 * npes; j++)                                            \
			in[j] = VAL(TYPE, me, j % 4);                                         \
		MP_CHECK(shmem_##NAME##_broadcast(SHMEM_TEAM_WORLD, out, in, 2, npes - 1) == 0); \
		MP_CHECK(out[1] == VAL(TYPE, npes - 1, 1));                                   \
		MP_CHECK(shmem_##NAME##_collect(SHMEM_TEAM_WORLD, out, in, 1) == 0);          \
		MP_CHECK(out[prev] == VAL(TYPE, prev, 0));                                    \
		MP_CHECK(shmem_##NAME##_fcollect(SHMEM_TEAM_WORLD, out, in, 2) == 0);         \
		MP_CHECK(out[2 * prev + 1] == VAL(TYPE, prev, 1));                            \
		MP_CHECK(shmem_##NAME##_alltoall(SHMEM_TEAM_WORLD, out, in, 1) == 0);         \
		MP_CHECK(out[prev] == VAL(TYPE, prev, me % 4));                               \
		MP_CHECK(shmem_##NAME##_alltoalls(SHMEM_TEAM_WORLD, out, in, 1, 1, 2) == 0);  \
		MP_CHECK(out[2 * prev + 1] == VAL(TYPE, prev, (2 * me + 1) % 4));             \
		shmem_free(out);                                                              \
		shmem_free(in);                                                               \
		checked++;                                                                    \
	} while (0)

#define CHECK_AMO_EXTENDED(NAME, TYPE)                                                        \
	do {                                                                                  \
		TYPE *w = shmem_calloc(2, sizeof(TYPE)), got = 0;                             \
		shmem_##NAME##_atomic_set(w, VAL(TYPE, me, 0), next);                         \
		shmem_ctx_##NAME##_atomic_set(SHMEM_CTX_DEFAULT, w + 1, VAL(TYPE, me, 1), next); \
		shmem_barrier_all();                                                          \
		MP_CHECK(shmem_##NAME##_atomic_fetch(w, next) == VAL(TYPE, me, 0));           \
		MP_CHECK(shmem_ctx_##NAME##_atomic_fetch(SHMEM_CTX_DEFAULT, w + 1, next) ==   \
			 VAL(TYPE, me, 1));                                                   \
		MP_CHECK(shmem_##NAME##_atomic_swap(w, VAL(TYPE, me, 2), next) == VAL(TYPE, me, 0)); \
		MP_CHECK(shmem_ctx_##NAME##_atomic_swap(SHMEM_CTX_DEFAULT, w, VAL(TYPE, me, 3), \
							next) == VAL(TYPE, me, 2));           \
		shmem_##NAME##_atomic_swap_nbi(&got, w, VAL(TYPE, me, 4), next);              \
		shmem_quiet();                                                                \
		MP_CHECK(got == VAL(TYPE, me, 3));                                            \
		shmem_ctx_##NAME##_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &got, w, VAL(TYPE, me, 5), \
						   next);                                     \
		shmem_quiet();                                                                \
		MP_CHECK(got == VAL(TYPE, me, 4));                                            \
		shmem_##NAME##_atomic_fetch_nbi(&got, w, next);                               \
		shmem_quiet();                                                                \
		MP_CHECK(got == VAL(TYPE, me, 5));                                            \
		shmem_ctx_##NAME##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, &got, w + 1, next);    \
		shmem_quiet();                                                                \
		MP_CHECK(got == VAL(TYPE, me, 1));                                            \
		shmem_barrier_all();                                                          \
		shmem_free(w);                                                                \
		checked++;                                                                    \
	} while (0)

/* every PE adds to PE 0's word by every standard form: 33 each */
#define CHECK_AMO_STANDARD(NAME, TYPE)                                                        \
	do {                                                                                  \
		TYPE *w = shmem_calloc(1, sizeof(TYPE)), got = 0;                             \
		shmem_##NAME##_atomic_inc(w, 0);                                              \
		shmem_ctx_##NAME##_atomic_inc(SHMEM_CTX_DEFAULT, w, 0);                       \
		shmem_##NAME##_atomic_add(w, 2, 0);                                           \
		shmem_ctx_##NAME##_atomic_add(SHMEM_CTX_DEFAULT, w, 3, 0);                    \
		(void)shmem_##NAME##_atomic_fetch_inc(w, 0);                                  \
		(void)shmem_ctx_##NAME##_atomic_fetch_inc(SHMEM_CTX_DEFAULT, w, 0);           \
		(void)shmem_##NAME##_atomic_fetch_add(w, 4, 0);                               \
		(void)shmem_ctx_##NAME##_atomic_fetch_add(SHMEM_CTX_DEFAULT, w, 5, 0);        \
		shmem_##NAME##_atomic_fetch_inc_nbi(&got, w, 0);                              \
		shmem_ctx_##NAME##_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &got, w, 0);       \
		shmem_##NAME##_atomic_fetch_add_nbi(&got, w, 6, 0);                           \
		shmem_ctx_##NAME##_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &got, w, 7, 0);    \
		shmem_quiet();                                                                \
		shmem_barrier_all();                                                          \
		MP_CHECK(shmem_##NAME##_atomic_fetch(w, 0) == (TYPE)(33 * npes));             \
		shmem_barrier_all();                                                          \
		if (me == 0) {                                                                \
			MP_CHECK(shmem_##NAME##_atomic_compare_swap(w, (TYPE)(33 * npes), 1, 0) == \
				 (TYPE)(33 * npes));                                          \
			MP_CHECK(shmem_ctx_##NAME##_atomic_compare_swap(SHMEM_CTX_DEFAULT, w, 1, 2, \
									0) == 1);             \
			shmem_##NAME##_atomic_compare_swap_nbi(&got, w, 2, 3, 0);             \
			shmem_ctx_##NAME##_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, &got, w, 3, 4, \
								   0);                        \
			shmem_quiet();                                                        \
			MP_CHECK(got == 3 && *w == 4);                                        \
		}                                                                             \
		shmem_barrier_all();                                                          \
		shmem_free(w);                                                                \
		checked++;                                                                    \
	} while (0)

/* and, or, xor in every form on PE 0's words: each PE its own bit */
#define CHECK_AMO_BITWISE(NAME, TYPE)                                                         \
	do {                                                                                  \
		TYPE *w = shmem_calloc(4, sizeof(TYPE)), got = 0, bit = (TYPE)1 << me;        \
		TYPE all = (TYPE)(((TYPE)1 << npes) - 1);                                     \
		w[0] = w[3] = (TYPE)~(TYPE)0;                                                 \
		shmem_barrier_all();                                                          \
		shmem_##NAME##_atomic_and(w, (TYPE)~bit, 0);                                  \
		shmem_ctx_##NAME##_atomic_or(SHMEM_CTX_DEFAULT, w + 1, bit, 0);               \
		shmem_##NAME##_atomic_xor(w + 2, bit, 0);                                     \
		shmem_ctx_##NAME##_atomic_and(SHMEM_CTX_DEFAULT, w + 3, (TYPE)~bit, 0);       \
		shmem_##NAME##_atomic_or(w + 1, bit, 0);                                      \
		shmem_ctx_##NAME##_atomic_xor(SHMEM_CTX_DEFAULT, w + 2, bit, 0);              \
		(void)shmem_##NAME##_atomic_fetch_xor(w + 2, bit, 0);                         \
		(void)shmem_ctx_##NAME##_atomic_fetch_or(SHMEM_CTX_DEFAULT, w + 1, bit, 0);   \
		(void)shmem_##NAME##_atomic_fetch_and(w, (TYPE)~bit, 0);                      \
		(void)shmem_ctx_##NAME##_atomic_fetch_and(SHMEM_CTX_DEFAULT, w + 3, (TYPE)~bit, 0); \
		(void)shmem_##NAME##_atomic_fetch_or(w + 1, bit, 0);                          \
		(void)shmem_ctx_##NAME##_atomic_fetch_xor(SHMEM_CTX_DEFAULT, w + 2, bit, 0);  \
		shmem_##NAME##_atomic_fetch_and_nbi(&got, w, (TYPE)~bit, 0);                  \
		shmem_ctx_##NAME##_atomic_fetch_or_nbi(SHMEM_CTX_DEFAULT, &got, w + 1, bit, 0); \
		shmem_##NAME##_atomic_fetch_xor_nbi(&got, w + 2, bit, 0);                     \
		shmem_ctx_##NAME##_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &got, w + 3,       \
							(TYPE)~bit, 0);                       \
		shmem_##NAME##_atomic_fetch_or_nbi(&got, w + 1, bit, 0);                      \
		shmem_ctx_##NAME##_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &got, w + 2, bit, 0); \
		shmem_quiet();                                                                \
		shmem_barrier_all();                                                          \
		/* xor six times by each: back to 0 */                                        \
		MP_CHECK(shmem_##NAME##_atomic_fetch(w, 0) == (TYPE)~all &&                   \
			 shmem_##NAME##_atomic_fetch(w + 1, 0) == all &&                      \
			 shmem_##NAME##_atomic_fetch(w + 2, 0) == 0 &&                        \
			 shmem_##NAME##_atomic_fetch(w + 3, 0) == (TYPE)~all);                \
		shmem_barrier_all();                                                          \
		shmem_free(w);                                                                \
		checked++;                                                                    \
	} while (0)

/* every wait and test on flags each PE raises everywhere */
#define CHECK_P2P(NAME, TYPE)                                                                 \
	do {                                                                                  \
		TYPE *f = shmem_calloc((size_t)npes, sizeof(TYPE)), want[64];                 \
		size_t idx[64];                                                               \
		for (int pe = 0; pe < npes; pe++)                                             \
			shmem_##NAME##_p(f + me, (TYPE)(me + 1), pe);                         \
		for (int i = 0; i < npes; i++)                                                \
			want[i] = (TYPE)(i + 1);                                              \
		shmem_##NAME##_wait_until(f + prev, SHMEM_CMP_EQ, (TYPE)(prev + 1));          \
		shmem_##NAME##_wait_until_all(f, (size_t)npes, NULL, SHMEM_CMP_NE, 0);        \
		MP_CHECK(shmem_##NAME##_wait_until_any(f, (size_t)npes, NULL, SHMEM_CMP_GT, 0) < \
			 (size_t)npes);                                                       \
		MP_CHECK(shmem_##NAME##_wait_until_some(f, (size_t)npes, idx, NULL, SHMEM_CMP_GE, \
							1) == (size_t)npes);                  \
		shmem_##NAME##_wait_until_all_vector(f, (size_t)npes, NULL, SHMEM_CMP_EQ, want); \
		MP_CHECK(shmem_##NAME##_wait_until_any_vector(f, (size_t)npes, NULL, SHMEM_CMP_EQ, \
							      want) < (size_t)npes);          \
		MP_CHECK(shmem_##NAME##_wait_until_some_vector(f, (size_t)npes, idx, NULL,    \
							       SHMEM_CMP_EQ, want) ==         \
			 (size_t)npes);                                                       \
		MP_CHECK(shmem_##NAME##_test(f + me, SHMEM_CMP_EQ, (TYPE)(me + 1)));          \
		MP_CHECK(shmem_##NAME##_test_all(f, (size_t)npes, NULL, SHMEM_CMP_GT, 0));    \
		MP_CHECK(shmem_##NAME##_test_any(f, (size_t)npes, NULL, SHMEM_CMP_EQ, 1) == 0); \
		MP_CHECK(shmem_##NAME##_test_some(f, (size_t)npes, idx, NULL, SHMEM_CMP_LE,   \
						  (TYPE)npes) == (size_t)npes);               \
		MP_CHECK(shmem_##NAME##_test_all_vector(f, (size_t)npes, NULL, SHMEM_CMP_EQ, want)); \
		MP_CHECK(shmem_##NAME##_test_any_vector(f, (size_t)npes, NULL, SHMEM_CMP_NE, want) == \
			 SIZE_MAX);                                                           \
		MP_CHECK(shmem_##NAME##_test_some_vector(f, (size_t)npes, idx, NULL, SHMEM_CMP_EQ, \
							 want) == (size_t)npes);              \
		shmem_barrier_all();                                                          \
		shmem_free(f);                                                                \
		checked++;                                                                    \
	} while (0)

#define REDUCE_ONE(NAME, TYPE, OP, INPUT, EXPECT)                                             \
	do {                                                                                  \
		TYPE *in = shmem_malloc(sizeof(TYPE)), *out = shmem_malloc(sizeof(TYPE));     \
		*in = (INPUT);                                                                \
		MP_CHECK(shmem_##NAME##_##OP##_reduce(SHMEM_TEAM_WORLD, out, in, 1) == 0);    \
		MP_CHECK(*out == (EXPECT));                                                   \
		shmem_free(out);                                                              \
		shmem_free(in);                                                               \
	} while (0)
#define CHECK_REDUCE_BITWISE(NAME, TYPE)                                                      \
	do {                                                                                  \
		REDUCE_ONE(NAME, TYPE, and, (TYPE)(1 << me), (TYPE)(npes == 1));              \
		REDUCE_ONE(NAME, TYPE, or, (TYPE)(1 << me), (TYPE)((1 << npes) - 1));         \
		REDUCE_ONE(NAME, TYPE, xor, (TYPE)(1 << me), (TYPE)((1 << npes) - 1));        \
		checked++;                                                                    \
	} while (0)
#define CHECK_REDUCE_ORDERED(NAME, TYPE)                                                      \
	do {                                                                                  \
		TYPE sum = 0, prod = 1;                                                       \
		for (int pe = 0; pe < npes; pe++)                                             \
			sum += (TYPE)(pe + 1), prod *= (TYPE)(pe + 1);                        \
		REDUCE_ONE(NAME, TYPE, min, (TYPE)(me + 1), (TYPE)1);                         \
		REDUCE_ONE(NAME, TYPE, max, (TYPE)(me + 1), (TYPE)npes);                      \
		REDUCE_ONE(NAME, TYPE, sum, (TYPE)(me + 1), sum);                             \
		REDUCE_ONE(NAME, TYPE, prod, (TYPE)(me + 1), prod);                           \
		checked++;                                                                    \
	} while (0)

#define RMA(NAME, TYPE) CHECK_RMA(NAME, TYPE); CHECK_DATA(NAME, TYPE);
#define AMO_EXTENDED(NAME, TYPE) CHECK_AMO_EXTENDED(NAME, TYPE);
#define AMO_STANDARD(NAME, TYPE) CHECK_AMO_STANDARD(NAME, TYPE);
#define AMO_BITWISE(NAME, TYPE) CHECK_AMO_BITWISE(NAME, TYPE);
#define P2P(NAME, TYPE) CHECK_P2P(NAME, TYPE);
#define REDUCE_BITWISE(NAME, TYPE) CHECK_REDUCE_BITWISE(NAME, TYPE);
#define REDUCE_ORDERED(NAME, TYPE) CHECK_REDUCE_ORDERED(NAME, TYPE);

int main(void)
{
	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	next = (me + 1) % npes;
	prev = (me + npes - 1) % npes;

	SHMEMCOMM_RMA_TYPES(RMA)
	SHMEMCOMM_AMO_EXTENDED_TYPES(AMO_EXTENDED)
	SHMEMCOMM_AMO_STANDARD_TYPES(AMO_STANDARD)
	SHMEMCOMM_AMO_BITWISE_TYPES(AMO_BITWISE)
	SHMEMCOMM_P2P_TYPES(P2P)
	SHMEMCOMM_REDUCE_BITWISE_TYPES(REDUCE_BITWISE)
	SHMEMCOMM_REDUCE_ORDERED_TYPES(REDUCE_ORDERED)

	shmem_barrier_all();
	if (me == 0)
		printf("typed: %d PEs ok (%d typed groups)\n", npes, checked);
	shmem_finalize();
	return 0;
}
