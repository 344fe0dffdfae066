// SPDX-License-Identifier: GPL-2.0
/*
 * shmemcomm: the device, its parameters and counters, and the pseudo file
 * system that gives every region its own inode.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/platform_device.h>
#include <linux/pseudo_fs.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "shmemcomm.h"

#define SHMEMCOMM_FS_MAGIC 0x53484d43	/* "SHMC" */

static unsigned long max_pinned_mb;
module_param(max_pinned_mb, ulong, 0644);
MODULE_PARM_DESC(max_pinned_mb,
		 "Cap on what all regions hold together, in MiB: host pages pinned and device memory of dma-buf regions; applies to new regions (default at load: half of RAM)");

static ushort dev_mode = 0666;
module_param(dev_mode, ushort, 0444);
MODULE_PARM_DESC(dev_mode, "Mode of /dev/shmemcomm (default 0666)");

static uint dev_gid;
module_param(dev_gid, uint, 0444);
MODULE_PARM_DESC(dev_gid,
		 "Group of /dev/shmemcomm, applied by the udev rule through the device's gid attribute (default 0)");

/* held = pinned + device, the figure the cap bounds */
atomic_long_t shmemcomm_held_pages = ATOMIC_LONG_INIT(0);
atomic_long_t shmemcomm_pinned_pages = ATOMIC_LONG_INIT(0);
atomic_long_t shmemcomm_device_pages = ATOMIC_LONG_INIT(0);
atomic_long_t shmemcomm_live_regions = ATOMIC_LONG_INIT(0);
atomic64_t shmemcomm_regions_created = ATOMIC64_INIT(0);
atomic64_t shmemcomm_regions_freed = ATOMIC64_INIT(0);
static atomic64_t shmemcomm_refusal_counts[__SHMEMCOMM_REFUSAL_MAX];

static struct vfsmount *shmemcomm_mnt;

/*
 * A device that can map for DMA, for CREATE_DMABUF's trial attachment (an
 * exporter may map at attach); the misc device cannot.
 */
static struct platform_device *shmemcomm_pdev;

/*
 * The module's own work items (a stale region telling its dma-bufs). Its
 * own queue, so that unloading drains it: a pending item may hold the last
 * reference to a region, when no file holds the module any more.
 */
struct workqueue_struct *shmemcomm_wq;

unsigned long shmemcomm_max_pinned_pages(void)
{
	unsigned long mb = READ_ONCE(max_pinned_mb);

	if (mb > (ULONG_MAX >> (20 - PAGE_SHIFT)))
		return ULONG_MAX;
	return mb << (20 - PAGE_SHIFT);
}

u32 shmemcomm_dev_mode(void)
{
	return dev_mode;
}

u32 shmemcomm_dev_gid(void)
{
	return dev_gid;
}

void shmemcomm_count_refusal(enum shmemcomm_refusal reason)
{
	if (WARN_ON_ONCE(reason <= SHMEMCOMM_REFUSAL_UNSPEC ||
			 reason > SHMEMCOMM_REFUSAL_MAX))
		return;
	atomic64_inc(&shmemcomm_refusal_counts[reason]);
}

u64 shmemcomm_refusals(enum shmemcomm_refusal reason)
{
	return atomic64_read(&shmemcomm_refusal_counts[reason]);
}

#if IS_ENABLED(CONFIG_SHMEMCOMM_KUNIT_TEST)
unsigned long shmemcomm_test_set_max_pinned_mb(unsigned long mb)
{
	unsigned long old = READ_ONCE(max_pinned_mb);

	WRITE_ONCE(max_pinned_mb, mb);
	return old;
}
#endif

struct vfsmount *shmemcomm_mount(void)
{
	return shmemcomm_mnt;
}

bool shmemcomm_reserved_zero(const void *reserved, size_t len)
{
	return !memchr_inv(reserved, 0, len);
}

int shmemcomm_install_fd(struct file *file, void __user *uarg,
			 void *args, size_t args_size, __s32 *fd_field)
{
	int fd;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		fput(file);
		return fd;
	}
	*fd_field = fd;
	if (copy_to_user(uarg, args, args_size)) {
		put_unused_fd(fd);
		fput(file);
		return -EFAULT;
	}
	fd_install(fd, file);
	return 0;
}

/* GET_INFO's answer, also the figures of the netlink family */
void shmemcomm_fill_info(struct shmemcomm_info *info)
{
	memset(info, 0, sizeof(*info));
	info->abi_major = SHMEMCOMM_ABI_MAJOR;
	info->abi_minor = SHMEMCOMM_ABI_MINOR;
	info->features = SHMEMCOMM_FEATURES;
	info->max_region_size = SHMEMCOMM_MAX_REGION_SIZE;
	info->max_pinned = (u64)shmemcomm_max_pinned_pages() << PAGE_SHIFT;
	info->pinned = (u64)atomic_long_read(&shmemcomm_pinned_pages) << PAGE_SHIFT;
	info->device = (u64)atomic_long_read(&shmemcomm_device_pages) << PAGE_SHIFT;
	info->live_regions = atomic_long_read(&shmemcomm_live_regions);
	info->page_size = PAGE_SIZE;
	info->chunk_size = SHMEMCOMM_CHUNK_PAGES << PAGE_SHIFT;
}

static long shmemcomm_ioctl_get_info(void __user *uarg)
{
	struct shmemcomm_info info;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	/* device was reserved before ABI minor 2 */
	if (info.device ||
	    !shmemcomm_reserved_zero(info.reserved, sizeof(info.reserved)))
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, -EINVAL);

	shmemcomm_fill_info(&info);
	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long shmemcomm_dev_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case SHMEMCOMM_IOC_GET_INFO:
		return shmemcomm_ioctl_get_info(uarg);
	case SHMEMCOMM_IOC_CREATE:
		return shmemcomm_ioctl_create(uarg);
	case SHMEMCOMM_IOC_CREATE_USER:
		return shmemcomm_ioctl_create_user(uarg);
	case SHMEMCOMM_IOC_CREATE_DMABUF:
		return shmemcomm_ioctl_create_dmabuf(uarg);
	case SHMEMCOMM_IOC_IMPORT:
		return shmemcomm_ioctl_import(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations shmemcomm_dev_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = shmemcomm_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static ssize_t pinned_pages_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&shmemcomm_pinned_pages));
}
static DEVICE_ATTR_RO(pinned_pages);

static ssize_t device_pages_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&shmemcomm_device_pages));
}
static DEVICE_ATTR_RO(device_pages);

static ssize_t live_regions_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&shmemcomm_live_regions));
}
static DEVICE_ATTR_RO(live_regions);

static ssize_t max_pinned_pages_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n", shmemcomm_max_pinned_pages());
}
static DEVICE_ATTR_RO(max_pinned_pages);

/* udev cannot read module parameters; the rule reads this instead */
static ssize_t gid_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_gid);
}
static DEVICE_ATTR_RO(gid);

static struct attribute *shmemcomm_attrs[] = {
	&dev_attr_pinned_pages.attr,
	&dev_attr_device_pages.attr,
	&dev_attr_live_regions.attr,
	&dev_attr_max_pinned_pages.attr,
	&dev_attr_gid.attr,
	NULL,
};
ATTRIBUTE_GROUPS(shmemcomm);

static struct miscdevice shmemcomm_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "shmemcomm",
	.fops = &shmemcomm_dev_fops,
	.groups = shmemcomm_groups,
};

struct device *shmemcomm_dma_device(void)
{
	return &shmemcomm_pdev->dev;
}

static int shmemcomm_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, SHMEMCOMM_FS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type shmemcomm_fs_type = {
	.name = "shmemcomm",
	.init_fs_context = shmemcomm_init_fs_context,
	.kill_sb = kill_anon_super,
};

static int __init shmemcomm_init(void)
{
	int err;

	if (!max_pinned_mb)
		max_pinned_mb = (totalram_pages() >> 1) >> (20 - PAGE_SHIFT);
	if (dev_mode & ~0777) {
		pr_err("dev_mode %#o has bits outside 0777\n", dev_mode);
		return -EINVAL;
	}

	shmemcomm_mnt = kern_mount(&shmemcomm_fs_type);
	if (IS_ERR(shmemcomm_mnt))
		return PTR_ERR(shmemcomm_mnt);

	shmemcomm_wq = alloc_workqueue("shmemcomm", 0, 0);
	if (!shmemcomm_wq) {
		err = -ENOMEM;
		goto err_unmount;
	}

	shmemcomm_pdev = platform_device_register_simple("shmemcomm", -1, NULL, 0);
	if (IS_ERR(shmemcomm_pdev)) {
		err = PTR_ERR(shmemcomm_pdev);
		goto err_destroy_wq;
	}
	err = dma_coerce_mask_and_coherent(&shmemcomm_pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_unregister_pdev;

	err = shmemcomm_netlink_init();
	if (err)
		goto err_unregister_pdev;

	shmemcomm_misc.mode = dev_mode;
	err = misc_register(&shmemcomm_misc);
	if (err)
		goto err_netlink;

	pr_info("ABI %u.%u, cap %lu MiB pinned\n", SHMEMCOMM_ABI_MAJOR,
		SHMEMCOMM_ABI_MINOR, max_pinned_mb);
	return 0;

err_netlink:
	shmemcomm_netlink_exit();
err_unregister_pdev:
	platform_device_unregister(shmemcomm_pdev);
err_destroy_wq:
	destroy_workqueue(shmemcomm_wq);
err_unmount:
	kern_unmount(shmemcomm_mnt);
	return err;
}

static void __exit shmemcomm_exit(void)
{
	misc_deregister(&shmemcomm_misc);
	shmemcomm_netlink_exit();
	platform_device_unregister(shmemcomm_pdev);
	/* drains: the last region may go here, and needs the mount */
	destroy_workqueue(shmemcomm_wq);
	kern_unmount(shmemcomm_mnt);
}

module_init(shmemcomm_init);
module_exit(shmemcomm_exit);

MODULE_DESCRIPTION("Pinned memory regions shared across processes and with RDMA NICs");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
