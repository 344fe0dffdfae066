/* kill -9 in the middle of use releases device memory too: after 1,000
 * cycles of a vgem buffer made a region (CREATE_DMABUF), exported,
 * imported and mapped through vgem by both, every tenth with the importer
 * also holding the region's dma-buf for a device, ended by SIGKILL at
 * varying points (tests/guest/cycles.c), the module's counters and the
 * dma-bufs alive in the system, vgem's among them, are back at baseline. */
#include <stdio.h>
#include <unistd.h>

#include "cycles.h"
#include "guest.h"

int main(void)
{
	long dmabufs = live_dmabufs(), now = -1;
	int card = vgem_open();

	if (card < 0) {
		printf("vgem is not loaded: no device memory to test\n");
		return 77;
	}
	close(card);
	kill_cycles(DEVICE_MEMORY, 1000);
	/* vgem's objects go with their last dma-buf, which a killed process's exit may drop late */
	for (int i = 0; i < 500 && (now = live_dmabufs()) != dmabufs; i++)
		usleep(10000);
	if (now != dmabufs)
		FAIL("dma-bufs alive: %ld, %ld before the cycles", now, dmabufs);
	printf("kill_cycles_device: dma-bufs alive back at %ld\n", dmabufs);
	return 0;
}
