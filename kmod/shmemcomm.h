/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals shared by the files of shmemcomm.ko. Nothing here crosses to
 * userspace; the ABI is uapi/linux/shmemcomm.h.
 */
#ifndef SHMEMCOMM_INTERNAL_H
#define SHMEMCOMM_INTERNAL_H

#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/user.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include <linux/shmemcomm.h>
#include <linux/shmemcomm_netlink.h>

#define SHMEMCOMM_CHUNK_ORDER	(21 - PAGE_SHIFT)	/* 2 MiB */
#define SHMEMCOMM_CHUNK_PAGES	BIT(SHMEMCOMM_CHUNK_ORDER)
#define SHMEMCOMM_MAX_REGION_SIZE BIT_ULL(40)	/* 1 TiB */
#define SHMEMCOMM_FEATURES	(SHMEMCOMM_FEATURE_NUMA | \
				 SHMEMCOMM_FEATURE_HUGE_CHUNKS | \
				 SHMEMCOMM_FEATURE_EXPORT | \
				 SHMEMCOMM_FEATURE_DMABUF | \
				 SHMEMCOMM_FEATURE_DEVICE_MEMORY | \
				 SHMEMCOMM_FEATURE_USER_IF_BUILT)

/*
 * User-memory regions watch the owner's range with an mmu notifier and read
 * its page table with HMM; KUnit's UML kernel has neither.
 */
#define SHMEMCOMM_HAVE_USER_MEMORY \
	(IS_ENABLED(CONFIG_MMU_NOTIFIER) && IS_ENABLED(CONFIG_HMM_MIRROR))
#if SHMEMCOMM_HAVE_USER_MEMORY
#define SHMEMCOMM_FEATURE_USER_IF_BUILT SHMEMCOMM_FEATURE_USER_MEMORY
#else
#define SHMEMCOMM_FEATURE_USER_IF_BUILT 0
#endif

struct dma_buf;
struct shmemcomm_user_pin;

/**
 * struct shmemcomm_region - pinned pages, shared by every file that maps them
 * @kref:		held by each region file, each VMA and each dma-buf;
 *			the handle table holds none
 * @lock:		orders revoke against mmap and fault, so that no
 *			importer PTE survives a revoke
 * @inode:		one address_space for all files of the region, so that
 *			revoke zaps every mapping at once
 * @kind:		SHMEMCOMM_KIND_*
 * @user:		for a user-memory region, the pin and its notifier
 *			(user.c); NULL for driver pages
 * @device:		for a dma-buf region, the exporter's buffer and how
 *			its mappings are wrapped (device.c); else NULL
 * @read_only:		pinned for reading (SHMEMCOMM_USER_RDONLY), or a
 *			read-only dma-buf region: only exported read-only
 * @stale:		user memory only: the owner's range no longer has
 *			@pages; set once, never cleared
 * @pages:		@nr_pages independent (split) pages, or the pinned
 *			pages of user memory; NULL for a dma-buf region
 * @nr_pages:		region size in pages
 * @nr_chunks:		how many SHMEMCOMM_CHUNK_PAGES runs are contiguous
 * @numa_node:		node asked for at create, or NUMA_NO_NODE
 * @memlock_user:	the user charged for RLIMIT_MEMLOCK, NULL if none was
 *			(and always for a dma-buf region, which pins no
 *			host page)
 * @owner_uid:		creator's euid, for import checks
 * @owner_gid:		creator's egid, for import checks
 * @handle_node:	in the handle table once exported
 * @handle:		0 until exported; never changes after
 * @export_flags:	SHMEMCOMM_EXPORT_* given at export
 * @revoked:		set under both @lock and the handle table lock
 * @list:		in the list of live regions, in @id order (netlink dumps)
 * @id:			unique since load; ids grow in creation order
 * @owner_pid:		the creating process, shown by introspection only
 * @owner_comm:		its name at create
 * @importers:		importers' region files open now
 * @mappings:		VMAs mapping the region now, in every process
 * @dmabufs_lock:	guards @dmabufs; taken after @lock, before any
 *			dma-buf's reservation lock
 * @dmabufs:		the region's dma-bufs alive (struct shmemcomm_region_dmabuf)
 * @nr_dmabufs:		how many
 * @dmabuf_attachments:	devices attached to them now
 */
struct shmemcomm_region {
	struct kref kref;
	struct mutex lock;	/* see @lock above */
	struct inode *inode;
	u32 kind;
	struct shmemcomm_user_pin *user;
	struct shmemcomm_device *device;
	bool read_only;
	bool stale;
	struct page **pages;
	unsigned long nr_pages;
	unsigned int nr_chunks;
	int numa_node;
	struct user_struct *memlock_user;
	kuid_t owner_uid;
	kgid_t owner_gid;
	struct hlist_node handle_node;
	u64 handle;
	u32 export_flags;
	bool revoked;
	struct list_head list;
	u64 id;
	struct pid *owner_pid;
	char owner_comm[TASK_COMM_LEN];
	atomic_t importers;
	atomic_t mappings;
	struct mutex dmabufs_lock;	/* see @dmabufs_lock above */
	struct list_head dmabufs;
	atomic_t nr_dmabufs;
	atomic_t dmabuf_attachments;
};

/**
 * struct shmemcomm_region_file - private_data of a region file
 * @region:	the region, one reference held
 * @owner:	made by CREATE rather than IMPORT: may export and revoke, and
 *		keeps access after a revoke
 */
struct shmemcomm_region_file {
	struct shmemcomm_region *region;
	bool owner;
};

/*
 * Why @rf may not reach the region's pages, or 0: nobody once user memory
 * went stale (-ESTALE); an importer after the revoke (-EKEYREVOKED); the
 * owner keeps access through a revoke. Read under the region's lock, or
 * under the reservation lock of one of its dma-bufs (revoke sets the flag
 * before it takes those; going stale zaps after it sets the flag).
 */
static inline int shmemcomm_access_error(const struct shmemcomm_region_file *rf)
{
	if (READ_ONCE(rf->region->stale))
		return -ESTALE;
	if (!rf->owner && READ_ONCE(rf->region->revoked))
		return -EKEYREVOKED;
	return 0;
}

static inline bool shmemcomm_may_access(const struct shmemcomm_region_file *rf)
{
	return !shmemcomm_access_error(rf);
}

/* main.c: module-wide limits and counters */
extern atomic_long_t shmemcomm_held_pages;
extern atomic_long_t shmemcomm_pinned_pages;
extern atomic_long_t shmemcomm_device_pages;
extern atomic_long_t shmemcomm_live_regions;
extern atomic64_t shmemcomm_regions_created;
extern atomic64_t shmemcomm_regions_freed;
extern struct workqueue_struct *shmemcomm_wq;
unsigned long shmemcomm_max_pinned_pages(void);
void shmemcomm_fill_info(struct shmemcomm_info *info);
u32 shmemcomm_dev_mode(void);
struct device *shmemcomm_dma_device(void);
u32 shmemcomm_dev_gid(void);
u64 shmemcomm_refusals(enum shmemcomm_refusal reason);
void shmemcomm_count_refusal(enum shmemcomm_refusal reason);

/* Counts a refusal and returns @err, so that error paths stay one line. */
static inline int shmemcomm_refuse(enum shmemcomm_refusal reason, int err)
{
	shmemcomm_count_refusal(reason);
	return err;
}

/* The refusal of an access that shmemcomm_access_error() gave @err for */
static inline int shmemcomm_refuse_access(int err)
{
	return shmemcomm_refuse(err == -ESTALE ? SHMEMCOMM_REFUSAL_STALE :
				SHMEMCOMM_REFUSAL_REVOKED, err);
}

struct vfsmount *shmemcomm_mount(void);
#if IS_ENABLED(CONFIG_SHMEMCOMM_KUNIT_TEST)
unsigned long shmemcomm_test_set_max_pinned_mb(unsigned long mb);
unsigned int shmemcomm_test_set_chunk_budget(unsigned int chunks);
#endif

/* region.c */
bool shmemcomm_charge(atomic_long_t *counter, unsigned long pages,
		      unsigned long limit);
int shmemcomm_validate_create(const struct shmemcomm_create *args);
int shmemcomm_validate_create_user(const struct shmemcomm_create_user *args);
struct shmemcomm_region *shmemcomm_region_create(u64 size, int numa_node);
struct shmemcomm_region *shmemcomm_region_alloc(unsigned long nr_pages,
						int numa_node, u32 kind);
void shmemcomm_region_unalloc(struct shmemcomm_region *region);
int shmemcomm_region_publish(struct shmemcomm_region *region);
void shmemcomm_region_put(struct shmemcomm_region *region);
struct file *shmemcomm_region_file_open(struct shmemcomm_region *region,
					bool owner, bool writable);
bool shmemcomm_is_region_file(const struct file *file);
long shmemcomm_ioctl_create(void __user *uarg);
bool shmemcomm_reserved_zero(const void *reserved, size_t len);
struct shmemcomm_region *shmemcomm_region_next(u64 first_id);
u32 shmemcomm_region_export_state(struct shmemcomm_region *region,
				  u64 *handle, u32 *export_flags);

/* export.c */
int shmemcomm_validate_export(const struct shmemcomm_export *args);
int shmemcomm_validate_import(const struct shmemcomm_import *args);
int shmemcomm_import_access(u32 export_flags, u32 import_flags,
			    bool same_uid, bool in_group);
int shmemcomm_handle_publish(struct shmemcomm_region *region, u32 flags);
struct shmemcomm_region *shmemcomm_handle_get(u64 handle);
void shmemcomm_handle_unpublish(struct shmemcomm_region *region);
int shmemcomm_region_revoke(struct shmemcomm_region_file *rf);
long shmemcomm_ioctl_export(struct shmemcomm_region_file *rf, void __user *uarg);
long shmemcomm_ioctl_import(void __user *uarg);
long shmemcomm_ioctl_revoke(struct shmemcomm_region_file *rf, void __user *uarg);

/* mmap.c */
int shmemcomm_region_mmap(struct file *file, struct vm_area_struct *vma);

/* netlink.c; KUnit's UML kernel has no networking, and no family */
#if IS_ENABLED(CONFIG_NET)
int shmemcomm_netlink_init(void);
void shmemcomm_netlink_exit(void);
#else
static inline int shmemcomm_netlink_init(void)
{
	return 0;
}

static inline void shmemcomm_netlink_exit(void)
{
}
#endif

/* dmabuf.c */
long shmemcomm_ioctl_export_dmabuf(struct file *file, void __user *uarg);
void shmemcomm_dmabuf_revoke(struct shmemcomm_region *region);
struct shmemcomm_region *shmemcomm_dmabuf_region(const struct dma_buf *dmabuf);

/* device.c: regions over another exporter's dma-buf */
int shmemcomm_validate_create_dmabuf(const struct shmemcomm_create_dmabuf *args);
int shmemcomm_validate_dmabuf_size(size_t size);
long shmemcomm_ioctl_create_dmabuf(void __user *uarg);
void shmemcomm_device_release(struct shmemcomm_region *region);
int shmemcomm_device_mmap(struct file *file, struct vm_area_struct *vma);
struct dma_buf *shmemcomm_device_dmabuf(const struct shmemcomm_region *region);
const char *shmemcomm_device_exporter(const struct shmemcomm_region *region);

/* user.c */
#if SHMEMCOMM_HAVE_USER_MEMORY
long shmemcomm_ioctl_create_user(void __user *uarg);
void shmemcomm_user_release(struct shmemcomm_region *region);
unsigned long shmemcomm_user_start(const struct shmemcomm_region *region);
u64 shmemcomm_user_kept_events(const struct shmemcomm_region *region);
/*
 * Waits for a check of the owner's pages in flight, so that the stale flag
 * read next has the verdict on every event that has ended. Process
 * context, holding no mmap lock: the check takes the owner's.
 */
void shmemcomm_user_settle(struct shmemcomm_region *region);
#else
static inline long shmemcomm_ioctl_create_user(void __user *uarg)
{
	return -ENOTTY;
}

static inline void shmemcomm_user_release(struct shmemcomm_region *region)
{
}

static inline unsigned long
shmemcomm_user_start(const struct shmemcomm_region *region)
{
	return 0;
}

static inline u64
shmemcomm_user_kept_events(const struct shmemcomm_region *region)
{
	return 0;
}

static inline void shmemcomm_user_settle(struct shmemcomm_region *region)
{
}
#endif

/*
 * Gives @file to userspace as a close-on-exec fd, after writing the result
 * through @uarg so that a failed copy leaves no fd behind. Consumes @file.
 */
int shmemcomm_install_fd(struct file *file, void __user *uarg,
			 void *args, size_t args_size, __s32 *fd_field);

#endif /* SHMEMCOMM_INTERNAL_H */
