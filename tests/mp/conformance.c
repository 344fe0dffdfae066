/*
 * OpenSHMEM 1.5 as programs written against it elsewhere use it, where the
 * text is looser than a library may be tempted to be:
 *   - shmem_sync is one C11 name for the team form and the deprecated
 *     active-set form;
 *   - an operation with nothing to move has no effect, whatever its
 *     pointers (NULL included): RMA, put-with-signal (whose signal still
 *     arrives), every collective, the waits and tests over 0 words;
 *   - shmem_malloc_with_hints allocates whatever the hints;
 *   - shmem_team_get_config with a mask of 0 needs no config;
 *   - SHMEM_TEAM_INVALID and SHMEM_CTX_INVALID, as a PE outside a team
 *     gets them: creating a context from that team returns nonzero, and
 *     quiet, fence, destroy and get_team on the invalid context, and the
 *     team queries, split and destroy on the invalid team, do what the
 *     standard says, quietly.
 * run-tests also checks that it prints nothing.
 */
#define SHMEMCOMM_NO_DEPRECATION_WARNINGS	/* the active-set forms beside the team ones */
#include <stdint.h>
#include <string.h>

#include "mp.h"

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static uint64_t signal_word;

static void zero_length_rma(int next, int prev)
{
	shmem_putmem(NULL, NULL, 0, next);
	shmem_getmem(NULL, NULL, 0, next);
	shmem_putmem_nbi(NULL, NULL, 0, next);
	shmem_getmem_nbi(NULL, NULL, 0, next);
	shmem_long_put(NULL, NULL, 0, next);
	shmem_double_get(NULL, NULL, 0, next);
	shmem_put64_nbi(NULL, NULL, 0, next);
	shmem_iput32(NULL, NULL, 1, 1, 0, next);
	shmem_int_iget(NULL, NULL, 2, 3, 0, next);
	shmem_ctx_putmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, next);
	shmem_ctx_long_get_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, next);
	/* no data, and still the signal: the target waits on it */
	shmem_putmem_signal(NULL, NULL, 0, &signal_word, (uint64_t)shmem_my_pe() + 1,
			    SHMEM_SIGNAL_SET, next);
	/* at least: the add below may come first */
	MP_CHECK(shmem_signal_wait_until(&signal_word, SHMEM_CMP_GE, (uint64_t)prev + 1) >=
		 (uint64_t)prev + 1);
	shmem_long_put_signal_nbi(NULL, NULL, 0, &signal_word, 10, SHMEM_SIGNAL_ADD, next);
	shmem_quiet();
	MP_CHECK(shmem_signal_wait_until(&signal_word, SHMEM_CMP_EQ, (uint64_t)prev + 11) ==
		 (uint64_t)prev + 11);
}

static void zero_length_collectives(int npes)
{
	shmem_team_t world = SHMEM_TEAM_WORLD;

	MP_CHECK(shmem_broadcastmem(world, NULL, NULL, 0, npes - 1) == 0);
	MP_CHECK(shmem_broadcast(world, (long *)NULL, (const long *)NULL, 0, 0) == 0);
	MP_CHECK(shmem_collectmem(world, NULL, NULL, 0) == 0);
	MP_CHECK(shmem_fcollectmem(world, NULL, NULL, 0) == 0);
	MP_CHECK(shmem_int_fcollect(world, NULL, NULL, 0) == 0);
	MP_CHECK(shmem_alltoallmem(world, NULL, NULL, 0) == 0);
	MP_CHECK(shmem_long_alltoalls(world, NULL, NULL, 1, 1, 0) == 0);
	MP_CHECK(shmem_sum_reduce(world, (long *)NULL, (const long *)NULL, 0) == 0);
	MP_CHECK(shmem_double_max_reduce(world, NULL, NULL, 0) == 0);
	MP_CHECK(shmem_uint64_xor_reduce(world, NULL, NULL, 0) == 0);
	MP_CHECK(shmem_complexd_prod_reduce(world, NULL, NULL, 0) == 0);
	/* the deprecated active-set forms over every PE */
	shmem_broadcast64(NULL, NULL, 0, 0, 0, 0, npes, psync);
	shmem_collect32(NULL, NULL, 0, 0, 0, npes, psync);
	shmem_fcollect64(NULL, NULL, 0, 0, 0, npes, psync);
	shmem_alltoall32(NULL, NULL, 0, 0, 0, npes, psync);
	shmem_alltoalls64(NULL, NULL, 1, 1, 0, 0, 0, npes, psync);
	shmem_long_sum_to_all(NULL, NULL, 0, 0, 0, npes, pwrk, psync);
	shmem_barrier_all();
}

static void zero_words_waits(void)
{
	size_t index = 7;

	shmem_long_wait_until_all(NULL, 0, NULL, SHMEM_CMP_EQ, 1);
	MP_CHECK(shmem_long_wait_until_any(NULL, 0, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX);
	MP_CHECK(shmem_int_wait_until_some(NULL, 0, &index, NULL, SHMEM_CMP_EQ, 1) == 0);
	MP_CHECK(shmem_uint64_test_all(NULL, 0, NULL, SHMEM_CMP_NE, 0) == 1);
	MP_CHECK(shmem_long_test_any(NULL, 0, NULL, SHMEM_CMP_EQ, 0) == SIZE_MAX);
	MP_CHECK(shmem_long_test_some_vector(NULL, 0, &index, NULL, SHMEM_CMP_EQ, NULL) == 0);
}

/* This PE's context and team handles when it is outside @team (SHMEM_TEAM_INVALID). */
static void outside_a_team(shmem_team_t team)
{
	shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
	shmem_team_t got = SHMEM_TEAM_WORLD, sub = SHMEM_TEAM_WORLD;
	shmem_team_config_t config;

	MP_CHECK(team == SHMEM_TEAM_INVALID);
	MP_CHECK(shmem_team_create_ctx(team, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID);
	shmem_ctx_quiet(ctx);
	shmem_ctx_fence(ctx);
	MP_CHECK(shmem_ctx_get_team(ctx, &got) != 0 && got == SHMEM_TEAM_INVALID);
	shmem_ctx_destroy(ctx);
	MP_CHECK(shmem_team_my_pe(team) == -1 && shmem_team_n_pes(team) == -1);
	MP_CHECK(shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD) == -1);
	MP_CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, team) == -1);
	MP_CHECK(shmem_team_ptr(team, &signal_word, 0) == NULL);
	MP_CHECK(shmem_team_get_config(team, SHMEM_TEAM_NUM_CONTEXTS, &config) != 0);
	MP_CHECK(shmem_team_split_strided(team, 0, 1, 1, NULL, 0, &sub) != 0 &&
		 sub == SHMEM_TEAM_INVALID);
	shmem_team_destroy(team);
}

int main(void)
{
	shmem_init();
	int me = shmem_my_pe(), npes = shmem_n_pes();
	int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
	shmem_team_t evens;

	/* shmem_sync: the team's (1.5's C11 form) and the active set's, one name */
	MP_CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0);
	MP_CHECK(shmem_sync(SHMEM_TEAM_SHARED) == 0);
	shmem_sync(0, 0, npes, psync);
	/* a config mask of 0 fetches nothing: no config needed */
	MP_CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL) == 0);

	zero_length_rma(next, prev);
	zero_length_collectives(npes);
	zero_words_waits();
	shmem_free(NULL);

	/* hints the library has no use for: a block as shmem_malloc's */
	long *hinted = shmem_malloc_with_hints(2 * sizeof(long), 1L << 20);

	MP_CHECK(hinted != NULL);
	hinted[0] = 0;
	shmem_barrier_all();
	shmem_long_atomic_add(hinted, me + 1, next);
	shmem_barrier_all();
	MP_CHECK(hinted[0] == prev + 1);
	shmem_free(hinted);

	MP_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0,
					  &evens) == 0);
	if (me % 2) {
		outside_a_team(evens);
	} else {
		shmem_ctx_t ctx;
		shmem_team_t got;

		MP_CHECK(shmem_team_create_ctx(evens, 0, &ctx) == 0 && ctx != SHMEM_CTX_INVALID);
		MP_CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == evens);
		shmem_ctx_quiet(ctx);
		shmem_ctx_destroy(ctx);
		shmem_team_destroy(evens);
	}
	outside_a_team(SHMEM_TEAM_INVALID);
	shmem_finalize();
	return 0;
}
