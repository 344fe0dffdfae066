/* A region exported as a dma-buf: the fd maps the region's pages, with the
 * access of the file it came from and subject to revoke; it keeps the region
 * alive; ibv_reg_dmabuf_mr on rxe (6.1 lacks it) fails cleanly. */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "verbs.h"

#define SIZE (256u << 10)

static int export_dmabuf(const struct sc_kmod_region *region)
{
	struct shmemcomm_dmabuf args = { 0 };

	CHECK(ioctl(region->fd, SHMEMCOMM_IOC_EXPORT_DMABUF, &args) == 0);
	CHECK(args.fd >= 0);
	CHECK((fcntl(args.fd, F_GETFD) & FD_CLOEXEC) != 0);
	return args.fd;
}

static void reg_dmabuf_mr_fails_cleanly(int dmabuf)
{
	struct rc_end end;
	struct ibv_mr *mr;

	rc_open(&end, 0);
	mr = ibv_reg_dmabuf_mr(end.pd, 0, SIZE, 0, dmabuf,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (mr)
		FAIL("ibv_reg_dmabuf_mr succeeded on rxe; this test expects 6.1's rxe, which lacks it");
	CHECK(errno == EOPNOTSUPP || errno == EPROTONOSUPPORT || errno == ENOSYS);
	printf("ibv_reg_dmabuf_mr on rxe: %s (as expected)\n", strerror(errno));
	rc_close(&end);
}

static int read_only_importer(void *arg)
{
	const uint64_t *handle = arg;
	struct sc_kmod_region region;
	struct sc_kmod dev;
	uint8_t *p;
	int dmabuf;

	open_device(&dev);
	CHECK_OK(sc_kmod_import(&dev, *handle, SHMEMCOMM_IMPORT_RDONLY, &region));
	dmabuf = export_dmabuf(&region);
	CHECK(mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0) ==
	      MAP_FAILED && errno == EACCES);
	p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, dmabuf, 0);
	CHECK(p != MAP_FAILED);
	CHECK(check_pattern(p, SIZE, 31));
	CHECK(mprotect(p, SIZE, PROT_READ | PROT_WRITE) == -1);
	/* revoke reaches mappings made through the importer's dma-buf too */
	kill(getppid(), SIGUSR1);
	for (int i = 0; i < 500 && !probe_read(p); i++)
		usleep(10000);
	CHECK_EQ(probe_read(p), SIGBUS);
	return 0;
}

static struct sc_kmod_region *revoke_on_signal;

static void revoke_handler(int sig)
{
	(void)sig;
	sc_kmod_revoke(revoke_on_signal);
}

int main(void)
{
	struct counters baseline, now;
	struct sc_kmod_region region;
	struct sc_kmod dev;
	uint8_t *via_dmabuf;
	int dmabuf;

	read_baseline(&baseline);
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &region));
	CHECK_OK(sc_kmod_map(&region, 1));
	fill_pattern(region.addr, SIZE, 31);

	dmabuf = export_dmabuf(&region);
	via_dmabuf = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	CHECK(via_dmabuf != MAP_FAILED);
	CHECK(check_pattern(via_dmabuf, SIZE, 31));
	via_dmabuf[5] = 0xa5;
	CHECK_EQ(((uint8_t *)region.addr)[5], 0xa5);
	fill_pattern(region.addr, SIZE, 31);
	CHECK(mmap(NULL, SIZE * 2, PROT_READ, MAP_SHARED, dmabuf, 0) == MAP_FAILED);

	reg_dmabuf_mr_fails_cleanly(dmabuf);

	CHECK_OK(sc_kmod_export(&region, SHMEMCOMM_EXPORT_SCOPE_OWNER |
				SHMEMCOMM_EXPORT_RDONLY));
	revoke_on_signal = &region;
	signal(SIGUSR1, revoke_handler);
	expect_child_ok(run_child(read_only_importer, &region.handle),
			"read-only importer's dma-buf");
	/* the owner's dma-buf mapping outlives the revoke */
	CHECK(check_pattern(via_dmabuf, SIZE, 31));

	/* the dma-buf alone keeps the region */
	CHECK(munmap(via_dmabuf, SIZE) == 0);
	sc_kmod_release(&region);
	read_counters(&now);
	CHECK_EQ(now.live_regions, baseline.live_regions + 1);
	close(dmabuf);
	expect_counters(&baseline);
	sc_kmod_close(&dev);
	return 0;
}
