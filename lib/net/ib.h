/*
 * Inside the verbs transport: what its files share. ib_device.c opens the
 * device and registers the segment; ib_connect.c connects a QP to every PE
 * at setup; ib_post.c posts and completes the operations; amo_mail.c is
 * the atomics-by-message service.
 */
#ifndef SHMEMCOMM_NET_IB_H
#define SHMEMCOMM_NET_IB_H

#include "net/net.h"

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
	uint64_t globals_base;
	uint32_t rkey;
	uint32_t globals_rkey;
	uint16_t lid;
	uint8_t mtu;		/* enum ibv_mtu */
	uint8_t ok;		/* 0: this PE failed to set up; the others stop too */
	uint8_t amo_by_message;	/* its device has no RDMA atomics, or it was told so */
	uint8_t pad[3];
	uint32_t qpn[];		/* [npes]: its QP for each PE */
};

/* Everything up to the exchange: 0, or a negative errno after a message. */
int sc_ib_prepare(struct sc_net *net, struct net_card *card, int dmabuf_fd);
struct ibv_qp *sc_ib_create_qp(struct sc_net *net);
int sc_ib_start_amo_service(struct sc_net *net);
/* An atomic on a remote PE by message to its service thread; the old value. */
uint64_t sc_ib_amo_by_message(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
			       enum sc_net_amo op, uint64_t value, uint64_t cond);

#endif
