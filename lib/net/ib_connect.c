/* Setup: every PE publishes its card (address, key, a QP per PE) and connects to every other. */
#include "net/ib.h"

#include <endian.h>
#include <errno.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "util/env.h"
#include "util/fatal.h"
#include "util/log.h"
#include "util/ranks.h"
#include "util/wait.h"

struct ibv_qp *sc_ib_create_qp(struct sc_net *net)
{
	struct ibv_qp_init_attr init = {
		.send_cq = net->cq,
		.recv_cq = net->cq,
		.cap = { .max_send_wr = SC_NET_SQ_DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = SC_NET_INLINE },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = (uint8_t)net->port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   (net->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0),
	};
	struct ibv_qp *qp = ibv_create_qp(net->pd, &init);

	if (!qp) {
		/* some devices carry no inline data */
		init.cap.max_inline_data = 0;
		qp = ibv_create_qp(net->pd, &init);
	}
	if (!qp) {
		sc_error("PE %d: cannot create a QP on %s: %s", net->me, sc_net_where(net),
			 strerror(errno));
		return NULL;
	}
	net->max_inline = init.cap.max_inline_data;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS)) {
		sc_error("PE %d: cannot ready a QP on %s: %s", net->me, sc_net_where(net),
			 strerror(errno));
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static int connect_qp(struct sc_net *net, struct ibv_qp *qp, const struct net_card *mine,
		      const struct net_card *theirs, uint32_t their_qpn, int pe)
{
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mine->mtu < theirs->mtu ? mine->mtu : theirs->mtu,
		.dest_qp_num = their_qpn,
		.max_dest_rd_atomic = (uint8_t)net->rd_atomic,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = (uint8_t)net->roce,
			.dlid = theirs->lid,
			.port_num = (uint8_t)net->port,
			.grh = { .dgid = theirs->gid, .sgid_index = (uint8_t)net->gid_index,
				 .hop_limit = 64 },
		},
	};
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.timeout = QP_TIMEOUT,
		.retry_cnt = QP_RETRIES,
		.rnr_retry = 7,
		.max_rd_atomic = (uint8_t)net->rd_atomic,
	};
	int err;

	err = ibv_modify_qp(qp, &rtr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (!err)
		err = ibv_modify_qp(qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (err) {
		char gid[40];

		snprintf(gid, sizeof(gid), "%016" PRIx64 ":%016" PRIx64,
			 be64toh(theirs->gid.global.subnet_prefix),
			 be64toh(theirs->gid.global.interface_id));
		sc_error("PE %d: cannot connect to PE %d (GID %s, LID %u, QP %u) from %s: %s",
			 net->me, pe, gid, theirs->lid, their_qpn, sc_net_where(net),
			 strerror(err));
		return -err;
	}
	return 0;
}

/* SHMEMCOMM_IB_ATOMICS: 0, or -EINVAL after a message. */
static int choose_atomics(struct sc_net *net, struct net_card *card)
{
	const char *how = sc_env_string("SHMEMCOMM_IB_ATOMICS");

	if (!how || !*how || !strcmp(how, "auto")) {
		/* the service thread does the atomics on a segment by message */
		card->amo_by_message = !net->atomics || !net->mr;
	} else if (!strcmp(how, "am")) {
		card->amo_by_message = 1;
	} else if (!strcmp(how, "nic")) {
		if (!net->atomics) {
			sc_error("PE %d: SHMEMCOMM_IB_ATOMICS=nic: %s has no RDMA atomics (atomic_cap is IBV_ATOMIC_NONE); use am or auto",
				 net->me, net->device);
			return -EINVAL;
		}
		if (!net->mr) {
			sc_error("PE %d: SHMEMCOMM_IB_ATOMICS=nic: this PE's segment goes by message (%s), and its service thread does the atomics on it; use am or auto",
				 net->me, net->not_registered);
			return -EINVAL;
		}
	} else {
		sc_error("PE %d: SHMEMCOMM_IB_ATOMICS=%s: not one of auto, nic, am", net->me, how);
		return -EINVAL;
	}
	return 0;
}

int sc_net_setup(struct sc_net *net, struct sc_boot *boot, const struct sc_node *node,
		 const struct sc_net_segment *segment)
{
	size_t card_size = sizeof(struct net_card) + sizeof(uint32_t) * (size_t)boot->size;
	struct net_card *mine, *all = NULL;
	int err, failed = -1;

	memset(net, 0, sizeof(*net));
	pthread_mutex_init(&net->lock, NULL);
	pthread_mutex_init(&net->amo_lock, NULL);
	pthread_mutex_init(&net->mail_lock, NULL);
	net->me = boot->rank;
	net->npes = boot->size;
	net->segment = segment->base;
	net->segment_size = segment->size;
	net->globals = segment->globals;
	net->globals_size = segment->globals ? segment->globals_size : 0;
	net->node_of = node->node_of;
	net->amo_mail = segment->amo_mail;
	net->peers = calloc((size_t)net->npes, sizeof(*net->peers));
	mine = calloc(1, card_size);
	all = calloc((size_t)net->npes, card_size);
	if (!net->peers || !mine || !all) {
		free(mine);
		free(all);
		return -ENOMEM;
	}
	err = sc_ib_prepare(net, mine, segment);
	if (!err)
		err = choose_atomics(net, mine);
	mine->ok = !err;
	/* a PE that failed still takes part, so that nobody waits for it */
	if (sc_boot_allgather(boot, mine, card_size, all)) {
		err = -EIO;
		goto out;
	}
	for (int pe = 0; pe < net->npes && failed < 0; pe++)
		if (!((struct net_card *)((char *)all + card_size * (size_t)pe))->ok)
			failed = pe;
	if (failed >= 0) {
		if (!err)
			sc_error("PE %d: PE %d could not set up RDMA (its message says why)",
				 net->me, failed);
		err = err ? err : -EIO;
		goto out;
	}
	for (int pe = 0; pe < net->npes && !err; pe++) {
		const struct net_card *card = (void *)((char *)all + card_size * (size_t)pe);

		/* a CPU atomic is not atomic against the NIC's: one way for all */
		net->amo_by_message |= card->amo_by_message;
		net->peers[pe].base = card->base;
		net->peers[pe].rkey = card->rkey;
		net->peers[pe].globals_base = card->globals_base;
		net->peers[pe].globals_rkey = card->globals_rkey;
		net->peers[pe].by_message = card->by_message;
		net->peers[pe].inbox = card->inbox;
		net->peers[pe].inbox_rkey = card->inbox_rkey;
		net->peers[pe].replies = card->replies;
		net->peers[pe].replies_rkey = card->replies_rkey;
		net->some_by_message |= card->by_message;
		if (pe == net->me) {
			/* a QP pair of its own: this PE's atomics on its own heap are the NIC's too */
			err = connect_qp(net, net->peers[pe].qp, mine, mine, net->loop_qp->qp_num, pe);
			if (!err)
				err = connect_qp(net, net->loop_qp, mine, mine,
						 net->peers[pe].qp->qp_num, pe);
			continue;
		}
		err = connect_qp(net, net->peers[pe].qp, mine, card, card->qpn[net->me], pe);
	}
	if (!err && (net->amo_by_message || net->inbox))
		err = sc_ib_start_service(net);
	if (!err && net->inbox)
		sc_log(net->by_message_asked ? SC_LOG_INFO : SC_LOG_WARN,
		       "PE %d: its segment goes by message: %s. Other PEs write each put, get and atomic on it into its inbox, and its service thread does them with the CPU, at a fraction of the NIC's speed",
		       net->me, net->not_registered);
	if (!err) {
		net->active = 1;
		sc_info("PE %d: RDMA on %s, segment %s%s, %s, %u bytes inline",
			net->me, sc_net_where(net), net->mr ? "registered by " : "by message",
			net->mr ? net->registered_by : "",
			net->amo_by_message ? "atomics by message to each PE's service thread" :
					      "the NIC's atomics", net->max_inline);
	}
out:
	free(mine);
	free(all);
	if (err)
		sc_net_teardown(net);
	return err;
}
