/* Put and get in every form between every pair of PEs: typed, sized, mem,
 * p/g, strided, _nbi with quiet, and the C11 generic forms; shmem_ptr and
 * the accessibility queries. Sources and targets both on and off the heap,
 * which over RDMA are the NIC's direct and staged paths. */
#include <stdint.h>
#include <string.h>

#include "mp.h"

#define N 64

int main(void)
{
	int me, npes;
	long *longs;
	double *doubles;
	int32_t *words;
	char *bytes;
	static int a_static;
	int not_symmetric = 0;	/* the stack */

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	longs = shmem_malloc((size_t)npes * N * sizeof(long));
	doubles = shmem_malloc((size_t)npes * N * sizeof(double));
	words = shmem_calloc((size_t)npes * N * 2, sizeof(int32_t));
	bytes = shmem_malloc((size_t)npes * N);
	MP_CHECK(longs && doubles && words && bytes);

	/* every PE puts into its own slot on every PE */
	for (int pe = 0; pe < npes; pe++) {
		long l[N];
		double d[N];
		char b[N];

		for (int i = 0; i < N; i++) {
			l[i] = me * 1000 + i;
			d[i] = me + i / 8.0;
			b[i] = (char)(me + i);
		}
		shmem_long_put(longs + me * N, l, N, pe);
		shmem_put(doubles + me * N, d, N, pe);	/* C11 generic */
		shmem_putmem_nbi(bytes + me * N, b, N, pe);
		/* strided: every other word */
		int32_t w[N];

		for (int i = 0; i < N; i++)
			w[i] = me * 100 + i;
		shmem_int32_iput(words + me * 2 * N, w, 2, 1, N, pe);
	}
	shmem_quiet();
	shmem_barrier_all();
	for (int pe = 0; pe < npes; pe++)
		for (int i = 0; i < N; i++) {
			MP_CHECK(longs[pe * N + i] == pe * 1000 + i);
			MP_CHECK(doubles[pe * N + i] == pe + i / 8.0);
			MP_CHECK(bytes[pe * N + i] == (char)(pe + i));
			MP_CHECK(words[pe * 2 * N + 2 * i] == pe * 100 + i);
			MP_CHECK(words[pe * 2 * N + 2 * i + 1] == 0);
		}

	/* gets: read each PE's own slot back from it */
	for (int pe = 0; pe < npes; pe++) {
		long l[N];
		int32_t w[N];
		uint64_t u;

		shmem_long_get(l, longs + pe * N, N, pe);
		shmem_get64(&u, longs + pe * N + 1, 1, pe);
		shmem_int32_iget(w, words + pe * 2 * N, 1, 2, N, pe);
		for (int i = 0; i < N; i++) {
			MP_CHECK(l[i] == pe * 1000 + i);
			MP_CHECK(w[i] == pe * 100 + i);
		}
		MP_CHECK(u == (uint64_t)(pe * 1000 + 1));
		MP_CHECK(shmem_long_g(longs + pe * N + 5, pe) == pe * 1000 + 5);
		MP_CHECK(shmem_g(doubles + pe * N + 8, pe) == pe + 1.0);
	}
	shmem_barrier_all();

	/* p into the right neighbour, nbi get from the left */
	shmem_long_p(&longs[0], -me, (me + 1) % npes);
	shmem_barrier_all();
	MP_CHECK(longs[0] == -((me + npes - 1) % npes));
	long left;

	shmem_long_get_nbi(&left, &longs[0], 1, (me + npes - 1) % npes);
	shmem_quiet();
	MP_CHECK(left == -((me + npes - 2 + npes) % npes));

	/* the default context and sync_all */
	shmem_barrier_all();
	long *count = shmem_calloc(1, sizeof(long));

	shmem_ctx_long_p(SHMEM_CTX_DEFAULT, &longs[1], 7 * me, (me + 1) % npes);
	shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
	shmem_sync_all();
	MP_CHECK(longs[1] == 7 * ((me + npes - 1) % npes));
	MP_CHECK(shmem_ctx_long_atomic_fetch_add(SHMEM_CTX_DEFAULT, count, 1, 0) >= 0);
	shmem_barrier_all();
	if (me == 0)
		MP_CHECK(*count == npes);
	shmem_free(count);

	/*
	 * Every PE is accessible; those of this node (the shared team) by load
	 * and store too, and shmem_ptr is NULL for the others (RDMA).
	 */
	for (int pe = 0; pe < npes; pe++) {
		long *there = shmem_ptr(longs, pe);
		int local = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;

		MP_CHECK((there != NULL) == local);
		MP_CHECK(pe != me || there == longs);
		MP_CHECK(shmem_pe_accessible(pe));
		MP_CHECK(shmem_addr_accessible(longs, pe));
	}
	MP_CHECK(!shmem_pe_accessible(npes));
	MP_CHECK(!shmem_addr_accessible(&not_symmetric, 0));
	MP_CHECK(shmem_ptr(&not_symmetric, 0) == NULL);
	/* statics are symmetric (tests/mp/globals.c uses them) */
	MP_CHECK(shmem_addr_accessible(&a_static, 0));
	MP_CHECK(shmem_ptr(&a_static, me) == &a_static);

	shmem_barrier_all();
	shmem_free(bytes);
	shmem_free(words);
	shmem_free(doubles);
	shmem_free(longs);
	if (me == 0)
		printf("rma: %d PEs ok\n", npes);
	shmem_finalize();
	return 0;
}
