// SPDX-License-Identifier: GPL-2.0
/*
 * Regions: pages, pinning accounting, the kref'd lifecycle, region files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/nodemask.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "shmemcomm.h"

/* Every live region, oldest first; for introspection only */
static DEFINE_MUTEX(shmemcomm_regions_lock);
static LIST_HEAD(shmemcomm_regions);

/*
 * Adds @pages to @counter unless that would take it past @limit. A
 * compare-and-swap rather than add-then-undo, so that a refused caller never
 * makes a concurrent one fail.
 */
bool shmemcomm_charge(atomic_long_t *counter, unsigned long pages,
		      unsigned long limit)
{
	long cur = atomic_long_read(counter);

	do {
		if (pages > limit || (unsigned long)cur > limit - pages)
			return false;
	} while (!atomic_long_try_cmpxchg(counter, &cur, cur + pages));
	return true;
}

int shmemcomm_validate_create(const struct shmemcomm_create *args)
{
	if (args->flags) {
		pr_warn_ratelimited("create: flags %#x: none are defined\n",
				    args->flags);
		return -EINVAL;
	}
	if (!shmemcomm_reserved_zero(args->reserved, sizeof(args->reserved)))
		return -EINVAL;
	if (!args->size || args->size > SHMEMCOMM_MAX_REGION_SIZE) {
		pr_warn_ratelimited("create: size %llu is outside 1..%llu bytes\n",
				    args->size, SHMEMCOMM_MAX_REGION_SIZE);
		return -EINVAL;
	}
	if (args->numa_node != SHMEMCOMM_NUMA_ANY &&
	    (args->numa_node < 0 || args->numa_node >= MAX_NUMNODES ||
	     !node_online(args->numa_node))) {
		pr_warn_ratelimited("create: NUMA node %d is not online (nodes: %*pbl)\n",
				    args->numa_node,
				    nodemask_pr_args(&node_states[N_ONLINE]));
		return -EINVAL;
	}
	return 0;
}

/*
 * CREATE_USER's arguments, before anything is looked up or allocated: here
 * beside CREATE's, so that KUnit (whose kernel has no mmu notifiers, and no
 * user.c) checks both.
 */
int shmemcomm_validate_create_user(const struct shmemcomm_create_user *args)
{
	u64 end;

	if (args->flags & ~SHMEMCOMM_USER_FLAGS) {
		pr_warn_ratelimited("create_user: flags %#x: known flags are %#x\n",
				    args->flags, SHMEMCOMM_USER_FLAGS);
		return -EINVAL;
	}
	if (!shmemcomm_reserved_zero(args->reserved, sizeof(args->reserved)))
		return -EINVAL;
	if (!args->size || args->size > SHMEMCOMM_MAX_REGION_SIZE ||
	    check_add_overflow(args->addr, args->size, &end) ||
	    end > TASK_SIZE - PAGE_SIZE) {
		pr_warn_ratelimited("create_user: range %#llx + %llu bytes is not a user range of 1..%llu bytes\n",
				    args->addr, args->size,
				    SHMEMCOMM_MAX_REGION_SIZE);
		return -EINVAL;
	}
	if (PAGE_ALIGN(end) - (args->addr & PAGE_MASK) >
	    SHMEMCOMM_MAX_REGION_SIZE) {
		pr_warn_ratelimited("create_user: %llu bytes at %#llx cover more than %llu bytes of pages\n",
				    args->size, args->addr,
				    SHMEMCOMM_MAX_REGION_SIZE);
		return -EINVAL;
	}
	if (args->stale_word &&
	    (!IS_ALIGNED(args->stale_word, sizeof(u32)) ||
	     args->stale_word > TASK_SIZE - sizeof(u32))) {
		pr_warn_ratelimited("create_user: stale word %#llx is not an aligned user address\n",
				    args->stale_word);
		return -EINVAL;
	}
	return 0;
}

#if IS_ENABLED(CONFIG_SHMEMCOMM_KUNIT_TEST)
/* KUnit's stand-in for a fragmented allocator: chunks left before a miss */
static unsigned int shmemcomm_chunk_budget = UINT_MAX;

unsigned int shmemcomm_test_set_chunk_budget(unsigned int chunks)
{
	unsigned int old = shmemcomm_chunk_budget;

	shmemcomm_chunk_budget = chunks;
	return old;
}

static bool shmemcomm_chunk_available(void)
{
	if (!shmemcomm_chunk_budget)
		return false;
	if (shmemcomm_chunk_budget != UINT_MAX)
		shmemcomm_chunk_budget--;
	return true;
}
#else
static bool shmemcomm_chunk_available(void)
{
	return true;
}
#endif

/*
 * Pages come in 2 MiB runs while the allocator has them, so that a NIC needs
 * fewer translation entries; after the first miss the rest are single pages,
 * rather than asking for compaction again for every chunk. Each run is split
 * so every page has its own refcount: mappings and RDMA pins take references
 * on single pages.
 */
static int shmemcomm_alloc_pages(struct shmemcomm_region *region)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ZERO | __GFP_ACCOUNT;
	int nid = region->numa_node;
	bool chunks = true;
	unsigned long i = 0;
	struct page *page;
	unsigned long j;

	if (nid != NUMA_NO_NODE)
		gfp |= __GFP_THISNODE;

	while (i < region->nr_pages) {
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		if (chunks && region->nr_pages - i >= SHMEMCOMM_CHUNK_PAGES) {
			page = NULL;
			if (shmemcomm_chunk_available())
				page = alloc_pages_node(nid, gfp | __GFP_NORETRY |
							__GFP_NOWARN,
							SHMEMCOMM_CHUNK_ORDER);
			if (page) {
				split_page(page, SHMEMCOMM_CHUNK_ORDER);
				for (j = 0; j < SHMEMCOMM_CHUNK_PAGES; j++)
					region->pages[i++] = page + j;
				region->nr_chunks++;
				continue;
			}
			chunks = false;
		}
		page = alloc_pages_node(nid, gfp | __GFP_NOWARN, 0);
		if (!page)
			return -ENOMEM;
		region->pages[i++] = page;
	}
	return 0;
}

static void shmemcomm_free_pages(struct shmemcomm_region *region)
{
	unsigned long i;

	/* put, not free: an RDMA pin may still hold a page */
	for (i = 0; i < region->nr_pages && region->pages[i]; i++)
		put_page(region->pages[i]);
}

/* The module-wide figure of @region's kind: device memory, or host pages pinned */
static atomic_long_t *shmemcomm_kind_pages(const struct shmemcomm_region *region)
{
	return region->kind == SHMEMCOMM_KIND_DMABUF ? &shmemcomm_device_pages :
	       &shmemcomm_pinned_pages;
}

/*
 * The cap bounds host pages pinned and device memory held together: both
 * are what the module keeps alive. RLIMIT_MEMLOCK is a process's limit on
 * host pages it locks, so a dma-buf region, which pins none, is not
 * charged to it.
 */
static int shmemcomm_charge_region(struct shmemcomm_region *region)
{
	unsigned long pages = region->nr_pages;
	unsigned long cap = shmemcomm_max_pinned_pages();
	struct user_struct *user;
	unsigned long memlock;

	if (!shmemcomm_charge(&shmemcomm_held_pages, pages, cap)) {
		pr_warn_ratelimited("create: %lu pages refused by the module cap: %ld pinned and %ld of device memory of %lu pages (raise max_pinned_mb)\n",
				    pages, atomic_long_read(&shmemcomm_pinned_pages),
				    atomic_long_read(&shmemcomm_device_pages), cap);
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_PINNED_CAP, -EPERM);
	}
	atomic_long_add(pages, shmemcomm_kind_pages(region));
	if (region->kind == SHMEMCOMM_KIND_DMABUF || capable(CAP_IPC_LOCK))
		return 0;

	user = get_current_user();
	memlock = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	if (!shmemcomm_charge(&user->locked_vm, pages, memlock)) {
		pr_warn_ratelimited("create: %lu pages refused by RLIMIT_MEMLOCK of uid %u: %ld of %lu pages locked (raise ulimit -l or grant CAP_IPC_LOCK)\n",
				    pages, from_kuid(&init_user_ns, current_uid()),
				    atomic_long_read(&user->locked_vm), memlock);
		free_uid(user);
		atomic_long_sub(pages, &shmemcomm_pinned_pages);
		atomic_long_sub(pages, &shmemcomm_held_pages);
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_MEMLOCK, -ENOMEM);
	}
	region->memlock_user = user;
	return 0;
}

static void shmemcomm_uncharge_region(struct shmemcomm_region *region)
{
	if (region->memlock_user) {
		atomic_long_sub(region->nr_pages, &region->memlock_user->locked_vm);
		free_uid(region->memlock_user);
	}
	atomic_long_sub(region->nr_pages, shmemcomm_kind_pages(region));
	atomic_long_sub(region->nr_pages, &shmemcomm_held_pages);
}

static void shmemcomm_region_list_add(struct shmemcomm_region *region)
{
	mutex_lock(&shmemcomm_regions_lock);
	/* under the lock, so that the list stays in id order */
	region->id = atomic64_inc_return(&shmemcomm_regions_created);
	list_add_tail(&region->list, &shmemcomm_regions);
	mutex_unlock(&shmemcomm_regions_lock);
}

static void shmemcomm_region_list_del(struct shmemcomm_region *region)
{
	mutex_lock(&shmemcomm_regions_lock);
	list_del(&region->list);
	mutex_unlock(&shmemcomm_regions_lock);
	atomic64_inc(&shmemcomm_regions_freed);
}

/*
 * The live region with the lowest id at least @first_id, with a reference
 * for the caller; NULL if there is none. Regions on their way out are
 * skipped.
 */
struct shmemcomm_region *shmemcomm_region_next(u64 first_id)
{
	struct shmemcomm_region *region;

	mutex_lock(&shmemcomm_regions_lock);
	list_for_each_entry(region, &shmemcomm_regions, list) {
		if (region->id >= first_id && kref_get_unless_zero(&region->kref)) {
			mutex_unlock(&shmemcomm_regions_lock);
			return region;
		}
	}
	mutex_unlock(&shmemcomm_regions_lock);
	return NULL;
}

/*
 * A region of @nr_pages (validated), charged, with an empty page array (none
 * for a dma-buf region); not yet visible anywhere. Undone by shmemcomm_region_unalloc() until
 * shmemcomm_region_publish() succeeds.
 */
struct shmemcomm_region *shmemcomm_region_alloc(unsigned long nr_pages,
						int numa_node, u32 kind)
{
	struct shmemcomm_region *region;
	int err;

	region = kzalloc(sizeof(*region), GFP_KERNEL);
	if (!region)
		return ERR_PTR(-ENOMEM);
	kref_init(&region->kref);
	mutex_init(&region->lock);
	region->kind = kind;
	region->nr_pages = nr_pages;
	region->numa_node = numa_node;
	region->owner_uid = current_euid();
	region->owner_gid = current_egid();
	atomic_set(&region->importers, 0);
	atomic_set(&region->mappings, 0);
	mutex_init(&region->dmabufs_lock);
	INIT_LIST_HEAD(&region->dmabufs);
	atomic_set(&region->nr_dmabufs, 0);
	atomic_set(&region->dmabuf_attachments, 0);

	err = shmemcomm_charge_region(region);
	if (err)
		goto err_free_region;
	if (kind == SHMEMCOMM_KIND_DMABUF)
		return region;

	region->pages = kvcalloc(region->nr_pages, sizeof(*region->pages),
				 GFP_KERNEL_ACCOUNT);
	if (!region->pages) {
		err = shmemcomm_refuse(SHMEMCOMM_REFUSAL_NO_MEMORY, -ENOMEM);
		goto err_uncharge;
	}
	return region;

err_uncharge:
	shmemcomm_uncharge_region(region);
err_free_region:
	kfree(region);
	return ERR_PTR(err);
}

/* The pages themselves are the caller's to give back first. */
void shmemcomm_region_unalloc(struct shmemcomm_region *region)
{
	kvfree(region->pages);
	shmemcomm_uncharge_region(region);
	kfree(region);
}

/* Gives the region its inode and owner, and lists it. */
int shmemcomm_region_publish(struct shmemcomm_region *region)
{
	region->inode = alloc_anon_inode(shmemcomm_mount()->mnt_sb);
	if (IS_ERR(region->inode))
		return PTR_ERR(region->inode);
	region->inode->i_size = (loff_t)region->nr_pages << PAGE_SHIFT;

	region->owner_pid = get_task_pid(current, PIDTYPE_TGID);
	get_task_comm(region->owner_comm, current);
	atomic_long_inc(&shmemcomm_live_regions);
	shmemcomm_region_list_add(region);
	return 0;
}

/* @size is validated and page aligned */
struct shmemcomm_region *shmemcomm_region_create(u64 size, int numa_node)
{
	struct shmemcomm_region *region;
	int err;

	region = shmemcomm_region_alloc(size >> PAGE_SHIFT, numa_node,
					SHMEMCOMM_KIND_PAGES);
	if (IS_ERR(region))
		return region;

	err = shmemcomm_alloc_pages(region);
	if (err) {
		if (err == -ENOMEM) {
			shmemcomm_count_refusal(SHMEMCOMM_REFUSAL_NO_MEMORY);
			pr_warn_ratelimited("create: out of memory after %u chunks for %lu pages on node %d\n",
					    region->nr_chunks, region->nr_pages,
					    numa_node);
		}
		goto err_free_pages;
	}
	err = shmemcomm_region_publish(region);
	if (err)
		goto err_free_pages;
	return region;

err_free_pages:
	shmemcomm_free_pages(region);
	shmemcomm_region_unalloc(region);
	return ERR_PTR(err);
}

static void shmemcomm_region_release(struct kref *kref)
{
	struct shmemcomm_region *region =
		container_of(kref, struct shmemcomm_region, kref);

	/*
	 * First: the owner's mm may still be invalidating, and its notifier
	 * zaps through the inode; removing the notifier waits for it.
	 */
	if (region->user)
		shmemcomm_user_release(region);
	else if (region->device)
		shmemcomm_device_release(region);
	else
		shmemcomm_free_pages(region);
	shmemcomm_region_list_del(region);
	shmemcomm_handle_unpublish(region);
	put_pid(region->owner_pid);
	iput(region->inode);
	atomic_long_dec(&shmemcomm_live_regions);
	shmemcomm_region_unalloc(region);
}

void shmemcomm_region_put(struct shmemcomm_region *region)
{
	kref_put(&region->kref, shmemcomm_region_release);
}

static int shmemcomm_region_file_release(struct inode *inode, struct file *file)
{
	struct shmemcomm_region_file *rf = file->private_data;

	if (!rf->owner)
		atomic_dec(&rf->region->importers);
	shmemcomm_region_put(rf->region);
	kfree(rf);
	return 0;
}

/*
 * The export's handle and flags, and its SHMEMCOMM_STATE_EXPORTED and
 * _REVOKED bits, read together under the region's lock.
 */
u32 shmemcomm_region_export_state(struct shmemcomm_region *region,
				  u64 *handle, u32 *export_flags)
{
	u32 state = 0;

	mutex_lock(&region->lock);
	*handle = region->handle;
	*export_flags = region->export_flags;
	if (region->handle)
		state |= SHMEMCOMM_STATE_EXPORTED;
	if (region->revoked)
		state |= SHMEMCOMM_STATE_REVOKED;
	if (READ_ONCE(region->stale))
		state |= SHMEMCOMM_STATE_STALE;
	mutex_unlock(&region->lock);
	return state;
}

static long shmemcomm_ioctl_region_info(struct shmemcomm_region_file *rf,
					bool writable, void __user *uarg)
{
	struct shmemcomm_region *region = rf->region;
	struct shmemcomm_region_info info;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	/* the fields of ABI minor 1 were reserved in minor 0 */
	if (info.kind || info.pad || info.user_start)
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, -EINVAL);

	memset(&info, 0, sizeof(info));
	info.size = (u64)region->nr_pages << PAGE_SHIFT;
	info.numa_node = region->numa_node;
	info.nr_chunks = region->nr_chunks;
	info.kind = region->kind;
	if (rf->owner)
		info.user_start = shmemcomm_user_start(region);
	shmemcomm_user_settle(region);
	info.state = shmemcomm_region_export_state(region, &info.handle,
						   &info.export_flags);
	if (rf->owner)
		info.state |= SHMEMCOMM_STATE_OWNER;
	if (writable)
		info.state |= SHMEMCOMM_STATE_WRITABLE;

	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long shmemcomm_region_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	struct shmemcomm_region_file *rf = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case SHMEMCOMM_IOC_REGION_INFO:
		return shmemcomm_ioctl_region_info(rf, file->f_mode & FMODE_WRITE,
						   uarg);
	case SHMEMCOMM_IOC_EXPORT:
		return shmemcomm_ioctl_export(rf, uarg);
	case SHMEMCOMM_IOC_REVOKE:
		return shmemcomm_ioctl_revoke(rf, uarg);
	case SHMEMCOMM_IOC_EXPORT_DMABUF:
		return shmemcomm_ioctl_export_dmabuf(file, uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations shmemcomm_region_fops = {
	.owner = THIS_MODULE,
	.release = shmemcomm_region_file_release,
	.unlocked_ioctl = shmemcomm_region_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = shmemcomm_region_mmap,
	.llseek = noop_llseek,
};

bool shmemcomm_is_region_file(const struct file *file)
{
	return file->f_op == &shmemcomm_region_fops;
}

/*
 * A new file on the region's inode. Takes over the caller's reference on
 * @region, also on failure.
 */
struct file *shmemcomm_region_file_open(struct shmemcomm_region *region,
					bool owner, bool writable)
{
	struct shmemcomm_region_file *rf;
	struct file *file;
	int err;

	rf = kzalloc(sizeof(*rf), GFP_KERNEL);
	if (!rf) {
		err = -ENOMEM;
		goto err_put_region;
	}
	rf->region = region;
	rf->owner = owner;

	/* __fput drops a module reference for every file; take it here */
	if (!try_module_get(THIS_MODULE)) {
		err = -ENODEV;
		goto err_free_rf;
	}
	ihold(region->inode);
	file = alloc_file_pseudo(region->inode, shmemcomm_mount(),
				 "shmemcomm-region", writable ? O_RDWR : O_RDONLY,
				 &shmemcomm_region_fops);
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto err_iput;
	}
	file->private_data = rf;
	if (!owner)
		atomic_inc(&region->importers);
	return file;

err_iput:
	iput(region->inode);
	module_put(THIS_MODULE);
err_free_rf:
	kfree(rf);
err_put_region:
	shmemcomm_region_put(region);
	return ERR_PTR(err);
}

long shmemcomm_ioctl_create(void __user *uarg)
{
	struct shmemcomm_region *region;
	struct shmemcomm_create args;
	struct file *file;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	err = shmemcomm_validate_create(&args);
	if (err)
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, err);

	args.size = PAGE_ALIGN(args.size);
	region = shmemcomm_region_create(args.size,
					 args.numa_node == SHMEMCOMM_NUMA_ANY ?
					 NUMA_NO_NODE : args.numa_node);
	if (IS_ERR(region))
		return PTR_ERR(region);
	args.nr_chunks = region->nr_chunks;

	file = shmemcomm_region_file_open(region, true, true);
	if (IS_ERR(file))
		return PTR_ERR(file);
	return shmemcomm_install_fd(file, uarg, &args, sizeof(args), &args.fd);
}
