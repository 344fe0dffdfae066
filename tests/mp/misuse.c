/* Not a test on its own; run-tests runs it. One way to misuse the library
 * per run, named by argv[1]; each must end with a clear message and status
 * 1 (run-tests checks both):
 *   before-init   shmem_my_pe before shmem_init
 *   init-twice    shmem_init twice
 *   after-final   shmem_malloc after shmem_finalize
 *   not-symmetric shmem_putmem to a stack address
 *   library-global shmem_putmem to a shared library's global (libc's timezone,
 *                 found by dlsym: a variable the program names would be
 *                 copied into its own data)
 *   private-global shmem_putmem to a global (run with SHMEMCOMM_GLOBALS=0)
 *   bad-pe        shmem_long_p to PE n_pes
 *   double-free   shmem_free twice
 *   bad-stride    shmem_long_iput with stride 0
 *   asymmetric    PEs allocate different sizes (needs SHMEMCOMM_DEBUG=1)
 *   allreduce-mismatch N  PE 1 reduces N + 1 fp32 where the others reduce N
 *                 (twice, so that both parities of the smallest one's lines
 *                 are checked)
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHMEMCOMM_NO_DEPRECATION_WARNINGS
#include "mp.h"

static long a_global;

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	long local = 0, *remote;

	if (!strcmp(what, "before-init"))
		return shmem_my_pe() == 0 ? 0 : 2;
	shmem_init();
	remote = shmem_malloc(sizeof(long));
	if (!strcmp(what, "init-twice"))
		shmem_init();
	else if (!strcmp(what, "not-symmetric"))
		shmem_putmem(&local, remote, sizeof(long), 0);
	else if (!strcmp(what, "library-global"))
		shmem_putmem(dlsym(RTLD_DEFAULT, "timezone"), remote, sizeof(long), 0);
	else if (!strcmp(what, "private-global"))
		shmem_putmem(&a_global, remote, sizeof(long), 0);
	else if (!strcmp(what, "bad-pe"))
		shmem_long_p(remote, 1, shmem_n_pes());
	else if (!strcmp(what, "double-free")) {
		shmem_free(remote);
		shmem_free(remote);
	} else if (!strcmp(what, "bad-stride"))
		shmem_long_iput(remote, &local, 0, 1, 2, 0);
	else if (!strcmp(what, "lock-held")) {
		/* PE 0 takes the lock and never gives it back; PE 1 waits in vain */
		static long lock;

		if (shmem_my_pe() == 0)
			shmem_set_lock(&lock);
		shmem_barrier_all();
		if (shmem_my_pe() == 1)
			shmem_set_lock(&lock);
		else
			sleep(30);
	} else if (!strcmp(what, "lock-not-held")) {
		static long lock;

		shmem_clear_lock(&lock);
	} else if (!strcmp(what, "not-in-set")) {
		/*
		 * PE 1 calls a barrier of the set {0}. PE 0, a member, passes
		 * it and then waits to be stopped: ending at once (status 3,
		 * below) made shmemrun stop PE 1 before it could say why
		 */
		static long psync[SHMEM_BARRIER_SYNC_SIZE];

		shmem_barrier(0, 0, 1, psync);
		if (shmem_my_pe() == 0)
			sleep(30);
	} else if (!strcmp(what, "asymmetric"))
		shmem_malloc(64 + 64 * (size_t)shmem_my_pe());
	else if (!strcmp(what, "allreduce-mismatch") && argc > 2) {
		size_t count = (size_t)atol(argv[2]) + (shmem_my_pe() == 1);
		float *in = shmem_calloc(count, sizeof(float)), *out = shmem_calloc(count, sizeof(float));

		for (int call = 0; call < 2; call++)
			shmemx_allreduce(SHMEM_TEAM_WORLD, out, in, count, SHMEMX_FP32, SHMEMX_SUM);
	} else if (!strcmp(what, "after-final")) {
		shmem_finalize();
		shmem_malloc(8);
	}
	/* reaching here means the misuse went unnoticed */
	return 3;
}
