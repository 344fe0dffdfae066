#include "net/net.h"

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

#define QP_TIMEOUT 17		/* 4.096 us << 17: half a second before a retry */
#define QP_RETRIES 7		/* then the operation fails and names the peer */
#define MAX_RD_ATOMIC 16
#define MAX_MESSAGE (1ull << 30)
#define BOUNCE_PIECE (1u << 20)	/* a quarter of the bounce buffer: four in flight */
#define BOUNCE_RESERVED 64	/* the atomic result, last words, a probe: one cache line */
#define BOUNCE_PROBE 56
#define CAP_IPC_LOCK 14

/* What each PE publishes to connect: its address, key, and a QP per PE. */
struct net_card {
	union ibv_gid gid;
	uint64_t base;
	uint32_t rkey;
	uint16_t lid;
	uint8_t mtu;		/* enum ibv_mtu */
	uint8_t ok;		/* 0: this PE failed to set up; the others stop too */
	uint8_t amo_by_message;	/* its device has no RDMA atomics, or it was told so */
	uint8_t pad[7];
	uint32_t qpn[];		/* [npes]: its QP for each PE */
};

static char where[160];

const char *sc_net_where(const struct sc_net *net)
{
	snprintf(where, sizeof(where), "%s port %d GID index %d", net->device, net->port,
		 net->gid_index);
	return where;
}

static int active_port(struct ibv_context *ctx, int port)
{
	struct ibv_port_attr attr;

	return !ibv_query_port(ctx, (uint8_t)port, &attr) && attr.state == IBV_PORT_ACTIVE;
}

/* SHMEMCOMM_IB_DEV and SHMEMCOMM_IB_PORT, or the first device with an active port. */
static int open_device(struct sc_net *net)
{
	const char *wanted = sc_env_string("SHMEMCOMM_IB_DEV");
	struct ibv_device **list;
	char names[256] = "";
	long port;
	int n, found = 0, err = -ENODEV;

	if (sc_env_long("SHMEMCOMM_IB_PORT", 0, 1, 255, &port))
		return -EINVAL;
	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		sc_error("PE %d: no RDMA device: libibverbs found none (load the NIC's driver, or rdma_rxe for Soft-RoCE)",
			 net->me);
		if (list)
			ibv_free_device_list(list);
		return -ENODEV;
	}
	for (int i = 0; i < n && err; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_device_attr attr;
		struct ibv_context *ctx;

		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", name);
		if (wanted && strcmp(wanted, name))
			continue;
		found = 1;
		ctx = ibv_open_device(list[i]);
		if (!ctx || ibv_query_device(ctx, &attr)) {
			sc_error("PE %d: cannot open RDMA device %s: %s", net->me, name,
				 strerror(errno));
			if (ctx)
				ibv_close_device(ctx);
			continue;
		}
		for (int p = port ? (int)port : 1; p <= attr.phys_port_cnt; p++) {
			if (active_port(ctx, p)) {
				net->port = p;
				break;
			}
			if (port)
				break;
		}
		if (!net->port) {
			if (port > attr.phys_port_cnt)
				sc_error("PE %d: SHMEMCOMM_IB_PORT=%ld: RDMA device %s has %d port%s",
					 net->me, port, name, attr.phys_port_cnt,
					 attr.phys_port_cnt == 1 ? "" : "s");
			else if (port)
				sc_error("PE %d: SHMEMCOMM_IB_PORT=%ld: that port of %s is not active",
					 net->me, port, name);
			else if (wanted)
				sc_error("PE %d: RDMA device %s has no active port", net->me, name);
			ibv_close_device(ctx);
			continue;
		}
		snprintf(net->device, sizeof(net->device), "%s", name);
		net->ctx = ctx;
		net->atomics = attr.atomic_cap != IBV_ATOMIC_NONE;
		net->rd_atomic = (uint32_t)(attr.max_qp_rd_atom < MAX_RD_ATOMIC ?
					    attr.max_qp_rd_atom : MAX_RD_ATOMIC);
		err = 0;
	}
	if (err && wanted && !found)
		sc_error("PE %d: SHMEMCOMM_IB_DEV=%s: no such RDMA device (there are: %s)", net->me,
			 wanted, names);
	else if (err && !wanted && !port)
		sc_error("PE %d: no RDMA device has an active port (devices: %s)", net->me, names);
	ibv_free_device_list(list);
	return err;
}

static int ipv4_mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

/*
 * SHMEMCOMM_IB_GID_INDEX, else on RoCE the best GID: v2 over IPv4 (it
 * routes, and every RoCE stack has it), then any v2, then any. InfiniBand
 * addresses peers by LID and needs none.
 */
static int choose_gid(struct sc_net *net, const struct ibv_port_attr *port, union ibv_gid *gid)
{
	long index;
	int best = -1, best_rank = 0;

	if (sc_env_long("SHMEMCOMM_IB_GID_INDEX", -1, 0, port->gid_tbl_len - 1, &index))
		return -EINVAL;
	if (index >= 0) {
		if (ibv_query_gid(net->ctx, (uint8_t)net->port, (int)index, gid) ||
		    !gid->global.interface_id) {
			sc_error("PE %d: SHMEMCOMM_IB_GID_INDEX=%ld: %s port %d has no GID there",
				 net->me, index, net->device, net->port);
			return -EINVAL;
		}
		net->gid_index = (int)index;
		return 0;
	}
	if (!net->roce) {
		net->gid_index = 0;
		return ibv_query_gid(net->ctx, (uint8_t)net->port, 0, gid) ? -errno : 0;
	}
	for (int i = 0; i < port->gid_tbl_len; i++) {
		struct ibv_gid_entry entry;
		int rank;

		if (ibv_query_gid_ex(net->ctx, (uint32_t)net->port, (uint32_t)i, &entry, 0))
			continue;
		rank = entry.gid_type == IBV_GID_TYPE_ROCE_V2 ?
			       (ipv4_mapped((const union ibv_gid *)&entry.gid) ? 3 : 2) : 1;
		if (rank > best_rank) {
			best = i;
			best_rank = rank;
			memcpy(gid, &entry.gid, sizeof(*gid));
		}
	}
	if (best < 0) {
		sc_error("PE %d: %s port %d has no GID: give its network interface an address",
			 net->me, net->device, net->port);
		return -EADDRNOTAVAIL;
	}
	net->gid_index = best;
	return 0;
}

/* CAP_IPC_LOCK lifts the memlock limit on pinning. */
static int may_lock_any(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return (caps >> CAP_IPC_LOCK) & 1;
}

/* ibv_reg_mr pins what it registers, against RLIMIT_MEMLOCK: say so before. */
static int check_memlock(const struct sc_net *net, size_t bytes)
{
	struct rlimit limit;

	if (getrlimit(RLIMIT_MEMLOCK, &limit) || limit.rlim_cur == RLIM_INFINITY ||
	    limit.rlim_cur >= bytes || may_lock_any())
		return 0;
	sc_error("PE %d: RLIMIT_MEMLOCK is %llu bytes, and registering this PE's %zu bytes with %s needs at least %zu; raise it (ulimit -l %zu, LimitMEMLOCK= of a systemd unit, docker run --ulimit memlock=-1) or lower SHMEM_SYMMETRIC_SIZE",
		 net->me, (unsigned long long)limit.rlim_cur, net->segment_size, net->device,
		 bytes, (bytes + 1023) / 1024);
	return -ENOMEM;
}

static int register_memory(struct sc_net *net, int dmabuf_fd)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		     (net->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);

	/* the dma-buf needs no pinning by the NIC's driver: the module holds the pages */
	if (dmabuf_fd >= 0) {
		net->mr = ibv_reg_dmabuf_mr(net->pd, 0, net->segment_size,
					    (uintptr_t)net->segment, dmabuf_fd, access);
		if (net->mr)
			net->registered_by = "dma-buf";
		else
			sc_debug("PE %d: %s does not register dma-bufs (%s): ibv_reg_mr instead",
				 net->me, net->device, strerror(errno));
	}
	if (!net->mr) {
		if (check_memlock(net, net->segment_size + SC_NET_BOUNCE))
			return -ENOMEM;
		net->mr = ibv_reg_mr(net->pd, net->segment, net->segment_size, access);
		net->registered_by = "ibv_reg_mr";
	}
	if (!net->mr) {
		int err = errno;

		sc_error("PE %d: cannot register the %zu-byte segment with %s: %s", net->me,
			 net->segment_size, net->device, strerror(err));
		return -err;
	}
	net->bounce = aligned_alloc(4096, SC_NET_BOUNCE);
	if (!net->bounce)
		return -ENOMEM;
	net->bounce_used = BOUNCE_RESERVED;
	net->bounce_mr = ibv_reg_mr(net->pd, net->bounce, SC_NET_BOUNCE, IBV_ACCESS_LOCAL_WRITE);
	if (!net->bounce_mr) {
		int err = errno;

		sc_error("PE %d: cannot register a %u-byte staging buffer with %s: %s", net->me,
			 SC_NET_BOUNCE, net->device, strerror(err));
		return -err;
	}
	return 0;
}

static struct ibv_qp *create_qp(struct sc_net *net)
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

/* Everything up to the exchange: 0, or a negative errno after a message. */
static int prepare(struct sc_net *net, struct net_card *card, int dmabuf_fd)
{
	struct ibv_port_attr port;
	int cqe, err;

	err = open_device(net);
	if (err)
		return err;
	if (ibv_query_port(net->ctx, (uint8_t)net->port, &port))
		return -errno;
	net->roce = port.link_layer == IBV_LINK_LAYER_ETHERNET;
	err = choose_gid(net, &port, &card->gid);
	if (err)
		return err;
	card->lid = port.lid;
	card->mtu = (uint8_t)port.active_mtu;
	net->pd = ibv_alloc_pd(net->ctx);
	cqe = SC_NET_SQ_DEPTH * (net->npes + 1);
	net->cq = net->pd ? ibv_create_cq(net->ctx, cqe, NULL, NULL, 0) : NULL;
	if (!net->cq) {
		sc_error("PE %d: cannot allocate a protection domain and a %d-entry CQ on %s: %s",
			 net->me, cqe, sc_net_where(net), strerror(errno));
		return -ENOMEM;
	}
	err = register_memory(net, dmabuf_fd);
	if (err)
		return err;
	card->base = (uintptr_t)net->segment;
	card->rkey = net->mr->rkey;
	for (int pe = 0; pe < net->npes; pe++) {
		net->peers[pe].qp = create_qp(net);
		if (!net->peers[pe].qp)
			return -ENOMEM;
		card->qpn[pe] = net->peers[pe].qp->qp_num;
	}
	net->loop_qp = create_qp(net);
	return net->loop_qp ? 0 : -ENOMEM;
}

/* SHMEMCOMM_IB_ATOMICS: 0, or -EINVAL after a message. */
static int choose_atomics(struct sc_net *net, struct net_card *card)
{
	const char *how = sc_env_string("SHMEMCOMM_IB_ATOMICS");

	if (!how || !*how || !strcmp(how, "auto")) {
		card->amo_by_message = !net->atomics;
	} else if (!strcmp(how, "am")) {
		card->amo_by_message = 1;
	} else if (!strcmp(how, "nic")) {
		if (!net->atomics) {
			sc_error("PE %d: SHMEMCOMM_IB_ATOMICS=nic: %s has no RDMA atomics (atomic_cap is IBV_ATOMIC_NONE); use am or auto",
				 net->me, net->device);
			return -EINVAL;
		}
	} else {
		sc_error("PE %d: SHMEMCOMM_IB_ATOMICS=%s: not one of auto, nic, am", net->me, how);
		return -EINVAL;
	}
	return 0;
}

static uint64_t cpu_amo(void *word, unsigned int size, enum sc_net_amo op, uint64_t value,
			uint64_t cond)
{
#define CPU_AMO(T)                                                                        \
	do {                                                                              \
		T *w = word, v = (T)value, expected = (T)cond;                            \
		switch (op) {                                                             \
		case SC_AMO_FETCH: return __atomic_load_n(w, __ATOMIC_ACQUIRE);           \
		case SC_AMO_SET:                                                          \
		case SC_AMO_SWAP: return __atomic_exchange_n(w, v, __ATOMIC_ACQ_REL);     \
		case SC_AMO_CSWAP:                                                        \
			__atomic_compare_exchange_n(w, &expected, v, 0, __ATOMIC_ACQ_REL,   \
						    __ATOMIC_ACQUIRE);                      \
			return expected;                                                  \
		case SC_AMO_ADD: return __atomic_fetch_add(w, v, __ATOMIC_ACQ_REL);       \
		case SC_AMO_AND: return __atomic_fetch_and(w, v, __ATOMIC_ACQ_REL);       \
		case SC_AMO_OR: return __atomic_fetch_or(w, v, __ATOMIC_ACQ_REL);         \
		default: return __atomic_fetch_xor(w, v, __ATOMIC_ACQ_REL);               \
		}                                                                         \
	} while (0)
	if (size == 8)
		CPU_AMO(uint64_t);
	CPU_AMO(uint32_t);
#undef CPU_AMO
}

#define AMO_SPIN 20000		/* empty polls before the service thread naps */
#define AMO_NAP_US 200

/*
 * The service thread: polls the mailboxes, does each request with the
 * CPU on this PE's segment, answers with the old value, then the sequence
 * number (RC keeps the pair's writes in order). It holds no lock while it
 * waits, so requests crossing each other cannot deadlock.
 */
static void *amo_service(void *arg)
{
	struct sc_net *net = arg;
	struct sc_amo_mail *mailboxes = (struct sc_amo_mail *)(net->segment + net->amo_mail);
	uint64_t reply = net->amo_reply;
	uint64_t *served = calloc((size_t)net->npes, sizeof(*served));
	unsigned long idle = 0;

	if (!served)
		sc_fatal(1, "PE %d: no memory for the atomic service thread", net->me);
	while (!atomic_load(&net->amo_stop)) {
		int answered = 0;

		for (int pe = 0; pe < net->npes; pe++) {
			struct sc_amo_mail *m = &mailboxes[pe];
			uint64_t seq = atomic_load_explicit(&m->seq, memory_order_acquire), old;

			if (seq == served[pe] || seq != m->check)
				continue;
			served[pe] = seq;
			answered = 1;
			if ((m->size != 4 && m->size != 8) || m->offset % m->size ||
			    m->offset > net->segment_size - m->size)
				sc_fatal(1, "PE %d: PE %d asked for a %u-byte atomic at offset %lu, outside this PE's %zu-byte segment",
					 net->me, pe, m->size, (unsigned long)m->offset,
					 net->segment_size);
			old = cpu_amo(net->segment + m->offset, m->size, (enum sc_net_amo)m->op,
				      m->value, m->cond);
			sc_net_put(net, pe, reply, &old, sizeof(old), 0);
			sc_net_put(net, pe, reply + 8, &seq, sizeof(seq), 0);
		}
		if (answered)
			idle = 0;
		else if (++idle > AMO_SPIN)
			usleep(AMO_NAP_US);
	}
	free(served);
	return NULL;
}

static int start_amo_service(struct sc_net *net)
{
	int err = pthread_create(&net->amo_service, NULL, amo_service, net);

	if (err) {
		sc_error("PE %d: starting the atomic service thread failed: %s", net->me,
			 strerror(err));
		return -err;
	}
	net->amo_service_running = 1;
	return 0;
}

struct amo_wait {
	const struct sc_net *net;
	int pe;
	char lost[600];
};

static void amo_unanswered(void *ctx, char *out, unsigned long len, const char **did)
{
	struct amo_wait *w = ctx;

	snprintf(out, len, "%d", w->pe);
	sc_net_name_lost(w->net, &w->pe, 1, w->lost, sizeof(w->lost));
	*did = w->lost;
}

/* An atomic on a remote PE by message to its service thread; the old value. */
static uint64_t amo_by_message(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
			       enum sc_net_amo op, uint64_t value, uint64_t cond)
{
	struct sc_amo_reply *answer = (struct sc_amo_reply *)(net->segment + net->amo_reply);
	uint64_t mail = net->amo_mail + (uint64_t)net->me * sizeof(struct sc_amo_mail);
	struct sc_amo_mail request = {
		.offset = offset, .value = value, .cond = cond, .op = op, .size = size,
	};
	struct amo_wait waited = { .net = net, .pe = pe };
	struct sc_wait wait;
	uint64_t seq, old;

	pthread_mutex_lock(&net->amo_lock);
	seq = ++net->amo_seq;
	request.check = seq;
	sc_net_put(net, pe, mail + 8, (char *)&request + 8, 40, 0);
	sc_net_put(net, pe, mail, &seq, sizeof(seq), 0);
	sc_wait_begin(&wait, "an atomic by message", -1, amo_unanswered, &waited);
	while (atomic_load_explicit(&answer->seq, memory_order_acquire) != seq)
		sc_wait_step(&wait);
	old = answer->old;
	pthread_mutex_unlock(&net->amo_lock);
	return old;
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
	net->me = boot->rank;
	net->npes = boot->size;
	net->segment = segment->base;
	net->segment_size = segment->size;
	net->node_of = node->node_of;
	net->amo_mail = segment->amo_mail;
	net->amo_reply = segment->amo_reply;
	net->peers = calloc((size_t)net->npes, sizeof(*net->peers));
	mine = calloc(1, card_size);
	all = calloc((size_t)net->npes, card_size);
	if (!net->peers || !mine || !all) {
		free(mine);
		free(all);
		return -ENOMEM;
	}
	err = prepare(net, mine, segment->dmabuf_fd);
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
	if (!err && net->amo_by_message)
		err = start_amo_service(net);
	if (!err) {
		net->active = 1;
		sc_info("PE %d: RDMA on %s, segment registered by %s, %s, %u bytes inline",
			net->me, sc_net_where(net), net->registered_by,
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

void sc_net_teardown(struct sc_net *net)
{
	if (net->amo_service_running) {
		atomic_store(&net->amo_stop, 1);
		pthread_join(net->amo_service, NULL);
	}
	if (net->peers) {
		for (int pe = 0; pe < net->npes; pe++)
			if (net->peers[pe].qp)
				ibv_destroy_qp(net->peers[pe].qp);
		free(net->peers);
	}
	if (net->loop_qp)
		ibv_destroy_qp(net->loop_qp);
	if (net->bounce_mr)
		ibv_dereg_mr(net->bounce_mr);
	free(net->bounce);
	if (net->mr)
		ibv_dereg_mr(net->mr);
	if (net->cq)
		ibv_destroy_cq(net->cq);
	if (net->pd)
		ibv_dealloc_pd(net->pd);
	if (net->ctx)
		ibv_close_device(net->ctx);
	pthread_mutex_destroy(&net->lock);
	pthread_mutex_destroy(&net->amo_lock);
	memset(net, 0, sizeof(*net));
}

static const char *opcode_name(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_RDMA_WRITE:
		return "RDMA write";
	case IBV_WC_RDMA_READ:
		return "RDMA read";
	case IBV_WC_COMP_SWAP:
		return "RDMA compare-and-swap";
	case IBV_WC_FETCH_ADD:
		return "RDMA fetch-and-add";
	default:
		return "RDMA operation";
	}
}

/* Takes what the NIC has completed; a failure ends the job, naming the peer. */
static int reap(struct sc_net *net)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(net->cq, 16, wc);

	if (n < 0)
		sc_fatal(1, "PE %d: polling the completion queue of %s failed", net->me,
			 sc_net_where(net));
	for (int i = 0; i < n; i++) {
		int pe = (int)wc[i].wr_id;

		if (wc[i].status != IBV_WC_SUCCESS)
			sc_fatal(1, "PE %d: %s to PE %d failed on %s: %s (PE %d or its node is lost, or the link is down)",
				 net->me, opcode_name(wc[i].opcode), pe, sc_net_where(net),
				 ibv_wc_status_str(wc[i].status), pe);
		net->peers[pe].outstanding--;
		net->outstanding--;
	}
	return n;
}

void sc_net_name_lost(const struct sc_net *net, const int *pes, int n, char *did,
		      unsigned long len)
{
	int mates[SC_MAX_PES], m = 0;
	char list[512];

	for (int pe = 0; pe < net->npes; pe++)
		for (int i = 0; i < n; i++)
			if (net->node_of[pe] == net->node_of[pes[i]]) {
				mates[m++] = pe;
				break;
			}
	sc_format_ranks(mates, m, list, sizeof(list));
	snprintf(did, len,
		 "never answered; their node(s) run PEs %s: lost, or the link to them is down",
		 list);
}

/* For the timeout message: the PEs whose operations the NIC has not completed. */
static void unanswered_peers(void *ctx, char *out, unsigned long len, const char **did)
{
	static char lost_nodes[600];
	const struct sc_net *net = ctx;
	int pes[SC_MAX_PES], n = 0;

	for (int pe = 0; pe < net->npes; pe++)
		if (net->peers[pe].outstanding)
			pes[n++] = pe;
	sc_format_ranks(pes, n, out, len);
	sc_net_name_lost(net, pes, n, lost_nodes, sizeof(lost_nodes));
	*did = lost_nodes;
}

/*
 * Reaps until *@count is at most @target, within SHMEMCOMM_TIMEOUT; then
 * the message names the PEs that never answered (lost, or their node).
 */
static void reap_until(struct sc_net *net, const unsigned int *count, unsigned int target,
		       const char *what)
{
	struct sc_wait wait;

	sc_wait_begin(&wait, what, -1, unanswered_peers, net);
	while (*count > target)
		if (!reap(net))
			sc_wait_step(&wait);
}

static void post(struct sc_net *net, int pe, struct ibv_send_wr *wr)
{
	struct sc_net_peer *peer = &net->peers[pe];
	struct ibv_send_wr *bad;
	int err;

	if (peer->outstanding >= SC_NET_SQ_DEPTH)
		reap_until(net, &peer->outstanding, SC_NET_SQ_DEPTH - 1,
			   "waiting for room in a send queue");
	wr->wr_id = (uint64_t)pe;
	wr->next = NULL;
	err = ibv_post_send(peer->qp, wr, &bad);
	if (err)
		sc_fatal(1, "PE %d: posting an RDMA operation to PE %d on %s failed: %s", net->me,
			 pe, sc_net_where(net), strerror(err));
	peer->outstanding++;
	net->outstanding++;
}

static void quiet_locked(struct sc_net *net)
{
	reap_until(net, &net->outstanding, 0, "waiting for RDMA operations to complete");
}

void sc_net_quiet(struct sc_net *net)
{
	pthread_mutex_lock(&net->lock);
	quiet_locked(net);
	pthread_mutex_unlock(&net->lock);
}

static int in_segment(const struct sc_net *net, const void *p, size_t len)
{
	const char *c = p;

	return c >= net->segment && c < net->segment + net->segment_size &&
	       len <= net->segment_size - (size_t)(c - net->segment);
}

/* @len bytes of the bounce buffer, once the NIC is done with earlier ones. */
static char *bounce_take(struct sc_net *net, size_t len)
{
	char *p;

	if (net->bounce_used + len > SC_NET_BOUNCE) {
		quiet_locked(net);
		net->bounce_used = BOUNCE_RESERVED;
	}
	p = net->bounce + net->bounce_used;
	net->bounce_used += (len + 63) & ~(size_t)63;
	return p;
}

static void rdma(struct sc_net *net, enum ibv_wr_opcode op, int pe, uint64_t offset,
		 void *local, uint32_t len, uint32_t lkey, unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)local, len, lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = flags,
		.wr.rdma = { net->peers[pe].base + offset, net->peers[pe].rkey },
	};

	post(net, pe, &wr);
}

void sc_net_put(struct sc_net *net, int pe, uint64_t offset, const void *source, size_t len,
		int nbi)
{
	const char *from = source;
	int direct = 0;

	pthread_mutex_lock(&net->lock);
	while (len) {
		size_t n;

		if (len <= net->max_inline) {
			n = len;
			rdma(net, IBV_WR_RDMA_WRITE, pe, offset, (void *)from, (uint32_t)n, 0,
			     IBV_SEND_INLINE);
		} else if (in_segment(net, from, len)) {
			n = len < MAX_MESSAGE ? len : MAX_MESSAGE;
			rdma(net, IBV_WR_RDMA_WRITE, pe, offset, (void *)from, (uint32_t)n,
			     net->mr->lkey, 0);
			direct = 1;
		} else {
			char *staged;

			n = len < BOUNCE_PIECE ? len : BOUNCE_PIECE;
			staged = bounce_take(net, n);
			memcpy(staged, from, n);
			rdma(net, IBV_WR_RDMA_WRITE, pe, offset, staged, (uint32_t)n,
			     net->bounce_mr->lkey, 0);
		}
		from += n;
		offset += n;
		len -= n;
	}
	/* the NIC reads a heap source while it sends: the caller may not reuse it yet */
	if (direct && !nbi)
		quiet_locked(net);
	pthread_mutex_unlock(&net->lock);
}

void sc_net_get(struct sc_net *net, void *dest, int pe, uint64_t offset, size_t len, int nbi)
{
	char *to = dest;
	int direct = 0;

	pthread_mutex_lock(&net->lock);
	while (len) {
		size_t n;

		if (in_segment(net, to, len)) {
			n = len < MAX_MESSAGE ? len : MAX_MESSAGE;
			rdma(net, IBV_WR_RDMA_READ, pe, offset, to, (uint32_t)n, net->mr->lkey, 0);
			direct = 1;
		} else {
			char *staged;

			/* off the heap the data must pass through the bounce buffer now */
			n = len < BOUNCE_PIECE ? len : BOUNCE_PIECE;
			staged = bounce_take(net, n);
			rdma(net, IBV_WR_RDMA_READ, pe, offset, staged, (uint32_t)n,
			     net->bounce_mr->lkey, 0);
			quiet_locked(net);
			memcpy(to, staged, n);
		}
		to += n;
		offset += n;
		len -= n;
	}
	if (direct && !nbi)
		quiet_locked(net);
	pthread_mutex_unlock(&net->lock);
}

/* One 8-byte atomic of the NIC; the old value. */
static uint64_t atomic64(struct sc_net *net, int pe, uint64_t offset, enum ibv_wr_opcode op,
			 uint64_t compare_add, uint64_t swap)
{
	uint64_t *result = (uint64_t *)net->bounce;
	struct ibv_sge sge = { (uintptr_t)result, 8, net->bounce_mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.wr.atomic = { net->peers[pe].base + offset, compare_add, swap,
			       net->peers[pe].rkey },
	};

	post(net, pe, &wr);
	reap_until(net, &net->peers[pe].outstanding, 0, "waiting for an RDMA atomic");
	return *result;
}

static uint64_t apply(enum sc_net_amo op, uint64_t old, uint64_t value)
{
	switch (op) {
	case SC_AMO_ADD:
		return old + value;
	case SC_AMO_AND:
		return old & value;
	case SC_AMO_OR:
		return old | value;
	case SC_AMO_XOR:
		return old ^ value;
	case SC_AMO_FETCH:
		return old;
	default:		/* set, swap, and a compare-swap that matched */
		return value;
	}
}

uint64_t sc_net_amo(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
		    enum sc_net_amo op, uint64_t value, uint64_t cond)
{
	uint64_t word_offset = offset & ~7ull, shift = (offset & 7) * 8;
	uint64_t mask = size == 8 ? ~0ull : ((1ull << (size * 8)) - 1) << shift;
	uint64_t word, old;

	if (net->amo_by_message)
		return amo_by_message(net, pe, offset, size, op, value, cond);
	pthread_mutex_lock(&net->lock);
	if (size == 8 && (op == SC_AMO_ADD || op == SC_AMO_FETCH)) {
		old = atomic64(net, pe, word_offset, IBV_WR_ATOMIC_FETCH_AND_ADD,
			       op == SC_AMO_ADD ? value : 0, 0);
	} else if (size == 8 && op == SC_AMO_CSWAP) {
		old = atomic64(net, pe, word_offset, IBV_WR_ATOMIC_CMP_AND_SWP, cond, value);
	} else {
		/*
		 * The NIC has only 8-byte add and compare-swap: anything else
		 * is a compare-swap loop on the aligned word holding the value.
		 */
		word = atomic64(net, pe, word_offset, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 0);
		for (;;) {
			uint64_t seen, next;

			old = (word & mask) >> shift;
			if (op == SC_AMO_FETCH || (op == SC_AMO_CSWAP && old != (cond & (mask >> shift))))
				break;
			next = (word & ~mask) | ((apply(op, old, value) << shift) & mask);
			seen = atomic64(net, pe, word_offset, IBV_WR_ATOMIC_CMP_AND_SWP, word, next);
			if (seen == word)
				break;
			word = seen;
		}
	}
	pthread_mutex_unlock(&net->lock);
	return old;
}

void sc_net_last_words(struct sc_net *net, void *const *mapped, uint64_t offset,
		       const void *data, uint32_t len)
{
	char *staged = net->bounce + 8;	/* past the atomic result; len <= 56 */
	struct timespec start, now;
	struct ibv_wc wc[16];
	unsigned int expected = net->outstanding, seen = 0;

	/* no lock: the job is ending, perhaps inside a call that holds it */
	memcpy(staged, data, len);
	for (int pe = 0; pe < net->npes; pe++) {
		struct ibv_sge sge = { (uintptr_t)staged, len, net->bounce_mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = (uint64_t)pe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.wr.rdma = { net->peers[pe].base + offset, net->peers[pe].rkey },
		}, *bad;

		if (!mapped[pe] && !ibv_post_send(net->peers[pe].qp, &wr, &bad))
			expected++;
	}
	/* the writes must leave before the process (and its QPs) ends */
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int n = ibv_poll_cq(net->cq, 16, wc);

		seen += n > 0 ? (unsigned int)n : 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (seen < expected && (now.tv_sec - start.tv_sec) * 1000000000L + now.tv_nsec - start.tv_nsec < 200000000L);
}

int sc_net_probe(struct sc_net *net, uint64_t *value, int pe, uint64_t offset, double seconds)
{
	char *staged = net->bounce + BOUNCE_PROBE;
	struct timespec start, now;
	int err = 0;

	pthread_mutex_lock(&net->lock);
	rdma(net, IBV_WR_RDMA_READ, pe, offset, staged, sizeof(*value), net->bounce_mr->lkey, 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (net->peers[pe].outstanding && !err) {
		if (reap(net))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec + (now.tv_nsec - start.tv_nsec) / 1e9 > seconds)
			err = -ETIMEDOUT;
		else
			sched_yield();
	}
	if (!err)
		memcpy(value, staged, sizeof(*value));
	pthread_mutex_unlock(&net->lock);
	return err;
}
