/*
 * Inside the verbs transport: what its files share. ib_device.c opens the
 * device and registers the segment; ib_connect.c connects a QP to every PE
 * at setup; ib_post.c posts and completes the operations; amo_mail.c is
 * the atomics-by-message service, and its thread serves segment_mail.c's
 * inbox too, for a segment that goes by message.
 */
#ifndef SHMEMCOMM_NET_IB_H
#define SHMEMCOMM_NET_IB_H

#include <time.h>

#include "net/net.h"

#define QP_TIMEOUT 17		/* 4.096 us << 17: half a second before a retry */
#define QP_RETRIES 7		/* then the operation fails and names the peer */
#define MAX_RD_ATOMIC 16
#define MAX_MESSAGE (1ull << 30)
#define BOUNCE_PIECE (1u << 20)	/* a quarter of the bounce buffer: four in flight */
#define BOUNCE_RESERVED 64	/* the atomic result, last words, a probe: one cache line */
#define BOUNCE_PROBE 56
#define CAP_IPC_LOCK 14

/*
 * A segment by message: each PE's messages to it go round MAIL_SLOTS slots
 * of its inbox, each a header and up to MAIL_PAYLOAD bytes.
 */
#define MAIL_SLOTS 4
#define MAIL_PAYLOAD (16u << 10)

enum mail_kind { MAIL_PUT = 1, MAIL_GET, MAIL_AMO };

struct mail_header {
	/*
	 * the message's number from this sender, 1 up, written after the rest
	 * on its own; @check is it again, written with the rest, since a NIC
	 * may place @seq a byte at a time
	 */
	_Atomic uint64_t seq;
	uint64_t check;
	uint64_t offset;	/* in the target's segment, or its globals past it */
	uint64_t value;		/* an atomic's operand */
	uint64_t cond;		/* a compare-swap's expected value */
	uint32_t kind;		/* enum mail_kind */
	uint32_t len;		/* bytes put or got; an atomic's size */
	uint32_t amo;		/* enum sc_net_amo */
	uint32_t pad[3];
};

_Static_assert(sizeof(struct mail_header) == 64, "a cache line");

struct mail_slot {
	struct mail_header h;
	char payload[MAIL_PAYLOAD];
};

/* A sender's last words (sc_net_last_words), one box per sender: done once. */
struct mail_last_words {
	_Atomic uint64_t seq;	/* 1, written after the rest */
	uint64_t check;		/* 1, written with the rest */
	uint64_t offset;
	uint32_t len;		/* at most sizeof(data) */
	uint32_t pad;
	char data[96];
};

_Static_assert(sizeof(struct mail_last_words) == 128, "two cache lines");

/* What the service writes back into a sender's replies, per target. */
struct mail_reply {
	uint64_t old;		/* an atomic's old value, written first */
	/*
	 * how many of the sender's messages the target has done, and its
	 * complement, written together after: read @check first, and trust
	 * @applied only when it is ~@check (a half-written pair is not)
	 */
	_Atomic uint64_t applied;
	_Atomic uint64_t check;
	uint64_t pad;
};

/*
 * The replies area at the head of every PE's bounce buffer: the atomic
 * result, last words and probe (BOUNCE_RESERVED), the answer to an atomic
 * by mailbox, one struct mail_reply per PE, then the data of a get by
 * message.
 */
#define REPLY_AMO BOUNCE_RESERVED
#define REPLY_MAIL (REPLY_AMO + sizeof(struct sc_amo_reply))
#define REPLY_DATA(npes) (REPLY_MAIL + (((size_t)(npes) * sizeof(struct mail_reply) + 63) & ~(size_t)63))
#define REPLIES_SIZE(npes) (REPLY_DATA(npes) + MAIL_PAYLOAD)
/* then a sender's last words staged (struct mail_last_words) */
#define BOUNCE_LAST_WORDS(npes) REPLIES_SIZE(npes)
/* and the atomic service's answer, staged */
#define BOUNCE_ANSWER(npes) (BOUNCE_LAST_WORDS(npes) + sizeof(struct mail_last_words))
#define BOUNCE_START(npes) (BOUNCE_ANSWER(npes) + 64)

/* What each PE publishes to connect: its address, key, and a QP per PE. */
struct net_card {
	union ibv_gid gid;
	uint64_t base;
	uint64_t globals_base;
	uint64_t inbox;		/* its inbox when its segment goes by message */
	uint64_t replies;	/* its bounce buffer */
	uint32_t rkey;
	uint32_t globals_rkey;
	uint32_t inbox_rkey;
	uint32_t replies_rkey;
	uint16_t lid;
	uint8_t mtu;		/* enum ibv_mtu */
	uint8_t ok;		/* 0: this PE failed to set up; the others stop too */
	uint8_t amo_by_message;	/* its device has no RDMA atomics, or it was told so */
	uint8_t by_message;	/* its segment goes by message */
	uint8_t pad[2];
	uint32_t qpn[];		/* [npes]: its QP for each PE */
};

/* Everything up to the exchange: 0, or a negative errno after a message. */
int sc_ib_prepare(struct sc_net *net, struct net_card *card,
		  const struct sc_net_segment *segment);
struct ibv_qp *sc_ib_create_qp(struct sc_net *net);
int sc_ib_start_service(struct sc_net *net);
/* An atomic on a remote PE by message to its service thread; the old value. */
uint64_t sc_ib_amo_by_message(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
			       enum sc_net_amo op, uint64_t value, uint64_t cond);
/*
 * A service thread's atomic for @pe on this PE's word at @offset, with the
 * CPU: its old value. One of another size than 4 or 8, or unaligned, or
 * outside the segment and globals, ends the job, naming @pe.
 */
uint64_t sc_ib_serve_amo(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
			 enum sc_net_amo op, uint64_t value, uint64_t cond);
/*
 * This PE's @len bytes at @offset (its segment, or its globals past it),
 * for a request from @pe; a request outside them ends the job, naming it.
 */
char *sc_ib_local(struct sc_net *net, int pe, uint64_t offset, uint64_t len, const char *what);

/* A wait on one PE, for sc_wait_begin: its message names @pe and its node's PEs. */
struct sc_ib_wait_one {
	const struct sc_net *net;
	int pe;
	char lost[600];
};

void sc_ib_one_unanswered(void *ctx, char *out, unsigned long len, const char **did);
/* more than @seconds since @start (CLOCK_MONOTONIC) */
int sc_ib_past(const struct timespec *start, double seconds);

/* ib_post.c, with net->lock held: */
/* posts @op of @len bytes at @local (@lkey; 0 and small: inline) to @remote (@rkey) on @pe */
void sc_ib_post(struct sc_net *net, enum ibv_wr_opcode op, int pe, uint64_t remote, uint32_t rkey,
		void *local, uint32_t len, uint32_t lkey);
/* @len bytes of the bounce buffer, once the NIC is done with earlier ones */
char *sc_ib_bounce_take(struct sc_net *net, size_t len);
/*
 * Without net->lock: @len bytes at @local (@lkey) to @offset in @pe's
 * replies (its bounce buffer); @local may be used again when it returns.
 * For service threads.
 */
void sc_ib_answer(struct sc_net *net, int pe, uint64_t offset, void *local, uint32_t len,
		  uint32_t lkey);

/* segment_mail.c: operations on a PE whose segment goes by message */
void sc_ib_mail_put(struct sc_net *net, int pe, uint64_t offset, const void *source, size_t len);
void sc_ib_mail_get(struct sc_net *net, void *dest, int pe, uint64_t offset, size_t len);
uint64_t sc_ib_mail_amo(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
			enum sc_net_amo op, uint64_t value, uint64_t cond);
int sc_ib_mail_probe(struct sc_net *net, uint64_t *value, int pe, uint64_t offset,
		     double seconds);
/* best effort, without a lock, as the job ends: 1 if posted */
int sc_ib_mail_last_words(struct sc_net *net, int pe, uint64_t offset, const void *data,
			  uint32_t len);
/* waits until every PE that goes by message has done this PE's messages */
void sc_ib_mail_quiet(struct sc_net *net);
/* the inbox's size for @npes senders, and the service thread's turn at it: 1 if it did any */
size_t sc_ib_inbox_size(int npes);
int sc_ib_serve_inbox(struct sc_net *net, uint64_t *served);

#endif
