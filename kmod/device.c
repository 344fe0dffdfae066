// SPDX-License-Identifier: GPL-2.0
/*
 * Regions over another driver's dma-buf: device memory (a GPU's, an NPU's,
 * or vgem's in the tests) shared across processes and handed to NICs.
 *
 * The region holds a reference to the dma-buf and nothing else: the
 * exporter keeps the memory, and no host page is pinned, so the region is
 * charged to the module cap as device memory and not to RLIMIT_MEMLOCK.
 * CREATE_DMABUF attaches the module's own device once and detaches it, so
 * that an exporter which refuses attachments is refused at create rather
 * than at a NIC's first registration.
 *
 * A CPU mapping is the exporter's (dma_buf_mmap) behind the module's checks.
 * The exporter's mmap sets its vm_ops and vm_private_data and makes its
 * dma-buf the VMA's file. The VMA's file then goes back to the region file,
 * so that the VMA is linked into the region inode's address_space, where
 * revoke zaps; and its vm_ops become the region's copy of the exporter's,
 * with fault, open and close wrapped: a fault checks access under the
 * region's lock, which revoke holds while it zaps, before the exporter's
 * fault inserts. An importer's next access after a revoke is SIGBUS.
 *
 * The exporter's fault, open and close must find their buffer through
 * vm_private_data, as the GEM helpers, TTM, udmabuf and the dma-buf heaps
 * do, and not through vm_file, which is no longer the dma-buf's. This
 * module's own dma-bufs go through vm_file (to the region file they came
 * from), so CREATE_DMABUF refuses them: a region over one would fault into
 * the other region's handler with this region's file, and the two regions
 * are better shared by handle anyway.
 *
 * Limits: an exporter whose mmap inserts every PTE at once and has no
 * fault handler keeps what mmap inserted if a revoke runs between mmap's
 * check and the VMA's link, and after a revoke the owner's mappings of
 * such an exporter, which the revoke zaps too, fault with SIGBUS; vgem and
 * the GEM helpers fault page by page.
 *
 * To a device (EXPORT_DMABUF, dmabuf.c): the region's dma-buf shares the
 * exporter's reservation object, attaches the device to the exporter's
 * dma-buf in turn, and maps through that attachment.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "shmemcomm.h"

/**
 * struct shmemcomm_device - what a dma-buf region adds to a region
 * @dmabuf:		the exporter's dma-buf, one reference held
 * @mappable:		the exporter maps it for the CPU (has an mmap op)
 * @ops_lock:		guards @exporter_vm_ops and @vm_ops while they are set
 * @wrapped:		@exporter_vm_ops and @vm_ops are set; never cleared
 * @exporter_vm_ops:	the vm_ops that the exporter's mmap gave the first
 *			VMA (possibly NULL); every VMA of the region has them
 * @vm_ops:		a copy with fault, open and close wrapped, made then
 */
struct shmemcomm_device {
	struct dma_buf *dmabuf;
	bool mappable;
	struct mutex ops_lock;	/* see @ops_lock above */
	bool wrapped;
	const struct vm_operations_struct *exporter_vm_ops;
	const struct vm_operations_struct *vm_ops;
};

struct dma_buf *shmemcomm_device_dmabuf(const struct shmemcomm_region *region)
{
	return region->device->dmabuf;
}

const char *shmemcomm_device_exporter(const struct shmemcomm_region *region)
{
	return region->device->dmabuf->exp_name ?: "unknown";
}

int shmemcomm_validate_create_dmabuf(const struct shmemcomm_create_dmabuf *args)
{
	if (args->flags & ~SHMEMCOMM_DMABUF_FLAGS) {
		pr_warn_ratelimited("create_dmabuf: flags %#x: known flags are %#x\n",
				    args->flags, SHMEMCOMM_DMABUF_FLAGS);
		return -EINVAL;
	}
	if (!shmemcomm_reserved_zero(args->reserved, sizeof(args->reserved)))
		return -EINVAL;
	return 0;
}

/* A dma-buf's size as a region's: whole pages, at most the largest region */
int shmemcomm_validate_dmabuf_size(size_t size)
{
	if (!size || !PAGE_ALIGNED(size) || size > SHMEMCOMM_MAX_REGION_SIZE) {
		pr_warn_ratelimited("create_dmabuf: a dma-buf of %zu bytes: a region is a whole number of %lu-byte pages, 1..%llu bytes\n",
				    size, PAGE_SIZE, SHMEMCOMM_MAX_REGION_SIZE);
		return -EINVAL;
	}
	return 0;
}

static struct shmemcomm_region_file *shmemcomm_vma_rf(struct vm_area_struct *vma)
{
	return vma->vm_file->private_data;
}

static vm_fault_t shmemcomm_device_fault(struct vm_fault *vmf)
{
	struct shmemcomm_region_file *rf = shmemcomm_vma_rf(vmf->vma);
	struct shmemcomm_region *region = rf->region;
	const struct vm_operations_struct *ops = region->device->exporter_vm_ops;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	mutex_lock(&region->lock);
	if (shmemcomm_may_access(rf) && ops && ops->fault)
		ret = ops->fault(vmf);
	mutex_unlock(&region->lock);
	return ret;
}

static void shmemcomm_device_vm_open(struct vm_area_struct *vma)
{
	struct shmemcomm_region *region = shmemcomm_vma_rf(vma)->region;
	const struct vm_operations_struct *ops = region->device->exporter_vm_ops;

	kref_get(&region->kref);
	atomic_inc(&region->mappings);
	if (ops && ops->open)
		ops->open(vma);
}

static void shmemcomm_device_vm_close(struct vm_area_struct *vma)
{
	struct shmemcomm_region *region = shmemcomm_vma_rf(vma)->region;
	const struct vm_operations_struct *ops = region->device->exporter_vm_ops;

	if (ops && ops->close)
		ops->close(vma);
	atomic_dec(&region->mappings);
	shmemcomm_region_put(region);
}

static const struct vm_operations_struct shmemcomm_no_vm_ops;

/*
 * Gives @vma, just mapped by the exporter, the region's wrapped vm_ops:
 * 0, -ENOMEM, or -ENODEV if the exporter gave it other vm_ops than it gave
 * the first VMA. The hooks exporters set are passed on, but huge_fault and
 * map_pages, so that every insertion goes through the checked fault; the
 * NUMA policy and special-page hooks, which no dma-buf exporter sets, are
 * not.
 */
static int shmemcomm_device_wrap(struct shmemcomm_device *device,
				 struct vm_area_struct *vma)
{
	const struct vm_operations_struct *from = vma->vm_ops ?: &shmemcomm_no_vm_ops;
	const struct vm_operations_struct wrapped = {
		.open = shmemcomm_device_vm_open,
		.close = shmemcomm_device_vm_close,
		.fault = shmemcomm_device_fault,
		.may_split = from->may_split,
		.mremap = from->mremap,
		.pagesize = from->pagesize,
		.page_mkwrite = from->page_mkwrite,
		.pfn_mkwrite = from->pfn_mkwrite,
		.access = from->access,
		.name = from->name,
	};
	int err = 0;

	mutex_lock(&device->ops_lock);
	if (!device->wrapped) {
		device->vm_ops = kmemdup(&wrapped, sizeof(wrapped), GFP_KERNEL);
		if (!device->vm_ops) {
			err = -ENOMEM;
			goto out_unlock;
		}
		device->exporter_vm_ops = vma->vm_ops;
		device->wrapped = true;
	}
	if (vma->vm_ops == device->exporter_vm_ops)
		vma->vm_ops = device->vm_ops;
	else
		err = -ENODEV;
out_unlock:
	mutex_unlock(&device->ops_lock);
	return err;
}

/* mmap of a dma-buf region, whose arguments mmap.c has checked */
int shmemcomm_device_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct shmemcomm_region_file *rf = file->private_data;
	struct shmemcomm_region *region = rf->region;
	struct shmemcomm_device *device = region->device;
	int err;

	if (!device->mappable) {
		pr_info_ratelimited("mmap: region %llu is device memory that its exporter %s does not map for the CPU; a device can reach it through EXPORT_DMABUF\n",
				    region->id, shmemcomm_device_exporter(region));
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_UNMAPPABLE, -ENODEV);
	}
	mutex_lock(&region->lock);
	err = shmemcomm_access_error(rf);
	mutex_unlock(&region->lock);
	if (err)
		return shmemcomm_refuse_access(err);

	err = dma_buf_mmap(device->dmabuf, vma, vma->vm_pgoff);
	if (err) {
		pr_info_ratelimited("mmap: region %llu: its exporter %s refused the mapping (error %d)\n",
				    region->id, shmemcomm_device_exporter(region),
				    err);
		return err;
	}
	/* dma_buf_mmap made the dma-buf the VMA's file */
	vma_set_file(vma, file);
	err = shmemcomm_device_wrap(device, vma);
	if (err) {
		/* mmap fails without a close: undo the exporter's mmap here */
		if (vma->vm_ops && vma->vm_ops->close)
			vma->vm_ops->close(vma);
		if (err == -ENOMEM)
			return err;
		pr_warn_ratelimited("mmap: region %llu: its exporter %s gave this mapping other vm_ops than the first\n",
				    region->id, shmemcomm_device_exporter(region));
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_UNMAPPABLE, -ENODEV);
	}
	/* the wrapped close drops these; not called when mmap fails */
	kref_get(&region->kref);
	atomic_inc(&region->mappings);
	return 0;
}

/*
 * The exporter attaches the module's device and lets it go: one that
 * refuses attachments would refuse a NIC's too.
 */
static int shmemcomm_device_try_attach(struct dma_buf *dmabuf)
{
	struct dma_buf_attachment *attach;

	attach = dma_buf_attach(dmabuf, shmemcomm_dma_device());
	if (IS_ERR(attach)) {
		pr_warn_ratelimited("create_dmabuf: the exporter %s refused to attach a device (error %ld)\n",
				    dmabuf->exp_name ?: "unknown", PTR_ERR(attach));
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_ATTACH, -ENODEV);
	}
	dma_buf_detach(dmabuf, attach);
	return 0;
}

void shmemcomm_device_release(struct shmemcomm_region *region)
{
	dma_buf_put(region->device->dmabuf);
	kfree(region->device->vm_ops);
	mutex_destroy(&region->device->ops_lock);
	kfree(region->device);
	region->device = NULL;
}

long shmemcomm_ioctl_create_dmabuf(void __user *uarg)
{
	struct shmemcomm_create_dmabuf args;
	struct shmemcomm_region *region, *own;
	struct shmemcomm_device *device;
	struct dma_buf *dmabuf;
	struct file *file;
	bool writable;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	err = shmemcomm_validate_create_dmabuf(&args);
	if (err)
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, err);

	dmabuf = dma_buf_get(args.dmabuf_fd);
	if (IS_ERR(dmabuf)) {
		pr_warn_ratelimited("create_dmabuf: fd %d is %s\n", args.dmabuf_fd,
				    PTR_ERR(dmabuf) == -EBADF ? "not open" :
				    "not a dma-buf");
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_NOT_DMABUF, -EBADF);
	}
	own = shmemcomm_dmabuf_region(dmabuf);
	if (own) {
		pr_warn_ratelimited("create_dmabuf: fd %d is a dma-buf of this module's region %llu: share that region with EXPORT and IMPORT\n",
				    args.dmabuf_fd, own->id);
		err = shmemcomm_refuse(SHMEMCOMM_REFUSAL_NOT_DMABUF, -EBADF);
		goto err_put_dmabuf;
	}
	err = shmemcomm_validate_dmabuf_size(dmabuf->size);
	if (err) {
		err = shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, err);
		goto err_put_dmabuf;
	}
	writable = !(args.flags & SHMEMCOMM_DMABUF_RDONLY);
	if (writable && !(dmabuf->file->f_mode & FMODE_WRITE)) {
		pr_warn_ratelimited("create_dmabuf: fd %d is a read-only dma-buf: ask for SHMEMCOMM_DMABUF_RDONLY\n",
				    args.dmabuf_fd);
		err = shmemcomm_refuse(SHMEMCOMM_REFUSAL_ACCESS, -EACCES);
		goto err_put_dmabuf;
	}
	err = shmemcomm_device_try_attach(dmabuf);
	if (err)
		goto err_put_dmabuf;

	device = kzalloc(sizeof(*device), GFP_KERNEL);
	if (!device) {
		err = -ENOMEM;
		goto err_put_dmabuf;
	}
	device->dmabuf = dmabuf;
	device->mappable = !!dmabuf->ops->mmap;
	mutex_init(&device->ops_lock);

	region = shmemcomm_region_alloc(dmabuf->size >> PAGE_SHIFT, NUMA_NO_NODE,
					SHMEMCOMM_KIND_DMABUF);
	if (IS_ERR(region)) {
		err = PTR_ERR(region);
		goto err_free_device;
	}
	region->device = device;
	region->read_only = !writable;
	err = shmemcomm_region_publish(region);
	if (err)
		goto err_unalloc;

	args.mappable = device->mappable ? SHMEMCOMM_DMABUF_CPU_MAPPABLE : 0;
	args.size = dmabuf->size;
	/* from here the region owns the dma-buf's reference */
	file = shmemcomm_region_file_open(region, true, writable);
	if (IS_ERR(file))
		return PTR_ERR(file);
	return shmemcomm_install_fd(file, uarg, &args, sizeof(args), &args.fd);

err_unalloc:
	shmemcomm_region_unalloc(region);
err_free_device:
	mutex_destroy(&device->ops_lock);
	kfree(device);
err_put_dmabuf:
	dma_buf_put(dmabuf);
	return err;
}
