/* The kmod back end's checks that need no module: ABI refusal, device path,
 * the messages for a missing or foreign device, and a module of an older
 * minor that lacks user-memory regions. */
#include <stdlib.h>

#include "capture.h"
#include "mem/kmod.h"

static void abi_same_major_is_accepted(void)
{
	struct shmemcomm_info info = { .abi_major = SHMEMCOMM_ABI_MAJOR,
				       .abi_minor = SHMEMCOMM_ABI_MINOR + 5 };
	char why[512] = "";

	CHECK_OK(sc_kmod_check_abi(&info, why, sizeof(why)));
	CHECK_EQ(why[0], 0);
}

static void abi_other_major_is_refused_naming_both(void)
{
	struct shmemcomm_info info = { .abi_major = SHMEMCOMM_ABI_MAJOR + 1,
				       .abi_minor = 3 };
	char why[512];
	char want[64];

	CHECK_ERR(sc_kmod_check_abi(&info, why, sizeof(why)), EPROTO);
	snprintf(want, sizeof(want), "speaks ABI %d.3", SHMEMCOMM_ABI_MAJOR + 1);
	CHECK_CONTAINS(why, want);
	snprintf(want, sizeof(want), "needs ABI major %d", SHMEMCOMM_ABI_MAJOR);
	CHECK_CONTAINS(why, want);

	info.abi_major = SHMEMCOMM_ABI_MAJOR - 1;
	CHECK_ERR(sc_kmod_check_abi(&info, why, sizeof(why)), EPROTO);
}

static void device_path_follows_environment(void)
{
	unsetenv("SHMEMCOMM_DEVICE");
	CHECK(!strcmp(sc_kmod_device_path(), "/dev/shmemcomm"));
	setenv("SHMEMCOMM_DEVICE", "/tmp/other", 1);
	CHECK(!strcmp(sc_kmod_device_path(), "/tmp/other"));
	setenv("SHMEMCOMM_DEVICE", "", 1);
	CHECK(!strcmp(sc_kmod_device_path(), "/dev/shmemcomm"));
	unsetenv("SHMEMCOMM_DEVICE");
}

static void missing_device_says_what_to_do(void)
{
	struct capture cap;
	struct sc_kmod dev;
	const char *text;

	setenv("SHMEMCOMM_DEVICE", "/nonexistent/shmemcomm", 1);
	capture_start(&cap);
	CHECK_ERR(sc_kmod_open(&dev), ENOENT);
	text = capture_end(&cap);
	CHECK_CONTAINS(text, "/nonexistent/shmemcomm");
	CHECK_CONTAINS(text, "insmod shmemcomm.ko");
	CHECK_EQ(dev.fd, -1);
	unsetenv("SHMEMCOMM_DEVICE");
}

static void foreign_device_is_refused(void)
{
	struct capture cap;
	struct sc_kmod dev;
	const char *text;

	setenv("SHMEMCOMM_DEVICE", "/dev/null", 1);
	capture_start(&cap);
	CHECK_ERR(sc_kmod_open(&dev), ENOTTY);
	text = capture_end(&cap);
	CHECK_CONTAINS(text, "GET_INFO on /dev/null failed");
	CHECK_EQ(dev.fd, -1);
	unsetenv("SHMEMCOMM_DEVICE");
}

static void module_without_user_memory_is_refused_by_name(void)
{
	struct sc_kmod dev = { .fd = -1, .info = { .abi_major = SHMEMCOMM_ABI_MAJOR,
						   .features = SHMEMCOMM_FEATURE_EXPORT } };
	struct sc_kmod_region region;
	struct capture cap;
	const char *text;
	char buf[64];

	capture_start(&cap);
	CHECK_ERR(sc_kmod_create_user(&dev, buf, sizeof(buf), 0, NULL, &region), EOPNOTSUPP);
	text = capture_end(&cap);
	CHECK_CONTAINS(text, "has no user-memory regions");
	CHECK_CONTAINS(text, "ABI 1.1 and later");
	CHECK_EQ(region.fd, -1);
}

int main(void)
{
	abi_same_major_is_accepted();
	abi_other_major_is_refused_naming_both();
	device_path_follows_environment();
	missing_device_says_what_to_do();
	foreign_device_is_refused();
	module_without_user_memory_is_refused_by_name();
	return 0;
}
