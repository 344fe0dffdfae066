// SPDX-License-Identifier: GPL-2.0
/*
 * Mapping regions into processes.
 *
 * The module's own pages are inserted as ordinary struct pages (never PFN
 * maps), so that get_user_pages and thus ibv_reg_mr work on the mapping.
 * A user-memory region's pages are another process's anonymous or file
 * pages, which the kernel lets no driver insert that way
 * (validate_page_before_insert): those are mapped by PFN, one fault at a
 * time.
 *
 * mmap inserts nothing: a revoke or an invalidation zaps through the
 * inode's address_space, which holds a VMA only once mmap has returned and
 * the VMA is linked, so a PTE inserted inside mmap could outlive a zap that
 * ran just after it. The first fault on a VMA inserts every page of it at
 * once instead (a fault per page would cost microseconds each): under the
 * region's lock, which revoke holds while it zaps; a user-memory fault also
 * reads the stale flag again after inserting (going stale sets the flag,
 * then zaps, without the region's lock).
 */
#include <linux/mm.h>

#include "compat.h"
#include "shmemcomm.h"

static void shmemcomm_vm_open(struct vm_area_struct *vma)
{
	struct shmemcomm_region *region = vma->vm_private_data;

	kref_get(&region->kref);
	atomic_inc(&region->mappings);
}

static void shmemcomm_vm_close(struct vm_area_struct *vma)
{
	struct shmemcomm_region *region = vma->vm_private_data;

	atomic_dec(&region->mappings);
	shmemcomm_region_put(region);
}

/* Driver pages: the whole VMA, or this page where part of it is mapped */
static vm_fault_t shmemcomm_fault_pages(struct vm_fault *vmf,
					struct shmemcomm_region *region)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long left = vma_pages(vma);
	int err;

	err = vm_insert_pages(vma, vma->vm_start, region->pages + vma->vm_pgoff,
			      &left);
	if (!err)
		return VM_FAULT_NOPAGE;
	/* EBUSY: a PTE is there already (madvise zapped only part of it) */
	err = vm_insert_page(vma, vmf->address & PAGE_MASK,
			     region->pages[vmf->pgoff]);
	if (err && err != -EBUSY)
		return vmf_error(err);
	return VM_FAULT_NOPAGE;
}

/*
 * User memory, by PFN, the whole VMA. Going stale sets the flag, then
 * zaps; this inserts, then reads the flag: with a full barrier on both
 * sides, either the zap finds these PTEs or this finds the flag and takes
 * them back.
 */
static vm_fault_t shmemcomm_fault_pfns(struct vm_fault *vmf,
				       struct shmemcomm_region *region)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long i, nr_pages = vma_pages(vma);
	vm_fault_t ret = VM_FAULT_NOPAGE;

	for (i = 0; i < nr_pages && ret == VM_FAULT_NOPAGE; i++)
		ret = vmf_insert_pfn(vma, vma->vm_start + (i << PAGE_SHIFT),
				     page_to_pfn(region->pages[vma->vm_pgoff + i]));
	/* pairs with shmemcomm_user_invalidate's, between its flag and zap */
	smp_mb();
	if (READ_ONCE(region->stale)) {
		zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
		return VM_FAULT_SIGBUS;
	}
	return ret;
}

static vm_fault_t shmemcomm_vm_fault(struct vm_fault *vmf)
{
	struct shmemcomm_region_file *rf = vmf->vma->vm_file->private_data;
	struct shmemcomm_region *region = rf->region;
	vm_fault_t ret;

	if (vmf->pgoff >= region->nr_pages)
		return VM_FAULT_SIGBUS;

	mutex_lock(&region->lock);
	if (!shmemcomm_may_access(rf)) {
		ret = VM_FAULT_SIGBUS;
		goto out_unlock;
	}
	if (region->user)
		ret = shmemcomm_fault_pfns(vmf, region);
	else
		ret = shmemcomm_fault_pages(vmf, region);
out_unlock:
	mutex_unlock(&region->lock);
	return ret;
}

static const struct vm_operations_struct shmemcomm_vm_ops = {
	.open = shmemcomm_vm_open,
	.close = shmemcomm_vm_close,
	.fault = shmemcomm_vm_fault,
};

int shmemcomm_region_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct shmemcomm_region_file *rf = file->private_data;
	struct shmemcomm_region *region = rf->region;
	unsigned long nr_pages = vma_pages(vma);
	int err;

	/*
	 * A private mapping would copy on write and share nothing. MAYSHARE,
	 * since do_mmap drops VM_SHARED for files opened read-only.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, -EINVAL);
	if (vma->vm_pgoff > region->nr_pages ||
	    nr_pages > region->nr_pages - vma->vm_pgoff)
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, -EINVAL);
	if (!(file->f_mode & FMODE_WRITE)) {
		if (vma->vm_flags & VM_WRITE)
			return shmemcomm_refuse(SHMEMCOMM_REFUSAL_ACCESS,
						-EACCES);
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	if (region->device)
		return shmemcomm_device_mmap(file, vma);

	if (region->user)
		vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	else
		vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND);
	vma->vm_ops = &shmemcomm_vm_ops;
	vma->vm_private_data = region;

	mutex_lock(&region->lock);
	err = shmemcomm_access_error(rf);
	mutex_unlock(&region->lock);
	if (err)
		return shmemcomm_refuse_access(err);

	/* vm_ops->close drops it; not called when mmap fails, so taken last */
	kref_get(&region->kref);
	atomic_inc(&region->mappings);
	return 0;
}
