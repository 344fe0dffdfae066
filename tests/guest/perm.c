/* Imports are checked against the importer's credentials and the export's
 * scope; a read-only import can never be mapped writable. */
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "guest.h"

#define SIZE (64u << 10)

struct attempt {
	uint64_t handle;
	uid_t uid;
	gid_t gid;
	uint32_t import_flags;
	int want;	/* errno wanted from import, 0 for success */
};

static int try_import(void *arg)
{
	const struct attempt *a = arg;
	struct sc_kmod_region region;
	struct sc_kmod dev;

	become(a->uid, a->gid);
	open_device(&dev);
	if (a->want)
		CHECK_ERR(sc_kmod_import(&dev, a->handle, a->import_flags, &region),
			  a->want);
	else
		CHECK_OK(sc_kmod_import(&dev, a->handle, a->import_flags, &region));
	return 0;
}

static void expect_import(uint64_t handle, uid_t uid, gid_t gid,
			  uint32_t import_flags, int want, const char *what)
{
	struct attempt a = { handle, uid, gid, import_flags, want };

	expect_child_ok(run_child(try_import, &a), what);
}

static int read_only_mapping(void *arg)
{
	const uint64_t *handle = arg;
	struct shmemcomm_region_info info;
	struct sc_kmod_region region;
	struct sc_kmod dev;
	uint8_t *p;

	become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
	open_device(&dev);
	CHECK_OK(sc_kmod_import(&dev, *handle, SHMEMCOMM_IMPORT_RDONLY, &region));
	CHECK_OK(sc_kmod_region_info(&region, &info));
	CHECK(!(info.state & SHMEMCOMM_STATE_WRITABLE));
	CHECK(!(info.state & SHMEMCOMM_STATE_OWNER));

	CHECK_ERR(sc_kmod_map(&region, 1), EACCES);
	CHECK(mmap(NULL, SIZE, PROT_READ, MAP_PRIVATE, region.fd, 0) == MAP_FAILED);
	CHECK_OK(sc_kmod_map(&region, 0));
	p = region.addr;
	CHECK(check_pattern(p, SIZE, 7));
	/* VM_MAYWRITE is gone: no later upgrade either */
	CHECK(mprotect(p, SIZE, PROT_READ | PROT_WRITE) == -1 && errno == EACCES);
	CHECK_EQ(probe_write(p, 1), SIGSEGV);

	/* only the owner exports or revokes */
	CHECK_ERR_LOGGED(sc_kmod_export(&region, 0), EPERM, "Operation not permitted");
	CHECK_ERR(sc_kmod_revoke(&region), EPERM);
	sc_kmod_release(&region);
	return 0;
}

int main(void)
{
	struct sc_kmod_region owner_only, group, any, rdonly;
	struct counters baseline;
	struct sc_kmod dev;

	read_baseline(&baseline);
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &owner_only));
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &group));
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &any));
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &rdonly));
	CHECK_OK(sc_kmod_export(&owner_only, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	CHECK_OK(sc_kmod_export(&group, SHMEMCOMM_EXPORT_SCOPE_GROUP));
	CHECK_OK(sc_kmod_export(&any, SHMEMCOMM_EXPORT_SCOPE_ANY));
	CHECK_OK(sc_kmod_export(&rdonly, SHMEMCOMM_EXPORT_SCOPE_ANY |
				SHMEMCOMM_EXPORT_RDONLY));
	CHECK_ERR_LOGGED(sc_kmod_export(&any, 0), EBUSY, "Device or resource busy");
	CHECK_OK(sc_kmod_map(&rdonly, 1));
	fill_pattern(rdonly.addr, SIZE, 7);

	/* the owner is root (uid 0, gid 0) */
	expect_import(owner_only.handle, 0, 0, 0, 0, "owner's uid, owner scope");
	expect_import(owner_only.handle, UNPRIVILEGED_UID, 0, 0, EACCES,
		      "another uid, owner scope");
	expect_import(group.handle, UNPRIVILEGED_UID, 0, 0, 0,
		      "another uid in the owner's group, group scope");
	expect_import(group.handle, UNPRIVILEGED_UID, UNPRIVILEGED_GID, 0, EACCES,
		      "another uid and group, group scope");
	expect_import(any.handle, UNPRIVILEGED_UID, UNPRIVILEGED_GID, 0, 0,
		      "anyone, any scope");
	expect_import(rdonly.handle, UNPRIVILEGED_UID, UNPRIVILEGED_GID, 0, EACCES,
		      "a writable import of a read-only export");
	expect_import(0x1234, 0, 0, 0, ENOENT, "an unknown handle");
	expect_child_ok(run_child(read_only_mapping, &rdonly.handle),
			"read-only import");

	/* a read-only import of a writable export is read-only too */
	expect_import(owner_only.handle, 0, 0, SHMEMCOMM_IMPORT_RDONLY, 0,
		      "read-only import, owner scope");

	sc_kmod_release(&owner_only);
	sc_kmod_release(&group);
	sc_kmod_release(&any);
	sc_kmod_release(&rdonly);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
