/* Teams: WORLD and SHARED; split_strided and split_2d with their numbering
 * and translation; team_ptr; team syncs; contexts on a team take team PE numbers;
 * hundreds of split/destroy rounds reuse slots; bad splits fail on every PE
 * without hanging. */
#include <stdint.h>

#include "mp.h"

int main(void)
{
	shmem_team_t evens, row, column, again;
	shmem_team_config_t config = { .num_contexts = 2 }, got;
	shmem_ctx_t ctx;
	long *box;
	int me, npes;

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	box = shmem_calloc((size_t)npes, sizeof(long));
	MP_CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me);
	MP_CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes);
	/* SHARED: the PEs of this node (every PE alone when RDMA is forced) */
	MP_CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == shmemx_n_local_pes());
	MP_CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shmem_team_my_pe(SHMEM_TEAM_SHARED),
					 SHMEM_TEAM_WORLD) == me);
	MP_CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1);
	for (int pe = 0; pe < npes; pe++)
		MP_CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, box, pe) == shmem_ptr(box, pe));
	MP_CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, box, 0) == NULL);
	MP_CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, box, -1) == NULL);

	/* the even PEs */
	MP_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &config,
					  SHMEM_TEAM_NUM_CONTEXTS, &evens) == 0);
	if (me % 2) {
		MP_CHECK(evens == SHMEM_TEAM_INVALID);
	} else {
		MP_CHECK(shmem_team_my_pe(evens) == me / 2);
		MP_CHECK(shmem_team_n_pes(evens) == (npes + 1) / 2);
		MP_CHECK(shmem_team_translate_pe(evens, 1 % shmem_team_n_pes(evens),
						 SHMEM_TEAM_WORLD) == 2 * (1 % shmem_team_n_pes(evens)));
		/* team_ptr takes team numbers: member i of the evens is PE 2i */
		for (int i = 0; i < shmem_team_n_pes(evens); i++)
			MP_CHECK(shmem_team_ptr(evens, box, i) == shmem_ptr(box, 2 * i));
		MP_CHECK(shmem_team_ptr(evens, box, shmem_team_n_pes(evens)) == NULL);
		MP_CHECK(shmem_team_get_config(evens, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0);
		MP_CHECK(got.num_contexts == 2);
		for (int i = 0; i < 50; i++)
			MP_CHECK(shmem_team_sync(evens) == 0);
		/* a context of the team: PE numbers are team numbers */
		MP_CHECK(shmem_team_create_ctx(evens, SHMEM_CTX_PRIVATE, &ctx) == 0);
		int next = (shmem_team_my_pe(evens) + 1) % shmem_team_n_pes(evens);

		shmem_ctx_long_p(ctx, &box[me], 100 + me, next);
		shmem_ctx_quiet(ctx);
		shmem_team_t its;

		MP_CHECK(shmem_ctx_get_team(ctx, &its) == 0 && its == evens);
		shmem_ctx_destroy(ctx);
	}
	shmem_barrier_all();
	if (me % 2 == 0 && npes > 2) {
		int prev_world = shmem_team_translate_pe(evens,
			(shmem_team_my_pe(evens) + shmem_team_n_pes(evens) - 1) % shmem_team_n_pes(evens),
			SHMEM_TEAM_WORLD);

		MP_CHECK(box[prev_world] == 100 + prev_world);
	}
	MP_CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1 % npes, evens) ==
		 (me % 2 ? -1 : (1 % npes) % 2 ? -1 : 0));
	if (evens != SHMEM_TEAM_INVALID)
		shmem_team_destroy(evens);

	/* a 2-D grid, 2 wide */
	MP_CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &row, NULL, 0, &column) == 0);
	MP_CHECK(shmem_team_my_pe(row) == me % 2);
	MP_CHECK(shmem_team_my_pe(column) == me / 2);
	MP_CHECK(shmem_team_n_pes(column) == (npes - me % 2 + 1) / 2);
	MP_CHECK(shmem_team_translate_pe(row, 0, SHMEM_TEAM_WORLD) == me - me % 2);
	/* the column's first PE is world PE me % 2: in my row only if that is row 0 */
	MP_CHECK(shmem_team_translate_pe(column, 0, row) == (me < 2 ? me % 2 : -1));
	for (int i = 0; i < 20; i++) {
		MP_CHECK(shmem_team_sync(row) == 0);
		MP_CHECK(shmem_team_sync(column) == 0);
	}
	shmem_team_destroy(row);
	shmem_team_destroy(column);

	/* slots are reused: far more rounds than there are slots */
	for (int i = 0; i < 300; i++) {
		MP_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &again) == 0);
		MP_CHECK(shmem_team_sync(again) == 0);
		shmem_team_destroy(again);
	}

	/* bad splits fail everywhere, and the job goes on */
	MP_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &again) != 0);
	MP_CHECK(again == SHMEM_TEAM_INVALID);
	MP_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0x10, &again) != 0);
	MP_CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &row, NULL, 0, &column) != 0);
	MP_CHECK(shmem_ctx_create(0x100, &ctx) != 0 && ctx == SHMEM_CTX_INVALID);
	shmem_barrier_all();
	if (me == 0)
		printf("teams: %d PEs ok\n", npes);
	shmem_free(box);
	shmem_finalize();
	return 0;
}
