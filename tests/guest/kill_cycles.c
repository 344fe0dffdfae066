/* kill -9 in the middle of use releases everything: after 1,000 cycles of
 * create/export/import/map on driver pages (and, every tenth cycle, an RDMA
 * MR on the imported mapping) and 1,000 on user memory (the owner's buffer
 * pinned by CREATE_USER, touched and, every tenth cycle, registered as an
 * MR by the owner too), ended by SIGKILL at varying points, the module's
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

static void owner(int handle_out, uint64_t size, int user_memory, int with_mr)
{
	static volatile uint32_t stale_word;
	struct sc_kmod_region region;
	struct sc_kmod dev;
	struct rc_end end;
	uint8_t *buf = NULL;

	open_device(&dev);
	if (user_memory) {
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

/* an RDMA MR only on driver pages: an importer's map of user memory is a PFN map */
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

static void cycle(unsigned int n, int user_memory)
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
		owner(handle_pipe[1], size, user_memory, user_memory && n % 10 == 0);
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
		importer(ready_pipe[1], handle, !user_memory && n % 10 == 0);
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

	read_baseline(&baseline);
	for (int user_memory = 0; user_memory <= 1; user_memory++) {
		const char *kind = user_memory ? "user memory" : "driver pages";

		for (unsigned int n = 0; n < CYCLES; n++) {
			cycle(n, user_memory);
			if ((n + 1) % 500 == 0)
				printf("kill_cycles: %u cycles on %s\n", n + 1, kind);
		}
		expect_counters(&baseline);
		printf("kill_cycles: %d cycles on %s, counters back at baseline\n", CYCLES,
		       kind);
	}
	return 0;
}
