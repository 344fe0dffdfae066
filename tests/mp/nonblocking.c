/*
 * Non-blocking training collectives: several outstanding at once, on the
 * world team and on a split team, with compute and shmemx_test between
 * start and wait, completing in order with the right data; count 0; the
 * argument errors; and two staged requests on different teams at once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem.h>
#include <shmemx.h>

#include "mp.h"

#define COUNT 300007	/* a prime: not a multiple of any chunk or slice */

static volatile double sink;

/* work that touches no library state */
static void compute(int rounds)
{
	double x = 1;

	for (int i = 0; i < rounds * 1000; i++)
		x = x * 1.0000001 + 0.5;
	sink = x;
}

int main(void)
{
	int me, n, done, outstanding;
	shmem_team_t evens;
	shmemx_request_t req[4];
	float *sum_src, *sum_dst, *gathered;
	int32_t *rs_src, rs_dst[97], *priv_src, *priv_dst;
	double zero_dst = 42;

	shmem_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	sum_src = shmem_malloc(COUNT * sizeof(float));
	sum_dst = shmem_malloc(COUNT * sizeof(float));
	gathered = shmem_malloc((size_t)n * 5 * sizeof(float));
	rs_src = shmem_malloc((size_t)n * 97 * sizeof(int32_t));
	priv_src = malloc(COUNT * sizeof(int32_t));
	priv_dst = malloc(COUNT * sizeof(int32_t));
	MP_CHECK(sum_src && sum_dst && gathered && rs_src && priv_src && priv_dst);
	for (int i = 0; i < COUNT; i++) {
		sum_src[i] = (float)((me + i) % 11);
		priv_src[i] = me * 1000 + i % 1000;
	}
	for (int i = 0; i < n * 97; i++)
		rs_src[i] = me + i;
	shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens);

	/* four at once: three on the world team, one on the evens */
	MP_CHECK(!shmemx_allreduce_nb(SHMEM_TEAM_WORLD, sum_dst, sum_src, COUNT, SHMEMX_FP32,
				      SHMEMX_SUM, &req[0]));
	MP_CHECK(!shmemx_allgather_nb(SHMEM_TEAM_WORLD, gathered, sum_src, 5, SHMEMX_FP32,
				      &req[1]));
	MP_CHECK(!shmemx_reduce_scatter_nb(SHMEM_TEAM_WORLD, rs_dst, rs_src, 97, SHMEMX_INT32,
					   SHMEMX_MAX, &req[2]));
	req[3] = NULL;
	if (evens != SHMEM_TEAM_INVALID)
		MP_CHECK(!shmemx_allreduce_nb(evens, priv_dst, priv_src, COUNT, SHMEMX_INT32,
					      SHMEMX_MIN, &req[3]));
	/* compute, testing now and then; requests complete in order */
	outstanding = 4;
	for (int round = 0; outstanding && round < 100000; round++) {
		compute(1);
		outstanding = 0;
		for (int k = 0; k < 4; k++) {
			int was_pending = req[k] != NULL;

			MP_CHECK(!shmemx_test(&req[k], &done));
			MP_CHECK(done == !req[k]);
			/*
			 * in order on a team: the earlier ones are complete too (testing
			 * a later request may have completed them since they were tested)
			 */
			if (was_pending && done && k < 3)
				for (int j = 0; j < k; j++) {
					int earlier;

					MP_CHECK(!shmemx_test(&req[j], &earlier) && earlier);
				}
			outstanding += !done;
		}
	}
	for (int k = 0; k < 4; k++)
		MP_CHECK(!shmemx_wait(&req[k]) && req[k] == NULL);

	for (int i = 0; i < COUNT; i++) {
		float want = 0;

		for (int pe = 0; pe < n; pe++)
			want += (float)((pe + i) % 11);
		MP_CHECK(sum_dst[i] == want);
	}
	for (int pe = 0; pe < n; pe++)
		for (int i = 0; i < 5; i++)
			MP_CHECK(gathered[pe * 5 + i] == (float)((pe + i) % 11));
	for (int i = 0; i < 97; i++)
		MP_CHECK(rs_dst[i] == (n - 1) + me * 97 + i);
	if (evens != SHMEM_TEAM_INVALID)
		for (int i = 0; i < COUNT; i++)
			MP_CHECK(priv_dst[i] == i % 1000);	/* PE 0's is the least */

	/* count 0 touches nothing, and still completes on every PE */
	MP_CHECK(!shmemx_allreduce(SHMEM_TEAM_WORLD, &zero_dst, NULL, 0, SHMEMX_FP64, SHMEMX_SUM));
	MP_CHECK(zero_dst == 42);
	MP_CHECK(!shmemx_alltoall(SHMEM_TEAM_WORLD, NULL, NULL, 0, SHMEMX_INT8));

	/* bad arguments are refused here, before anything is shared */
	MP_CHECK(shmemx_allreduce(SHMEM_TEAM_WORLD, sum_dst, sum_src, 1, SHMEMX_FP32,
				  SHMEMX_BAND) == -1);
	MP_CHECK(shmemx_allreduce(SHMEM_TEAM_WORLD, sum_dst, sum_src, 1, (shmemx_dtype_t)99,
				  SHMEMX_SUM) == -1);
	MP_CHECK(shmemx_broadcast(SHMEM_TEAM_WORLD, sum_dst, sum_src, 1, SHMEMX_FP32, n) == -1);
	MP_CHECK(shmemx_allreduce_nb(SHMEM_TEAM_WORLD, sum_dst, sum_src, 1, SHMEMX_FP32,
				     SHMEMX_SUM, NULL) == -1);
	MP_CHECK(!shmemx_wait(&req[0]));	/* a completed (NULL) request */

	/*
	 * The starting call does not wait for the peers (across nodes too): with
	 * the last PE half a second late, PE 0's request is still pending after
	 * it starts and is tested, and completes in the wait.
	 */
	shmem_barrier_all();
	if (n > 1 && me == n - 1) {
		struct timespec late = { 0, 500000000 };

		nanosleep(&late, NULL);
	}
	MP_CHECK(!shmemx_allreduce_nb(SHMEM_TEAM_WORLD, sum_dst, sum_src, COUNT, SHMEMX_FP32,
				      SHMEMX_SUM, &req[0]));
	if (n > 1 && me == 0) {
		MP_CHECK(!shmemx_test(&req[0], &done));
		MP_CHECK(!done && req[0] != NULL);
	}
	MP_CHECK(!shmemx_wait(&req[0]) && req[0] == NULL);
	for (int i = 0; i < COUNT; i++) {
		float want = 0;

		for (int pe = 0; pe < n; pe++)
			want += (float)((pe + i) % 11);
		MP_CHECK(sum_dst[i] == want);
	}

	/*
	 * Two staged requests on different teams at once (buffers off the heap,
	 * more than one chunk each): they share this PE's staging buffers, so
	 * the second waits for the first instead of overwriting its chunks.
	 */
	int32_t *world_src = malloc(COUNT * sizeof(int32_t)), *world_dst = malloc(COUNT * sizeof(int32_t));

	MP_CHECK(world_src && world_dst);
	for (int i = 0; i < COUNT; i++) {
		world_src[i] = me + i % 7;
		priv_src[i] = 1000 * me + i % 5;
	}
	shmem_barrier_all();
	MP_CHECK(!shmemx_allreduce_nb(SHMEM_TEAM_WORLD, world_dst, world_src, COUNT, SHMEMX_INT32,
				      SHMEMX_SUM, &req[0]));
	req[1] = NULL;
	if (evens != SHMEM_TEAM_INVALID)
		MP_CHECK(!shmemx_allreduce_nb(evens, priv_dst, priv_src, COUNT, SHMEMX_INT32,
					      SHMEMX_MAX, &req[1]));
	MP_CHECK(!shmemx_wait(&req[1]) && !shmemx_wait(&req[0]));
	for (int i = 0; i < COUNT; i++)
		MP_CHECK(world_dst[i] == n * (n - 1) / 2 + n * (i % 7));
	if (evens != SHMEM_TEAM_INVALID)
		for (int i = 0; i < COUNT; i++)	/* the highest even PE */
			MP_CHECK(priv_dst[i] == 1000 * ((n - 1) / 2 * 2) + i % 5);
	free(world_src);
	free(world_dst);

	if (evens != SHMEM_TEAM_INVALID)
		shmem_team_destroy(evens);
	shmem_barrier_all();
	if (me == 0)
		printf("nonblocking: %d PEs ok\n", n);
	shmem_finalize();
	return 0;
}
