// SPDX-License-Identifier: GPL-2.0
/*
 * Export, import and revoke: the global handle table and its permissions.
 *
 * The table holds no reference on a region: an export does not keep a region
 * alive, its files and mappings do. A lookup takes a reference only if the
 * region is not already on its way out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "shmemcomm.h"

static DEFINE_SPINLOCK(shmemcomm_handles_lock);
static DEFINE_HASHTABLE(shmemcomm_handles, 10);

int shmemcomm_validate_export(const struct shmemcomm_export *args)
{
	if (args->flags & ~SHMEMCOMM_EXPORT_FLAGS ||
	    (args->flags & SHMEMCOMM_EXPORT_SCOPE_MASK) > SHMEMCOMM_EXPORT_SCOPE_ANY) {
		pr_warn_ratelimited("export: flags %#x: known flags are %#x, scopes 0..%u\n",
				    args->flags, SHMEMCOMM_EXPORT_FLAGS,
				    SHMEMCOMM_EXPORT_SCOPE_ANY);
		return -EINVAL;
	}
	if (args->pad ||
	    !shmemcomm_reserved_zero(args->reserved, sizeof(args->reserved)))
		return -EINVAL;
	return 0;
}

int shmemcomm_validate_import(const struct shmemcomm_import *args)
{
	if (args->flags & ~SHMEMCOMM_IMPORT_FLAGS) {
		pr_warn_ratelimited("import: flags %#x: known flags are %#x\n",
				    args->flags, SHMEMCOMM_IMPORT_FLAGS);
		return -EINVAL;
	}
	if (!shmemcomm_reserved_zero(args->reserved, sizeof(args->reserved)))
		return -EINVAL;
	if (!args->handle)
		return -ENOENT;
	return 0;
}

/*
 * May an importer with these credentials import with @import_flags?
 * @same_uid: its euid is the owner's; @in_group: it is in the owner's egid.
 */
int shmemcomm_import_access(u32 export_flags, u32 import_flags,
			    bool same_uid, bool in_group)
{
	switch (export_flags & SHMEMCOMM_EXPORT_SCOPE_MASK) {
	case SHMEMCOMM_EXPORT_SCOPE_OWNER:
		if (!same_uid)
			return -EACCES;
		break;
	case SHMEMCOMM_EXPORT_SCOPE_GROUP:
		if (!same_uid && !in_group)
			return -EACCES;
		break;
	case SHMEMCOMM_EXPORT_SCOPE_ANY:
		break;
	default:
		return -EACCES;
	}
	if ((export_flags & SHMEMCOMM_EXPORT_RDONLY) &&
	    !(import_flags & SHMEMCOMM_IMPORT_RDONLY))
		return -EACCES;
	return 0;
}

static struct shmemcomm_region *shmemcomm_handle_find(u64 handle)
{
	struct shmemcomm_region *region;

	lockdep_assert_held(&shmemcomm_handles_lock);
	hash_for_each_possible(shmemcomm_handles, region, handle_node, handle)
		if (region->handle == handle)
			return region;
	return NULL;
}

/* Caller holds region->lock; the region is not exported yet. */
int shmemcomm_handle_publish(struct shmemcomm_region *region, u32 flags)
{
	u64 handle;

	lockdep_assert_held(&region->lock);
	spin_lock(&shmemcomm_handles_lock);
	do {
		handle = get_random_u64();
	} while (!handle || shmemcomm_handle_find(handle));
	region->handle = handle;
	region->export_flags = flags;
	hash_add(shmemcomm_handles, &region->handle_node, handle);
	spin_unlock(&shmemcomm_handles_lock);
	return 0;
}

/* A referenced region, or ERR_PTR(-ENOENT) or ERR_PTR(-EKEYREVOKED). */
struct shmemcomm_region *shmemcomm_handle_get(u64 handle)
{
	struct shmemcomm_region *region;
	bool revoked = false;

	spin_lock(&shmemcomm_handles_lock);
	region = shmemcomm_handle_find(handle);
	if (region && !kref_get_unless_zero(&region->kref))
		region = NULL;
	if (region)
		revoked = region->revoked;
	spin_unlock(&shmemcomm_handles_lock);

	if (!region)
		return ERR_PTR(-ENOENT);
	if (revoked) {
		/* outside the lock: this may be the last reference */
		shmemcomm_region_put(region);
		return ERR_PTR(-EKEYREVOKED);
	}
	return region;
}

void shmemcomm_handle_unpublish(struct shmemcomm_region *region)
{
	spin_lock(&shmemcomm_handles_lock);
	if (region->handle)
		hash_del(&region->handle_node);
	spin_unlock(&shmemcomm_handles_lock);
}

long shmemcomm_ioctl_export(struct shmemcomm_region_file *rf, void __user *uarg)
{
	struct shmemcomm_region *region = rf->region;
	struct shmemcomm_export args;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	err = shmemcomm_validate_export(&args);
	if (err)
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, err);
	if (!rf->owner)
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_NOT_OWNER, -EPERM);
	/* its pages may be the zero page, or a file's cache: never written */
	if (region->read_only && !(args.flags & SHMEMCOMM_EXPORT_RDONLY)) {
		pr_warn_ratelimited("export: region %llu was pinned read-only: export it with SHMEMCOMM_EXPORT_RDONLY\n",
				    region->id);
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_ACCESS, -EACCES);
	}

	mutex_lock(&region->lock);
	if (region->handle)
		err = shmemcomm_refuse(SHMEMCOMM_REFUSAL_EXPORTED, -EBUSY);
	else
		err = shmemcomm_handle_publish(region, args.flags);
	args.handle = region->handle;
	mutex_unlock(&region->lock);
	if (err)
		return err;

	if (copy_to_user(uarg, &args, sizeof(args)))
		return -EFAULT;
	return 0;
}

long shmemcomm_ioctl_import(void __user *uarg)
{
	struct shmemcomm_region *region;
	struct shmemcomm_import args;
	struct file *file;
	bool writable;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	err = shmemcomm_validate_import(&args);
	if (err)
		return shmemcomm_refuse(err == -ENOENT ?
					SHMEMCOMM_REFUSAL_NO_HANDLE :
					SHMEMCOMM_REFUSAL_INVALID, err);

	region = shmemcomm_handle_get(args.handle);
	if (IS_ERR(region))
		return shmemcomm_refuse(PTR_ERR(region) == -ENOENT ?
					SHMEMCOMM_REFUSAL_NO_HANDLE :
					SHMEMCOMM_REFUSAL_REVOKED,
					PTR_ERR(region));
	shmemcomm_user_settle(region);
	if (READ_ONCE(region->stale)) {
		shmemcomm_region_put(region);
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_STALE, -ESTALE);
	}

	err = shmemcomm_import_access(region->export_flags, args.flags,
				      uid_eq(current_euid(), region->owner_uid),
				      in_group_p(region->owner_gid));
	if (err) {
		pr_info_ratelimited("import: uid %u refused %s access to a region of uid %u exported with flags %#x\n",
				    from_kuid(&init_user_ns, current_euid()),
				    args.flags & SHMEMCOMM_IMPORT_RDONLY ? "read" : "write",
				    from_kuid(&init_user_ns, region->owner_uid),
				    region->export_flags);
		shmemcomm_region_put(region);
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_ACCESS, err);
	}

	writable = !(args.flags & SHMEMCOMM_IMPORT_RDONLY);
	args.size = (u64)region->nr_pages << PAGE_SHIFT;
	file = shmemcomm_region_file_open(region, false, writable);
	if (IS_ERR(file))
		return PTR_ERR(file);
	return shmemcomm_install_fd(file, uarg, &args, sizeof(args), &args.fd);
}

int shmemcomm_region_revoke(struct shmemcomm_region_file *rf)
{
	struct shmemcomm_region *region = rf->region;

	if (!rf->owner)
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_NOT_OWNER, -EPERM);

	mutex_lock(&region->lock);
	if (!region->handle) {
		mutex_unlock(&region->lock);
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, -EINVAL);
	}
	spin_lock(&shmemcomm_handles_lock);
	WRITE_ONCE(region->revoked, true);
	spin_unlock(&shmemcomm_handles_lock);
	/*
	 * Every file of the region shares this mapping, the owner's too; the
	 * owner simply faults its pages back in. Under region->lock, so no
	 * importer fault or mmap can slip a PTE in behind the zap.
	 */
	unmap_mapping_range(region->inode->i_mapping, 0, 0, 1);
	mutex_unlock(&region->lock);
	shmemcomm_dmabuf_revoke(region);
	return 0;
}

long shmemcomm_ioctl_revoke(struct shmemcomm_region_file *rf, void __user *uarg)
{
	struct shmemcomm_revoke args;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags || args.pad ||
	    !shmemcomm_reserved_zero(args.reserved, sizeof(args.reserved)))
		return shmemcomm_refuse(SHMEMCOMM_REFUSAL_INVALID, -EINVAL);
	return shmemcomm_region_revoke(rf);
}
