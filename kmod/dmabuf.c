// SPDX-License-Identifier: GPL-2.0
/*
 * A region as a dma-buf, for NICs that register memory with
 * ibv_reg_dmabuf_mr. The dma-buf keeps the region file it came from, so its
 * mmap runs through that file: same access, same revoke.
 *
 * Revoke reaches a dma-buf made from an importer's file on every path:
 * EXPORT_DMABUF and mmap are refused after it, and so is map_dma_buf. The
 * exporter is dynamic (it has pin and unpin), so that importers which can
 * give a mapping back (dynamic ones, with move_notify) are told at revoke
 * and find their next map refused. A static importer cannot be told: the
 * core maps for it once, at attach, and it keeps that mapping (and the pages
 * stay alive) until it detaches. The region's rows in the netlink dump
 * count the attachments, so such a holder can be seen.
 *
 * Locking: the region's dmabufs_lock is taken before a dma-buf's
 * reservation lock (revoke's move_notify), and map_dma_buf, which runs
 * under the reservation lock, takes neither of the region's locks.
 *
 * A dma-buf region's dma-buf (device.c) passes the device on to the
 * exporter's dma-buf: each attachment attaches the same device there,
 * dynamically, as willing to take peer-to-peer memory as the device is, and
 * maps and pins through that attachment. It shares the exporter's
 * reservation object, so the lock held around map, pin and move_notify is
 * the exporter's too; a move the exporter announces is passed on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "shmemcomm.h"

/**
 * struct shmemcomm_region_dmabuf - the exporter's private data of one dma-buf
 * @node:	in the region's @dmabufs list
 * @dmabuf:	the dma-buf
 * @file:	the region file it was made from, one reference held
 */
struct shmemcomm_region_dmabuf {
	struct list_head node;
	struct dma_buf *dmabuf;
	struct file *file;
};

static struct shmemcomm_region_file *shmemcomm_dmabuf_rf(struct dma_buf *dmabuf)
{
	struct shmemcomm_region_dmabuf *sd = dmabuf->priv;

	return sd->file->private_data;
}

/* Called with the reservation lock held, which the two dma-bufs share */
static void shmemcomm_dmabuf_exporter_moved(struct dma_buf_attachment *exporter_attach)
{
	struct dma_buf_attachment *attach = exporter_attach->importer_priv;

	dma_buf_move_notify(attach->dmabuf);
}

static const struct dma_buf_attach_ops shmemcomm_dmabuf_pass_on_p2p = {
	.allow_peer2peer = true,
	.move_notify = shmemcomm_dmabuf_exporter_moved,
};

static const struct dma_buf_attach_ops shmemcomm_dmabuf_pass_on = {
	.allow_peer2peer = false,
	.move_notify = shmemcomm_dmabuf_exporter_moved,
};

static int shmemcomm_dmabuf_attach(struct dma_buf *dmabuf,
				   struct dma_buf_attachment *attach)
{
	struct shmemcomm_region *region = shmemcomm_dmabuf_rf(dmabuf)->region;
	struct dma_buf_attachment *exporter_attach;

	if (region->device) {
		exporter_attach =
			dma_buf_dynamic_attach(shmemcomm_device_dmabuf(region), attach->dev,
					       attach->peer2peer ?
					       &shmemcomm_dmabuf_pass_on_p2p :
					       &shmemcomm_dmabuf_pass_on, attach);
		if (IS_ERR(exporter_attach)) {
			pr_info_ratelimited("attach: region %llu: its exporter %s refused %s (error %ld)\n",
					    region->id, shmemcomm_device_exporter(region),
					    dev_name(attach->dev), PTR_ERR(exporter_attach));
			return PTR_ERR(exporter_attach);
		}
		attach->priv = exporter_attach;
	}
	atomic_inc(&region->dmabuf_attachments);
	return 0;
}

static void shmemcomm_dmabuf_detach(struct dma_buf *dmabuf,
				    struct dma_buf_attachment *attach)
{
	struct shmemcomm_region *region = shmemcomm_dmabuf_rf(dmabuf)->region;

	if (attach->priv)
		dma_buf_detach(shmemcomm_device_dmabuf(region), attach->priv);
	atomic_dec(&region->dmabuf_attachments);
}

/*
 * Driver pages never move: pinning (for static importers) has nothing to
 * do. Device memory is pinned where the exporter keeps it.
 */
static int shmemcomm_dmabuf_pin(struct dma_buf_attachment *attach)
{
	return attach->priv ? dma_buf_pin(attach->priv) : 0;
}

static void shmemcomm_dmabuf_unpin(struct dma_buf_attachment *attach)
{
	if (attach->priv)
		dma_buf_unpin(attach->priv);
}

static struct sg_table *shmemcomm_dmabuf_map(struct dma_buf_attachment *attach,
					     enum dma_data_direction dir)
{
	struct shmemcomm_region_file *rf = shmemcomm_dmabuf_rf(attach->dmabuf);
	struct shmemcomm_region *region = rf->region;
	struct sg_table *sgt;
	int err;

	dma_resv_assert_held(attach->dmabuf->resv);
	err = shmemcomm_access_error(rf);
	if (err) {
		pr_info_ratelimited("map_dma_buf: region %llu is %s; %s refused\n",
				    region->id,
				    err == -ESTALE ? "stale" : "revoked",
				    dev_name(attach->dev));
		return ERR_PTR(shmemcomm_refuse_access(err));
	}
	if (attach->priv)
		return dma_buf_map_attachment(attach->priv, dir);
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
	if (attach->priv) {
		dma_buf_unmap_attachment(attach->priv, sgt, dir);
		return;
	}
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static int shmemcomm_dmabuf_mmap(struct dma_buf *dmabuf,
				 struct vm_area_struct *vma)
{
	struct shmemcomm_region_dmabuf *sd = dmabuf->priv;

	vma_set_file(vma, sd->file);
	return shmemcomm_region_mmap(sd->file, vma);
}

static void shmemcomm_dmabuf_release(struct dma_buf *dmabuf)
{
	struct shmemcomm_region_dmabuf *sd = dmabuf->priv;
	struct shmemcomm_region *region = shmemcomm_dmabuf_rf(dmabuf)->region;

	mutex_lock(&region->dmabufs_lock);
	list_del(&sd->node);
	mutex_unlock(&region->dmabufs_lock);
	atomic_dec(&region->nr_dmabufs);
	fput(sd->file);
	kfree(sd);
}

static const struct dma_buf_ops shmemcomm_dmabuf_ops = {
	.attach = shmemcomm_dmabuf_attach,
	.detach = shmemcomm_dmabuf_detach,
	.pin = shmemcomm_dmabuf_pin,
	.unpin = shmemcomm_dmabuf_unpin,
	.map_dma_buf = shmemcomm_dmabuf_map,
	.unmap_dma_buf = shmemcomm_dmabuf_unmap,
	.mmap = shmemcomm_dmabuf_mmap,
	.release = shmemcomm_dmabuf_release,
};

/* The region behind one of this module's dma-bufs; NULL for another exporter's */
struct shmemcomm_region *shmemcomm_dmabuf_region(const struct dma_buf *dmabuf)
{
	if (dmabuf->ops != &shmemcomm_dmabuf_ops)
		return NULL;
	return shmemcomm_dmabuf_rf((struct dma_buf *)dmabuf)->region;
}

/*
 * After a revoke, or once user memory went stale: every dma-buf that lost
 * its access tells its dynamic attachments to give their mappings back;
 * their next map_dma_buf is refused. After a revoke the owner's dma-bufs
 * keep working, as the owner's own mappings do.
 */
void shmemcomm_dmabuf_revoke(struct shmemcomm_region *region)
{
	struct shmemcomm_region_dmabuf *sd;

	mutex_lock(&region->dmabufs_lock);
	list_for_each_entry(sd, &region->dmabufs, node) {
		struct shmemcomm_region_file *rf = sd->file->private_data;

		if (shmemcomm_may_access(rf))
			continue;
		dma_resv_lock(sd->dmabuf->resv, NULL);
		dma_buf_move_notify(sd->dmabuf);
		dma_resv_unlock(sd->dmabuf->resv);
	}
	mutex_unlock(&region->dmabufs_lock);
}

long shmemcomm_ioctl_export_dmabuf(struct file *file, void __user *uarg)
{
	struct shmemcomm_region_file *rf = file->private_data;
	struct shmemcomm_region *region = rf->region;
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct shmemcomm_dmabuf args;
	struct shmemcomm_region_dmabuf *sd;
	struct dma_buf *dmabuf;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags ||
	    !shmemcomm_reserved_zero(args.reserved, sizeof(args.reserved)))
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, -EINVAL);

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	shmemcomm_user_settle(region);
	sd->file = get_file(file);
	exp_info.ops = &shmemcomm_dmabuf_ops;
	exp_info.size = (size_t)region->nr_pages << PAGE_SHIFT;
	exp_info.flags = file->f_mode & FMODE_WRITE ? O_RDWR : O_RDONLY;
	exp_info.priv = sd;
	if (region->device)
		exp_info.resv = shmemcomm_device_dmabuf(region)->resv;

	/*
	 * Under the region's lock, so that a revoke either refuses this or
	 * finds the new dma-buf on the list.
	 */
	mutex_lock(&region->lock);
	err = shmemcomm_access_error(rf);
	if (err) {
		err = shmemcomm_refuse_access(err);
		goto err_unlock;
	}
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		err = PTR_ERR(dmabuf);
		goto err_unlock;
	}
	sd->dmabuf = dmabuf;
	mutex_lock(&region->dmabufs_lock);
	list_add_tail(&sd->node, &region->dmabufs);
	mutex_unlock(&region->dmabufs_lock);
	atomic_inc(&region->nr_dmabufs);
	mutex_unlock(&region->lock);

	return shmemcomm_install_fd(dmabuf->file, uarg, &args, sizeof(args),
				    &args.fd);

err_unlock:
	mutex_unlock(&region->lock);
	fput(file);
	kfree(sd);
	return err;
}
