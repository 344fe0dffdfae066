/* Not a test on its own; run-tests loads the module for it. /dev/shmemcomm
 * gets the mode of dev_mode and, through the udev rule
 * kmod/99-shmemcomm.rules, the group of dev_gid: members of that group may
 * open it, others are refused with a message naming both parameters.
 * Usage: devnode MODE GID (run-tests loads the module with those). */
#include <sys/stat.h>

#include "capture.h"
#include "guest.h"

static gid_t dev_gid;

static int member_opens(void *arg)
{
	struct sc_kmod dev;

	(void)arg;
	become(UNPRIVILEGED_UID, dev_gid);
	open_device(&dev);
	sc_kmod_close(&dev);
	return 0;
}

static int outsider_is_refused(void *arg)
{
	struct capture cap;
	struct sc_kmod dev;

	(void)arg;
	become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
	capture_start(&cap);
	CHECK_ERR(sc_kmod_open(&dev), EACCES);
	CHECK_CONTAINS(capture_end(&cap), "dev_mode and dev_gid");
	return 0;
}

int main(int argc, char **argv)
{
	struct stat st;
	mode_t mode;

	if (argc != 3)
		FAIL("usage: devnode MODE GID");
	mode = (mode_t)strtoul(argv[1], NULL, 8);
	dev_gid = (gid_t)strtoul(argv[2], NULL, 10);
	CHECK_EQ(read_number(PARAM_DIR "dev_mode"), mode);
	CHECK_EQ(read_number(SYSFS_DIR "gid"), dev_gid);
	CHECK(stat(SHMEMCOMM_DEVICE_PATH, &st) == 0);
	CHECK_EQ(st.st_mode & 0777, mode);
	CHECK_EQ(st.st_gid, dev_gid);
	expect_child_ok(run_child(member_opens, NULL), "member of dev_gid");
	expect_child_ok(run_child(outsider_is_refused, NULL), "outsider");
	return 0;
}
