/* kill -9 in the middle of use releases everything: after 1,000 cycles of
 * create/export/import/map (and, every tenth cycle, an RDMA MR on the
 * imported mapping) ended by SIGKILL at varying points, the module's
 * counters and the kernel's FOLL_PIN counters are back at baseline. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "verbs.h"

#define CYCLES 1000

/* never returns: keeps the region busy until killed */
static void keep_touching(volatile uint8_t *p, size_t size)
{
	for (size_t i = 0;; i = (i + 4096) % size)
		p[i]++;
}

static void owner(int handle_out, uint64_t size)
{
	struct sc_kmod_region region;
	struct sc_kmod dev;

	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, size, SHMEMCOMM_NUMA_ANY, &region));
	CHECK_OK(sc_kmod_map(&region, 1));
	CHECK_OK(sc_kmod_export(&region, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	CHECK(write(handle_out, &region.handle, sizeof(region.handle)) ==
	      sizeof(region.handle));
	keep_touching(region.addr, region.size);
}

static void importer(int ready_out, uint64_t handle, int with_mr)
{
	struct sc_kmod_region region;
	struct sc_kmod dev;
	struct rc_end end;

	open_device(&dev);
	/* the owner may be dead already: then the handle is gone, that is fine */
	if (sc_kmod_import(&dev, handle, 0, &region))
		_exit(0);
	CHECK_OK(sc_kmod_map(&region, 1));
	if (with_mr) {
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

static void cycle(unsigned int n)
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
		owner(handle_pipe[1], size);
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
		importer(ready_pipe[1], handle, n % 10 == 0);
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

int main(void)
{
	struct counters baseline;

	read_counters(&baseline);
	for (unsigned int n = 0; n < CYCLES; n++) {
		cycle(n);
		if ((n + 1) % 250 == 0)
			printf("kill_cycles: %u cycles\n", n + 1);
	}
	expect_counters(&baseline);
	printf("kill_cycles: %d cycles, counters back at baseline\n", CYCLES);
	return 0;
}
