/*
 * The network transport: RDMA through rdma-core's verbs, for the PEs whose
 * segment this process cannot map (those on other nodes; every other PE
 * when SHMEMCOMM_TRANSPORT names rdma).
 *
 * Each PE registers its whole segment (the internal area and the heap)
 * once: through the module's dma-buf when the device takes one, else with
 * ibv_reg_mr on the mapping; and its program's globals apart, with
 * ibv_reg_mr. Offsets past the segment's size are into the globals.
 *
 * A segment the NIC can register neither way (device memory that the CPU
 * maps but a NIC without dma-buf support cannot pin, such as rxe's) goes by
 * message (segment_mail.c): other PEs write each put, get and atomic into
 * its inbox, registered host memory, and its service thread does it with
 * the CPU on the mapping and answers. SHMEMCOMM_IB_SEGMENT=message asks for
 * this on any segment. The log says which way each PE's segment went.
 *
 * It keeps one reliable-connected QP to every
 * PE, itself and its node peers included: once any PE is remote, every
 * atomic on the heap must be the NIC's, since a CPU atomic is not atomic
 * against an HCA atomic on the same word.
 *
 * Ordering: one RC QP per pair of PEs executes that pair's operations in
 * the order they were posted, so a fence needs no wait; quiet waits until
 * the NIC has completed every operation posted. Every wait for the NIC is
 * bounded by SHMEMCOMM_TIMEOUT, and a failed operation ends the job with a
 * message naming the device, port, GID index and the peer PE.
 *
 * Settings: SHMEMCOMM_IB_DEV (a device name), SHMEMCOMM_IB_PORT,
 * SHMEMCOMM_IB_GID_INDEX; by default the first device with an active port,
 * its first active port, and on RoCE the RoCE v2 GID of an IPv4 address.
 * SHMEMCOMM_IB_ATOMICS: nic (the device's RDMA atomics), am (by message to
 * a service thread in the target PE), auto (nic where every PE's device
 * has them and registers its segment, else am).
 * SHMEMCOMM_IB_SEGMENT: auto (registered where the NIC can, else by
 * message), message (by message).
 */
#ifndef SHMEMCOMM_NET_NET_H
#define SHMEMCOMM_NET_NET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "boot/node.h"
#include "boot/bootstrap.h"

#define SC_NET_SQ_DEPTH 128	/* work requests in flight per QP */
#define SC_NET_INLINE 64	/* bytes of a put carried in the work request itself */
#define SC_NET_BOUNCE (4u << 20)	/* registered staging for data off the heap */

enum sc_net_amo {
	SC_AMO_FETCH, SC_AMO_SET, SC_AMO_SWAP, SC_AMO_CSWAP,
	SC_AMO_ADD, SC_AMO_AND, SC_AMO_OR, SC_AMO_XOR,
};

/*
 * Atomics by message, where the NIC does none (or SHMEMCOMM_IB_ATOMICS=am):
 * the request, written into the target's mailbox for the requester, its
 * @seq last; the target's service thread answers into the requester's reply.
 */
struct sc_amo_mail {
	_Atomic uint64_t seq;
	uint64_t offset;	/* of the word in the target's segment */
	uint64_t value;
	uint64_t cond;
	uint32_t op;		/* enum sc_net_amo */
	uint32_t size;		/* 4 or 8 */
	/*
	 * @seq again, written with the body: a NIC may place @seq a byte at a
	 * time (rxe's memcpy does, under QEMU), and a half-written @seq must
	 * not pass for a new request
	 */
	uint64_t check;
	char pad[16];
};

_Static_assert(sizeof(struct sc_amo_mail) == 64, "a cache line per requester");

/* The answer to an atomic by mailbox, in the requester's replies (the bounce buffer) */
struct sc_amo_reply {
	uint64_t old;
	_Atomic uint64_t seq;	/* written after @old */
	char pad[48];
};

struct sc_net_peer {
	struct ibv_qp *qp;
	uint64_t base;		/* its segment, as registered */
	uint32_t rkey;
	uint32_t globals_rkey;	/* its program's globals, 0 when it has none */
	uint64_t globals_base;
	unsigned int outstanding;	/* work requests not yet completed */
	int by_message;		/* its segment goes by message (segment_mail.c) */
	uint32_t inbox_rkey;
	uint64_t inbox;		/* where this PE's mail to it goes */
	uint64_t sent;		/* messages this PE sent it */
	uint64_t replies;	/* its bounce buffer, where answers to it go */
	uint32_t replies_rkey;
};

struct sc_net {
	int active;		/* some PE is reached through the NIC */
	int me, npes;
	pthread_mutex_t lock;	/* the CQ, the counters and the bounce buffer */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;	/* this PE's segment; NULL when it goes by message */
	struct ibv_mr *globals_mr;	/* its program's globals, registered apart */
	const char *registered_by;	/* "dma-buf" or "ibv_reg_mr"; NULL by message */
	char not_registered[200];	/* by message: why the NIC took neither */
	int by_message_asked;	/* by SHMEMCOMM_IB_SEGMENT */
	char *segment;
	size_t segment_size;
	char *globals;		/* offsets past segment_size are into these */
	size_t globals_size;
	struct ibv_mr *bounce_mr;
	/*
	 * the first 64 bytes: atomic results; then the answers other PEs write
	 * here (struct sc_amo_reply, segment_mail.c's); staging from
	 * BOUNCE_START (ib.h)
	 */
	char *bounce;
	size_t bounce_used;
	/* this PE's segment by message: its inbox, served by the service thread */
	struct ibv_mr *inbox_mr;
	char *inbox;
	size_t inbox_size;
	pthread_mutex_t mail_lock;	/* this PE's messages, one at a time, and peers' @sent */
	int some_by_message;	/* some PE's segment goes by message */
	struct ibv_qp *loop_qp;	/* the far end of this PE's QP to itself */
	char device[64];
	int port;
	int gid_index;
	int roce;		/* Ethernet link layer: peers addressed by GID */
	int atomics;		/* the device does 8-byte atomics */
	/*
	 * atomics on remote PEs by message to their service thread, and on
	 * mapped ones by the CPU: some PE's device has no RDMA atomics, some
	 * PE's segment goes by message, or SHMEMCOMM_IB_ATOMICS=am
	 */
	int amo_by_message;
	pthread_t service;	/* serves the atomics' mailboxes and the inbox */
	int service_running;
	_Atomic int service_stop;
	pthread_mutex_t amo_lock;	/* one request at a time per PE: one mailbox */
	uint64_t amo_seq;
	uint32_t max_inline;
	uint32_t rd_atomic;	/* RDMA reads and atomics in flight per QP */
	unsigned int outstanding;
	struct sc_net_peer *peers;	/* [npes] */
	const int *node_of;	/* by PE: its node, for messages about lost ones */
	uint64_t amo_mail;	/* segment offset of the mailboxes, one per requesting PE */
};

/* This PE's segment, as the NIC serves it, and its program's globals. */
struct sc_net_segment {
	void *base;
	size_t size;
	void *globals;		/* offset @size and up: these; NULL with none */
	size_t globals_size;
	int dmabuf_fd;		/* >= 0: the module's dma-buf of it, registered by that */
	int device_memory;	/* a heap provider's: by message where the NIC takes neither way */
	uint64_t amo_mail;	/* offset of struct sc_amo_mail[npes] in it */
};

/*
 * Collective over @boot: opens the device, registers @segment and connects
 * a QP to every PE; @node says which PEs share a node, for messages.
 * 0, or a negative errno after a message; every PE learns of a failure on
 * any PE and fails too, naming it.
 */
int sc_net_setup(struct sc_net *net, struct sc_boot *boot, const struct sc_node *node,
		 const struct sc_net_segment *segment);
void sc_net_teardown(struct sc_net *net);

/*
 * @len bytes from @source to @offset in @pe's segment. With @nbi the call
 * may return before the NIC has read @source when it lies in this PE's
 * segment; otherwise @source may be reused on return.
 */
void sc_net_put(struct sc_net *net, int pe, uint64_t offset, const void *source, size_t len,
		int nbi);
/* @len bytes at @offset in @pe's segment into @dest; with @nbi, complete at quiet. */
void sc_net_get(struct sc_net *net, void *dest, int pe, uint64_t offset, size_t len, int nbi);
/*
 * An atomic on the @size-byte (4 or 8) word at @offset in @pe's segment,
 * with @value and, for SC_AMO_CSWAP, @cond, as bits in the low bytes.
 * Returns the word's old value.
 */
uint64_t sc_net_amo(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
		    enum sc_net_amo op, uint64_t value, uint64_t cond);
/*
 * For messages, as a wait times out: 8 bytes at @offset in @pe's segment,
 * or -ETIMEDOUT when @pe does not answer within @seconds (it is lost).
 */
int sc_net_probe(struct sc_net *net, uint64_t *value, int pe, uint64_t offset, double seconds);
/* Waits until the NIC has completed every operation this PE posted. */
void sc_net_quiet(struct sc_net *net);

/*
 * Best effort, as the job ends: @len (<= 56) bytes of @data to @offset in
 * every PE not @mapped here, without waiting for room or for the lock.
 */
void sc_net_last_words(struct sc_net *net, void *const *mapped, uint64_t offset,
		       const void *data, uint32_t len);

/*
 * For a timeout message about the @n PEs in @pes that do not answer: what
 * they did ("never answered; their node(s) run PEs ...") into @did.
 */
void sc_net_name_lost(const struct sc_net *net, const int *pes, int n, char *did,
		      unsigned long len);

/* "rxe0 port 1 GID index 1", for messages. */
const char *sc_net_where(const struct sc_net *net);

#endif
