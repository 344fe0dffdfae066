#include "mem/kmod.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/log.h"

const char *sc_kmod_device_path(void)
{
	const char *env = getenv("SHMEMCOMM_DEVICE");

	return env && *env ? env : SHMEMCOMM_DEVICE_PATH;
}

int sc_kmod_check_abi(const struct shmemcomm_info *info, char *why, size_t len)
{
	if (info->abi_major == SHMEMCOMM_ABI_MAJOR)
		return 0;
	snprintf(why, len,
		 "%s speaks ABI %" PRIu32 ".%" PRIu32 " but this libshmemcomm needs ABI major %d (it was built for %d.%d): load the shmemcomm.ko that came with this library",
		 sc_kmod_device_path(), info->abi_major, info->abi_minor,
		 SHMEMCOMM_ABI_MAJOR, SHMEMCOMM_ABI_MAJOR, SHMEMCOMM_ABI_MINOR);
	return -EPROTO;
}

static int ioctl_errno(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

int sc_kmod_refresh_info(struct sc_kmod *dev)
{
	memset(&dev->info, 0, sizeof(dev->info));
	return ioctl_errno(dev->fd, SHMEMCOMM_IOC_GET_INFO, &dev->info);
}

int sc_kmod_open(struct sc_kmod *dev)
{
	const char *path = sc_kmod_device_path();
	char why[512];
	int err;

	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			sc_error("cannot open %s: it does not exist; load the module (modprobe shmemcomm, or insmod shmemcomm.ko)",
				 path);
		else if (err == -EACCES)
			sc_error("cannot open %s: permission denied; the module parameters dev_mode and dev_gid (with kmod/99-shmemcomm.rules) set who may open it",
				 path);
		else
			sc_error("cannot open %s: %s", path, strerror(-err));
		return err;
	}
	err = sc_kmod_refresh_info(dev);
	if (err) {
		sc_error("GET_INFO on %s failed: %s; is it really shmemcomm.ko?", path,
			 strerror(-err));
		goto err_close;
	}
	err = sc_kmod_check_abi(&dev->info, why, sizeof(why));
	if (err) {
		sc_error("%s", why);
		goto err_close;
	}
	sc_debug("%s: ABI %u.%u, features %#llx", path, dev->info.abi_major,
		 dev->info.abi_minor, (unsigned long long)dev->info.features);
	return 0;

err_close:
	close(dev->fd);
	dev->fd = -1;
	return err;
}

void sc_kmod_close(struct sc_kmod *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

static void explain_create_error(struct sc_kmod *dev, uint64_t size, int numa_node,
				 int err, enum sc_log_level level)
{
	struct rlimit memlock;

	switch (err) {
	case -EINVAL:
		sc_log(level, "cannot create a region of %" PRIu64 " bytes on NUMA node %d: the size must be 1..%llu bytes and the node online",
			 size, numa_node, (unsigned long long)dev->info.max_region_size);
		break;
	case -EPERM:
		sc_kmod_refresh_info(dev);
		sc_log(level, "cannot create a region of %" PRIu64 " bytes: the module-wide cap is reached (%llu of %llu bytes pinned); raise /sys/module/shmemcomm/parameters/max_pinned_mb",
			 size, (unsigned long long)dev->info.pinned,
			 (unsigned long long)dev->info.max_pinned);
		break;
	case -ENOMEM:
		getrlimit(RLIMIT_MEMLOCK, &memlock);
		sc_log(level, "cannot create a region of %" PRIu64 " bytes: over RLIMIT_MEMLOCK (%llu bytes; raise ulimit -l or grant CAP_IPC_LOCK) or out of memory (dmesg says which)",
			 size, (unsigned long long)memlock.rlim_cur);
		break;
	default:
		sc_log(level, "cannot create a region of %" PRIu64 " bytes: %s", size,
			 strerror(-err));
	}
}

static void region_clear(struct sc_kmod_region *region)
{
	memset(region, 0, sizeof(*region));
	region->fd = -1;
}

int sc_kmod_create(struct sc_kmod *dev, uint64_t size, int numa_node,
		   struct sc_kmod_region *region)
{
	struct shmemcomm_create args = { .size = size, .numa_node = numa_node };
	int err;

	region_clear(region);
	err = ioctl_errno(dev->fd, SHMEMCOMM_IOC_CREATE, &args);
	if (err) {
		explain_create_error(dev, size, numa_node, err, SC_LOG_ERROR);
		return err;
	}
	region->fd = args.fd;
	region->size = args.size;
	return 0;
}

int sc_kmod_has(const struct sc_kmod *dev, uint64_t features)
{
	return (dev->info.features & features) == features;
}

static void explain_create_user_error(struct sc_kmod *dev, const void *addr,
				      uint64_t size, int err, enum sc_log_level level)
{
	switch (err) {
	case -EFAULT:
		sc_log(level, "cannot make a region of %" PRIu64 " bytes at %p: part of it is not mapped (dmesg names the address)",
			 size, addr);
		break;
	case -EOPNOTSUPP:
		sc_log(level, "cannot make a region of %" PRIu64 " bytes at %p: it has memory that cannot be pinned (an I/O or PFN mapping, or DAX; dmesg says which)",
			 size, addr);
		break;
	case -EACCES:
		sc_log(level, "cannot make a writable region of %" PRIu64 " bytes at %p: the memory is read-only",
			 size, addr);
		break;
	case -EINVAL:
		sc_log(level, "cannot make a region of %" PRIu64 " bytes at %p: the range must be 1..%llu bytes of user addresses, the flags within %#x and the stale word an aligned user address",
			 size, addr, (unsigned long long)dev->info.max_region_size,
			 SHMEMCOMM_USER_FLAGS);
		break;
	case -EAGAIN:
		sc_log(level, "cannot make a region of %" PRIu64 " bytes at %p: the range kept changing (munmap or madvise by another thread) while it was pinned",
			 size, addr);
		break;
	default:
		explain_create_error(dev, size, SHMEMCOMM_NUMA_ANY, err, level);
	}
}

int sc_kmod_create_user(struct sc_kmod *dev, const void *addr, uint64_t size,
			uint32_t flags, volatile uint32_t *stale_word,
			struct sc_kmod_region *region)
{
	return sc_kmod_create_user_logged(dev, addr, size, flags, stale_word, region,
					  SC_LOG_ERROR);
}

int sc_kmod_create_user_logged(struct sc_kmod *dev, const void *addr, uint64_t size,
			       uint32_t flags, volatile uint32_t *stale_word,
			       struct sc_kmod_region *region, enum sc_log_level level)
{
	struct shmemcomm_create_user args = {
		.addr = (uintptr_t)addr,
		.size = size,
		.stale_word = (uintptr_t)stale_word,
		.flags = flags,
	};
	int err;

	region_clear(region);
	if (!sc_kmod_has(dev, SHMEMCOMM_FEATURE_USER_MEMORY)) {
		sc_log(level, "%s (ABI %u.%u) has no user-memory regions (feature %#llx, ABI 1.1 and later): load the shmemcomm.ko that came with this library",
			 sc_kmod_device_path(), dev->info.abi_major,
			 dev->info.abi_minor,
			 (unsigned long long)SHMEMCOMM_FEATURE_USER_MEMORY);
		return -EOPNOTSUPP;
	}
	err = ioctl_errno(dev->fd, SHMEMCOMM_IOC_CREATE_USER, &args);
	if (err) {
		explain_create_user_error(dev, addr, size, err, level);
		return err;
	}
	region->fd = args.fd;
	region->size = args.length;
	region->user_start = args.start;
	return 0;
}

static void explain_create_dmabuf_error(struct sc_kmod *dev, int dmabuf_fd, int err)
{
	switch (err) {
	case -EBADF:
		sc_error("cannot make a region of fd %d: it is not an open dma-buf of another driver (a dma-buf of shmemcomm's own is shared by handle instead)",
			 dmabuf_fd);
		break;
	case -ENODEV:
		sc_error("cannot make a region of dma-buf fd %d: its exporter refuses to attach a device (dmesg names it)",
			 dmabuf_fd);
		break;
	case -EACCES:
		sc_error("cannot make a writable region of dma-buf fd %d: the dma-buf is read-only",
			 dmabuf_fd);
		break;
	case -EINVAL:
		sc_error("cannot make a region of dma-buf fd %d: its size must be whole pages of %u bytes, at most %llu bytes (dmesg gives the size)",
			 dmabuf_fd, dev->info.page_size,
			 (unsigned long long)dev->info.max_region_size);
		break;
	case -EPERM:
		sc_kmod_refresh_info(dev);
		sc_error("cannot make a region of dma-buf fd %d: the module-wide cap is reached (%llu bytes pinned and %llu of device memory, of %llu); raise /sys/module/shmemcomm/parameters/max_pinned_mb",
			 dmabuf_fd, (unsigned long long)dev->info.pinned,
			 (unsigned long long)dev->info.device,
			 (unsigned long long)dev->info.max_pinned);
		break;
	default:
		sc_error("cannot make a region of dma-buf fd %d: %s", dmabuf_fd, strerror(-err));
	}
}

int sc_kmod_create_dmabuf(struct sc_kmod *dev, int dmabuf_fd, uint32_t flags,
			  struct sc_kmod_region *region, int *cpu_mappable)
{
	struct shmemcomm_create_dmabuf args = { .dmabuf_fd = dmabuf_fd, .flags = flags };
	int err;

	region_clear(region);
	if (!sc_kmod_has(dev, SHMEMCOMM_FEATURE_DEVICE_MEMORY)) {
		sc_error("%s (ABI %u.%u) has no dma-buf regions (feature %#llx, ABI 1.2 and later): load the shmemcomm.ko that came with this library",
			 sc_kmod_device_path(), dev->info.abi_major, dev->info.abi_minor,
			 (unsigned long long)SHMEMCOMM_FEATURE_DEVICE_MEMORY);
		return -EOPNOTSUPP;
	}
	err = ioctl_errno(dev->fd, SHMEMCOMM_IOC_CREATE_DMABUF, &args);
	if (err) {
		explain_create_dmabuf_error(dev, dmabuf_fd, err);
		return err;
	}
	region->fd = args.fd;
	region->size = args.size;
	if (cpu_mappable)
		*cpu_mappable = !!(args.mappable & SHMEMCOMM_DMABUF_CPU_MAPPABLE);
	return 0;
}

int sc_kmod_export(struct sc_kmod_region *region, uint32_t flags)
{
	struct shmemcomm_export args = { .flags = flags };
	int err;

	err = ioctl_errno(region->fd, SHMEMCOMM_IOC_EXPORT, &args);
	if (err) {
		sc_error("cannot export a region with flags %#x: %s", flags,
			 strerror(-err));
		return err;
	}
	region->handle = args.handle;
	return 0;
}

int sc_kmod_export_dmabuf(const struct sc_kmod_region *region)
{
	struct shmemcomm_dmabuf args = { 0 };
	int err;

	err = ioctl_errno(region->fd, SHMEMCOMM_IOC_EXPORT_DMABUF, &args);
	if (err)
		return err;
	return args.fd;
}

int sc_kmod_import(struct sc_kmod *dev, uint64_t handle, uint32_t flags,
		   struct sc_kmod_region *region)
{
	struct shmemcomm_import args = { .handle = handle, .flags = flags };
	int err;

	region_clear(region);
	err = ioctl_errno(dev->fd, SHMEMCOMM_IOC_IMPORT, &args);
	if (err) {
		/* callers that expect a refusal check the errno, not the log */
		sc_info("cannot import handle %#" PRIx64 ": %s", handle,
			err == -EKEYREVOKED ? "the owner revoked it" :
			err == -ESTALE ? "its owner's memory changed under it (stale)" :
			strerror(-err));
		return err;
	}
	region->fd = args.fd;
	region->size = args.size;
	region->handle = handle;
	return 0;
}

int sc_kmod_revoke(struct sc_kmod_region *region)
{
	struct shmemcomm_revoke args = { 0 };

	return ioctl_errno(region->fd, SHMEMCOMM_IOC_REVOKE, &args);
}

int sc_kmod_region_info(const struct sc_kmod_region *region,
			struct shmemcomm_region_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl_errno(region->fd, SHMEMCOMM_IOC_REGION_INFO, info);
}

int sc_kmod_map(struct sc_kmod_region *region, int writable)
{
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);
	void *addr;

	addr = mmap(NULL, region->size, prot, MAP_SHARED, region->fd, 0);
	if (addr == MAP_FAILED)
		return -errno;
	region->addr = addr;
	region->mapped = region->size;
	return 0;
}

void sc_kmod_release(struct sc_kmod_region *region)
{
	if (region->addr)
		munmap(region->addr, region->mapped);
	if (region->fd >= 0)
		close(region->fd);
	region_clear(region);
}
