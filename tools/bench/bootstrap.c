/*
 * One process's bootstrap alone, for scripts/bench-bootstrap: the launcher's
 * rank and size, the bootstrap opened (TCP rendezvous or PMIx), an
 * allgather of 64 bytes per process (checked), and a barrier; nothing of
 * the library's memory. Rank 0 prints one line:
 *   bootstrap KIND N open_ms allgather_ms barrier_ms max_rss_kib sockets
 * sockets: those rank 0 holds once the bootstrap is up (the tree's edges,
 * and PMIx's own connection to its server).
 * Exit status 0 when every rank's bytes came back in rank order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "boot/bootstrap.h"
#include "util/clock.h"

#include "sockets.h"

int main(void)
{
	struct sc_launch launch;
	struct sc_boot boot;
	unsigned char mine[64], *all;
	double start = sc_now(), opened, gathered, done;
	struct rusage usage;
	int bad = 0;

	if (sc_launch_detect(&launch) || sc_boot_open(&boot, &launch, 600))
		return 1;
	opened = sc_now();
	for (size_t i = 0; i < sizeof(mine); i++)
		mine[i] = (unsigned char)(boot.rank * 31 + i);
	all = malloc(sizeof(mine) * (size_t)boot.size);
	if (!all || sc_boot_allgather(&boot, mine, sizeof(mine), all))
		return 1;
	gathered = sc_now();
	if (sc_boot_barrier(&boot))
		return 1;
	done = sc_now();
	for (int r = 0; r < boot.size; r++)
		for (size_t i = 0; i < sizeof(mine); i++)
			bad |= all[(size_t)r * sizeof(mine) + i] != (unsigned char)(r * 31 + i);
	getrusage(RUSAGE_SELF, &usage);
	if (!boot.rank)
		printf("bootstrap %s %d %.2f %.2f %.2f %ld %d\n", boot.kind, boot.size,
		       (opened - start) * 1e3, (gathered - opened) * 1e3, (done - gathered) * 1e3,
		       usage.ru_maxrss, open_sockets());
	if (bad)
		fprintf(stderr, "rank %d: the allgather's bytes are wrong\n", boot.rank);
	sc_boot_close(&boot);
	free(all);
	return bad;
}
