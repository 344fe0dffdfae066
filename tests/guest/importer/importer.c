// SPDX-License-Identifier: GPL-2.0
/*
 * A test importer of dma-bufs: a stand-in for a device driver (a NIC with
 * ibv_reg_dmabuf_mr, a GPU) attached to a dma-buf, so that the guest tests
 * can check what an exporter does to its importers: whether map_dma_buf is
 * refused, whether a dynamic importer is sent move_notify. It reads the
 * buffer through the pages of the table it was given; a device would use
 * the DMA addresses, which here, with no IOMMU, point at the same memory.
 * It also exports dma-bufs of its own: one whose exporter refuses every
 * attachment, as one with no path to a device would, and one that devices
 * map but the CPU cannot, as device memory without a CPU path.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "importer.h"

static struct miscdevice importer_misc;

/* the device that attaches: a platform device, so that it can map for DMA */
static struct platform_device *importer_pdev;

/**
 * struct importer - one open file: at most one attachment
 * @lock:		serializes the file's ioctls
 * @dmabuf:		attached to, one reference held; NULL before ATTACH
 * @attach:		the attachment
 * @sgt:		its mapping, or NULL (never mapped, refused, or given
 *			back at move_notify); under the dma-buf's reservation lock
 * @move_notifies:	move_notify calls so far
 * @map_error:		the last map's error, 0 if it mapped
 */
struct importer {
	struct mutex lock;	/* see @lock above */
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	u32 move_notifies;
	int map_error;
};

/* Called with the reservation lock held: give the mapping back. */
static void importer_move_notify(struct dma_buf_attachment *attach)
{
	struct importer *imp = attach->importer_priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	imp->move_notifies++;
	if (imp->sgt) {
		dma_buf_unmap_attachment(attach, imp->sgt, DMA_BIDIRECTIONAL);
		imp->sgt = NULL;
	}
}

static const struct dma_buf_attach_ops importer_attach_ops = {
	.allow_peer2peer = false,
	.move_notify = importer_move_notify,
};

/* Maps unless mapped; the reservation lock is held for both kinds. */
static void importer_map(struct importer *imp)
{
	struct sg_table *sgt;

	dma_resv_lock(imp->dmabuf->resv, NULL);
	if (!imp->sgt) {
		sgt = dma_buf_map_attachment(imp->attach, DMA_BIDIRECTIONAL);
		imp->map_error = IS_ERR(sgt) ? PTR_ERR(sgt) : 0;
		imp->sgt = IS_ERR(sgt) ? NULL : sgt;
	}
	dma_resv_unlock(imp->dmabuf->resv);
}

static void importer_state(struct importer *imp, struct importer_state *st)
{
	memset(st, 0, sizeof(*st));
	dma_resv_lock(imp->dmabuf->resv, NULL);
	st->mapped = !!imp->sgt;
	st->move_notifies = imp->move_notifies;
	st->map_error = imp->map_error;
	if (imp->sgt) {
		void *p = kmap_local_page(sg_page(imp->sgt->sgl));

		memcpy(&st->first_word, p + imp->sgt->sgl->offset,
		       sizeof(st->first_word));
		kunmap_local(p);
	}
	dma_resv_unlock(imp->dmabuf->resv);
}

static long importer_do_attach(struct importer *imp, void __user *uarg)
{
	struct importer_attach args;
	struct dma_buf *dmabuf;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.dynamic > 1)
		return -EINVAL;
	if (imp->dmabuf)
		return -EBUSY;
	dmabuf = dma_buf_get(args.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (args.dynamic)
		imp->attach = dma_buf_dynamic_attach(dmabuf, &importer_pdev->dev,
						     &importer_attach_ops, imp);
	else
		imp->attach = dma_buf_attach(dmabuf, &importer_pdev->dev);
	if (IS_ERR(imp->attach)) {
		long err = PTR_ERR(imp->attach);

		imp->attach = NULL;
		dma_buf_put(dmabuf);
		return err;
	}
	imp->dmabuf = dmabuf;
	importer_map(imp);
	return 0;
}

static int refusing_attach(struct dma_buf *dmabuf,
			   struct dma_buf_attachment *attach)
{
	return -EOPNOTSUPP;
}

static struct sg_table *refusing_map(struct dma_buf_attachment *attach,
				     enum dma_data_direction dir)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static void refusing_unmap(struct dma_buf_attachment *attach,
			   struct sg_table *sgt, enum dma_data_direction dir)
{
}

static void refusing_release(struct dma_buf *dmabuf)
{
}

static const struct dma_buf_ops refusing_ops = {
	.attach = refusing_attach,
	.map_dma_buf = refusing_map,
	.unmap_dma_buf = refusing_unmap,
	.release = refusing_release,
};

/* A one-page dma-buf with nothing behind it: attach is all it is asked for */
static long importer_export_refusing(void)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct dma_buf *dmabuf;
	int fd;

	exp_info.ops = &refusing_ops;
	exp_info.size = PAGE_SIZE;
	exp_info.flags = O_RDWR;
	exp_info.priv = &importer_misc;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0)
		dma_buf_put(dmabuf);
	return fd;
}

/* One page for devices only: no mmap */
static struct sg_table *device_only_map(struct dma_buf_attachment *attach,
					enum dma_data_direction dir)
{
	struct page *page = attach->dmabuf->priv;
	struct sg_table *sgt;
	int err;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (err)
		goto err_free_sgt;
	sg_set_page(sgt->sgl, page, PAGE_SIZE, 0);
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

static void device_only_unmap(struct dma_buf_attachment *attach,
			      struct sg_table *sgt, enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static void device_only_release(struct dma_buf *dmabuf)
{
	__free_page(dmabuf->priv);
}

static const struct dma_buf_ops device_only_ops = {
	.map_dma_buf = device_only_map,
	.unmap_dma_buf = device_only_unmap,
	.release = device_only_release,
};

static long importer_export_device_only(void)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct dma_buf *dmabuf;
	struct page *page;
	u32 *words;
	int fd, i;

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	words = page_address(page);
	for (i = 0; i < PAGE_SIZE / sizeof(*words); i++)
		words[i] = IMPORTER_DEVICE_ONLY_WORD;
	exp_info.ops = &device_only_ops;
	exp_info.size = PAGE_SIZE;
	exp_info.flags = O_RDWR;
	exp_info.priv = page;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		__free_page(page);
		return PTR_ERR(dmabuf);
	}
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0)
		dma_buf_put(dmabuf);
	return fd;
}

static long importer_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct importer *imp = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct importer_state st;
	long ret = 0;

	mutex_lock(&imp->lock);
	switch (cmd) {
	case IMPORTER_IOC_ATTACH:
		ret = importer_do_attach(imp, uarg);
		break;
	case IMPORTER_IOC_MAP:
	case IMPORTER_IOC_STATE:
		if (!imp->dmabuf) {
			ret = -ENOENT;
			break;
		}
		if (cmd == IMPORTER_IOC_MAP)
			importer_map(imp);
		importer_state(imp, &st);
		if (copy_to_user(uarg, &st, sizeof(st)))
			ret = -EFAULT;
		break;
	case IMPORTER_IOC_EXPORT_REFUSING:
		ret = importer_export_refusing();
		break;
	case IMPORTER_IOC_EXPORT_DEVICE_ONLY:
		ret = importer_export_device_only();
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&imp->lock);
	return ret;
}

static int importer_open(struct inode *inode, struct file *file)
{
	struct importer *imp = kzalloc(sizeof(*imp), GFP_KERNEL);

	if (!imp)
		return -ENOMEM;
	mutex_init(&imp->lock);
	file->private_data = imp;
	return 0;
}

static int importer_release(struct inode *inode, struct file *file)
{
	struct importer *imp = file->private_data;

	if (imp->dmabuf) {
		dma_resv_lock(imp->dmabuf->resv, NULL);
		if (imp->sgt)
			dma_buf_unmap_attachment(imp->attach, imp->sgt,
						 DMA_BIDIRECTIONAL);
		dma_resv_unlock(imp->dmabuf->resv);
		dma_buf_detach(imp->dmabuf, imp->attach);
		dma_buf_put(imp->dmabuf);
	}
	mutex_destroy(&imp->lock);
	kfree(imp);
	return 0;
}

static const struct file_operations importer_fops = {
	.owner = THIS_MODULE,
	.open = importer_open,
	.release = importer_release,
	.unlocked_ioctl = importer_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice importer_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "shmemcomm-test-importer",
	.fops = &importer_fops,
	.mode = 0600,
};

static int __init importer_init(void)
{
	int err;

	importer_pdev = platform_device_register_simple("shmemcomm-test-importer",
							-1, NULL, 0);
	if (IS_ERR(importer_pdev))
		return PTR_ERR(importer_pdev);
	err = dma_coerce_mask_and_coherent(&importer_pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_unregister_pdev;
	err = misc_register(&importer_misc);
	if (err)
		goto err_unregister_pdev;
	return 0;

err_unregister_pdev:
	platform_device_unregister(importer_pdev);
	return err;
}

static void __exit importer_exit(void)
{
	misc_deregister(&importer_misc);
	platform_device_unregister(importer_pdev);
}

module_init(importer_init);
module_exit(importer_exit);
MODULE_DESCRIPTION("shmemcomm's test importer of dma-bufs (guest tests only)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
