/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * shmemcomm: pinned memory regions shared across processes and with RDMA NICs.
 *
 * The one ABI shared by shmemcomm.ko and libshmemcomm.
 *
 * Two kinds of file carry ioctls:
 *  - the device, /dev/shmemcomm: GET_INFO, CREATE, IMPORT;
 *  - a region file, returned by CREATE (the owner's) or IMPORT (an importer's):
 *    REGION_INFO, EXPORT, REVOKE, EXPORT_DMABUF, and mmap.
 *
 * Every struct has fixed-width fields, no implicit padding and a size that is
 * a multiple of 8, so 32-bit callers use the same layout. Fields named pad or
 * reserved must be zero on input (EINVAL otherwise) so that later minor
 * versions can give them meaning. Unknown flag bits are refused with EINVAL.
 *
 * Region files are always close-on-exec. A region lives until its last file,
 * mapping and dma-buf is gone; the pages are pinned (never swapped or
 * migrated) for all of that time.
 *
 * Across fork(), mappings of a region are inherited and stay shared with the
 * parent (the same pages, not copies), and so is the region file. A child
 * that should not keep the region alive can use MADV_DONTFORK on the mapping.
 */
#ifndef _UAPI_LINUX_SHMEMCOMM_H
#define _UAPI_LINUX_SHMEMCOMM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SHMEMCOMM_DEVICE_PATH "/dev/shmemcomm"

/*
 * A new major version breaks the ABI: the library refuses a module whose
 * major differs from its own. A new minor only adds (flags, features, fields
 * taken from reserved).
 */
#define SHMEMCOMM_ABI_MAJOR 1
#define SHMEMCOMM_ABI_MINOR 0

/* struct shmemcomm_info.features */
#define SHMEMCOMM_FEATURE_NUMA		0x1ULL /* create on a chosen node */
#define SHMEMCOMM_FEATURE_HUGE_CHUNKS	0x2ULL /* 2 MiB contiguous chunks */
#define SHMEMCOMM_FEATURE_EXPORT	0x4ULL /* export, import, revoke */
#define SHMEMCOMM_FEATURE_DMABUF	0x8ULL /* EXPORT_DMABUF */

/**
 * struct shmemcomm_info - SHMEMCOMM_IOC_GET_INFO
 * @abi_major:		out: SHMEMCOMM_ABI_MAJOR of the module
 * @abi_minor:		out: SHMEMCOMM_ABI_MINOR of the module
 * @features:		out: SHMEMCOMM_FEATURE_* bits
 * @max_region_size:	out: largest size CREATE accepts, in bytes
 * @max_pinned:		out: module-wide cap on pinned bytes (parameter max_pinned_mb)
 * @pinned:		out: bytes pinned now, by all users
 * @live_regions:	out: regions alive now
 * @page_size:		out: granule of region sizes and mmap offsets
 * @chunk_size:		out: size of the contiguous chunks tried first
 * @reserved:		must be zero
 */
struct shmemcomm_info {
	__u32 abi_major;
	__u32 abi_minor;
	__u64 features;
	__u64 max_region_size;
	__u64 max_pinned;
	__u64 pinned;
	__u64 live_regions;
	__u32 page_size;
	__u32 chunk_size;
	__u64 reserved[4];
};

/* struct shmemcomm_create.numa_node: let the kernel choose */
#define SHMEMCOMM_NUMA_ANY (-1)

/**
 * struct shmemcomm_create - SHMEMCOMM_IOC_CREATE: a region of driver pages
 * @size:	in: bytes wanted (> 0, <= max_region_size);
 *		out: bytes given, @size rounded up to page_size
 * @numa_node:	in: SHMEMCOMM_NUMA_ANY, or an online node: then every page
 *		comes from that node or CREATE fails with ENOMEM
 * @flags:	in: must be zero
 * @fd:		out: the owner's region file, read-write, close-on-exec
 * @nr_chunks:	out: how many chunk_size contiguous chunks back the region;
 *		the rest is single pages
 * @reserved:	must be zero
 *
 * The pages are zeroed. They are charged to the caller's RLIMIT_MEMLOCK
 * (unless it has CAP_IPC_LOCK) and to the module-wide cap. Errors:
 * EINVAL bad argument, ENOMEM over RLIMIT_MEMLOCK or out of memory,
 * EPERM over the module-wide cap (max_pinned_mb). The reason is logged.
 */
struct shmemcomm_create {
	__u64 size;
	__s32 numa_node;
	__u32 flags;
	__s32 fd;
	__u32 nr_chunks;
	__u64 reserved[2];
};

/* struct shmemcomm_export.flags: who may import; the default is the owner's uid */
#define SHMEMCOMM_EXPORT_SCOPE_OWNER	0x0U /* importer's euid == owner's euid */
#define SHMEMCOMM_EXPORT_SCOPE_GROUP	0x1U /* importer is in owner's egid */
#define SHMEMCOMM_EXPORT_SCOPE_ANY	0x2U /* anyone who can open the device */
#define SHMEMCOMM_EXPORT_SCOPE_MASK	0x3U
#define SHMEMCOMM_EXPORT_RDONLY		0x4U /* importers may only read */
#define SHMEMCOMM_EXPORT_FLAGS		(SHMEMCOMM_EXPORT_SCOPE_MASK | \
					 SHMEMCOMM_EXPORT_RDONLY)

/**
 * struct shmemcomm_export - SHMEMCOMM_IOC_EXPORT, on the owner's region file
 * @flags:	in: one SHMEMCOMM_EXPORT_SCOPE_* or'd with SHMEMCOMM_EXPORT_RDONLY
 * @pad:	must be zero
 * @handle:	out: the region's global handle, random and never 0
 * @reserved:	must be zero
 *
 * A region is exported at most once (EBUSY after that). Only the owner's
 * file may export (EPERM).
 */
struct shmemcomm_export {
	__u32 flags;
	__u32 pad;
	__u64 handle;
	__u64 reserved[2];
};

/* struct shmemcomm_import.flags */
#define SHMEMCOMM_IMPORT_RDONLY		0x1U /* a read-only file, never mapped writable */
#define SHMEMCOMM_IMPORT_FLAGS		SHMEMCOMM_IMPORT_RDONLY

/**
 * struct shmemcomm_import - SHMEMCOMM_IOC_IMPORT, on the device
 * @handle:	in: a handle from EXPORT
 * @flags:	in: SHMEMCOMM_IMPORT_* bits
 * @fd:		out: the importer's region file, close-on-exec
 * @size:	out: the region's size in bytes
 * @reserved:	must be zero
 *
 * Errors: ENOENT no such handle, EKEYREVOKED the owner revoked it,
 * EACCES the caller's credentials do not fit the export's scope, or it asked
 * to write a read-only export.
 */
struct shmemcomm_import {
	__u64 handle;
	__u32 flags;
	__s32 fd;
	__u64 size;
	__u64 reserved[2];
};

/* struct shmemcomm_region_info.state */
#define SHMEMCOMM_STATE_OWNER		0x1U /* this file is the owner's */
#define SHMEMCOMM_STATE_WRITABLE	0x2U /* this file may map writable */
#define SHMEMCOMM_STATE_EXPORTED	0x4U
#define SHMEMCOMM_STATE_REVOKED		0x8U

/**
 * struct shmemcomm_region_info - SHMEMCOMM_IOC_REGION_INFO, on a region file
 * @size:		out: bytes
 * @handle:		out: the handle if exported, else 0
 * @export_flags:	out: the flags given to EXPORT
 * @state:		out: SHMEMCOMM_STATE_* bits, as seen through this file
 * @numa_node:		out: the node asked for at CREATE
 * @nr_chunks:		out: as in struct shmemcomm_create
 * @reserved:		must be zero
 */
struct shmemcomm_region_info {
	__u64 size;
	__u64 handle;
	__u32 export_flags;
	__u32 state;
	__s32 numa_node;
	__u32 nr_chunks;
	__u64 reserved[2];
};

/**
 * struct shmemcomm_revoke - SHMEMCOMM_IOC_REVOKE, on the owner's region file
 * @flags:	must be zero
 * @pad:	must be zero
 * @reserved:	must be zero
 *
 * Ends an export: new imports fail with EKEYREVOKED, importers' mappings
 * are zapped and their next access gets SIGBUS, and their mmap fails with
 * EKEYREVOKED. The owner's own mappings keep working. Pages that an
 * importer pinned in the meantime (ibv_reg_mr) stay allocated until that
 * pin is released. Errors: EPERM not the owner, EINVAL never exported.
 */
struct shmemcomm_revoke {
	__u32 flags;
	__u32 pad;
	__u64 reserved[2];
};

/**
 * struct shmemcomm_dmabuf - SHMEMCOMM_IOC_EXPORT_DMABUF, on a region file
 * @flags:	must be zero
 * @fd:		out: a dma-buf file for the whole region, close-on-exec, with
 *		the same access as the region file it came from
 * @reserved:	must be zero
 */
struct shmemcomm_dmabuf {
	__u32 flags;
	__s32 fd;
	__u64 reserved[2];
};

#define SHMEMCOMM_IOC_MAGIC 0xC5

/* On /dev/shmemcomm */
#define SHMEMCOMM_IOC_GET_INFO		_IOWR(SHMEMCOMM_IOC_MAGIC, 0x00, struct shmemcomm_info)
#define SHMEMCOMM_IOC_CREATE		_IOWR(SHMEMCOMM_IOC_MAGIC, 0x01, struct shmemcomm_create)
#define SHMEMCOMM_IOC_IMPORT		_IOWR(SHMEMCOMM_IOC_MAGIC, 0x02, struct shmemcomm_import)

/* On a region file */
#define SHMEMCOMM_IOC_REGION_INFO \
	_IOWR(SHMEMCOMM_IOC_MAGIC, 0x10, struct shmemcomm_region_info)
#define SHMEMCOMM_IOC_EXPORT		_IOWR(SHMEMCOMM_IOC_MAGIC, 0x11, struct shmemcomm_export)
#define SHMEMCOMM_IOC_REVOKE		_IOWR(SHMEMCOMM_IOC_MAGIC, 0x12, struct shmemcomm_revoke)
#define SHMEMCOMM_IOC_EXPORT_DMABUF \
	_IOWR(SHMEMCOMM_IOC_MAGIC, 0x13, struct shmemcomm_dmabuf)

#endif /* _UAPI_LINUX_SHMEMCOMM_H */
