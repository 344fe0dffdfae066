/* RDMA and user memory. An importer's mapping of a user-memory region is a
 * PFN map, so ibv_reg_mr on it fails with EFAULT, as documented; the NIC
 * reaches user memory through the owner's own buffer: the owner registers
 * it, the importer's RDMA WRITE lands there, and the importer reads the
 * result through its mapping. The pins are released after. */
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "verbs.h"

#define SIZE (1u << 20)
#define OFFSET (64u << 10)
#define LEN (256u << 10)

/* the importer: maps the owner's buffer, writes into it by RDMA, reads it back */
static int writer(uint64_t handle, uint64_t offset, int sock)
{
	struct rc_address mine, theirs;
	struct sc_kmod_region region;
	struct rc_end end;
	struct sc_kmod dev;
	struct ibv_mr *mr;
	uint8_t *source, *seen;
	char byte;

	open_device(&dev);
	CHECK_OK(sc_kmod_import(&dev, handle, 0, &region));
	CHECK_OK(sc_kmod_map(&region, 1));
	seen = (uint8_t *)region.addr + offset;
	rc_open(&end, 1);
	errno = 0;
	CHECK(ibv_reg_mr(end.pd, region.addr, region.size, IBV_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_EQ(errno, EFAULT);

	source = aligned_alloc(4096, LEN);
	CHECK(source);
	fill_pattern(source, LEN, 31);
	mr = ibv_reg_mr(end.pd, source, LEN, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr);
	recv_all(sock, &theirs, sizeof(theirs));
	mine = (struct rc_address){ end.qp->qp_num, 0, 0, end.gid };
	send_all(sock, &mine, sizeof(mine));
	rc_connect(&end, &theirs);
	recv_all(sock, &byte, 1);

	rc_write(&end, mr, LEN, &theirs);
	CHECK(check_pattern(seen + OFFSET, LEN, 31));
	send_all(sock, "w", 1);
	CHECK(!ibv_dereg_mr(mr));
	rc_close(&end);
	free(source);
	sc_kmod_release(&region);
	return 0;
}

int main(void)
{
	static volatile uint32_t stale;
	struct counters baseline, now;
	struct rc_address mine, theirs;
	struct sc_kmod_region region;
	struct rc_end end;
	struct sc_kmod dev;
	struct ibv_mr *mr;
	int sock[2], status;
	uint8_t *buf;
	uint64_t offset;
	char byte;
	pid_t pid;

	read_baseline(&baseline);
	open_device(&dev);
	buf = malloc(SIZE);
	CHECK(buf);
	memset(buf, 0, SIZE);
	CHECK_OK(sc_kmod_create_user(&dev, buf, SIZE, 0, &stale, &region));
	CHECK_OK(sc_kmod_export(&region, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	offset = (uintptr_t)buf - region.user_start;
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sock) == 0);

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		uint64_t handle = region.handle;

		close(sock[0]);
		sc_kmod_release(&region);
		sc_kmod_close(&dev);
		_exit(writer(handle, offset, sock[1]));
	}
	close(sock[1]);

	/* the owner registers its own buffer, already pinned by the region */
	rc_open(&end, 1);
	read_counters(&now);
	mr = ibv_reg_mr(end.pd, buf, SIZE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		FAIL("ibv_reg_mr on the owner's buffer: %s", strerror(errno));
	/* the MR pins the pages again, beside the region's own pins */
	{
		struct counters with_mr;

		read_counters(&with_mr);
		CHECK(with_mr.foll_pins >= now.foll_pins + SIZE / 4096);
	}
	mine = (struct rc_address){ end.qp->qp_num, mr->rkey, (uintptr_t)buf + OFFSET,
				    end.gid };
	send_all(sock[0], &mine, sizeof(mine));
	recv_all(sock[0], &theirs, sizeof(theirs));
	rc_connect(&end, &theirs);
	send_all(sock[0], "c", 1);
	recv_all(sock[0], &byte, 1);

	/* the write is in the owner's original buffer, and nowhere before it */
	CHECK(check_pattern(buf + OFFSET, LEN, 31));
	for (size_t i = 0; i < OFFSET; i++)
		if (buf[i])
			FAIL("the write spilled before its offset, at byte %zu", i);
	CHECK(waitpid(pid, &status, 0) == pid);
	expect_child_ok(status, "RDMA writer");
	CHECK_EQ(stale, 0);

	CHECK(!ibv_dereg_mr(mr));
	rc_close(&end);
	sc_kmod_release(&region);
	free(buf);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
