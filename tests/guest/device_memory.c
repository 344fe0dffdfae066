/* A region over device memory: a vgem dumb buffer exported with PRIME, as a
 * GPU runtime hands out its memory, becomes a region. Another process
 * imports it by handle and maps it through the exporter, and data goes both
 * ways, also to the exporter's own mapping; scope and read-only hold as for
 * other regions; a revoke gives the importer SIGBUS and the owner carries
 * on; a device attached through EXPORT_DMABUF reads the exporter's memory
 * and hears the revoke; memory the CPU cannot map makes a region whose
 * mmap gets ENODEV (counted as unmappable) and which a device still reads; a closed fd, a fd that is not a dma-buf, bad flags,
 * a read-only dma-buf asked for writing, a dma-buf of this module's own
 * and an exporter that refuses attachments each get their errno; the
 * counters come back. */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "importer/importer.h"

#define SIZE (1u << 20)
#define IMPORTER_DEV "/dev/shmemcomm-test-importer"

static uint64_t handle;

static long create_dmabuf(struct sc_kmod *dev, int dmabuf, uint32_t flags, int *region_fd)
{
	struct shmemcomm_create_dmabuf args = { .dmabuf_fd = dmabuf, .flags = flags };

	if (ioctl(dev->fd, SHMEMCOMM_IOC_CREATE_DMABUF, &args))
		return -errno;
	*region_fd = args.fd;
	return 0;
}

static int importer_both_ways(void *arg)
{
	struct sc_kmod_region imported;
	struct shmemcomm_region_info info = { 0 };
	struct sc_kmod dev;

	(void)arg;
	open_device(&dev);
	CHECK_OK(sc_kmod_import(&dev, handle, 0, &imported));
	CHECK_EQ(imported.size, SIZE);
	CHECK_OK(sc_kmod_region_info(&imported, &info));
	CHECK_EQ(info.kind, SHMEMCOMM_KIND_DMABUF);
	CHECK_OK(sc_kmod_map(&imported, 1));
	CHECK(check_pattern(imported.addr, SIZE, 7));
	fill_pattern(imported.addr, SIZE, 8);
	sc_kmod_release(&imported);
	sc_kmod_close(&dev);
	return 0;
}

static int other_user_refused(void *arg)
{
	struct sc_kmod_region imported;
	struct sc_kmod dev;

	(void)arg;
	become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
	open_device(&dev);
	CHECK_ERR(sc_kmod_import(&dev, handle, 0, &imported), EACCES);
	sc_kmod_close(&dev);
	return 0;
}

static int read_only_importer(void *arg)
{
	struct sc_kmod_region imported;
	struct sc_kmod dev;

	(void)arg;
	open_device(&dev);
	CHECK_ERR(sc_kmod_import(&dev, handle, 0, &imported), EACCES);
	CHECK_OK(sc_kmod_import(&dev, handle, SHMEMCOMM_IMPORT_RDONLY, &imported));
	CHECK_ERR(sc_kmod_map(&imported, 1), EACCES);
	CHECK_OK(sc_kmod_map(&imported, 0));
	CHECK(check_pattern(imported.addr, SIZE, 9));
	CHECK(mprotect(imported.addr, SIZE, PROT_READ | PROT_WRITE) == -1);
	sc_kmod_release(&imported);
	sc_kmod_close(&dev);
	return 0;
}

/* Maps, says so through @arg's pipe, waits for the revoke, then finds SIGBUS */
static int importer_revoked(void *arg)
{
	int *pipes = arg;
	struct sc_kmod_region imported, again;
	struct sc_kmod dev;
	uint8_t *p;
	char byte;

	open_device(&dev);
	CHECK_OK(sc_kmod_import(&dev, handle, 0, &imported));
	CHECK_OK(sc_kmod_map(&imported, 1));
	p = imported.addr;
	CHECK_EQ(probe_read(p + SIZE / 2), 0);
	CHECK(write(pipes[1], "m", 1) == 1);
	CHECK(read(pipes[2], &byte, 1) == 1);
	CHECK_EQ(probe_read(p), SIGBUS);
	CHECK_EQ(probe_write(p + SIZE - 1, 1), SIGBUS);
	CHECK_ERR(sc_kmod_map(&imported, 1), EKEYREVOKED);
	CHECK_ERR(sc_kmod_import(&dev, handle, 0, &again), EKEYREVOKED);
	sc_kmod_release(&imported);
	sc_kmod_close(&dev);
	return 0;
}

static void bad_fds(struct sc_kmod *dev, int card)
{
	int closed, region_fd, ro_dmabuf, pipe_fds[2], own_dmabuf, importer_fd, refusing;
	struct sc_kmod_region own, imported;

	/* a closed fd, and fds that are not dma-bufs */
	closed = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(closed >= 0);
	close(closed);
	CHECK_ERR(create_dmabuf(dev, closed, 0, &region_fd), EBADF);
	CHECK(pipe(pipe_fds) == 0);
	CHECK_ERR(create_dmabuf(dev, pipe_fds[0], 0, &region_fd), EBADF);
	CHECK_ERR(create_dmabuf(dev, dev->fd, 0, &region_fd), EBADF);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	/* the library names the refusal */
	CHECK_ERR_LOGGED(sc_kmod_create_dmabuf(dev, closed, 0, &own, NULL), EBADF,
			 "not an open dma-buf");

	/* unknown flags */
	ro_dmabuf = vgem_dumb_dmabuf(card, SIZE, 0);
	CHECK_ERR(create_dmabuf(dev, ro_dmabuf, 0x80, &region_fd), EINVAL);
	/* a read-only dma-buf gives a read-only region only */
	CHECK_ERR(create_dmabuf(dev, ro_dmabuf, 0, &region_fd), EACCES);
	CHECK_OK(create_dmabuf(dev, ro_dmabuf, SHMEMCOMM_DMABUF_RDONLY, &region_fd));
	close(ro_dmabuf);
	own = (struct sc_kmod_region){ .fd = region_fd, .size = SIZE };
	CHECK_ERR_LOGGED(sc_kmod_export(&own, SHMEMCOMM_EXPORT_SCOPE_OWNER), EACCES,
			 "cannot export");
	CHECK_ERR(sc_kmod_map(&own, 1), EACCES);
	CHECK_OK(sc_kmod_map(&own, 0));
	CHECK_EQ(probe_read(own.addr), 0);
	sc_kmod_release(&own);

	/*
	 * This module's own dma-buf: the region behind it is shared by handle.
	 * (A region over one would fault into the other region's handler.)
	 */
	CHECK_OK(sc_kmod_create(dev, SIZE, SHMEMCOMM_NUMA_ANY, &own));
	own_dmabuf = sc_kmod_export_dmabuf(&own);
	CHECK(own_dmabuf >= 0);
	CHECK_ERR(create_dmabuf(dev, own_dmabuf, 0, &region_fd), EBADF);
	CHECK_ERR_LOGGED(sc_kmod_create_dmabuf(dev, own_dmabuf, 0, &imported, NULL), EBADF,
			 "shared by handle");
	close(own_dmabuf);
	sc_kmod_release(&own);

	/* an exporter that refuses attachments (the test importer's) */
	importer_fd = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	CHECK(importer_fd >= 0);
	refusing = ioctl(importer_fd, IMPORTER_IOC_EXPORT_REFUSING);
	CHECK(refusing >= 0);
	close(importer_fd);
	CHECK_ERR(create_dmabuf(dev, refusing, 0, &region_fd), ENODEV);
	CHECK_ERR_LOGGED(sc_kmod_create_dmabuf(dev, refusing, 0, &own, NULL), ENODEV,
			 "refuses to attach a device");
	close(refusing);
}

/*
 * Device memory the CPU cannot map (the test importer's): a region all the
 * same, whose mmap is refused with ENODEV, and which a device still reads
 * through the region's EXPORT_DMABUF.
 */
static void device_only(struct sc_kmod *dev)
{
	struct importer_attach attach = { .dynamic = 1 };
	struct sc_kmod_region region;
	struct importer_state st;
	int importer_fd, buf, mappable, region_dmabuf;
	long unmappable = refusal_count("unmappable");

	importer_fd = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	CHECK(importer_fd >= 0);
	buf = ioctl(importer_fd, IMPORTER_IOC_EXPORT_DEVICE_ONLY);
	CHECK(buf >= 0);
	CHECK_OK(sc_kmod_create_dmabuf(dev, buf, 0, &region, &mappable));
	close(buf);
	CHECK_EQ(mappable, 0);
	CHECK_ERR(sc_kmod_map(&region, 1), ENODEV);
	CHECK_EQ(refusal_count("unmappable"), unmappable + 1);
	region_dmabuf = sc_kmod_export_dmabuf(&region);
	CHECK(region_dmabuf >= 0);
	attach.fd = region_dmabuf;
	CHECK(ioctl(importer_fd, IMPORTER_IOC_ATTACH, &attach) == 0);
	CHECK(ioctl(importer_fd, IMPORTER_IOC_STATE, &st) == 0);
	CHECK_EQ(st.mapped, 1);
	CHECK_EQ(st.first_word, IMPORTER_DEVICE_ONLY_WORD);
	close(importer_fd);
	close(region_dmabuf);
	sc_kmod_release(&region);
}

/* A device attached through the region's EXPORT_DMABUF: reads the exporter's memory */
static void device_path(struct sc_kmod *dev, struct sc_kmod_region *owner, int *importer_fd,
			int *region_dmabuf)
{
	struct sc_kmod_region imported;
	struct importer_attach attach = { .dynamic = 1 };
	struct importer_state st;

	CHECK_OK(sc_kmod_import(dev, owner->handle, 0, &imported));
	*region_dmabuf = sc_kmod_export_dmabuf(&imported);
	CHECK(*region_dmabuf >= 0);
	sc_kmod_release(&imported);
	*importer_fd = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	CHECK(*importer_fd >= 0);
	attach.fd = *region_dmabuf;
	CHECK(ioctl(*importer_fd, IMPORTER_IOC_ATTACH, &attach) == 0);
	CHECK(ioctl(*importer_fd, IMPORTER_IOC_STATE, &st) == 0);
	CHECK_EQ(st.mapped, 1);
	CHECK_EQ(st.first_word, pattern_word(8, 0));
}

int main(void)
{
	struct sc_kmod_region owner;
	struct shmemcomm_region_info info = { 0 };
	struct counters baseline;
	int card, dmabuf, mappable, pipes[4], importer_fd, region_dmabuf, status;
	struct importer_state st;
	char line[8192], *row;
	struct sc_kmod dev;
	uint8_t *exporter_view;
	pid_t pid;
	char byte;

	card = vgem_open();
	if (card < 0) {
		printf("vgem is not loaded: no device memory to test\n");
		return 77;
	}
	read_baseline(&baseline);
	open_device(&dev);

	/* a vgem buffer becomes a region, charged as device memory */
	dmabuf = vgem_dumb_dmabuf(card, SIZE, 1);
	CHECK_OK(sc_kmod_create_dmabuf(&dev, dmabuf, 0, &owner, &mappable));
	CHECK_EQ(owner.size, SIZE);
	CHECK_EQ(mappable, 1);
	CHECK_EQ(read_number(SYSFS_DIR "device_pages"), baseline.device_pages + SIZE / 4096);
	CHECK_EQ(read_number(SYSFS_DIR "pinned_pages"), baseline.pinned_pages);
	CHECK_OK(sc_kmod_region_info(&owner, &info));
	CHECK_EQ(info.kind, SHMEMCOMM_KIND_DMABUF);
	CHECK_EQ(info.size, SIZE);

	/* the owner's mapping and the exporter's own are the same memory */
	CHECK_OK(sc_kmod_map(&owner, 1));
	exporter_view = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	CHECK(exporter_view != MAP_FAILED);
	fill_pattern(owner.addr, SIZE, 7);
	CHECK(check_pattern(exporter_view, SIZE, 7));

	/* another process imports it by handle, reads and writes */
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	handle = owner.handle;
	row = shmemctl_row(handle, line, sizeof(line));
	/* every DRM driver, vgem too, exports its buffers as "drm" */
	if (!strstr(row, "\"kind\":\"dmabuf\"") || !strstr(row, "\"exporter\":\"drm\"") ||
	    !strstr(row, "\"pinned\":0,"))
		FAIL("shmemctl's row lacks kind dmabuf, exporter drm or pinned 0: %s", row);
	expect_child_ok(run_child(importer_both_ways, NULL), "import, map, read and write");
	CHECK(check_pattern(owner.addr, SIZE, 8));
	CHECK(check_pattern(exporter_view, SIZE, 8));
	expect_child_ok(run_child(other_user_refused, NULL), "another user's import refused");

	/* a device through EXPORT_DMABUF reads the exporter's memory */
	device_path(&dev, &owner, &importer_fd, &region_dmabuf);

	/* revoke: the importer's mapping is gone, the owner's is not; the device is told */
	CHECK(pipe(pipes) == 0 && pipe(pipes + 2) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid)
		_exit(importer_revoked(pipes));
	CHECK(read(pipes[0], &byte, 1) == 1);
	CHECK_OK(sc_kmod_revoke(&owner));
	CHECK(write(pipes[3], "r", 1) == 1);
	CHECK(waitpid(pid, &status, 0) == pid);
	expect_child_ok(status, "the importer's mapping revoked");
	CHECK(check_pattern(owner.addr, SIZE, 8));
	fill_pattern(owner.addr, SIZE, 9);
	CHECK(check_pattern(exporter_view, SIZE, 9));
	CHECK(ioctl(importer_fd, IMPORTER_IOC_STATE, &st) == 0);
	CHECK(st.move_notifies >= 1);
	CHECK_EQ(st.mapped, 0);
	CHECK(ioctl(importer_fd, IMPORTER_IOC_MAP, &st) == 0);
	CHECK_EQ(st.mapped, 0);
	CHECK_EQ(st.map_error, -EKEYREVOKED);
	close(importer_fd);
	close(region_dmabuf);
	for (int i = 0; i < 4; i++)
		close(pipes[i]);
	munmap(exporter_view, SIZE);
	sc_kmod_release(&owner);

	/* read-only exports of device memory */
	CHECK_OK(sc_kmod_create_dmabuf(&dev, dmabuf, 0, &owner, NULL));
	CHECK_OK(sc_kmod_map(&owner, 1));
	fill_pattern(owner.addr, SIZE, 9);
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER | SHMEMCOMM_EXPORT_RDONLY));
	handle = owner.handle;
	expect_child_ok(run_child(read_only_importer, NULL), "read-only import");
	sc_kmod_release(&owner);
	close(dmabuf);

	bad_fds(&dev, card);
	device_only(&dev);
	sc_kmod_close(&dev);
	close(card);
	expect_counters(&baseline);
	return 0;
}
