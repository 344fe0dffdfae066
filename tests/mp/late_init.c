/* Not a test on its own; tests/launch/run-tests runs it: the last PE calls
 * shmem_init argv[1] seconds late (past SHMEMCOMM_TIMEOUT), and the others
 * must fail naming it. */
#include <stdlib.h>
#include <unistd.h>

#include "mp.h"

int main(int argc, char **argv)
{
	const char *rank = getenv("PMIX_RANK");
	const char *size = getenv("OMPI_COMM_WORLD_SIZE");

	/* the rank is known before init only from the launcher */
	if (argc > 1 && rank && size && atoi(rank) == atoi(size) - 1)
		sleep((unsigned int)atoi(argv[1]));
	shmem_init();
	shmem_barrier_all();
	shmem_finalize();
	return 0;
}
