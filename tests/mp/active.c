/* The active-set collectives (deprecated in 1.5, still in it) on three sets
 * at once: every PE, the even PEs and the odd ones (stride 2^1), which run
 * their calls side by side and then meet in calls of the whole. Barrier and
 * sync; broadcast, collect (counts differing by PE), fcollect, alltoall and
 * alltoalls in 32- and 64-bit forms; shmem_TYPE_OP_to_all over its types and
 * ops, in place too, against values computed here. The pSync and pWrk
 * arrays, of the documented sizes, are reused at once and must come back
 * as they were. */
#define SHMEMCOMM_NO_DEPRECATION_WARNINGS
#include <complex.h>
#include <stdint.h>
#include <string.h>

#include "mp.h"

static long psync[SHMEM_REDUCE_SYNC_SIZE];	/* symmetric, and every size below it */
static long psync2[SHMEM_BCAST_SYNC_SIZE];

struct set {
	int start, log, size, me;	/* me: this PE's index, or -1 */
};

static int pe_of(const struct set *s, int i)
{
	return s->start + (i << s->log);
}

static void on_set(const struct set *s, int npes)
{
	int32_t *a32 = shmem_calloc(64, sizeof(int32_t)), *b32 = shmem_calloc(64, sizeof(int32_t));
	int64_t *a64 = shmem_calloc(64, sizeof(int64_t)), *b64 = shmem_calloc(64, sizeof(int64_t));
	int *ints = shmem_calloc(8, sizeof(int)), *iout = shmem_calloc(8, sizeof(int));
	double *dbl = shmem_calloc(2, sizeof(double)), *dout = shmem_calloc(2, sizeof(double));
	long double *ld = shmem_calloc(1, sizeof(long double));
	short *sh = shmem_calloc(1, sizeof(short));
	long long *ll = shmem_calloc(1, sizeof(long long));
	double _Complex *cd = shmem_calloc(2, sizeof(double _Complex));
	float _Complex *cf = shmem_calloc(1, sizeof(float _Complex));
	int *iwrk = shmem_calloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8, sizeof(int));
	int me = s->me, n = s->size;

	if (me >= 0) {
		int root = 1 % n, sum = 0, prod = 1, bits = 0;
		double dsum = 0;
		double _Complex csum = 0, cprod = 1;

		/* barrier: a put before it is seen after it */
		shmem_int_p(&ints[7], me + 100, pe_of(s, (me + 1) % n));
		shmem_barrier(s->start, s->log, n, psync);
		MP_CHECK(ints[7] == (me + n - 1) % n + 100);
		shmem_sync(s->start, s->log, n, psync);

		/* broadcast from member 1: the root's dest stays as it was */
		for (int i = 0; i < 8; i++)
			a32[i] = me * 10 + i, a64[i] = -(me * 10 + i), b32[i] = -1, b64[i] = -1;
		shmem_broadcast32(b32, a32, 4, root, s->start, s->log, n, psync2);
		shmem_broadcast64(b64, a64, 4, root, s->start, s->log, n, psync2);
		MP_CHECK(me == root ? b32[3] == -1 && b64[0] == -1 :
				      b32[3] == root * 10 + 3 && b64[2] == -(root * 10 + 2));

		/* fcollect, and collect with member m giving m + 1 elements */
		shmem_fcollect32(b32, a32, 2, s->start, s->log, n, psync);
		shmem_fcollect64(b64, a64, 2, s->start, s->log, n, psync);
		for (int m = 0; m < n; m++)
			MP_CHECK(b32[2 * m + 1] == m * 10 + 1 && b64[2 * m] == -(m * 10));
		shmem_collect32(b32, a32, (size_t)me + 1, s->start, s->log, n, psync);
		shmem_collect64(b64, a64, (size_t)me + 1, s->start, s->log, n, psync);
		for (int m = 0, at = 0; m < n; at += ++m)
			MP_CHECK(b32[at + m] == m * 10 + m && b64[at] == -(m * 10));

		/* alltoall: block j of member m goes to member j, as block m; alltoalls strided */
		for (int j = 0; j < n; j++)
			for (int i = 0; i < 2; i++)
				a32[2 * j + i] = me * 100 + j * 10 + i, a64[2 * j + i] = a32[2 * j + i];
		shmem_alltoall32(b32, a32, 2, s->start, s->log, n, psync);
		shmem_alltoall64(b64, a64, 2, s->start, s->log, n, psync);
		for (int m = 0; m < n; m++)
			MP_CHECK(b32[2 * m + 1] == m * 100 + me * 10 + 1 && b64[2 * m] == m * 100 + me * 10);
		shmem_alltoalls32(b32, a32, 1, 2, 1, s->start, s->log, n, psync);
		shmem_alltoalls64(b64, a64, 2, 2, 1, s->start, s->log, n, psync);
		for (int m = 0; m < n; m++)
			MP_CHECK(b32[m] == m * 100 + me * 10 && b64[2 * m] == m * 100 + me * 10);

		/* to_all: (member + 1) from each, and each member's own bit */
		for (int m = 0; m < n; m++) {
			sum += m + 1, prod *= m + 1, bits |= 1 << m, dsum += 0.5 * (m + 1);
			csum += (m + 1) + m * I, cprod *= (m + 1) + m * I;
		}
		ints[0] = me + 1;
		ints[1] = 1 << me;
		dbl[0] = 0.5 * (me + 1);
		*ld = me + 1;
		*sh = (short)(1 << me);
		*ll = me + 1;
		cd[0] = cd[1] = (me + 1) + me * I;
		*cf = (float _Complex)((me + 1) + me * I);
		shmem_int_sum_to_all(iout, ints, 1, s->start, s->log, n, iwrk, psync);
		MP_CHECK(iout[0] == sum);
		shmem_int_prod_to_all(iout, ints, 1, s->start, s->log, n, iwrk, psync);
		MP_CHECK(iout[0] == prod);
		shmem_int_min_to_all(iout, ints, 1, s->start, s->log, n, iwrk, psync);
		MP_CHECK(iout[0] == 1);
		shmem_int_max_to_all(iout, ints, 1, s->start, s->log, n, iwrk, psync);
		MP_CHECK(iout[0] == n);
		shmem_int_or_to_all(iout, ints + 1, 1, s->start, s->log, n, iwrk, psync);
		MP_CHECK(iout[0] == bits);
		shmem_int_xor_to_all(iout, ints + 1, 1, s->start, s->log, n, iwrk, psync);
		MP_CHECK(iout[0] == bits);
		shmem_int_and_to_all(iout, ints + 1, 1, s->start, s->log, n, iwrk, psync);
		MP_CHECK(iout[0] == (n == 1 ? 1 << me : 0));
		shmem_short_xor_to_all(sh, sh, 1, s->start, s->log, n, (short *)iwrk, psync);
		MP_CHECK(*sh == bits);	/* in place */
		shmem_double_sum_to_all(dout, dbl, 1, s->start, s->log, n, (double *)iwrk, psync);
		MP_CHECK(dout[0] == dsum);
		shmem_longdouble_max_to_all(ld, ld, 1, s->start, s->log, n, (long double *)iwrk, psync);
		MP_CHECK(*ld == n);
		shmem_longlong_prod_to_all(ll, ll, 1, s->start, s->log, n, (long long *)iwrk, psync);
		MP_CHECK(*ll == prod);
		shmem_complexd_sum_to_all(cd, cd, 2, s->start, s->log, n, (double _Complex *)iwrk,
					  psync);
		MP_CHECK(cd[0] == csum && cd[1] == csum);
		shmem_complexf_prod_to_all(cf, cf, 1, s->start, s->log, n, (float _Complex *)iwrk,
					   psync);
		MP_CHECK(*cf == (float _Complex)cprod);
	}
	/* every PE, members or not, frees together */
	shmem_barrier_all();
	for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
		MP_CHECK(psync[i] == SHMEM_SYNC_VALUE);
	(void)npes;
	shmem_free(iwrk);
	shmem_free(cf);
	shmem_free(cd);
	shmem_free(ll);
	shmem_free(sh);
	shmem_free(ld);
	shmem_free(dout);
	shmem_free(dbl);
	shmem_free(iout);
	shmem_free(ints);
	shmem_free(b64);
	shmem_free(a64);
	shmem_free(b32);
	shmem_free(a32);
}

int main(void)
{
	int me, npes;

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
		psync[i] = SHMEM_SYNC_VALUE;
	for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
		psync2[i] = SHMEM_SYNC_VALUE;
	shmem_barrier_all();

	struct set all = { 0, 0, npes, me };
	/* evens and odds side by side: each PE is in one of them */
	struct set half = me % 2 ? (struct set){ 1, 1, npes / 2, me / 2 } :
				   (struct set){ 0, 1, (npes + 1) / 2, me / 2 };

	for (int round = 0; round < 3; round++) {
		on_set(&all, npes);
		if (half.size > 0)
			on_set(&half, npes);
		else
			on_set(&(struct set){ 0, 0, 1, -1 }, npes);
	}
	if (me == 0)
		printf("active: %d PEs ok\n", npes);
	shmem_finalize();
	return 0;
}
