#include "verbs.h"

#include <time.h>
#include <unistd.h>

#include "check.h"

/* RoCE v2 over IPv4 uses the IPv4-mapped GID (::ffff:a.b.c.d). */
static int ipv4_gid_index(struct ibv_context *ctx, union ibv_gid *gid)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	for (int i = 0; i < 16; i++)
		if (!ibv_query_gid(ctx, 1, i, gid) && !memcmp(gid->raw, mapped, 12))
			return i;
	FAIL("the verbs device has no IPv4-mapped GID on port 1");
}

void rc_open(struct rc_end *end, int with_qp)
{
	struct ibv_device **list;
	int n;

	memset(end, 0, sizeof(*end));
	list = ibv_get_device_list(&n);
	if (!list || n < 1)
		FAIL("no verbs device (is rdma_rxe loaded and rxe0 added?)");
	end->ctx = ibv_open_device(list[0]);
	CHECK(end->ctx);
	ibv_free_device_list(list);
	end->pd = ibv_alloc_pd(end->ctx);
	CHECK(end->pd);
	end->gid_index = ipv4_gid_index(end->ctx, &end->gid);
	if (!with_qp)
		return;

	end->cq = ibv_create_cq(end->ctx, 16, NULL, NULL, 0);
	CHECK(end->cq);
	struct ibv_qp_init_attr init = {
		.send_cq = end->cq,
		.recv_cq = end->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	end->qp = ibv_create_qp(end->pd, &init);
	CHECK(end->qp);

	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};
	CHECK(!ibv_modify_qp(end->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
}

void rc_connect(struct rc_end *end, const struct rc_address *remote)
{
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = remote->qpn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = remote->gid, .sgid_index = end->gid_index,
				 .hop_limit = 1 },
			.port_num = 1,
		},
	};
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};

	CHECK(!ibv_modify_qp(end->qp, &rtr, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER));
	CHECK(!ibv_modify_qp(end->qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			     IBV_QP_MAX_QP_RD_ATOMIC));
}

void rc_write(struct rc_end *end, struct ibv_mr *local, size_t len,
	      const struct rc_address *remote)
{
	struct ibv_sge sge = { (uintptr_t)local->addr, (uint32_t)len, local->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = remote->addr, .rkey = remote->rkey },
	}, *bad;
	struct timespec start, now;
	struct ibv_wc wc;
	int n;

	CHECK(!ibv_post_send(end->qp, &wr, &bad));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!(n = ibv_poll_cq(end->cq, 1, &wc))) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 10)
			FAIL("no completion for the RDMA WRITE within 10 s");
	}
	CHECK(n == 1);
	if (wc.status != IBV_WC_SUCCESS)
		FAIL("RDMA WRITE completed with %s", ibv_wc_status_str(wc.status));
}

void rc_close(struct rc_end *end)
{
	if (end->qp)
		CHECK(!ibv_destroy_qp(end->qp));
	if (end->cq)
		CHECK(!ibv_destroy_cq(end->cq));
	CHECK(!ibv_dealloc_pd(end->pd));
	CHECK(!ibv_close_device(end->ctx));
}

void send_all(int fd, const void *buf, size_t len)
{
	CHECK(write(fd, buf, len) == (ssize_t)len);
}

void recv_all(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	if (n != (ssize_t)len)
		FAIL("the other process went away (read %zd of %zu bytes)", n, len);
}
