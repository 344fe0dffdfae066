/* Many barriers in a row; between them every PE writes its round number to
 * every other PE and checks what it received. Standard API only. */
#include <shmem.h>
#include <stdio.h>

#define ROUNDS 200

int main(void)
{
	int me, npes, *slots;

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	slots = shmem_calloc((size_t)npes, sizeof(int));
	for (int round = 1; round <= ROUNDS; round++) {
		for (int pe = 0; pe < npes; pe++)
			shmem_int_p(&slots[me], round, pe);
		shmem_barrier_all();
		for (int pe = 0; pe < npes; pe++)
			if (slots[pe] != round) {
				printf("PE %d: round %d: slot of PE %d holds %d\n", me, round, pe,
				       slots[pe]);
				shmem_global_exit(1);
			}
		shmem_barrier_all();
	}
	if (me == 0)
		printf("%d barriers on %d PEs: ok\n", 2 * ROUNDS, npes);
	shmem_free(slots);
	shmem_finalize();
	return 0;
}
