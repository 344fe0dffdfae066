/* A 32-bit process (built -m32) uses the same ABI through compat_ioctl:
 * create, export, import, mmap, region info, dma-buf and revoke all work,
 * with the layout of abi_layout.h. */
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "abi_layout.h"
#include "guest.h"

#define SIZE (1u << 20)

_Static_assert(sizeof(void *) == 4, "compat32 must be built with -m32");

int main(void)
{
	struct sc_kmod_region owner, imported;
	struct shmemcomm_region_info info;
	struct shmemcomm_dmabuf dmabuf = { 0 };
	struct counters baseline;
	struct sc_kmod dev;
	uint8_t *via_dmabuf;

	read_baseline(&baseline);
	open_device(&dev);
	CHECK_EQ(dev.info.abi_major, SHMEMCOMM_ABI_MAJOR);
	CHECK_EQ(dev.info.max_region_size, 1ull << 40);
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &owner));
	CHECK_EQ(owner.size, SIZE);
	CHECK_OK(sc_kmod_map(&owner, 1));
	fill_pattern(owner.addr, SIZE, 41);
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_ANY));
	CHECK(owner.handle != 0);
	/* the 64-bit handle survives the 32-bit path whole */
	CHECK_OK(sc_kmod_import(&dev, owner.handle, 0, &imported));
	CHECK_EQ(imported.size, SIZE);
	CHECK_OK(sc_kmod_map(&imported, 1));
	CHECK(check_pattern(imported.addr, SIZE, 41));
	CHECK_OK(sc_kmod_region_info(&imported, &info));
	CHECK_EQ(info.handle, owner.handle);
	CHECK_EQ(info.size, SIZE);
	CHECK_EQ(info.numa_node, SHMEMCOMM_NUMA_ANY);
	CHECK_EQ(info.state, SHMEMCOMM_STATE_WRITABLE | SHMEMCOMM_STATE_EXPORTED);

	CHECK(ioctl(owner.fd, SHMEMCOMM_IOC_EXPORT_DMABUF, &dmabuf) == 0);
	via_dmabuf = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, dmabuf.fd, 0);
	CHECK(via_dmabuf != MAP_FAILED);
	CHECK(check_pattern(via_dmabuf, SIZE, 41));

	CHECK_OK(sc_kmod_revoke(&owner));
	CHECK_EQ(probe_read(imported.addr), SIGBUS);
	CHECK(check_pattern(owner.addr, SIZE, 41));

	CHECK(munmap(via_dmabuf, SIZE) == 0);
	close(dmabuf.fd);
	sc_kmod_release(&imported);
	sc_kmod_release(&owner);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
