/* Verbs plumbing for the guest tests on Soft-RoCE (rxe0). */
#ifndef SHMEMCOMM_TESTS_VERBS_H
#define SHMEMCOMM_TESTS_VERBS_H

#include <stddef.h>

#include <infiniband/verbs.h>

struct rc_end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int gid_index;
	union ibv_gid gid;
};

/* What one end sends the other to connect, and where to write. */
struct rc_address {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
	union ibv_gid gid;
};

/* Opens the first verbs device, its PD and, with @with_qp, an RC QP. */
void rc_open(struct rc_end *end, int with_qp);
void rc_connect(struct rc_end *end, const struct rc_address *remote);
/* Posts one signaled RDMA WRITE and waits for its completion (10 s at most). */
void rc_write(struct rc_end *end, struct ibv_mr *local, size_t len,
	      const struct rc_address *remote);
void rc_close(struct rc_end *end);

/* The side channel two test processes connect over: all of @len, or the test fails. */
void send_all(int fd, const void *buf, size_t len);
void recv_all(int fd, void *buf, size_t len);

#endif
