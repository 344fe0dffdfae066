/* The C11 generic interface, every form: RMA (put, get, their _nbi and
 * strided forms, p, g) over every distinct C type of the RMA table, with
 * and without a context; put with signal; every atomic over its table, with
 * and without a context, and their _nbi forms; waits and tests over the
 * point-to-point table (short, deprecated, too); the generic reductions
 * (complex sums and products too) and data collectives. Each call's effect is checked, so a form that reached
 * the wrong typed function (another width) fails. */
#define SHMEMCOMM_NO_DEPRECATION_WARNINGS	/* short waits, deprecated, are in the table */
#include <stdint.h>
#include <string.h>

#include "mp.h"

#define N 4

/* put/get/p/g and their ctx forms for one type, PE me to PE next */
#define CHECK_RMA(TYPE)                                                                   \
	do {                                                                              \
		TYPE *buf = shmem_calloc(8 * N, sizeof(TYPE)), src[N], back[N];           \
		for (int i = 0; i < N; i++)                                               \
			src[i] = (TYPE)(me + i + 1);                                      \
		shmem_put(buf, src, N, next);                                             \
		shmem_put(SHMEM_CTX_DEFAULT, buf + N, src, N, next);                      \
		shmem_put_nbi(buf + 2 * N, src, N, next);                                 \
		shmem_put_nbi(SHMEM_CTX_DEFAULT, buf + 3 * N, src, N, next);              \
		shmem_iput(buf + 4 * N, src, 2, 1, 2, next);                              \
		shmem_iput(SHMEM_CTX_DEFAULT, buf + 5 * N, src, 2, 1, 2, next);           \
		shmem_p(buf + 6 * N, (TYPE)(me + 50), next);                              \
		shmem_p(SHMEM_CTX_DEFAULT, buf + 6 * N + 1, (TYPE)(me + 60), next);       \
		shmem_quiet();                                                            \
		shmem_barrier_all();                                                      \
		for (int b = 0; b < 4; b++)                                               \
			for (int i = 0; i < N; i++)                                       \
				MP_CHECK(buf[b * N + i] == (TYPE)(prev + i + 1));         \
		MP_CHECK(buf[4 * N] == (TYPE)(prev + 1) && buf[4 * N + 2] == (TYPE)(prev + 2)); \
		MP_CHECK(buf[5 * N] == (TYPE)(prev + 1) && buf[5 * N + 1] == 0);          \
		MP_CHECK(buf[6 * N] == (TYPE)(prev + 50) && buf[6 * N + 1] == (TYPE)(prev + 60)); \
		shmem_get(back, buf, N, next);                                            \
		MP_CHECK(back[N - 1] == (TYPE)(me + N));                                  \
		shmem_get(SHMEM_CTX_DEFAULT, back, buf + N, N, next);                     \
		MP_CHECK(back[0] == (TYPE)(me + 1));                                      \
		memset(back, 0, sizeof(back));                                            \
		shmem_get_nbi(back, buf + 2 * N, N, next);                                \
		shmem_get_nbi(SHMEM_CTX_DEFAULT, back + 1, buf + 3 * N + 1, 1, next);     \
		shmem_quiet();                                                            \
		MP_CHECK(back[0] == (TYPE)(me + 1) && back[1] == (TYPE)(me + 2));         \
		shmem_iget(back, buf, 2, 2, 2, next);                                     \
		MP_CHECK(back[0] == (TYPE)(me + 1) && back[2] == (TYPE)(me + 3));         \
		shmem_iget(SHMEM_CTX_DEFAULT, back, buf + N, 1, 1, 2, next);              \
		MP_CHECK(back[1] == (TYPE)(me + 2));                                      \
		MP_CHECK(shmem_g(buf + 6 * N, next) == (TYPE)(me + 50));                  \
		MP_CHECK(shmem_g(SHMEM_CTX_DEFAULT, buf + 6 * N + 1, next) == (TYPE)(me + 60)); \
		shmem_barrier_all();                                                      \
		shmem_free(buf);                                                          \
		types++;                                                                  \
	} while (0)

/* fetch, set, swap (and _nbi): the extended table, with and without a context */
#define CHECK_AMO_EXTENDED(TYPE)                                                          \
	do {                                                                              \
		TYPE *word = shmem_calloc(2, sizeof(TYPE)), got = 0;                      \
		shmem_atomic_set(word, (TYPE)(me + 1), next);                             \
		shmem_atomic_set(SHMEM_CTX_DEFAULT, word + 1, (TYPE)(me + 2), next);      \
		shmem_barrier_all();                                                      \
		MP_CHECK(shmem_atomic_fetch(word, next) == (TYPE)(me + 1));                 \
		MP_CHECK(shmem_atomic_fetch(SHMEM_CTX_DEFAULT, word + 1, next) == (TYPE)(me + 2)); \
		shmem_barrier_all();                                                      \
		MP_CHECK(shmem_atomic_swap(word, (TYPE)7, next) == (TYPE)(me + 1));       \
		MP_CHECK(shmem_atomic_swap(SHMEM_CTX_DEFAULT, word, (TYPE)8, next) == (TYPE)7); \
		shmem_atomic_swap_nbi(&got, word, (TYPE)9, next);                         \
		shmem_quiet();                                                            \
		MP_CHECK(got == (TYPE)8);                                                 \
		shmem_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &got, word, (TYPE)10, next);     \
		shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                       \
		MP_CHECK(got == (TYPE)9);                                                 \
		shmem_atomic_fetch_nbi(&got, word, next);                                 \
		shmem_quiet();                                                            \
		MP_CHECK(got == (TYPE)10);                                                \
		shmem_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, &got, word + 1, next);          \
		shmem_quiet();                                                            \
		MP_CHECK(got == (TYPE)(me + 2));                                          \
		shmem_barrier_all();                                                      \
		shmem_free(word);                                                         \
		types++;                                                                  \
	} while (0)

/* compare_swap, fetch_inc, inc, fetch_add, add (and _nbi): every PE on PE 0's word */
#define CHECK_AMO_STANDARD(TYPE)                                                          \
	do {                                                                              \
		TYPE *word = shmem_calloc(1, sizeof(TYPE)), got = 0;                      \
		shmem_atomic_inc(word, 0);                                                \
		shmem_atomic_inc(SHMEM_CTX_DEFAULT, word, 0);                             \
		shmem_atomic_add(word, (TYPE)2, 0);                                       \
		shmem_atomic_add(SHMEM_CTX_DEFAULT, word, (TYPE)3, 0);                    \
		(void)shmem_atomic_fetch_inc(word, 0);                                    \
		(void)shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, word, 0);                 \
		(void)shmem_atomic_fetch_add(word, (TYPE)4, 0);                           \
		(void)shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, word, (TYPE)5, 0);        \
		shmem_atomic_fetch_inc_nbi(&got, word, 0);                                \
		shmem_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &got, word, 0);             \
		shmem_atomic_fetch_add_nbi(&got, word, (TYPE)6, 0);                       \
		shmem_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &got, word, (TYPE)7, 0);    \
		shmem_quiet();                                                            \
		shmem_barrier_all();                                                      \
		/* 1+1+2+3+1+1+4+5+1+1+6+7 = 33 from each PE */                           \
		MP_CHECK(shmem_atomic_fetch(word, 0) == (TYPE)(33 * npes));               \
		shmem_barrier_all();                                                      \
		if (me == 0) {                                                            \
			MP_CHECK(shmem_atomic_compare_swap(word, (TYPE)(33 * npes), (TYPE)1, 0) == \
				 (TYPE)(33 * npes));                                      \
			MP_CHECK(shmem_atomic_compare_swap(SHMEM_CTX_DEFAULT, word, (TYPE)1,   \
							   (TYPE)2, 0) == (TYPE)1);       \
			shmem_atomic_compare_swap_nbi(&got, word, (TYPE)2, (TYPE)3, 0);   \
			shmem_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, &got, word, (TYPE)3, \
						      (TYPE)4, 0);                        \
			shmem_quiet();                                                    \
			MP_CHECK(got == (TYPE)3 && *word == (TYPE)4);                     \
		}                                                                         \
		shmem_barrier_all();                                                      \
		shmem_free(word);                                                         \
		types++;                                                                  \
	} while (0)

/* and, or, xor (and fetch, _nbi): each PE's own bit */
#define CHECK_AMO_BITWISE(TYPE)                                                           \
	do {                                                                              \
		TYPE *word = shmem_calloc(3, sizeof(TYPE)), got = 0, bit = (TYPE)1 << me; \
		word[0] = (TYPE)~(TYPE)0;                                                 \
		shmem_barrier_all();                                                      \
		if (me % 2) {                                                             \
			shmem_atomic_and(word, (TYPE)~bit, 0);                            \
			shmem_atomic_or(word + 1, bit, 0);                                \
			shmem_atomic_xor(word + 2, bit, 0);                               \
		} else {                                                                  \
			shmem_atomic_and(SHMEM_CTX_DEFAULT, word, (TYPE)~bit, 0);         \
			shmem_atomic_or(SHMEM_CTX_DEFAULT, word + 1, bit, 0);             \
			shmem_atomic_xor(SHMEM_CTX_DEFAULT, word + 2, bit, 0);            \
		}                                                                         \
		shmem_barrier_all();                                                      \
		TYPE all = (TYPE)(((TYPE)1 << npes) - 1);                                 \
		MP_CHECK(shmem_atomic_fetch(word, 0) == (TYPE)~all);                      \
		MP_CHECK(shmem_atomic_fetch(word + 1, 0) == all);                         \
		MP_CHECK(shmem_atomic_fetch(word + 2, 0) == all);                         \
		shmem_barrier_all();                                                      \
		if (me == 0) {                                                            \
			MP_CHECK(shmem_atomic_fetch_and(word + 1, (TYPE)1, 0) == all);    \
			MP_CHECK(shmem_atomic_fetch_or(SHMEM_CTX_DEFAULT, word + 1, (TYPE)2, 0) == 1); \
			MP_CHECK(shmem_atomic_fetch_xor(word + 1, (TYPE)1, 0) == 3);      \
			MP_CHECK(shmem_atomic_fetch_and(SHMEM_CTX_DEFAULT, word + 1, (TYPE)6, 0) == 2); \
			MP_CHECK(shmem_atomic_fetch_or(word + 1, (TYPE)8, 0) == 2);       \
			MP_CHECK(shmem_atomic_fetch_xor(SHMEM_CTX_DEFAULT, word + 1, (TYPE)2, 0) == 10); \
			shmem_atomic_fetch_and_nbi(&got, word + 1, (TYPE)12, 0);          \
			shmem_quiet();                                                    \
			MP_CHECK(got == 8);                                               \
			shmem_atomic_fetch_or_nbi(SHMEM_CTX_DEFAULT, &got, word + 1, (TYPE)1, 0); \
			shmem_quiet();                                                    \
			MP_CHECK(got == 8);                                               \
			shmem_atomic_fetch_xor_nbi(&got, word + 1, (TYPE)9, 0);           \
			shmem_quiet();                                                    \
			MP_CHECK(got == 9);                                               \
			shmem_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &got, word + 1, (TYPE)0, 0); \
			shmem_atomic_fetch_or_nbi(&got, word + 1, (TYPE)0, 0);            \
			shmem_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &got, word + 1, (TYPE)5, 0); \
			shmem_quiet();                                                    \
			MP_CHECK(*(word + 1) == 5);                                       \
		}                                                                         \
		shmem_barrier_all();                                                      \
		shmem_free(word);                                                         \
		types++;                                                                  \
	} while (0)

/* every wait and test form: each PE raises flag[me] on every PE, to me + 1 */
#define CHECK_P2P(TYPE)                                                                   \
	do {                                                                              \
		TYPE *flag = shmem_calloc((size_t)npes, sizeof(TYPE)), want[64];          \
		size_t idx[64];                                                           \
		for (int pe = 0; pe < npes; pe++)                                         \
			shmem_p(flag + me, (TYPE)(me + 1), pe);                           \
		for (int i = 0; i < npes; i++)                                            \
			want[i] = (TYPE)(i + 1);                                          \
		shmem_wait_until(flag + prev, SHMEM_CMP_EQ, (TYPE)(prev + 1));            \
		shmem_wait_until_all(flag, (size_t)npes, NULL, SHMEM_CMP_GT, (TYPE)0);    \
		MP_CHECK(shmem_wait_until_any(flag, (size_t)npes, NULL, SHMEM_CMP_GE, (TYPE)1) < \
			 (size_t)npes);                                                   \
		MP_CHECK(shmem_wait_until_some(flag, (size_t)npes, idx, NULL, SHMEM_CMP_NE, \
					       (TYPE)0) == (size_t)npes);                 \
		shmem_wait_until_all_vector(flag, (size_t)npes, NULL, SHMEM_CMP_EQ, want); \
		MP_CHECK(shmem_wait_until_any_vector(flag, (size_t)npes, NULL, SHMEM_CMP_EQ, \
						     want) < (size_t)npes);               \
		MP_CHECK(shmem_wait_until_some_vector(flag, (size_t)npes, idx, NULL,      \
						      SHMEM_CMP_EQ, want) == (size_t)npes); \
		MP_CHECK(shmem_test(flag + me, SHMEM_CMP_EQ, (TYPE)(me + 1)));            \
		MP_CHECK(shmem_test_all(flag, (size_t)npes, NULL, SHMEM_CMP_LE, (TYPE)npes)); \
		MP_CHECK(shmem_test_any(flag, (size_t)npes, NULL, SHMEM_CMP_EQ, (TYPE)1) == 0); \
		MP_CHECK(shmem_test_some(flag, (size_t)npes, idx, NULL, SHMEM_CMP_GT,     \
					 (TYPE)1) == (size_t)npes - 1);                   \
		MP_CHECK(shmem_test_all_vector(flag, (size_t)npes, NULL, SHMEM_CMP_EQ, want)); \
		MP_CHECK(shmem_test_any_vector(flag, (size_t)npes, NULL, SHMEM_CMP_NE, want) == \
			 SIZE_MAX);                                                       \
		MP_CHECK(shmem_test_some_vector(flag, (size_t)npes, idx, NULL, SHMEM_CMP_EQ, \
						want) == (size_t)npes);                   \
		shmem_barrier_all();                                                      \
		shmem_free(flag);                                                         \
		types++;                                                                  \
	} while (0)

/* the generic reductions, for one type: (me + 1) on every PE */
#define CHECK_REDUCE(TYPE)                                                                \
	do {                                                                              \
		TYPE *in = shmem_malloc(sizeof(TYPE)), *out = shmem_malloc(sizeof(TYPE)); \
		TYPE sum = 0, prod = 1;                                                   \
		for (int pe = 0; pe < npes; pe++)                                         \
			sum += (TYPE)(pe + 1), prod *= (TYPE)(pe + 1);                    \
		*in = (TYPE)(me + 1);                                                     \
		MP_CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, out, in, 1) == 0 && *out == sum); \
		MP_CHECK(shmem_prod_reduce(SHMEM_TEAM_WORLD, out, in, 1) == 0 && *out == prod); \
		MP_CHECK(shmem_min_reduce(SHMEM_TEAM_WORLD, out, in, 1) == 0 && *out == 1); \
		MP_CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, out, in, 1) == 0 &&           \
			 *out == (TYPE)npes);                                             \
		shmem_free(out);                                                          \
		shmem_free(in);                                                           \
		types++;                                                                  \
	} while (0)

/* and, or, xor: each PE's own bit */
#define CHECK_REDUCE_BITWISE(TYPE)                                                        \
	do {                                                                              \
		TYPE *in = shmem_malloc(sizeof(TYPE)), *out = shmem_malloc(sizeof(TYPE)); \
		*in = (TYPE)(1 << me);                                                    \
		MP_CHECK(shmem_or_reduce(SHMEM_TEAM_WORLD, out, in, 1) == 0 &&            \
			 *out == (TYPE)((1 << npes) - 1));                                \
		MP_CHECK(shmem_xor_reduce(SHMEM_TEAM_WORLD, out, in, 1) == 0 &&           \
			 *out == (TYPE)((1 << npes) - 1));                                \
		MP_CHECK(shmem_and_reduce(SHMEM_TEAM_WORLD, out, in, 1) == 0 &&           \
			 *out == (npes == 1 ? (TYPE)1 : 0));                              \
		shmem_free(out);                                                          \
		shmem_free(in);                                                           \
		types++;                                                                  \
	} while (0)

int main(void)
{
	int me, npes, next, prev, types = 0;

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	next = (me + 1) % npes;
	prev = (me + npes - 1) % npes;

	CHECK_RMA(float);
	CHECK_RMA(double);
	CHECK_RMA(long double);
	CHECK_RMA(char);
	CHECK_RMA(signed char);
	CHECK_RMA(short);
	CHECK_RMA(int);
	CHECK_RMA(long);
	CHECK_RMA(long long);
	CHECK_RMA(unsigned char);
	CHECK_RMA(unsigned short);
	CHECK_RMA(unsigned int);
	CHECK_RMA(unsigned long);
	CHECK_RMA(unsigned long long);

	/* put with signal, both forms */
	long *data = shmem_calloc(2 * N, sizeof(long)), src[N] = { 1, 2, 3, 4 };
	uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));

	shmem_put_signal(data, src, N, sig, 1, SHMEM_SIGNAL_ADD, next);
	shmem_put_signal(SHMEM_CTX_DEFAULT, data + N, src, N, sig, 1, SHMEM_SIGNAL_ADD, next);
	shmem_signal_wait_until(sig, SHMEM_CMP_GE, 2);
	shmem_put_signal_nbi(data, src + 1, 1, sig, 1, SHMEM_SIGNAL_ADD, next);
	shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, data + N, src + 2, 1, sig, 1, SHMEM_SIGNAL_ADD,
			     next);
	shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 4);
	MP_CHECK(data[0] == 2 && data[1] == 2 && data[N] == 3 && data[N + 3] == 4);
	shmem_barrier_all();

	CHECK_AMO_EXTENDED(float);
	CHECK_AMO_EXTENDED(double);
	CHECK_AMO_EXTENDED(int);
	CHECK_AMO_EXTENDED(long);
	CHECK_AMO_EXTENDED(long long);
	CHECK_AMO_EXTENDED(unsigned int);
	CHECK_AMO_EXTENDED(unsigned long);
	CHECK_AMO_EXTENDED(unsigned long long);
	CHECK_AMO_STANDARD(int);
	CHECK_AMO_STANDARD(long);
	CHECK_AMO_STANDARD(long long);
	CHECK_AMO_STANDARD(unsigned int);
	CHECK_AMO_STANDARD(unsigned long);
	CHECK_AMO_STANDARD(unsigned long long);
	CHECK_AMO_BITWISE(int);
	CHECK_AMO_BITWISE(long);
	CHECK_AMO_BITWISE(unsigned int);
	CHECK_AMO_BITWISE(unsigned long);
	CHECK_AMO_BITWISE(unsigned long long);

	CHECK_P2P(short);
	CHECK_P2P(unsigned short);
	CHECK_P2P(int);
	CHECK_P2P(long);
	CHECK_P2P(long long);
	CHECK_P2P(unsigned int);
	CHECK_P2P(unsigned long);
	CHECK_P2P(unsigned long long);

	CHECK_REDUCE(char);
	CHECK_REDUCE(short);
	CHECK_REDUCE_BITWISE(short);
	CHECK_REDUCE(int);
	CHECK_REDUCE_BITWISE(int);
	CHECK_REDUCE(long);
	CHECK_REDUCE_BITWISE(long);
	CHECK_REDUCE(long long);
	CHECK_REDUCE(float);
	CHECK_REDUCE(double);
	CHECK_REDUCE(long double);
	CHECK_REDUCE(signed char);
	CHECK_REDUCE_BITWISE(signed char);
	CHECK_REDUCE(unsigned char);
	CHECK_REDUCE_BITWISE(unsigned char);
	CHECK_REDUCE(unsigned short);
	CHECK_REDUCE_BITWISE(unsigned short);
	CHECK_REDUCE(unsigned int);
	CHECK_REDUCE_BITWISE(unsigned int);
	CHECK_REDUCE(unsigned long);
	CHECK_REDUCE_BITWISE(unsigned long);
	CHECK_REDUCE(unsigned long long);
	CHECK_REDUCE_BITWISE(unsigned long long);

	/* complex sums and products, typed and generic: the same bits as computed here */
	float _Complex *cf = shmem_malloc(2 * sizeof(*cf)), *cf_out = shmem_malloc(2 * sizeof(*cf));
	double _Complex *cd = shmem_malloc(2 * sizeof(*cd)), *cd_out = shmem_malloc(2 * sizeof(*cd));
	float _Complex f_sum = 0, f_prod = 1;
	double _Complex d_sum = 0, d_prod = 1;

	for (int pe = 0; pe < npes; pe++) {
		f_sum += (float)(pe + 1) + (float)pe * 1.0fi;
		f_prod *= (float)(pe + 1) + (float)pe * 1.0fi;
		d_sum += (double)(pe + 1) - (double)pe * 1.0i;
		d_prod *= (double)(pe + 1) - (double)pe * 1.0i;
	}
	cf[0] = cf[1] = (float)(me + 1) + (float)me * 1.0fi;
	cd[0] = cd[1] = (double)(me + 1) - (double)me * 1.0i;
	MP_CHECK(shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, cf_out, cf, 2) == 0 &&
		 cf_out[1] == f_sum);
	MP_CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, cd_out, cd, 2) == 0 &&
		 cd_out[0] == d_sum);
	MP_CHECK(shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, cf_out, cf, 2) == 0 &&
		 cf_out[0] == f_prod && cf_out[1] == f_prod);
	MP_CHECK(shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, cd_out, cd, 2) == 0 &&
		 cd_out[1] == d_prod);
	MP_CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, cd_out, cd, 1) == 0 && cd_out[0] == d_sum);
	MP_CHECK(shmem_prod_reduce(SHMEM_TEAM_WORLD, cf, cf, 2) == 0 && cf[1] == f_prod);

	/* the data collectives: member m's block of 2 longs, m * 10 + i */
	long *block = shmem_malloc(sizeof(long) * 2 * (size_t)npes * 2);
	long *all = shmem_malloc(sizeof(long) * 2 * (size_t)npes * 2);

	for (int i = 0; i < 2 * npes; i++)
		block[i] = me * 10 + i;
	MP_CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, all, block, 2, npes - 1) == 0);
	MP_CHECK(all[1] == (npes - 1) * 10 + 1);
	MP_CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, all, block, 2) == 0);
	MP_CHECK(all[2 * prev + 1] == prev * 10 + 1);
	MP_CHECK(shmem_collect(SHMEM_TEAM_WORLD, all, block, 1) == 0);
	MP_CHECK(all[prev] == prev * 10);
	MP_CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, all, block, 2) == 0);
	MP_CHECK(all[2 * prev] == prev * 10 + 2 * me);
	MP_CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, all, block, 1, 2, 1) == 0);
	MP_CHECK(all[prev] == prev * 10 + 2 * me);

	shmem_barrier_all();
	if (me == 0)
		printf("generic: %d PEs ok (%d typed groups)\n", npes, types);
	shmem_finalize();
	return 0;
}
