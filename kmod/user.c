// SPDX-License-Identifier: GPL-2.0
/*
 * User-memory regions: a range of the creator's own address space, pinned
 * long-term as drivers/infiniband/core/umem.c pins it, and watched with an
 * mmu interval notifier as umem_odp.c watches it.
 *
 * The region is the pages pinned at create, not the addresses. It never
 * follows new pages: when the owner's range stops being backed by them, the
 * region goes stale, for good (uapi/linux/shmemcomm.h says what the owner
 * and the importers see). That is the registration cache's guarantee: a
 * buffer freed and reallocated at the same address is a new region, never
 * the old pages served again.
 *
 * Which events change the pages: munmap, mremap and exit always do; those
 * that keep them by their kind (protection changes) or by what they hold
 * (a migration that pinned pages make fail) never do. Every other event
 * (a CLEAR: MADV_DONTNEED, but also khugepaged's collapse and a huge page's
 * split, which the pinned pages make leave them where they were) is
 * checked: a work item waits for the event to end and compares the owner's
 * page table with the pinned pages. The stale word is set at once, so that
 * the owner's cache asks REGION_INFO (which waits for the check) before it
 * serves the region again, while importers carry on with pages that are
 * still there.
 *
 * Locking: the invalidate callback runs inside the owner's mm operations
 * (munmap, madvise, exit), possibly from reclaim, so it takes no lock that
 * is held around a memory allocation: @seq_lock (a spinlock) for the
 * creation's retry check, then the stale flag and the zap, which runs
 * under the inode's i_mmap_rwsem only. A fault that inserts a PTE under
 * the region's lock checks the flag again after inserting, so no PTE
 * outlives the zap. The dma-buf side (move_notify) takes reservation locks,
 * which notifiers must not take, and the check takes the owner's mmap lock,
 * so both run from work items.
 *
 * Lifetime: the notifier takes no reference. Another process may drop the
 * last one while the owner's munmap runs the callback, so the region's
 * release removes the notifier before anything else (which waits for the
 * callback), and the callback hands a work item a reference only if the
 * count is not already zero. Each work item holds one while queued or
 * running, so the region outlives both.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dax.h>
#include <linux/highmem.h>
#include <linux/hmm.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "shmemcomm.h"

/* pin_user_pages_fast() takes an int count; pin in bounded batches */
#define SHMEMCOMM_PIN_BATCH	65536UL
/* passes over the range before a create that keeps racing gives up */
#define SHMEMCOMM_PIN_TRIES	4
/*
 * Pages the check reads from the owner's page table at a time. It stops at
 * the first batch that differs, faulting in at most this many pages where
 * the owner's were dropped.
 */
#define SHMEMCOMM_CHECK_BATCH	64UL

/**
 * struct shmemcomm_user_pin - what a user-memory region adds to a region
 * @notifier:	watches [@start, @start + nr_pages pages) of the owner's mm
 * @seq_lock:	orders the notifier's sequence against the creation's check
 * @start:	the first page's address in the owner's mm
 * @nr_pinned:	pages pinned so far (all of them once created)
 * @writable:	pinned with FOLL_WRITE, so dirtied when unpinned
 * @live:	created: from now on an invalidation makes the region stale
 * @check_queued: @check_work is queued, and holds a region reference
 * @kept_events: invalidations that left the pages in place, for netlink
 * @stale_page:	the pinned page of the owner's stale word, or NULL
 * @stale_offset: the word's offset in @stale_page
 * @stale_work:	tells the region's dma-bufs, outside the notifier
 * @check_work:	compares the owner's pages with the pinned ones after an
 *		event that may have changed them
 * @check_pfns:	what @check_work reads of the owner's page table
 * @region:	back to the region, for the work items
 */
struct shmemcomm_user_pin {
	struct mmu_interval_notifier notifier;
	spinlock_t seq_lock;	/* see @seq_lock above */
	unsigned long start;
	unsigned long nr_pinned;
	bool writable;
	bool live;
	bool check_queued;
	atomic64_t kept_events;
	struct page *stale_page;
	unsigned int stale_offset;
	struct work_struct stale_work;
	struct work_struct check_work;
	unsigned long check_pfns[SHMEMCOMM_CHECK_BATCH];
	struct shmemcomm_region *region;
};

unsigned long shmemcomm_user_start(const struct shmemcomm_region *region)
{
	return region->user ? region->user->start : 0;
}

u64 shmemcomm_user_kept_events(const struct shmemcomm_region *region)
{
	return region->user ? atomic64_read(&region->user->kept_events) : 0;
}

/*
 * Events after which the owner still has the very pages: protection
 * changes (mprotect and NUMA hinting both report PROTECTION_VMA; fork's
 * write protection and page cleaning, PROTECTION_PAGE) and soft-dirty
 * clearing. Every other event may replace or drop pages.
 */
static bool shmemcomm_event_keeps_pages(enum mmu_notifier_event event)
{
	switch (event) {
	case MMU_NOTIFY_PROTECTION_VMA:
	case MMU_NOTIFY_PROTECTION_PAGE:
	case MMU_NOTIFY_SOFT_DIRTY:
		return true;
	default:
		return false;
	}
}

/*
 * A migration of pinned pages, bound to fail: migration unmaps each folio
 * (a CLEAR event) before the folio's reference count tells it the folio is
 * pinned, then maps the same folio back. NUMA balancing and move_pages try
 * that on pinned pages too, in 6.1 and 6.12. Migration holds every folio it
 * unmaps locked and isolated from the LRU; MADV_DONTNEED and a copy on
 * write do not. So a CLEAR whose pinned pages are all locked and off the
 * LRU leaves the owner with the very pages. (A zap racing a migration of
 * the same folios would be taken for one: a window of microseconds.)
 */
static bool shmemcomm_user_failed_migration(const struct shmemcomm_user_pin *pin,
					    const struct mmu_notifier_range *range)
{
	unsigned long start = max(range->start, pin->start);
	unsigned long end = min(range->end,
				pin->start + (pin->nr_pinned << PAGE_SHIFT));
	unsigned long addr;

	if (range->event != MMU_NOTIFY_CLEAR || start >= end)
		return false;
	for (addr = start; addr < end; addr += PAGE_SIZE) {
		struct folio *folio =
			page_folio(pin->region->pages[(addr - pin->start) >> PAGE_SHIFT]);

		if (!folio_test_locked(folio) || folio_test_lru(folio))
			return false;
	}
	return true;
}

static void shmemcomm_user_stale_work(struct work_struct *work)
{
	struct shmemcomm_user_pin *pin =
		container_of(work, struct shmemcomm_user_pin, stale_work);
	struct shmemcomm_region *region = pin->region;

	shmemcomm_dmabuf_revoke(region);
	shmemcomm_region_put(region);
}

static void shmemcomm_user_set_stale_word(struct shmemcomm_user_pin *pin)
{
	u32 *word;

	if (!pin->stale_page)
		return;
	word = kmap_local_page(pin->stale_page);
	WRITE_ONCE(word[pin->stale_offset / sizeof(u32)], 1);
	kunmap_local(word);
}

/*
 * What going stale does once the flag is set: every mapping zapped, the
 * word set, and the dma-bufs told from a work item.
 */
static void shmemcomm_user_zap(struct shmemcomm_user_pin *pin)
{
	struct shmemcomm_region *region = pin->region;

	/* pairs with shmemcomm_fault_pfns's, between its insert and check */
	smp_mb();
	unmap_mapping_range(region->inode->i_mapping, 0, 0, 1);
	shmemcomm_user_set_stale_word(pin);
	/*
	 * A region on its way out has no dma-buf left (each holds a
	 * reference); its release waits for the notifier callback to return.
	 */
	if (kref_get_unless_zero(&region->kref))
		queue_work(shmemcomm_wq, &pin->stale_work);
}

/*
 * Whether some pinned page is no longer at its place in the owner's range:
 * 1 if so, 0 if every one is, -EBUSY if an event began meanwhile (it
 * queued another check). Faulting in what is missing tells a page dropped
 * from a migration in progress, which the fault waits for.
 */
static int shmemcomm_user_pages_moved(struct shmemcomm_user_pin *pin,
				      struct mm_struct *mm, unsigned long *seq)
{
	struct shmemcomm_region *region = pin->region;
	unsigned long end = pin->start + (region->nr_pages << PAGE_SHIFT);
	struct hmm_range range = {
		.notifier = &pin->notifier,
		.hmm_pfns = pin->check_pfns,
		.default_flags = HMM_PFN_REQ_FAULT,
	};
	unsigned long addr, first, i;
	int err = 0, moved = 0;

	range.notifier_seq = mmu_interval_read_begin(&pin->notifier);
	*seq = range.notifier_seq;
	mmap_read_lock(mm);
	for (addr = pin->start; addr < end && !moved; addr = range.end) {
		range.start = addr;
		range.end = min(end, addr + (SHMEMCOMM_CHECK_BATCH << PAGE_SHIFT));
		err = hmm_range_fault(&range);
		if (err == -EBUSY)
			break;
		/* nothing there it may fault in (unmapped, PROT_NONE, a PFN map) */
		if (err) {
			moved = 1;
			err = 0;
			break;
		}
		first = (addr - pin->start) >> PAGE_SHIFT;
		for (i = 0; !moved && i < (range.end - addr) >> PAGE_SHIFT; i++)
			moved = hmm_pfn_to_page(range.hmm_pfns[i]) !=
				region->pages[first + i];
	}
	mmap_read_unlock(mm);
	return err ? err : moved;
}

/*
 * The check after an event that may have changed the pages: the region
 * goes stale if a page is gone, and counts a kept event if none is.
 */
static void shmemcomm_user_check_work(struct work_struct *work)
{
	struct shmemcomm_user_pin *pin =
		container_of(work, struct shmemcomm_user_pin, check_work);
	struct shmemcomm_region *region = pin->region;
	struct mm_struct *mm = pin->notifier.mm;
	bool now_stale = false;
	unsigned long seq;
	int moved;

	spin_lock(&pin->seq_lock);
	pin->check_queued = false;
	spin_unlock(&pin->seq_lock);
	/* an owner on its way out unmaps everything, which makes it stale */
	if (READ_ONCE(region->stale) || !mmget_not_zero(mm))
		goto out;
	moved = shmemcomm_user_pages_moved(pin, mm, &seq);
	mmput(mm);
	if (moved < 0)
		goto out;

	spin_lock(&pin->seq_lock);
	if (mmu_interval_read_retry(&pin->notifier, seq)) {
		spin_unlock(&pin->seq_lock);
		goto out;	/* the event since queued the next check */
	}
	if (moved && !region->stale) {
		WRITE_ONCE(region->stale, true);
		now_stale = true;
	}
	spin_unlock(&pin->seq_lock);
	if (now_stale) {
		shmemcomm_user_zap(pin);
		pr_debug("region %llu is stale: the owner's pages at %#lx-%#lx changed\n",
			 region->id, pin->start,
			 pin->start + (region->nr_pages << PAGE_SHIFT));
	} else if (!moved) {
		atomic64_inc(&pin->kept_events);
	}
out:
	shmemcomm_region_put(region);
}

void shmemcomm_user_settle(struct shmemcomm_region *region)
{
	if (region->user)
		flush_work(&region->user->check_work);
}

/* Events after which the owner's range has none of its pages. */
static bool shmemcomm_event_drops_pages(enum mmu_notifier_event event)
{
	return event == MMU_NOTIFY_UNMAP || event == MMU_NOTIFY_RELEASE;
}

static bool shmemcomm_user_invalidate(struct mmu_interval_notifier *mni,
				      const struct mmu_notifier_range *range,
				      unsigned long cur_seq)
{
	struct shmemcomm_user_pin *pin =
		container_of(mni, struct shmemcomm_user_pin, notifier);
	struct shmemcomm_region *region = pin->region;
	bool now_stale = false, ask = false, check = false;

	if (shmemcomm_event_keeps_pages(range->event) ||
	    shmemcomm_user_failed_migration(pin, range)) {
		atomic64_inc(&pin->kept_events);
		return true;
	}
	/* the zap sleeps; only the OOM reaper asks for no sleeping */
	if (!mmu_notifier_range_blockable(range))
		return false;

	spin_lock(&pin->seq_lock);
	mmu_interval_set_seq(mni, cur_seq);
	if (pin->live && !region->stale) {
		if (shmemcomm_event_drops_pages(range->event)) {
			WRITE_ONCE(region->stale, true);
			now_stale = true;
		} else {
			ask = true;
			/* one check at a time, not yet begun, covers this event too */
			if (!pin->check_queued &&
			    kref_get_unless_zero(&region->kref)) {
				pin->check_queued = true;
				check = true;
			}
		}
	}
	spin_unlock(&pin->seq_lock);

	if (now_stale) {
		shmemcomm_user_zap(pin);
		/* a normal event (a buffer freed): for dynamic debug, not the log */
		pr_debug("region %llu is stale: %s changed the owner's pages at %#lx-%#lx (event %d)\n",
			 region->id, current->comm, range->start, range->end,
			 range->event);
	} else if (ask) {
		/*
		 * Queued first, so that an owner who sees the word and asks
		 * REGION_INFO waits for the check that covers this event.
		 */
		if (check)
			queue_work(shmemcomm_wq, &pin->check_work);
		shmemcomm_user_set_stale_word(pin);
		pr_debug("region %llu: %s may have changed the owner's pages at %#lx-%#lx (event %d); checking\n",
			 region->id, current->comm, range->start, range->end,
			 range->event);
	}
	return true;
}

static const struct mmu_interval_notifier_ops shmemcomm_user_notifier_ops = {
	.invalidate = shmemcomm_user_invalidate,
};

/*
 * Refuses a range that is not all mapped, or has memory no region may pin.
 * A racing munmap is caught later, by the pin or by the notifier.
 */
static int shmemcomm_user_check_vmas(unsigned long start, unsigned long end,
				     bool writable)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long addr = start;
	int err = 0;

	mmap_read_lock(mm);
	while (addr < end) {
		vma = vma_lookup(mm, addr);
		if (!vma) {
			pr_warn_ratelimited("create_user: %#lx is not mapped (range %#lx-%#lx)\n",
					    addr, start, end);
			err = shmemcomm_refuse(SHMEMCOMM_REFUSAL_UNPINNABLE,
					       -EFAULT);
			break;
		}
		if (vma->vm_flags & (VM_IO | VM_PFNMAP) || vma_is_dax(vma)) {
			pr_warn_ratelimited("create_user: %#lx-%#lx is %s memory, which cannot be pinned\n",
					    vma->vm_start, vma->vm_end,
					    vma_is_dax(vma) ? "DAX" :
					    "VM_IO/VM_PFNMAP");
			err = shmemcomm_refuse(SHMEMCOMM_REFUSAL_UNPINNABLE,
					       -EOPNOTSUPP);
			break;
		}
		if (writable && !(vma->vm_flags & VM_WRITE)) {
			pr_warn_ratelimited("create_user: %#lx-%#lx is read-only; ask for SHMEMCOMM_USER_RDONLY\n",
					    vma->vm_start, vma->vm_end);
			err = shmemcomm_refuse(SHMEMCOMM_REFUSAL_ACCESS,
					       -EACCES);
			break;
		}
		addr = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return err;
}

static void shmemcomm_user_unpin(struct shmemcomm_user_pin *pin,
				 struct page **pages)
{
	unpin_user_pages_dirty_lock(pages, pin->nr_pinned, pin->writable);
	pin->nr_pinned = 0;
}

static int shmemcomm_user_pin_pages(struct shmemcomm_user_pin *pin,
				    struct page **pages, unsigned long nr_pages)
{
	unsigned int gup = FOLL_LONGTERM | (pin->writable ? FOLL_WRITE : 0);
	unsigned long batch;
	long got;

	while (pin->nr_pinned < nr_pages) {
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		batch = min(nr_pages - pin->nr_pinned, SHMEMCOMM_PIN_BATCH);
		got = pin_user_pages_fast(pin->start +
					  (pin->nr_pinned << PAGE_SHIFT),
					  batch, gup, pages + pin->nr_pinned);
		if (got <= 0) {
			pr_warn_ratelimited("create_user: pinning %#lx failed: %ld\n",
					    pin->start +
					    (pin->nr_pinned << PAGE_SHIFT),
					    got);
			return got ? got : -EFAULT;
		}
		pin->nr_pinned += got;
	}
	return 0;
}

/*
 * Pins the range under the notifier's watch: a pass during which any
 * invalidation ran is undone and tried again, since the pages it pinned
 * may already be gone from the owner's range (breaking copy-on-write or
 * migrating out of a movable zone invalidates once; the next pass is quiet).
 */
static int shmemcomm_user_pin_range(struct shmemcomm_region *region)
{
	struct shmemcomm_user_pin *pin = region->user;
	unsigned long seq;
	int tries, err;

	for (tries = 0; tries < SHMEMCOMM_PIN_TRIES; tries++) {
		seq = mmu_interval_read_begin(&pin->notifier);
		err = shmemcomm_user_pin_pages(pin, region->pages,
					       region->nr_pages);
		if (err)
			return err;
		spin_lock(&pin->seq_lock);
		if (!mmu_interval_read_retry(&pin->notifier, seq)) {
			pin->live = true;
			spin_unlock(&pin->seq_lock);
			return 0;
		}
		spin_unlock(&pin->seq_lock);
		shmemcomm_user_unpin(pin, region->pages);
	}
	pr_warn_ratelimited("create_user: %#lx-%#lx kept changing during %d pinning passes\n",
			    pin->start,
			    pin->start + (region->nr_pages << PAGE_SHIFT),
			    SHMEMCOMM_PIN_TRIES);
	return -EAGAIN;
}

static int shmemcomm_user_pin_stale_word(struct shmemcomm_user_pin *pin,
					 u64 addr)
{
	long got;

	if (!addr)
		return 0;
	got = pin_user_pages_fast(addr & PAGE_MASK, 1,
				  FOLL_WRITE | FOLL_LONGTERM, &pin->stale_page);
	if (got != 1) {
		pin->stale_page = NULL;
		pr_warn_ratelimited("create_user: stale word %#llx is not writable memory\n",
				    addr);
		return got < 0 ? got : -EFAULT;
	}
	pin->stale_offset = offset_in_page(addr);
	return 0;
}

/*
 * Releases the pin of a region being freed (or never published): the
 * notifier first, which waits for an invalidation in progress.
 */
void shmemcomm_user_release(struct shmemcomm_region *region)
{
	struct shmemcomm_user_pin *pin = region->user;

	if (pin->notifier.mm)
		mmu_interval_notifier_remove(&pin->notifier);
	shmemcomm_user_unpin(pin, region->pages);
	if (pin->stale_page)
		unpin_user_page(pin->stale_page);
	kfree(pin);
	region->user = NULL;
}

long shmemcomm_ioctl_create_user(void __user *uarg)
{
	struct shmemcomm_create_user args;
	struct shmemcomm_region *region;
	struct shmemcomm_user_pin *pin;
	unsigned long start, end;
	bool writable;
	struct file *file;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	err = shmemcomm_validate_create_user(&args);
	if (err)
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, err);
	start = args.addr & PAGE_MASK;
	end = PAGE_ALIGN(args.addr + args.size);
	writable = !(args.flags & SHMEMCOMM_USER_RDONLY);

	err = shmemcomm_user_check_vmas(start, end, writable);
	if (err)
		return err;

	region = shmemcomm_region_alloc((end - start) >> PAGE_SHIFT,
					NUMA_NO_NODE, SHMEMCOMM_KIND_USER);
	if (IS_ERR(region))
		return PTR_ERR(region);
	pin = kzalloc(sizeof(*pin), GFP_KERNEL);
	if (!pin) {
		err = -ENOMEM;
		goto err_unalloc;
	}
	spin_lock_init(&pin->seq_lock);
	INIT_WORK(&pin->stale_work, shmemcomm_user_stale_work);
	INIT_WORK(&pin->check_work, shmemcomm_user_check_work);
	pin->region = region;
	pin->start = start;
	pin->writable = writable;
	region->user = pin;
	region->read_only = !writable;

	err = shmemcomm_user_pin_stale_word(pin, args.stale_word);
	if (err)
		goto err_release;
	err = mmu_interval_notifier_insert(&pin->notifier, current->mm, start,
					   end - start,
					   &shmemcomm_user_notifier_ops);
	if (err) {
		pin->notifier.mm = NULL;
		goto err_release;
	}
	/*
	 * Published (inode, id, list) before it can go live: a live region's
	 * invalidation zaps through the inode. From here the release undoes
	 * everything.
	 */
	err = shmemcomm_region_publish(region);
	if (err)
		goto err_release;
	err = shmemcomm_user_pin_range(region);
	if (err) {
		shmemcomm_region_put(region);
		return err;
	}

	args.start = start;
	args.length = end - start;
	file = shmemcomm_region_file_open(region, true, writable);
	if (IS_ERR(file))
		return PTR_ERR(file);
	return shmemcomm_install_fd(file, uarg, &args, sizeof(args), &args.fd);

err_release:
	shmemcomm_user_release(region);
err_unalloc:
	shmemcomm_region_unalloc(region);
	return err;
}
