/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * shmemcomm: pinned memory regions shared across processes and with RDMA NICs.
 *
 * The one ABI shared by shmemcomm.ko and libshmemcomm.
 *
 * Two kinds of file carry ioctls:
 *  - the device, /dev/shmemcomm: GET_INFO, CREATE, CREATE_USER, CREATE_DMABUF,
 *    IMPORT;
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
#define SHMEMCOMM_ABI_MINOR 2

/* struct shmemcomm_info.features */
#define SHMEMCOMM_FEATURE_NUMA		0x1ULL /* create on a chosen node */
#define SHMEMCOMM_FEATURE_HUGE_CHUNKS	0x2ULL /* 2 MiB contiguous chunks */
#define SHMEMCOMM_FEATURE_EXPORT	0x4ULL /* export, import, revoke */
#define SHMEMCOMM_FEATURE_DMABUF	0x8ULL /* EXPORT_DMABUF */
#define SHMEMCOMM_FEATURE_USER_MEMORY	0x10ULL /* CREATE_USER (ABI minor 1) */
#define SHMEMCOMM_FEATURE_DEVICE_MEMORY	0x20ULL /* CREATE_DMABUF (ABI minor 2) */

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
 * @device:		out: bytes of device memory that dma-buf regions
 *			cover now (ABI minor 2; reserved before)
 * @reserved:		must be zero
 *
 * @max_pinned bounds @pinned and @device together.
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
	__u64 device;
	__u64 reserved[3];
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

/* struct shmemcomm_create_user.flags */
#define SHMEMCOMM_USER_RDONLY		0x1U /* pin for reading: every file is read-only */
#define SHMEMCOMM_USER_FLAGS		SHMEMCOMM_USER_RDONLY

/**
 * struct shmemcomm_create_user - SHMEMCOMM_IOC_CREATE_USER: a region over the
 *	caller's own memory
 * @addr:	in: the first byte; need not be page aligned
 * @size:	in: bytes (> 0); the region covers every page that
 *		[@addr, @addr + @size) touches, at most max_region_size
 * @stale_word:	in: 0, or the address of an aligned __u32 in the caller's
 *		memory that the module sets to 1 as soon as an event may have
 *		changed the pages (below), before it knows whether the region
 *		goes stale, so that a registration cache learns with a load
 *		instead of a system call not to serve this region again; its
 *		page stays pinned while the region lives
 * @flags:	in: SHMEMCOMM_USER_* bits
 * @fd:		out: the owner's region file, close-on-exec; read-only with
 *		SHMEMCOMM_USER_RDONLY
 * @start:	out: the first page's address, @addr rounded down
 * @length:	out: bytes covered, a multiple of page_size; the region's
 *		offset 0 is @start, so @addr is at offset @addr - @start
 * @reserved:	must be zero
 *
 * The pages that back the range now (anonymous memory, the program's data
 * and bss, private or shared file mappings) are pinned long-term, as
 * ibv_reg_mr pins them: copy-on-write is broken first, so the owner keeps
 * these very pages. They are charged like CREATE's pages.
 *
 * The region is these pages, not the addresses: it never follows new pages.
 * When the owner's range stops being backed by them (munmap, mremap,
 * MADV_DONTNEED, MADV_REMOVE, the owner's exit, a write to a read-only
 * pinned page of a private file mapping), the region goes stale, for good:
 * the stale word is set, every mapping of the region (the owner's too) is
 * zapped and its next access gets SIGBUS, IMPORT, mmap, EXPORT_DMABUF and
 * map_dma_buf fail with ESTALE, and dynamic dma-buf importers get
 * move_notify. mprotect, NUMA hinting, fork's write protection, page
 * cleaning and a failed migration do not change the pages and make nothing
 * stale. Other events (a huge page's split, khugepaged's collapse,
 * MADV_FREE) are checked after they end against the owner's page table,
 * and make the region stale only if a page left; the stale word is set at
 * once. REGION_INFO, IMPORT and EXPORT_DMABUF wait for a check in flight.
 * After fork the child has its own copies of pinned anonymous pages; the
 * region stays the parent's.
 *
 * An importer's mapping of a user-memory region is a PFN map: the kernel
 * does not let a driver map another process's anonymous pages as ordinary
 * pages, so get_user_pages (and ibv_reg_mr) on it fail with EFAULT. A NIC
 * reaches the region through the owner's own buffer, or an importer's
 * EXPORT_DMABUF and ibv_reg_dmabuf_mr.
 *
 * Errors: EINVAL bad argument; EFAULT part of the range is not mapped;
 * EOPNOTSUPP the range has memory that cannot be pinned (VM_IO or VM_PFNMAP,
 * such as another region's PFN map, or DAX); EACCES a writable region over
 * read-only memory; ENOMEM and EPERM as for CREATE; EAGAIN the range kept
 * changing while it was pinned. The reason is logged.
 */
struct shmemcomm_create_user {
	__u64 addr;
	__u64 size;
	__u64 stale_word;
	__u32 flags;
	__s32 fd;
	__u64 start;
	__u64 length;
	__u64 reserved[2];
};

/* struct shmemcomm_create_dmabuf.flags */
#define SHMEMCOMM_DMABUF_RDONLY		0x1U /* every file of the region is read-only */
#define SHMEMCOMM_DMABUF_FLAGS		SHMEMCOMM_DMABUF_RDONLY

/* struct shmemcomm_create_dmabuf.mappable */
#define SHMEMCOMM_DMABUF_CPU_MAPPABLE	0x1U /* the exporter maps it for the CPU */

/**
 * struct shmemcomm_create_dmabuf - SHMEMCOMM_IOC_CREATE_DMABUF: a region over
 *	a dma-buf, device memory from any exporter (a GPU driver through
 *	PRIME, a vendor runtime, a dma-buf heap)
 * @dmabuf_fd:	in: the dma-buf; the region holds its own reference, so
 *		the caller may close it
 * @flags:	in: SHMEMCOMM_DMABUF_* bits
 * @fd:		out: the owner's region file, close-on-exec; read-only with
 *		SHMEMCOMM_DMABUF_RDONLY
 * @mappable:	out: SHMEMCOMM_DMABUF_CPU_MAPPABLE if the exporter can map
 *		the buffer for the CPU; without it, mmap of the region fails
 *		with ENODEV and the region serves NICs only (EXPORT_DMABUF)
 * @size:	out: the region's size, the dma-buf's
 * @reserved:	must be zero
 *
 * No host page is pinned: the region keeps the exporter's buffer alive and
 * is charged, as device bytes, to the module-wide cap (max_pinned_mb), not
 * to RLIMIT_MEMLOCK. A mapping of the region is the exporter's own CPU
 * mapping (dma_buf_mmap) behind the module's checks: a revoke zaps
 * importers' mappings and their next access gets SIGBUS. EXPORT_DMABUF
 * gives a dma-buf that hands the exporter's memory to a device (a NIC's
 * ibv_reg_dmabuf_mr) with this region's access and revoke; it shares the
 * exporter's reservation object, so its fences are the exporter's.
 *
 * Errors: EINVAL bad flags or reserved; EBADF @dmabuf_fd is not an open fd,
 * not a dma-buf, or a dma-buf of this module's (EXPORT_DMABUF: share that
 * region by handle instead); ENODEV the exporter refuses to attach a device;
 * EINVAL also: the dma-buf's size is not a multiple of page_size, or is
 * over max_region_size; EACCES a writable region over a read-only dma-buf;
 * EPERM over the module-wide cap. The reason is logged.
 */
struct shmemcomm_create_dmabuf {
	__s32 dmabuf_fd;
	__u32 flags;
	__s32 fd;
	__u32 mappable;
	__u64 size;
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
 * file may export (EPERM). A user-memory region pinned read-only is
 * exported with SHMEMCOMM_EXPORT_RDONLY only (EACCES).
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
 * Errors: ENOENT no such handle, EKEYREVOKED the owner revoked it, ESTALE
 * a user-memory region that went stale,
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
#define SHMEMCOMM_STATE_STALE		0x10U /* user memory the owner no longer has */

/* struct shmemcomm_region_info.kind */
#define SHMEMCOMM_KIND_PAGES		0U /* the module's own pages (CREATE) */
#define SHMEMCOMM_KIND_USER		1U /* a process's memory (CREATE_USER) */
#define SHMEMCOMM_KIND_DMABUF		2U /* a dma-buf's device memory (CREATE_DMABUF) */

/**
 * struct shmemcomm_region_info - SHMEMCOMM_IOC_REGION_INFO, on a region file
 * @size:		out: bytes
 * @handle:		out: the handle if exported, else 0
 * @export_flags:	out: the flags given to EXPORT
 * @state:		out: SHMEMCOMM_STATE_* bits, as seen through this file
 * @numa_node:		out: the node asked for at CREATE
 * @nr_chunks:		out: as in struct shmemcomm_create
 * @kind:		out: SHMEMCOMM_KIND_* (0 from a module of ABI minor 0)
 * @pad:		must be zero
 * @user_start:		out: for the owner of a user-memory region, its start
 *			address; else 0
 *
 * @kind, @pad and @user_start were reserved in ABI minor 0: zero on input.
 */
struct shmemcomm_region_info {
	__u64 size;
	__u64 handle;
	__u32 export_flags;
	__u32 state;
	__s32 numa_node;
	__u32 nr_chunks;
	__u32 kind;
	__u32 pad;
	__u64 user_start;
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
#define SHMEMCOMM_IOC_CREATE_USER \
	_IOWR(SHMEMCOMM_IOC_MAGIC, 0x03, struct shmemcomm_create_user)
#define SHMEMCOMM_IOC_CREATE_DMABUF \
	_IOWR(SHMEMCOMM_IOC_MAGIC, 0x04, struct shmemcomm_create_dmabuf)

/* On a region file */
#define SHMEMCOMM_IOC_REGION_INFO \
	_IOWR(SHMEMCOMM_IOC_MAGIC, 0x10, struct shmemcomm_region_info)
#define SHMEMCOMM_IOC_EXPORT		_IOWR(SHMEMCOMM_IOC_MAGIC, 0x11, struct shmemcomm_export)
#define SHMEMCOMM_IOC_REVOKE		_IOWR(SHMEMCOMM_IOC_MAGIC, 0x12, struct shmemcomm_revoke)
#define SHMEMCOMM_IOC_EXPORT_DMABUF \
	_IOWR(SHMEMCOMM_IOC_MAGIC, 0x13, struct shmemcomm_dmabuf)

#endif /* _UAPI_LINUX_SHMEMCOMM_H */
