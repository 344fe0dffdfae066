// SPDX-License-Identifier: GPL-2.0
/*
 * Mapping regions into processes.
 *
 * The pages are inserted as ordinary struct pages (never PFN maps), so that
 * get_user_pages and thus ibv_reg_mr work on the mapping. mmap inserts them
 * all at once, since a fault per page costs microseconds; the fault handler
 * only serves the owner after a revoke zapped everything.
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

static vm_fault_t shmemcomm_vm_fault(struct vm_fault *vmf)
{
	struct shmemcomm_region_file *rf = vmf->vma->vm_file->private_data;
	struct shmemcomm_region *region = rf->region;
	vm_fault_t ret = VM_FAULT_NOPAGE;
	int err;

	if (vmf->pgoff >= region->nr_pages)
		return VM_FAULT_SIGBUS;

	mutex_lock(&region->lock);
	if (!shmemcomm_may_access(rf)) {
		ret = VM_FAULT_SIGBUS;
		goto out_unlock;
	}
	err = vm_insert_page(vmf->vma, vmf->address & PAGE_MASK,
			     region->pages[vmf->pgoff]);
	if (err && err != -EBUSY)	/* EBUSY: another thread mapped it */
		ret = vmf_error(err);
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
	unsigned long inserted;
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

	vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND);
	vma->vm_ops = &shmemcomm_vm_ops;
	vma->vm_private_data = region;

	mutex_lock(&region->lock);
	if (!shmemcomm_may_access(rf)) {
		mutex_unlock(&region->lock);
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_REVOKED, -EKEYREVOKED);
	}
	inserted = nr_pages;
	err = vm_insert_pages(vma, vma->vm_start, region->pages + vma->vm_pgoff,
			      &inserted);
	mutex_unlock(&region->lock);
	/* on failure the caller unmaps whatever was inserted */
	if (err)
		return err;

	/* vm_ops->close drops it; not called when mmap fails, so taken last */
	kref_get(&region->kref);
	atomic_inc(&region->mappings);
	return 0;
}
