/*
 * What one PE costs in memory once shmem_init has run, for
 * scripts/bench-bootstrap: PE 0 prints
 *   memory N vm_kib rss_kib pte_kib sockets
 * from /proc/self/status (address space, resident, page tables) and its
 * open sockets. Every PE touches nothing of the heap, so resident memory
 * is the library's own.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

#include "sockets.h"

static long status_kib(const char *field)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			sscanf(line + strlen(field), " %ld", &kib);
	if (f)
		fclose(f);
	return kib;
}

int main(void)
{
	shmem_init();
	shmem_barrier_all();
	if (!shmem_my_pe())
		printf("memory %d %ld %ld %ld %d\n", shmem_n_pes(), status_kib("VmSize:"),
		       status_kib("VmRSS:"), status_kib("VmPTE:"), open_sockets());
	shmem_barrier_all();
	shmem_finalize();
	return 0;
}
