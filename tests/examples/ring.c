/* Put/get around a ring: each PE puts its rank into its right neighbour,
 * then gets its left neighbour's value back. Standard API only. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
	static long checked;
	long *box, got;
	int me, npes, right, left;

	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	right = (me + 1) % npes;
	left = (me + npes - 1) % npes;
	box = shmem_malloc(sizeof(long));
	*box = -1;
	shmem_barrier_all();

	shmem_long_p(box, me, right);
	shmem_barrier_all();
	if (*box != left) {
		printf("PE %d: got %ld from the left, wanted %d\n", me, *box, left);
		shmem_global_exit(1);
	}
	got = shmem_long_g(box, right);
	if (got != me) {
		printf("PE %d: read %ld from the right, wanted %d\n", me, got, me);
		shmem_global_exit(1);
	}
	checked = 1;
	shmem_barrier_all();
	printf("PE %d: ring ok (%ld)\n", me, checked);
	shmem_free(box);
	shmem_finalize();
	return 0;
}
