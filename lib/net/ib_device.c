/* The device, its port and GID, and the segment registered with it. */
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
	sc_error("PE %d: RLIMIT_MEMLOCK is %llu bytes, and registering this PE's %zu-byte segment and %zu bytes of globals with %s needs at least %zu; raise it (ulimit -l %zu, LimitMEMLOCK= of a systemd unit, docker run --ulimit memlock=-1) or lower SHMEM_SYMMETRIC_SIZE",
		 net->me, (unsigned long long)limit.rlim_cur, net->segment_size, net->globals_size,
		 net->device, bytes, (bytes + 1023) / 1024);
	return -ENOMEM;
}

/* SHMEMCOMM_IB_SEGMENT: 1 for message, 0 for auto, or -EINVAL after a message */
static int by_message_asked(const struct sc_net *net)
{
	const char *how = sc_env_string("SHMEMCOMM_IB_SEGMENT");

	if (!how || !*how || !strcmp(how, "auto"))
		return 0;
	if (!strcmp(how, "message"))
		return 1;
	sc_error("PE %d: SHMEMCOMM_IB_SEGMENT=%s: not one of auto, message", net->me, how);
	return -EINVAL;
}

static struct ibv_mr *register_host(struct sc_net *net, void *addr, size_t len, int access,
				    const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(net->pd, addr, len, access);

	if (!mr)
		sc_error("PE %d: cannot register %s (%zu bytes at %p) with %s: %s", net->me, what,
			 len, addr, net->device, strerror(errno));
	return mr;
}

/*
 * The segment: through the module's dma-buf when the device takes one, else
 * its mapping; device memory that the NIC takes neither way goes by message
 * (net->mr stays NULL, net->not_registered says why), as it does when
 * SHMEMCOMM_IB_SEGMENT asks. 0, or a negative errno after a message.
 */
static int register_segment(struct sc_net *net, const struct sc_net_segment *segment,
			    int access)
{
	int asked = by_message_asked(net), err;
	char dmabuf_refused[80] = "no dma-buf";

	if (asked < 0)
		return asked;
	if (asked) {
		net->by_message_asked = 1;
		snprintf(net->not_registered, sizeof(net->not_registered),
			 "SHMEMCOMM_IB_SEGMENT=message");
		return 0;
	}
	/* the dma-buf needs no pinning by the NIC's driver: the module holds the memory */
	if (segment->dmabuf_fd >= 0) {
		net->mr = ibv_reg_dmabuf_mr(net->pd, 0, net->segment_size,
					    (uintptr_t)net->segment, segment->dmabuf_fd, access);
		if (net->mr) {
			net->registered_by = "dma-buf";
			return 0;
		}
		snprintf(dmabuf_refused, sizeof(dmabuf_refused), "its dma-buf: %s",
			 strerror(errno));
		sc_debug("PE %d: %s does not register dma-bufs (%s): ibv_reg_mr instead",
			 net->me, net->device, strerror(errno));
	}
	if (check_memlock(net, net->segment_size + net->globals_size + SC_NET_BOUNCE))
		return -ENOMEM;
	net->mr = ibv_reg_mr(net->pd, net->segment, net->segment_size, access);
	if (net->mr) {
		net->registered_by = "ibv_reg_mr";
		return 0;
	}
	err = errno;
	if (!segment->device_memory) {
		sc_error("PE %d: cannot register the %zu-byte segment with %s: %s", net->me,
			 net->segment_size, net->device, strerror(err));
		return -err;
	}
	snprintf(net->not_registered, sizeof(net->not_registered),
		 "%s took neither the device memory (%s) nor its CPU mapping (ibv_reg_mr: %s)",
		 net->device, dmabuf_refused, strerror(err));
	return 0;
}

static int register_memory(struct sc_net *net, const struct sc_net_segment *segment)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		     (net->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	int err;

	err = register_segment(net, segment, access);
	if (err)
		return err;
	if (!net->mr) {
		net->inbox_size = sc_ib_inbox_size(net->npes);
		net->inbox = aligned_alloc(4096, (net->inbox_size + 4095) & ~(size_t)4095);
		if (!net->inbox)
			return -ENOMEM;
		memset(net->inbox, 0, net->inbox_size);
		net->inbox_mr = register_host(net, net->inbox, net->inbox_size,
					      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
					      "this PE's inbox");
		if (!net->inbox_mr)
			return -errno;
	}
	if (net->globals_size) {
		net->globals_mr = register_host(net, net->globals, net->globals_size, access,
						"the program's globals");
		if (!net->globals_mr)
			return -errno;
	}
	/* the head holds answers that other PEs write (ib.h's replies area) */
	net->bounce = aligned_alloc(4096, SC_NET_BOUNCE);
	if (!net->bounce)
		return -ENOMEM;
	memset(net->bounce, 0, BOUNCE_START(net->npes));
	/* no message done yet, as a whole pair (ib.h) */
	for (int pe = 0; pe < net->npes; pe++)
		atomic_store(&((struct mail_reply *)(net->bounce + REPLY_MAIL))[pe].check, ~0ull);
	net->bounce_used = BOUNCE_START(net->npes);
	net->bounce_mr = register_host(net, net->bounce, SC_NET_BOUNCE,
				       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
				       "a staging buffer");
	return net->bounce_mr ? 0 : -errno;
}

/* Everything up to the exchange: 0, or a negative errno after a message. */
int sc_ib_prepare(struct sc_net *net, struct net_card *card,
		  const struct sc_net_segment *segment)
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
	err = register_memory(net, segment);
	if (err)
		return err;
	card->base = (uintptr_t)net->segment;
	card->replies = (uintptr_t)net->bounce;
	card->replies_rkey = net->bounce_mr->rkey;
	if (net->mr) {
		card->rkey = net->mr->rkey;
	} else {
		card->by_message = 1;
		card->inbox = (uintptr_t)net->inbox;
		card->inbox_rkey = net->inbox_mr->rkey;
	}
	if (net->globals_mr) {
		card->globals_base = (uintptr_t)net->globals;
		card->globals_rkey = net->globals_mr->rkey;
	}
	for (int pe = 0; pe < net->npes; pe++) {
		net->peers[pe].qp = sc_ib_create_qp(net);
		if (!net->peers[pe].qp)
			return -ENOMEM;
		card->qpn[pe] = net->peers[pe].qp->qp_num;
	}
	net->loop_qp = sc_ib_create_qp(net);
	return net->loop_qp ? 0 : -ENOMEM;
}

void sc_net_teardown(struct sc_net *net)
{
	if (net->service_running) {
		atomic_store(&net->service_stop, 1);
		pthread_join(net->service, NULL);
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
	if (net->inbox_mr)
		ibv_dereg_mr(net->inbox_mr);
	free(net->inbox);
	if (net->globals_mr)
		ibv_dereg_mr(net->globals_mr);
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
	pthread_mutex_destroy(&net->mail_lock);
	memset(net, 0, sizeof(*net));
}
