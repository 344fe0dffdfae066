/*
 * A segment by message: the operations of other PEs on a PE whose NIC
 * registers neither its segment's dma-buf nor its CPU mapping.
 *
 * That PE registers an inbox of host memory instead: for each sender,
 * MAIL_SLOTS slots of a header and MAIL_PAYLOAD bytes, and a box for its
 * last words. A sender writes a put, get or atomic into its next slot
 * (the header's number last), and the target's service thread (amo_mail.c)
 * takes the slots in order, does each with the CPU on its mapping of the
 * segment, and answers into the sender's replies (its bounce buffer, which
 * is registered): a get's data, an atomic's old value, then how many
 * messages it has done. A sender waits for that count before it reuses a
 * slot, to answer a get or an atomic, and at quiet, so that quiet means
 * done in the target's memory. One sender's messages are done in the order
 * sent, which keeps fence's order.
 *
 * A sender holds mail_lock while it waits, and never the transport's lock;
 * the service thread takes the transport's lock only to post, and waits for
 * nothing but the NIC, so that PEs waiting on each other's service threads
 * cannot deadlock.
 */
#include "net/ib.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/fatal.h"
#include "util/log.h"
#include "util/wait.h"

size_t sc_ib_inbox_size(int npes)
{
	return (size_t)npes * (MAIL_SLOTS * sizeof(struct mail_slot) +
			       sizeof(struct mail_last_words)) + MAIL_PAYLOAD;
}

static struct mail_slot *inbox_slot(const struct sc_net *net, int sender, uint64_t seq)
{
	return (struct mail_slot *)net->inbox + (size_t)sender * MAIL_SLOTS +
	       (seq - 1) % MAIL_SLOTS;
}

static struct mail_last_words *inbox_last_words(const struct sc_net *net, int sender)
{
	return (struct mail_last_words *)(net->inbox + (size_t)net->npes * MAIL_SLOTS *
					  sizeof(struct mail_slot)) + sender;
}

/* where the service stages a get's data before the NIC sends it */
static char *inbox_staging(const struct sc_net *net)
{
	return net->inbox + net->inbox_size - MAIL_PAYLOAD;
}

/* this PE's reply from @pe, in its own bounce buffer */
static struct mail_reply *reply_from(const struct sc_net *net, int pe)
{
	return (struct mail_reply *)(net->bounce + REPLY_MAIL) + pe;
}

/* how many of this PE's messages @pe has done, or -1 while the pair is half written */
static int64_t applied_by(const struct sc_net *net, int pe)
{
	struct mail_reply *r = reply_from(net, pe);
	uint64_t check = atomic_load_explicit(&r->check, memory_order_acquire);
	uint64_t applied = atomic_load_explicit(&r->applied, memory_order_acquire);

	return applied == ~check ? (int64_t)applied : -1;
}

/* Until @pe has done this PE's first @count messages; mail_lock held. */
static void wait_applied(struct sc_net *net, int pe, uint64_t count, const char *what)
{
	struct sc_ib_wait_one waited = { .net = net, .pe = pe };
	struct sc_wait wait;

	if (!count || applied_by(net, pe) >= (int64_t)count)
		return;
	sc_wait_begin(&wait, what, -1, sc_ib_one_unanswered, &waited);
	while (applied_by(net, pe) < (int64_t)count)
		sc_wait_step(&wait);
}

/*
 * Writes @h and @len bytes of @payload into @pe's next slot for this PE:
 * the message's number. With mail_lock held.
 */
static uint64_t mail_send(struct sc_net *net, int pe, struct mail_header *h,
			  const void *payload, uint32_t len)
{
	struct sc_net_peer *peer = &net->peers[pe];
	uint64_t seq = peer->sent + 1;
	uint64_t slot = peer->inbox + (((uint64_t)net->me * MAIL_SLOTS + (seq - 1) % MAIL_SLOTS) *
				       sizeof(struct mail_slot));
	char *staged;

	if (seq > MAIL_SLOTS)
		wait_applied(net, pe, seq - MAIL_SLOTS, "waiting for room in a PE's inbox");
	peer->sent = seq;
	h->check = seq;
	pthread_mutex_lock(&net->lock);
	staged = sc_ib_bounce_take(net, sizeof(*h) + len);
	memcpy(staged, h, sizeof(*h));
	memcpy(staged, &seq, sizeof(seq));
	if (len)
		memcpy(staged + sizeof(*h), payload, len);
	/* the body, then the number on its own: RC does them in that order */
	sc_ib_post(net, IBV_WR_RDMA_WRITE, pe, slot + 8, peer->inbox_rkey, staged + 8,
		   (uint32_t)(sizeof(*h) - 8 + len), net->bounce_mr->lkey);
	sc_ib_post(net, IBV_WR_RDMA_WRITE, pe, slot, peer->inbox_rkey, staged, 8,
		   net->bounce_mr->lkey);
	pthread_mutex_unlock(&net->lock);
	return seq;
}

void sc_ib_mail_put(struct sc_net *net, int pe, uint64_t offset, const void *source, size_t len)
{
	const char *from = source;

	pthread_mutex_lock(&net->mail_lock);
	while (len) {
		uint32_t n = len < MAIL_PAYLOAD ? (uint32_t)len : MAIL_PAYLOAD;
		struct mail_header h = { .kind = MAIL_PUT, .offset = offset, .len = n };

		mail_send(net, pe, &h, from, n);
		from += n;
		offset += n;
		len -= n;
	}
	pthread_mutex_unlock(&net->mail_lock);
}

void sc_ib_mail_get(struct sc_net *net, void *dest, int pe, uint64_t offset, size_t len)
{
	char *to = dest;

	pthread_mutex_lock(&net->mail_lock);
	while (len) {
		uint32_t n = len < MAIL_PAYLOAD ? (uint32_t)len : MAIL_PAYLOAD;
		struct mail_header h = { .kind = MAIL_GET, .offset = offset, .len = n };

		wait_applied(net, pe, mail_send(net, pe, &h, NULL, 0),
			     "waiting for a get by message");
		memcpy(to, net->bounce + REPLY_DATA(net->npes), n);
		to += n;
		offset += n;
		len -= n;
	}
	pthread_mutex_unlock(&net->mail_lock);
}

uint64_t sc_ib_mail_amo(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
			enum sc_net_amo op, uint64_t value, uint64_t cond)
{
	struct mail_header h = {
		.kind = MAIL_AMO, .offset = offset, .len = size, .amo = op,
		.value = value, .cond = cond,
	};
	uint64_t old;

	pthread_mutex_lock(&net->mail_lock);
	wait_applied(net, pe, mail_send(net, pe, &h, NULL, 0), "waiting for an atomic by message");
	old = reply_from(net, pe)->old;
	pthread_mutex_unlock(&net->mail_lock);
	return old;
}

int sc_ib_mail_probe(struct sc_net *net, uint64_t *value, int pe, uint64_t offset,
		     double seconds)
{
	struct mail_header h = { .kind = MAIL_GET, .offset = offset, .len = sizeof(*value) };
	struct timespec start;
	uint64_t seq;
	int err = 0;

	pthread_mutex_lock(&net->mail_lock);
	seq = mail_send(net, pe, &h, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (applied_by(net, pe) < (int64_t)seq && !err) {
		if (sc_ib_past(&start, seconds))
			err = -ETIMEDOUT;
		else
			sched_yield();
	}
	if (!err)
		memcpy(value, net->bounce + REPLY_DATA(net->npes), sizeof(*value));
	pthread_mutex_unlock(&net->mail_lock);
	return err;
}

void sc_ib_mail_quiet(struct sc_net *net)
{
	pthread_mutex_lock(&net->mail_lock);
	for (int pe = 0; pe < net->npes; pe++)
		if (net->peers[pe].by_message)
			wait_applied(net, pe, net->peers[pe].sent,
				     "waiting for PEs to do this PE's messages");
	pthread_mutex_unlock(&net->mail_lock);
}

int sc_ib_mail_last_words(struct sc_net *net, int pe, uint64_t offset, const void *data,
			  uint32_t len)
{
	const struct sc_net_peer *peer = &net->peers[pe];
	uint64_t box = peer->inbox + (size_t)net->npes * MAIL_SLOTS * sizeof(struct mail_slot) +
		       (size_t)net->me * sizeof(struct mail_last_words);
	struct mail_last_words *staged =
		(struct mail_last_words *)(net->bounce + BOUNCE_LAST_WORDS(net->npes));
	struct ibv_sge body = { (uintptr_t)&staged->check, sizeof(*staged) - 8, net->bounce_mr->lkey };
	struct ibv_sge seq = { (uintptr_t)staged, 8, net->bounce_mr->lkey };
	struct ibv_send_wr wr[2] = {
		{ .wr_id = (uint64_t)pe, .next = &wr[1], .sg_list = &body, .num_sge = 1,
		  .opcode = IBV_WR_RDMA_WRITE },
		{ .wr_id = (uint64_t)pe, .sg_list = &seq, .num_sge = 1,
		  .opcode = IBV_WR_RDMA_WRITE },
	}, *bad;

	if (len > sizeof(staged->data))
		len = sizeof(staged->data);
	staged->seq = 1;
	staged->check = 1;
	staged->offset = offset;
	staged->len = len;
	memcpy(staged->data, data, len);
	wr[0].wr.rdma.remote_addr = box + 8;
	wr[0].wr.rdma.rkey = peer->inbox_rkey;
	wr[1].wr.rdma.remote_addr = box;
	wr[1].wr.rdma.rkey = peer->inbox_rkey;
	return ibv_post_send(peer->qp, wr, &bad) ? 0 : 2;
}

/* from the inbox's staging, done before the staging is used again */
static void answer(struct sc_net *net, int sender, uint64_t offset, void *local, uint32_t len)
{
	sc_ib_answer(net, sender, offset, local, len, net->inbox_mr->lkey);
}

static void serve(struct sc_net *net, int sender, const struct mail_slot *slot, uint64_t done)
{
	const struct mail_header *h = &slot->h;
	uint64_t reply = REPLY_MAIL + (uint64_t)net->me * sizeof(struct mail_reply);
	char *staging = inbox_staging(net);
	struct mail_reply *r = (struct mail_reply *)staging;
	uint32_t len = h->len;
	/* an atomic's size and alignment are sc_ib_serve_amo's to check */
	if ((h->kind != MAIL_PUT && h->kind != MAIL_GET && h->kind != MAIL_AMO) ||
	    len > MAIL_PAYLOAD)
		sc_fatal(1, "PE %d: PE %d sent a message of kind %u and %u bytes at offset %llu, which this PE does not take (a PE of another build?)",
			 net->me, sender, h->kind, len, (unsigned long long)h->offset);
	if (h->kind == MAIL_PUT) {
		memcpy(sc_ib_local(net, sender, h->offset, len, "a put"), slot->payload, len);
		/*
		 * device memory is often mapped write-combined, whose stores
		 * may pass each other: this put is seen before the next one
		 */
		atomic_thread_fence(memory_order_seq_cst);
	} else if (h->kind == MAIL_GET) {
		memcpy(staging, sc_ib_local(net, sender, h->offset, len, "a get"), len);
		answer(net, sender, REPLY_DATA(net->npes), staging, len);
	} else {
		r->old = sc_ib_serve_amo(net, sender, h->offset, len, (enum sc_net_amo)h->amo,
					 h->value, h->cond);
		answer(net, sender, reply, &r->old, sizeof(r->old));
	}
	atomic_store_explicit(&r->applied, done, memory_order_relaxed);
	atomic_store_explicit(&r->check, ~done, memory_order_relaxed);
	answer(net, sender, reply + offsetof(struct mail_reply, applied), &r->applied,
	       2 * sizeof(uint64_t));
}

int sc_ib_serve_inbox(struct sc_net *net, uint64_t *served)
{
	int any = 0;

	for (int sender = 0; sender < net->npes; sender++) {
		struct mail_last_words *words = inbox_last_words(net, sender);
		uint64_t next = served[sender] + 1;
		struct mail_slot *slot = inbox_slot(net, sender, next);

		while (atomic_load_explicit(&slot->h.seq, memory_order_acquire) == next &&
		       slot->h.check == next) {
			serve(net, sender, slot, next);
			served[sender] = next++;
			slot = inbox_slot(net, sender, next);
			any = 1;
		}
		/* once: the sender's stop word, as its job ends */
		if (atomic_load_explicit(&words->seq, memory_order_acquire) == 1 &&
		    words->check == 1 && words->len <= sizeof(words->data)) {
			memcpy(sc_ib_local(net, sender, words->offset, words->len, "last words"),
			       words->data, words->len);
			words->check = 0;
			any = 1;
		}
	}
	return any;
}
