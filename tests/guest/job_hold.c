/* A helper for shmemctl-tests, not a test: an OpenSHMEM job whose PEs hold
 * their symmetric heaps (the module's regions) until the file named by
 * argv[1] exists, so that shmemctl can be checked against them. PE 0 says
 * "ready" once every PE has mapped every other's heap. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

int main(int argc, char **argv)
{
	time_t give_up = time(NULL) + 600;

	if (argc != 2) {
		fprintf(stderr, "usage: job_hold GO_FILE\n");
		return 2;
	}
	shmem_init();
	shmem_barrier_all();
	if (shmem_my_pe() == 0) {
		printf("ready\n");
		fflush(stdout);
	}
	while (access(argv[1], F_OK) != 0) {
		if (time(NULL) > give_up) {
			fprintf(stderr, "job_hold: %s did not appear in 600 s\n", argv[1]);
			shmem_global_exit(1);
		}
		usleep(20000);
	}
	shmem_barrier_all();
	shmem_finalize();
	return 0;
}
