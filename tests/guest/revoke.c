/* Revoke: importers' mappings are zapped and their next access gets SIGBUS,
 * new imports and mmaps fail with EKEYREVOKED, and the owner carries on. */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#define SIZE (256u << 10)

int main(void)
{
	struct sc_kmod_region owner, imported, again;
	struct shmemcomm_region_info info;
	struct counters baseline;
	int ready[2], revoked[2];
	struct sc_kmod dev;
	uint64_t handle;
	int status;
	char byte;
	pid_t pid;

	read_baseline(&baseline);
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &owner));
	CHECK_OK(sc_kmod_map(&owner, 1));
	fill_pattern(owner.addr, SIZE, 3);
	CHECK_ERR(sc_kmod_revoke(&owner), EINVAL);	/* never exported */
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	CHECK(pipe(ready) == 0 && pipe(revoked) == 0);

	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		uint8_t *p;

		handle = owner.handle;
		close(ready[0]);
		close(revoked[1]);
		sc_kmod_release(&owner);
		open_device(&dev);
		CHECK_OK(sc_kmod_import(&dev, handle, 0, &imported));
		CHECK_OK(sc_kmod_map(&imported, 1));
		p = imported.addr;
		CHECK(check_pattern(p, SIZE, 3));
		CHECK_EQ(probe_write(p + 100, 0x5a), 0);
		CHECK(write(ready[1], "r", 1) == 1);
		CHECK(read(revoked[0], &byte, 1) == 1);

		CHECK_EQ(probe_read(p), SIGBUS);
		CHECK_EQ(probe_read(p + SIZE - 1), SIGBUS);
		CHECK_EQ(probe_write(p + 4096, 1), SIGBUS);
		CHECK_ERR(sc_kmod_map(&imported, 0), EKEYREVOKED);
		CHECK_ERR(sc_kmod_import(&dev, handle, 0, &again), EKEYREVOKED);
		CHECK_OK(sc_kmod_region_info(&imported, &info));
		CHECK(info.state & SHMEMCOMM_STATE_REVOKED);
		_exit(0);
	}
	/* so that a child that dies ends these reads instead of hanging them */
	close(ready[1]);
	close(revoked[0]);
	CHECK(read(ready[0], &byte, 1) == 1);
	CHECK_EQ(((uint8_t *)owner.addr)[100], 0x5a);
	fill_pattern(owner.addr, SIZE, 3);
	CHECK_OK(sc_kmod_revoke(&owner));
	CHECK_OK(sc_kmod_revoke(&owner));	/* idempotent */
	CHECK(write(revoked[1], "v", 1) == 1);
	CHECK(waitpid(pid, &status, 0) == pid);
	expect_child_ok(status, "importer after revoke");

	/* the owner's mapping was zapped too, and faults back in intact */
	CHECK(check_pattern(owner.addr, SIZE, 3));
	CHECK_EQ(probe_write((uint8_t *)owner.addr + SIZE - 1, 9), 0);
	CHECK_OK(sc_kmod_region_info(&owner, &info));
	CHECK(info.state & SHMEMCOMM_STATE_REVOKED);
	CHECK(info.state & SHMEMCOMM_STATE_OWNER);
	CHECK_ERR(sc_kmod_import(&dev, owner.handle, 0, &again), EKEYREVOKED);

	handle = owner.handle;
	sc_kmod_release(&owner);
	/* with the region gone, so is its handle */
	CHECK_ERR(sc_kmod_import(&dev, handle, 0, &again), ENOENT);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
