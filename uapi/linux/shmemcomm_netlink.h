/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * shmemcomm: the generic netlink family, for introspection (shmemctl).
 *
 * Family SHMEMCOMM_GENL_NAME, version SHMEMCOMM_GENL_VERSION. Every command
 * is read-only and open to any user; what a user sees of the regions is
 * limited (below). Requests are validated strictly: an attribute a command
 * does not take, or one the family does not know, gets EINVAL with an
 * extended ack naming it.
 *
 * SHMEMCOMM_CMD_GET_INFO (doit): the ABI and the features:
 *	ABI_MAJOR, ABI_MINOR, FEATURES, MAX_REGION_SIZE, PAGE_SIZE, CHUNK_SIZE,
 *	DEV_MODE, DEV_GID. Takes no attribute.
 * SHMEMCOMM_CMD_GET_STATS (doit): module-wide counters:
 *	PINNED, DEVICE, MAX_PINNED, LIVE_REGIONS, REGIONS_CREATED, REGIONS_FREED and
 *	REFUSALS (nested: one u64 per SHMEMCOMM_REFUSAL_* type, every type
 *	present; type 0 inside it is padding). Takes no attribute.
 * SHMEMCOMM_CMD_GET_REGION (dump only): one message per live region, in
 *	creation order, with the REGION_* attributes. Optional request
 *	attribute REGION_OWNER_PID: only that process's regions. A user
 *	without CAP_SYS_ADMIN sees only the regions whose owner uid is its
 *	own euid (the credentials of the socket's opener).
 *
 * Pids are in the reader's pid namespace (0 when the owner is not visible
 * there, or has exited while the region lives on); uids and gids in the
 * reader's user namespace.
 */
#ifndef _UAPI_LINUX_SHMEMCOMM_NETLINK_H
#define _UAPI_LINUX_SHMEMCOMM_NETLINK_H

#define SHMEMCOMM_GENL_NAME	"shmemcomm"
#define SHMEMCOMM_GENL_VERSION	1

enum shmemcomm_cmd {
	SHMEMCOMM_CMD_UNSPEC,
	SHMEMCOMM_CMD_GET_INFO,
	SHMEMCOMM_CMD_GET_STATS,
	SHMEMCOMM_CMD_GET_REGION,

	__SHMEMCOMM_CMD_MAX,
	SHMEMCOMM_CMD_MAX = __SHMEMCOMM_CMD_MAX - 1
};

/* Each reply attribute has one type; sizes and counters in bytes unless named. */
enum shmemcomm_attr {
	SHMEMCOMM_ATTR_UNSPEC,
	SHMEMCOMM_ATTR_PAD,

	/* GET_INFO */
	SHMEMCOMM_ATTR_ABI_MAJOR,		/* u32 */
	SHMEMCOMM_ATTR_ABI_MINOR,		/* u32 */
	SHMEMCOMM_ATTR_FEATURES,		/* u64: SHMEMCOMM_FEATURE_* */
	SHMEMCOMM_ATTR_MAX_REGION_SIZE,		/* u64 */
	SHMEMCOMM_ATTR_PAGE_SIZE,		/* u32 */
	SHMEMCOMM_ATTR_CHUNK_SIZE,		/* u32 */
	SHMEMCOMM_ATTR_DEV_MODE,		/* u32: module parameter dev_mode */
	SHMEMCOMM_ATTR_DEV_GID,			/* u32: module parameter dev_gid */

	/* GET_STATS */
	SHMEMCOMM_ATTR_PINNED,			/* u64: pinned by all regions */
	SHMEMCOMM_ATTR_MAX_PINNED,		/* u64: the cap, max_pinned_mb */
	SHMEMCOMM_ATTR_LIVE_REGIONS,		/* u64 */
	SHMEMCOMM_ATTR_REGIONS_CREATED,		/* u64: since load */
	SHMEMCOMM_ATTR_REGIONS_FREED,		/* u64: since load */
	SHMEMCOMM_ATTR_REFUSALS,		/* nest: SHMEMCOMM_REFUSAL_* -> u64 */

	/* GET_REGION */
	SHMEMCOMM_ATTR_REGION_ID,		/* u64: unique since load, never 0 */
	SHMEMCOMM_ATTR_REGION_HANDLE,		/* u64: 0 until exported */
	SHMEMCOMM_ATTR_REGION_SIZE,		/* u64 */
	SHMEMCOMM_ATTR_REGION_PINNED,		/* u64: host memory charged; 0 for device memory */
	SHMEMCOMM_ATTR_REGION_OWNER_PID,	/* u32: creating process (tgid) */
	SHMEMCOMM_ATTR_REGION_OWNER_UID,	/* u32: creator's euid */
	SHMEMCOMM_ATTR_REGION_OWNER_GID,	/* u32: creator's egid */
	SHMEMCOMM_ATTR_REGION_OWNER_COMM,	/* string: creator's name at create */
	SHMEMCOMM_ATTR_REGION_EXPORT_FLAGS,	/* u32: SHMEMCOMM_EXPORT_*, if exported */
	SHMEMCOMM_ATTR_REGION_STATE,		/* u32: SHMEMCOMM_STATE_* but OWNER, WRITABLE */
	SHMEMCOMM_ATTR_REGION_IMPORTERS,	/* u32: importers' region files open */
	SHMEMCOMM_ATTR_REGION_MAPPINGS,		/* u32: live mappings (VMAs), all processes */
	SHMEMCOMM_ATTR_REGION_NUMA_NODE,	/* s32: as asked at create, -1 any */
	SHMEMCOMM_ATTR_REGION_CHUNKS,		/* u32: contiguous chunks */
	SHMEMCOMM_ATTR_REGION_DMABUFS,		/* u32: its dma-bufs alive */
	SHMEMCOMM_ATTR_REGION_DMABUF_ATTACHMENTS, /* u32: devices attached to them */
	SHMEMCOMM_ATTR_REGION_KIND,		/* u32: SHMEMCOMM_KIND_* */
	/* u64, user memory only: changes to the owner's range that kept its pages */
	SHMEMCOMM_ATTR_REGION_KEPT_EVENTS,
	/* string, dma-buf regions only: the exporter's name (vgem, amdgpu, ...) */
	SHMEMCOMM_ATTR_REGION_EXPORTER,
	/* GET_STATS (ABI minor 2): device memory that dma-buf regions cover */
	SHMEMCOMM_ATTR_DEVICE,			/* u64: charged to the cap with PINNED */

	__SHMEMCOMM_ATTR_MAX,
	SHMEMCOMM_ATTR_MAX = __SHMEMCOMM_ATTR_MAX - 1
};

/* Why the module refused a request; the attribute types inside REFUSALS. */
enum shmemcomm_refusal {
	SHMEMCOMM_REFUSAL_UNSPEC,
	SHMEMCOMM_REFUSAL_INVALID,	/* a bad ioctl or mmap argument (EINVAL) */
	SHMEMCOMM_REFUSAL_MEMLOCK,	/* over the caller's RLIMIT_MEMLOCK */
	SHMEMCOMM_REFUSAL_PINNED_CAP,	/* over max_pinned_mb */
	SHMEMCOMM_REFUSAL_NO_MEMORY,	/* the page allocator had no pages */
	SHMEMCOMM_REFUSAL_NO_HANDLE,	/* import of a handle that is not exported */
	SHMEMCOMM_REFUSAL_REVOKED,	/* import, mmap, dma-buf or its map after a revoke */
	SHMEMCOMM_REFUSAL_ACCESS,	/* outside the export's scope, or write to read-only */
	SHMEMCOMM_REFUSAL_NOT_OWNER,	/* export or revoke through an importer's file */
	SHMEMCOMM_REFUSAL_EXPORTED,	/* a second export of a region */
	SHMEMCOMM_REFUSAL_STALE,	/* import, mmap, dma-buf or its map of a stale region */
	SHMEMCOMM_REFUSAL_UNPINNABLE,	/* CREATE_USER over memory that cannot back a region */
	/* CREATE_DMABUF of a fd that is not an open dma-buf, or is this module's */
	SHMEMCOMM_REFUSAL_NOT_DMABUF,
	SHMEMCOMM_REFUSAL_ATTACH,	/* CREATE_DMABUF: the exporter refused an attachment */
	SHMEMCOMM_REFUSAL_UNMAPPABLE,	/* mmap of device memory the exporter cannot map */

	__SHMEMCOMM_REFUSAL_MAX,
	SHMEMCOMM_REFUSAL_MAX = __SHMEMCOMM_REFUSAL_MAX - 1
};

#endif /* _UAPI_LINUX_SHMEMCOMM_NETLINK_H */
