// SPDX-License-Identifier: GPL-2.0
/*
 * A region as a dma-buf, for NICs that register memory with
 * ibv_reg_dmabuf_mr. The dma-buf keeps the region file it came from, so its
 * mmap runs through that file: same access, same revoke.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "shmemcomm.h"

static struct sg_table *shmemcomm_dmabuf_map(struct dma_buf_attachment *attach,
					     enum dma_data_direction dir)
{
	struct file *file = attach->dmabuf->priv;
	struct shmemcomm_region_file *rf = file->private_data;
	struct shmemcomm_region *region = rf->region;
	struct sg_table *sgt;
	int err;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table_from_pages(sgt, region->pages, region->nr_pages, 0,
					(u64)region->nr_pages << PAGE_SHIFT,
					GFP_KERNEL);
	if (err)
		goto err_free_sgt;
	err = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (err)
		goto err_free_table;
	return sgt;

err_free_table:
	sg_free_table(sgt);
err_free_sgt:
	kfree(sgt);
	return ERR_PTR(err);
}

static void shmemcomm_dmabuf_unmap(struct dma_buf_attachment *attach,
				   struct sg_table *sgt,
				   enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static int shmemcomm_dmabuf_mmap(struct dma_buf *dmabuf,
				 struct vm_area_struct *vma)
{
	struct file *file = dmabuf->priv;

	vma_set_file(vma, file);
	return shmemcomm_region_mmap(file, vma);
}

static void shmemcomm_dmabuf_release(struct dma_buf *dmabuf)
{
	fput(dmabuf->priv);
}

static const struct dma_buf_ops shmemcomm_dmabuf_ops = {
	.map_dma_buf = shmemcomm_dmabuf_map,
	.unmap_dma_buf = shmemcomm_dmabuf_unmap,
	.mmap = shmemcomm_dmabuf_mmap,
	.release = shmemcomm_dmabuf_release,
};

long shmemcomm_ioctl_export_dmabuf(struct file *file, void __user *uarg)
{
	struct shmemcomm_region_file *rf = file->private_data;
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct shmemcomm_dmabuf args;
	struct dma_buf *dmabuf;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags ||
	    !shmemcomm_reserved_zero(args.reserved, sizeof(args.reserved)))
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, -EINVAL);

	exp_info.ops = &shmemcomm_dmabuf_ops;
	exp_info.size = (size_t)rf->region->nr_pages << PAGE_SHIFT;
	exp_info.flags = file->f_mode & FMODE_WRITE ? O_RDWR : O_RDONLY;
	exp_info.priv = get_file(file);
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		fput(file);
		return PTR_ERR(dmabuf);
	}

	return shmemcomm_install_fd(dmabuf->file, uarg, &args, sizeof(args),
				    &args.fd);
}
