/* GET_INFO reports the ABI, features and limits; the library accepts this
 * module, would refuse another major, and says so when a module of an older
 * minor lacks a feature; the device node has dev_mode. */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest.h"

int main(void)
{
	struct shmemcomm_info info = { 0 }, other;
	struct sc_kmod_region region;
	struct sc_kmod dev, old;
	char why[512], want[32];
	struct stat st;

	open_device(&dev);
	CHECK_EQ(dev.info.abi_major, SHMEMCOMM_ABI_MAJOR);
	CHECK_EQ(dev.info.abi_minor, SHMEMCOMM_ABI_MINOR);
	CHECK(dev.info.features & SHMEMCOMM_FEATURE_EXPORT);
	CHECK(dev.info.features & SHMEMCOMM_FEATURE_DMABUF);
	CHECK(dev.info.features & SHMEMCOMM_FEATURE_DEVICE_MEMORY);
	CHECK_EQ(dev.info.page_size, sysconf(_SC_PAGESIZE));
	CHECK_EQ(dev.info.chunk_size, 2 << 20);
	CHECK_EQ(dev.info.max_pinned,
		 read_number(PARAM_DIR "max_pinned_mb") << 20);
	CHECK_EQ(dev.info.pinned, read_number(SYSFS_DIR "pinned_pages") * 4096);
	CHECK_EQ(dev.info.device, read_number(SYSFS_DIR "device_pages") * 4096);
	CHECK_EQ(dev.info.live_regions, read_number(SYSFS_DIR "live_regions"));

	/* reserved must be zero; unknown commands are not ours */
	info.reserved[2] = 1;
	CHECK(ioctl(dev.fd, SHMEMCOMM_IOC_GET_INFO, &info) == -1 && errno == EINVAL);
	/* device was reserved before ABI minor 2, and is output only */
	info.reserved[2] = 0;
	info.device = 1;
	CHECK(ioctl(dev.fd, SHMEMCOMM_IOC_GET_INFO, &info) == -1 && errno == EINVAL);
	CHECK(ioctl(dev.fd, _IOWR(SHMEMCOMM_IOC_MAGIC, 0x7f, struct shmemcomm_info),
		    &info) == -1 && errno == ENOTTY);
	CHECK(ioctl(dev.fd, SHMEMCOMM_IOC_GET_INFO, (void *)8) == -1 && errno == EFAULT);

	/* the library's refusal names both versions */
	other = dev.info;
	other.abi_major = SHMEMCOMM_ABI_MAJOR + 1;
	CHECK_ERR(sc_kmod_check_abi(&other, why, sizeof(why)), EPROTO);
	snprintf(want, sizeof(want), "ABI %d.%u", SHMEMCOMM_ABI_MAJOR + 1, other.abi_minor);
	CHECK(strstr(why, want) && strstr(why, "needs ABI major 1"));

	/* a module of ABI minor 0 has no user-memory regions: said, not crashed */
	CHECK(dev.info.features & SHMEMCOMM_FEATURE_USER_MEMORY);
	old = dev;
	old.info.abi_minor = 0;
	old.info.features &= ~SHMEMCOMM_FEATURE_USER_MEMORY;
	CHECK_ERR_LOGGED(sc_kmod_create_user(&old, why, sizeof(why), 0, NULL, &region),
			 EOPNOTSUPP, "has no user-memory regions");

	CHECK(stat(SHMEMCOMM_DEVICE_PATH, &st) == 0);
	CHECK(S_ISCHR(st.st_mode));
	CHECK_EQ(st.st_mode & 0777, read_number(PARAM_DIR "dev_mode"));
	CHECK_EQ(read_number(SYSFS_DIR "gid"), read_number(PARAM_DIR "dev_gid"));
	sc_kmod_close(&dev);
	return 0;
}
