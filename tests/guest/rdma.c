/* ibv_reg_mr works on an imported mapping (struct pages, not a PFN map),
 * and an RDMA WRITE posted by one process lands in the region, where the
 * importer and the owner both see it. The pins are released after. */
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "verbs.h"

#define SIZE (1u << 20)
#define OFFSET (64u << 10)
#define LEN (256u << 10)

/* the importer: the write's target */
static int target(uint64_t handle, int sock)
{
	struct sc_kmod_region region;
	struct rc_address mine, theirs;
	struct rc_end end;
	struct sc_kmod dev;
	struct ibv_mr *mr;
	char done;

	open_device(&dev);
	CHECK_OK(sc_kmod_import(&dev, handle, 0, &region));
	CHECK_OK(sc_kmod_map(&region, 1));
	rc_open(&end, 1);
	mr = ibv_reg_mr(end.pd, region.addr, region.size,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		FAIL("ibv_reg_mr on the imported mapping: %s", strerror(errno));

	mine = (struct rc_address){ end.qp->qp_num, mr->rkey,
				    (uintptr_t)region.addr + OFFSET, end.gid };
	send_all(sock, &mine, sizeof(mine));
	recv_all(sock, &theirs, sizeof(theirs));
	rc_connect(&end, &theirs);
	send_all(sock, "c", 1);
	recv_all(sock, &done, 1);

	CHECK(check_pattern((uint8_t *)region.addr + OFFSET, LEN, 21));
	CHECK(!ibv_dereg_mr(mr));
	rc_close(&end);
	sc_kmod_release(&region);
	send_all(sock, "d", 1);
	return 0;
}

int main(void)
{
	struct counters baseline, now;
	struct sc_kmod_region region;
	struct rc_address mine, theirs;
	struct rc_end end;
	struct sc_kmod dev;
	struct ibv_mr *mr;
	int sock[2], status;
	uint8_t *source;
	char byte;
	pid_t pid;

	read_baseline(&baseline);
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &region));
	CHECK_OK(sc_kmod_map(&region, 1));
	CHECK_OK(sc_kmod_export(&region, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sock) == 0);

	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		uint64_t handle = region.handle;

		close(sock[0]);
		sc_kmod_release(&region);
		sc_kmod_close(&dev);
		_exit(target(handle, sock[1]));
	}
	close(sock[1]);

	source = aligned_alloc(4096, LEN);
	CHECK(source);
	fill_pattern(source, LEN, 21);
	rc_open(&end, 1);
	mr = ibv_reg_mr(end.pd, source, LEN, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr);

	recv_all(sock[0], &theirs, sizeof(theirs));
	/* the importer's MR pins every page of its mapping */
	read_counters(&now);
	CHECK(now.foll_pins >= baseline.foll_pins + SIZE / 4096);
	mine = (struct rc_address){ end.qp->qp_num, 0, 0, end.gid };
	send_all(sock[0], &mine, sizeof(mine));
	rc_connect(&end, &theirs);
	recv_all(sock[0], &byte, 1);

	rc_write(&end, mr, LEN, &theirs);
	/* the owner sees it in its own mapping, at the same offset */
	CHECK(check_pattern((uint8_t *)region.addr + OFFSET, LEN, 21));
	for (size_t i = 0; i < OFFSET; i++)
		if (((uint8_t *)region.addr)[i])
			FAIL("the write spilled before its offset, at byte %zu", i);
	send_all(sock[0], "w", 1);
	recv_all(sock[0], &byte, 1);
	CHECK(waitpid(pid, &status, 0) == pid);
	expect_child_ok(status, "RDMA target");

	CHECK(!ibv_dereg_mr(mr));
	rc_close(&end);
	free(source);
	sc_kmod_release(&region);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
