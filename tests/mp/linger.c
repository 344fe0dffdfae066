/* Not a test on its own; run-tests' launcher tests run it:
 *   linger signal  every PE says "ready", waits for SIGUSR1 and says so
 *   linger orphan  every PE starts a grandchild that sleeps on (argv[2] names
 *                  it), then PE 1 fails
 *   linger exit S  PE 1 calls shmem_global_exit(S) while PE 0 waits in a
 *                  barrier and the others sleep outside the library
 *   linger fatal   PE 1 puts to a PE that does not exist (a fatal error)
 *                  while the others sleep outside the library
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp.h"

static volatile sig_atomic_t got;
static long target;

static void on_usr1(int sig)
{
	(void)sig;
	got = 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	shmem_init();
	if (!strcmp(mode, "signal")) {
		signal(SIGUSR1, on_usr1);
		shmem_barrier_all();
		printf("ready\n");
		fflush(stdout);
		while (!got)
			pause();
		printf("got SIGUSR1\n");
	} else if (!strcmp(mode, "orphan") && argc > 2) {
		if (!fork()) {
			execlp("sleep", argv[2], "300", (char *)NULL);
			_exit(127);
		}
		shmem_barrier_all();
		if (shmem_my_pe() == 1)
			shmem_global_exit(3);
		pause();
	} else if (!strcmp(mode, "exit") && argc > 2) {
		shmem_barrier_all();
		if (shmem_my_pe() == 1)
			shmem_global_exit(atoi(argv[2]));
		if (shmem_my_pe() == 0)
			shmem_barrier_all();	/* PE 1 never comes */
		for (;;)
			pause();
	} else if (!strcmp(mode, "fatal")) {
		shmem_barrier_all();
		if (shmem_my_pe() == 1)
			shmem_long_p(&target, 1, shmem_n_pes());
		for (;;)
			pause();
	}
	return 0;
}
