/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The ioctls of the test importer (shmemcomm_test_importer.ko), a device
 * driver stand-in that attaches to a dma-buf as a real one would. Each open
 * file of /dev/shmemcomm-test-importer holds at most one attachment.
 */
#ifndef SHMEMCOMM_TEST_IMPORTER_H
#define SHMEMCOMM_TEST_IMPORTER_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* IMPORTER_IOC_ATTACH: attach to a dma-buf and map it once */
struct importer_attach {
	__s32 fd;		/* the dma-buf */
	__u32 dynamic;		/* 1: a dynamic importer (move_notify), 0: static */
};

/* IMPORTER_IOC_MAP (maps again if it holds no mapping) and _STATE */
struct importer_state {
	__u32 mapped;		/* holds a mapping now */
	__u32 move_notifies;	/* move_notify calls so far */
	__s32 map_error;	/* the last map's error (negative errno), 0 if it mapped */
	__u32 first_word;	/* the buffer's first 4 bytes, read through the mapping */
};

#define IMPORTER_IOC_MAGIC 'I'
#define IMPORTER_IOC_ATTACH _IOW(IMPORTER_IOC_MAGIC, 1, struct importer_attach)
#define IMPORTER_IOC_MAP _IOR(IMPORTER_IOC_MAGIC, 2, struct importer_state)
#define IMPORTER_IOC_STATE _IOR(IMPORTER_IOC_MAGIC, 3, struct importer_state)
/* IMPORTER_IOC_EXPORT_REFUSING: returns a dma-buf fd whose exporter refuses every attachment */
#define IMPORTER_IOC_EXPORT_REFUSING _IO(IMPORTER_IOC_MAGIC, 4)
/*
 * IMPORTER_IOC_EXPORT_DEVICE_ONLY: returns a one-page dma-buf fd that
 * devices attach to and map but the CPU cannot (no mmap), as device memory
 * without a CPU path; every word of it is IMPORTER_DEVICE_ONLY_WORD
 */
#define IMPORTER_IOC_EXPORT_DEVICE_ONLY _IO(IMPORTER_IOC_MAGIC, 5)
#define IMPORTER_DEVICE_ONLY_WORD 0x5eed5eedU

#endif /* SHMEMCOMM_TEST_IMPORTER_H */
