/*
 * kill -9 in the middle of use: cycles of create/export/import/map, each
 * ended by SIGKILL of the owner and the importer at varying points
 * (tests/guest/cycles.c), for kill_cycles and kill_cycles_device.
 */
#ifndef SHMEMCOMM_TESTS_GUEST_CYCLES_H
#define SHMEMCOMM_TESTS_GUEST_CYCLES_H

enum kind {
	DRIVER_PAGES,	/* every tenth cycle the importer registers an RDMA MR */
	USER_MEMORY,	/* every tenth cycle the owner registers one */
	DEVICE_MEMORY,	/* a vgem buffer; every tenth cycle the importer holds its dma-buf */
};

/* @cycles cycles on @kind, then the module's counters are back at their baseline */
void kill_cycles(enum kind kind, unsigned int cycles);
/* dma-bufs alive in the system, from debugfs (mounted here if it is not) */
long live_dmabufs(void);

#endif
