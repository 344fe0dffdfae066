/* Not a test: the kill -9 cycles that kill_cycles and kill_cycles_device
 * run (tests/guest/cycles.h). */
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cycles.h"
#include "guest.h"
#include "verbs.h"

static const char *const kind_names[] = { "driver pages", "user memory", "device memory" };

long live_dmabufs(void)
{
	const char *path = "/sys/kernel/debug/dma_buf/bufinfo";
	FILE *f = fopen(path, "r");
	char line[256];
	long objects = -1;

	if (!f && mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) == 0)
		f = fopen(path, "r");
	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Total %ld objects", &objects) == 1)
			break;
	fclose(f);
	if (objects < 0)
		FAIL("%s has no \"Total N objects\" line", path);
	return objects;
}

/* never returns: keeps the region busy until killed */
static void keep_touching(volatile uint8_t *p, size_t size)
{
	for (size_t i = 0;; i = (i + 4096) % size)
		p[i]++;
}

static void owner(int handle_out, uint64_t size, enum kind kind, int with_mr)
{
	static volatile uint32_t stale_word;
	struct sc_kmod_region region;
	struct sc_kmod dev;
	struct rc_end end;
	uint8_t *buf = NULL;

	open_device(&dev);
	if (kind == DEVICE_MEMORY) {
		int card = vgem_open(), dmabuf;

		CHECK(card >= 0);
		dmabuf = vgem_dumb_dmabuf(card, size, 1);
		CHECK_OK(sc_kmod_create_dmabuf(&dev, dmabuf, 0, &region, NULL));
		close(dmabuf);
		close(card);
		CHECK_OK(sc_kmod_map(&region, 1));
		buf = region.addr;
	} else if (kind == USER_MEMORY) {
		buf = malloc(size);
		CHECK(buf != NULL);
		CHECK_OK(sc_kmod_create_user(&dev, buf, size, 0, &stale_word, &region));
		if (with_mr) {
			rc_open(&end, 0);
			CHECK(ibv_reg_mr(end.pd, buf, size,
					 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
		}
	} else {
		CHECK_OK(sc_kmod_create(&dev, size, SHMEMCOMM_NUMA_ANY, &region));
		CHECK_OK(sc_kmod_map(&region, 1));
		buf = region.addr;
	}
	CHECK_OK(sc_kmod_export(&region, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	CHECK(write(handle_out, &region.handle, sizeof(region.handle)) ==
	      sizeof(region.handle));
	keep_touching(buf, size);
}

/*
 * An RDMA MR only on driver pages: an importer's map of user or device
 * memory is a PFN map. Device memory goes to a device as a dma-buf instead.
 */
static void importer(int ready_out, uint64_t handle, enum kind kind, int with_extra)
{
	struct sc_kmod_region region;
	struct sc_kmod dev;
	struct rc_end end;

	open_device(&dev);
	/* the owner may be dead already: then the handle is gone, that is fine */
	if (sc_kmod_import(&dev, handle, 0, &region))
		_exit(0);
	CHECK_OK(sc_kmod_map(&region, 1));
	if (with_extra && kind == DEVICE_MEMORY)
		CHECK(sc_kmod_export_dmabuf(&region) >= 0);
	else if (with_extra && kind == DRIVER_PAGES) {
		rc_open(&end, 0);
		CHECK(ibv_reg_mr(end.pd, region.addr, region.size,
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
	}
	CHECK(write(ready_out, "r", 1) == 1);
	keep_touching(region.addr, region.size);
}

static void reap(pid_t pid)
{
	int status;

	CHECK(waitpid(pid, &status, 0) == pid);
	/* killed, or left early because the owner was gone: never a failed check */
	if (WIFEXITED(status) && WEXITSTATUS(status))
		FAIL("a cycle's child failed with %d", WEXITSTATUS(status));
}

static void cycle(unsigned int n, enum kind kind)
{
	int handle_pipe[2], ready_pipe[2];
	uint64_t size = 4096ull << (n % 9);	/* 4 KiB .. 1 MiB */
	pid_t owner_pid, importer_pid;
	uint64_t handle;
	char byte;

	CHECK(pipe(handle_pipe) == 0 && pipe(ready_pipe) == 0);
	owner_pid = fork();
	CHECK(owner_pid >= 0);
	if (!owner_pid)
		owner(handle_pipe[1], size, kind, kind == USER_MEMORY && n % 10 == 0);
	close(handle_pipe[1]);

	if (n % 7 == 6) {
		/* kill it somewhere inside create/export, before any import */
		usleep(n % 1000);
		kill(owner_pid, SIGKILL);
		reap(owner_pid);
		close(handle_pipe[0]);
		close(ready_pipe[0]);
		close(ready_pipe[1]);
		return;
	}
	CHECK(read(handle_pipe[0], &handle, sizeof(handle)) == sizeof(handle));
	close(handle_pipe[0]);

	importer_pid = fork();
	CHECK(importer_pid >= 0);
	if (!importer_pid)
		importer(ready_pipe[1], handle, kind, n % 10 == 0);
	close(ready_pipe[1]);

	switch (n % 3) {
	case 0:	/* both busy, owner first */
		CHECK(read(ready_pipe[0], &byte, 1) == 1);
		kill(owner_pid, SIGKILL);
		kill(importer_pid, SIGKILL);
		break;
	case 1:	/* both busy, importer first */
		CHECK(read(ready_pipe[0], &byte, 1) == 1);
		kill(importer_pid, SIGKILL);
		kill(owner_pid, SIGKILL);
		break;
	default: /* owner dies while the importer is importing or mapping */
		kill(owner_pid, SIGKILL);
		usleep(n % 500);
		kill(importer_pid, SIGKILL);
	}
	reap(owner_pid);
	reap(importer_pid);
	close(ready_pipe[0]);
}


void kill_cycles(enum kind kind, unsigned int cycles)
{
	struct counters baseline;

	read_baseline(&baseline);
	for (unsigned int n = 0; n < cycles; n++) {
		cycle(n, kind);
		if ((n + 1) % 500 == 0)
			printf("kill_cycles: %u cycles on %s\n", n + 1, kind_names[kind]);
	}
	expect_counters(&baseline);
	printf("kill_cycles: %u cycles on %s, counters back at baseline\n", cycles,
	       kind_names[kind]);
}
