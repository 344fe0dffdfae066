/* Not a test on its own; run-tests' failure tests run it. PE 1 either
 * dies (argv[1] = "die") or hangs (argv[1] = "hang") before the first
 * barrier; the other PEs wait in shmem_barrier_all and must exit with an
 * error naming it. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "mp.h"

int main(int argc, char **argv)
{
	shmem_init();
	if (shmem_my_pe() == 1) {
		if (argc > 1 && !strcmp(argv[1], "die"))
			raise(SIGKILL);
		for (;;)
			pause();
	}
	shmem_barrier_all();
	return 0;	/* reaching here means the barrier did not wait */
}
