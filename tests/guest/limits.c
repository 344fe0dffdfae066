/* Creates are charged to RLIMIT_MEMLOCK (ENOMEM past it, unless
 * CAP_IPC_LOCK) and to the module-wide cap (EPERM past it); bad arguments
 * get EINVAL or EFAULT before anything is allocated. */
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/resource.h>

#include "guest.h"

#define KIB 1024ull

static int memlock_refused(void *arg)
{
	struct rlimit lim = { 64 * KIB, 64 * KIB };
	struct sc_kmod_region a, b, c;
	struct sc_kmod dev;

	(void)arg;
	become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
	CHECK(setrlimit(RLIMIT_MEMLOCK, &lim) == 0);
	open_device(&dev);
	CHECK_ERR_LOGGED(sc_kmod_create(&dev, 1024 * KIB, SHMEMCOMM_NUMA_ANY, &a), ENOMEM,
			 "over RLIMIT_MEMLOCK");
	CHECK_OK(sc_kmod_create(&dev, 32 * KIB, SHMEMCOMM_NUMA_ANY, &a));
	CHECK_OK(sc_kmod_create(&dev, 32 * KIB, SHMEMCOMM_NUMA_ANY, &b));
	/* the two above used the whole limit */
	CHECK_ERR_LOGGED(sc_kmod_create(&dev, 4 * KIB, SHMEMCOMM_NUMA_ANY, &c), ENOMEM,
			 "over RLIMIT_MEMLOCK");
	sc_kmod_release(&a);
	/* closing one gave its share back */
	CHECK_OK(sc_kmod_create(&dev, 32 * KIB, SHMEMCOMM_NUMA_ANY, &c));
	sc_kmod_release(&b);
	sc_kmod_release(&c);
	return 0;
}

static int ipc_lock_bypasses(void *arg)
{
	struct rlimit lim = { 0, 0 };
	struct sc_kmod_region a;
	struct sc_kmod dev;

	(void)arg;
	/* still root, so CAP_IPC_LOCK */
	CHECK(setrlimit(RLIMIT_MEMLOCK, &lim) == 0);
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, 1024 * KIB, SHMEMCOMM_NUMA_ANY, &a));
	sc_kmod_release(&a);
	return 0;
}

static void bad_arguments(struct sc_kmod *dev)
{
	struct shmemcomm_create args;
	struct sc_kmod_region region;

	CHECK_ERR_LOGGED(sc_kmod_create(dev, 0, SHMEMCOMM_NUMA_ANY, &region), EINVAL,
			 "the size must be 1..");
	CHECK_ERR_LOGGED(sc_kmod_create(dev, dev->info.max_region_size + 1, SHMEMCOMM_NUMA_ANY,
					&region), EINVAL, "the size must be 1..");
	CHECK_ERR_LOGGED(sc_kmod_create(dev, UINT64_MAX, SHMEMCOMM_NUMA_ANY, &region), EINVAL,
			 "the size must be 1..");
	CHECK_ERR_LOGGED(sc_kmod_create(dev, 4 * KIB, 4096, &region), EINVAL, "on NUMA node 4096");
	CHECK_ERR_LOGGED(sc_kmod_create(dev, 4 * KIB, -7, &region), EINVAL, "on NUMA node -7");

	memset(&args, 0, sizeof(args));
	args.size = 4 * KIB;
	args.numa_node = SHMEMCOMM_NUMA_ANY;
	args.flags = 1;
	CHECK(ioctl(dev->fd, SHMEMCOMM_IOC_CREATE, &args) == -1 && errno == EINVAL);
	args.flags = 0;
	args.reserved[0] = 1;
	CHECK(ioctl(dev->fd, SHMEMCOMM_IOC_CREATE, &args) == -1 && errno == EINVAL);
	CHECK(ioctl(dev->fd, SHMEMCOMM_IOC_CREATE, NULL) == -1 && errno == EFAULT);

	/* rounded up to whole pages, and on node 0 when asked */
	CHECK_OK(sc_kmod_create(dev, 1, 0, &region));
	CHECK_EQ(region.size, 4 * KIB);
	sc_kmod_release(&region);
}

/* Each refusal leaves its reason in the kernel log (ratelimited). */
static void expect_logged(const char *reason)
{
	static char log[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);

	CHECK(n >= 0);
	log[n] = '\0';
	if (!strstr(log, reason))
		FAIL("the kernel log does not say '%s'", reason);
}

int main(void)
{
	struct sc_kmod_region region, refused;
	struct counters baseline;
	struct sc_kmod dev;
	long long saved_cap;
	char cap[32];

	read_baseline(&baseline);
	open_device(&dev);
	bad_arguments(&dev);
	expect_child_ok(run_child(memlock_refused, NULL), "RLIMIT_MEMLOCK");
	expect_child_ok(run_child(ipc_lock_bypasses, NULL), "CAP_IPC_LOCK");

	saved_cap = read_number(PARAM_DIR "max_pinned_mb");
	write_string(PARAM_DIR "max_pinned_mb", "1");
	CHECK_ERR_LOGGED(sc_kmod_create(&dev, 2048 * KIB, SHMEMCOMM_NUMA_ANY, &refused), EPERM,
			 "the module-wide cap is reached");
	CHECK_OK(sc_kmod_create(&dev, 1024 * KIB, SHMEMCOMM_NUMA_ANY, &region));
	CHECK_ERR_LOGGED(sc_kmod_create(&dev, 4 * KIB, SHMEMCOMM_NUMA_ANY, &refused), EPERM,
			 "the module-wide cap is reached");
	snprintf(cap, sizeof(cap), "%lld", saved_cap);
	write_string(PARAM_DIR "max_pinned_mb", cap);
	sc_kmod_release(&region);

	expect_logged("create: size 0 is outside 1..1099511627776 bytes");
	expect_logged("create: NUMA node 4096 is not online");
	expect_logged("create: flags 0x1: none are defined");
	expect_logged("pages refused by RLIMIT_MEMLOCK of uid 1000");
	expect_logged("raise ulimit -l or grant CAP_IPC_LOCK");
	expect_logged("pages refused by the module cap");
	expect_logged("(raise max_pinned_mb)");
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
