/* The team collectives against values computed here: reductions of every
 * kind (in place too), broadcast from a non-zero root, collect with a
 * different count per PE, fcollect, alltoall and alltoalls (strided; 1-, 8- and
 * 16-byte elements); on the world and on a team of the even PEs. */
#include <stdint.h>
#include <string.h>

#include "mp.h"

#define N 1000	/* not a multiple of the PE count: uneven slices */

static void on_team(shmem_team_t team, long *src, long *dst, double *dsrc, double *ddst,
		    uint32_t *bits, uint32_t *bdst, long *gather)
{
	int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);

	for (int i = 0; i < N; i++) {
		src[i] = (long)(me + 1) * (i % 7 + 1);
		dsrc[i] = 0.5 * (me + 1) + i;
		bits[i] = 1u << (me % 32);
	}
	MP_CHECK(shmem_long_sum_reduce(team, dst, src, N) == 0);
	for (int i = 0; i < N; i++)
		MP_CHECK(dst[i] == (long)n * (n + 1) / 2 * (i % 7 + 1));
	MP_CHECK(shmem_long_max_reduce(team, dst, src, N) == 0);
	for (int i = 0; i < N; i++)
		MP_CHECK(dst[i] == (long)n * (i % 7 + 1));
	MP_CHECK(shmem_double_min_reduce(team, ddst, dsrc, N) == 0);
	for (int i = 0; i < N; i++)
		MP_CHECK(ddst[i] == 0.5 + i);
	MP_CHECK(shmem_uint32_or_reduce(team, bdst, bits, N) == 0);
	for (int i = 0; i < N; i++)
		MP_CHECK(bdst[i] == (n >= 32 ? ~0u : (1u << n) - 1));
	/* in place: dest is source */
	MP_CHECK(shmem_long_prod_reduce(team, src, src, 3) == 0);
	/* element i was (m + 1) * (i + 1) on member m: the product is n! (i + 1)^n */
	for (int i = 0; i < 3; i++) {
		long want = 1;

		for (int m = 1; m <= n; m++)
			want *= m * (i + 1);
		MP_CHECK(src[i] == want);
	}

	/* broadcast from the last member */
	for (int i = 0; i < N; i++)
		src[i] = me * 1000 + i;
	MP_CHECK(shmem_long_broadcast(team, dst, src, N, n - 1) == 0);
	for (int i = 0; i < N; i++)
		MP_CHECK(dst[i] == (n - 1) * 1000 + i);

	/* collect: member m gives m + 1 values, all m */
	for (int i = 0; i <= me; i++)
		src[i] = me;
	MP_CHECK(shmem_long_collect(team, gather, src, (size_t)me + 1) == 0);
	for (int m = 0, k = 0; m < n; m++)
		for (int i = 0; i <= m; i++, k++)
			MP_CHECK(gather[k] == m);
	/* fcollect: 3 each */
	for (int i = 0; i < 3; i++)
		src[i] = me * 10 + i;
	MP_CHECK(shmem_long_fcollect(team, gather, src, 3) == 0);
	for (int m = 0; m < n; m++)
		for (int i = 0; i < 3; i++)
			MP_CHECK(gather[m * 3 + i] == m * 10 + i);
	/* alltoall: block j of member m goes to member j, as block m */
	for (int j = 0; j < n; j++)
		for (int i = 0; i < 2; i++)
			src[j * 2 + i] = me * 100 + j * 10 + i;
	MP_CHECK(shmem_long_alltoall(team, gather, src, 2) == 0);
	for (int m = 0; m < n; m++)
		for (int i = 0; i < 2; i++)
			MP_CHECK(gather[m * 2 + i] == m * 100 + me * 10 + i);

	/* alltoalls: the same, element k of a block sst apart in source, landing dst apart */
	unsigned char *bytes_src = (unsigned char *)src, *bytes_dst = (unsigned char *)dst;
	long double *wide_src = (long double *)src, *wide_dst = (long double *)dst;

	for (int i = 0; i < N; i++)
		src[i] = dst[i] = -1;
	for (int j = 0; j < n; j++)
		for (int k = 0; k < 2; k++)
			src[(j * 2 + k) * 2] = me * 100 + j * 10 + k;
	MP_CHECK(shmem_long_alltoalls(team, dst, src, 3, 2, 2) == 0);
	for (int m = 0; m < n; m++)
		for (int k = 0; k < 2; k++) {
			MP_CHECK(dst[(m * 2 + k) * 3] == m * 100 + me * 10 + k);
			MP_CHECK(dst[(m * 2 + k) * 3 + 1] == -1 && dst[(m * 2 + k) * 3 + 2] == -1);
		}
	for (int j = 0; j < n; j++)
		for (int k = 0; k < 3; k++)
			bytes_src[j * 3 + k] = (unsigned char)(me * 16 + j * 4 + k);
	MP_CHECK(shmem_alltoallsmem(team, bytes_dst, bytes_src, 2, 1, 3) == 0);
	for (int m = 0; m < n; m++)
		for (int k = 0; k < 3; k++)
			MP_CHECK(bytes_dst[(m * 3 + k) * 2] == (unsigned char)(m * 16 + me * 4 + k));
	for (int j = 0; j < n; j++)
		wide_src[j] = me * 100 + j + 0.25L;
	MP_CHECK(shmem_longdouble_alltoalls(team, wide_dst, wide_src, 1, 1, 1) == 0);
	for (int m = 0; m < n; m++)
		MP_CHECK(wide_dst[m] == m * 100 + me + 0.25L);
}

int main(void)
{
	int me, npes;
	shmem_team_t evens;
	long *src, *dst, *gather;
	double *dsrc, *ddst;
	uint32_t *bits, *bdst;

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	src = shmem_malloc(N * sizeof(long));
	dst = shmem_malloc(N * sizeof(long));
	gather = shmem_malloc((size_t)npes * (npes + 3) * sizeof(long));
	dsrc = shmem_malloc(N * sizeof(double));
	ddst = shmem_malloc(N * sizeof(double));
	bits = shmem_malloc(N * sizeof(uint32_t));
	bdst = shmem_malloc(N * sizeof(uint32_t));

	on_team(SHMEM_TEAM_WORLD, src, dst, dsrc, ddst, bits, bdst, gather);
	shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
	if (evens != SHMEM_TEAM_INVALID) {
		on_team(evens, src, dst, dsrc, ddst, bits, bdst, gather);
		shmem_team_destroy(evens);
	}
	/* a root outside the team is refused, on every member alike */
	MP_CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, npes) != 0);
	/* and so is a stride of 0 */
	MP_CHECK(shmem_long_alltoalls(SHMEM_TEAM_WORLD, dst, src, 0, 1, 1) != 0);
	shmem_barrier_all();
	if (me == 0)
		printf("collectives: %d PEs ok\n", npes);
	shmem_finalize();
	return 0;
}
