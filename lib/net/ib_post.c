/* Posting RDMA operations and reaping their completions, with bounded waits that name the peer. */
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
	int *mates = malloc(sizeof(int) * (size_t)net->npes), m = 0;
	char list[512];

	for (int pe = 0; mates && pe < net->npes; pe++)
		for (int i = 0; i < n; i++)
			if (net->node_of[pe] == net->node_of[pes[i]]) {
				mates[m++] = pe;
				break;
			}
	sc_format_ranks(mates, m, list, sizeof(list));
	free(mates);
	snprintf(did, len,
		 "never answered; their node(s) run PEs %s: lost, or the link to them is down",
		 list);
}

void sc_ib_one_unanswered(void *ctx, char *out, unsigned long len, const char **did)
{
	struct sc_ib_wait_one *w = ctx;

	snprintf(out, len, "%d", w->pe);
	sc_net_name_lost(w->net, &w->pe, 1, w->lost, sizeof(w->lost));
	*did = w->lost;
}

int sc_ib_past(const struct timespec *start, double seconds)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - start->tv_sec + (now.tv_nsec - start->tv_nsec) / 1e9 > seconds;
}

/* For the timeout message: the PEs whose operations the NIC has not completed. */
static void unanswered_peers(void *ctx, char *out, unsigned long len, const char **did)
{
	static char lost_nodes[600];
	const struct sc_net *net = ctx;
	int *pes = malloc(sizeof(int) * (size_t)net->npes), n = 0;

	for (int pe = 0; pes && pe < net->npes; pe++)
		if (net->peers[pe].outstanding)
			pes[n++] = pe;
	sc_format_ranks(pes, n, out, len);
	sc_net_name_lost(net, pes, n, lost_nodes, sizeof(lost_nodes));
	free(pes);
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
	if (net->some_by_message)
		sc_ib_mail_quiet(net);
	pthread_mutex_lock(&net->lock);
	quiet_locked(net);
	pthread_mutex_unlock(&net->lock);
}

/* in the segment as the NIC has registered it: not when it goes by message */
static int in_segment(const struct sc_net *net, const void *p, size_t len)
{
	const char *c = p;

	return net->mr && c >= net->segment && c < net->segment + net->segment_size &&
	       len <= net->segment_size - (size_t)(c - net->segment);
}

char *sc_ib_bounce_take(struct sc_net *net, size_t len)
{
	char *p;

	if (net->bounce_used + len > SC_NET_BOUNCE) {
		quiet_locked(net);
		net->bounce_used = BOUNCE_START(net->npes);
	}
	p = net->bounce + net->bounce_used;
	net->bounce_used += (len + 63) & ~(size_t)63;
	return p;
}

/*
 * Where @pe's byte at @offset is, as its NIC serves it: the segment below
 * its size, the program's globals past it (registered apart).
 */
static uint64_t remote_address(const struct sc_net *net, int pe, uint64_t offset,
			       uint32_t *rkey)
{
	const struct sc_net_peer *peer = &net->peers[pe];

	if (offset < net->segment_size) {
		*rkey = peer->rkey;
		return peer->base + offset;
	}
	*rkey = peer->globals_rkey;
	return peer->globals_base + (offset - net->segment_size);
}

void sc_ib_post(struct sc_net *net, enum ibv_wr_opcode op, int pe, uint64_t remote, uint32_t rkey,
		void *local, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)local, len, lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = lkey ? 0 : IBV_SEND_INLINE,
	};

	wr.wr.rdma.remote_addr = remote;
	wr.wr.rdma.rkey = rkey;
	post(net, pe, &wr);
}

/* @op on @len bytes at @offset in @pe's segment (or globals) */
static void rdma(struct sc_net *net, enum ibv_wr_opcode op, int pe, uint64_t offset,
		 void *local, uint32_t len, uint32_t lkey)
{
	uint32_t rkey;
	uint64_t remote = remote_address(net, pe, offset, &rkey);

	sc_ib_post(net, op, pe, remote, rkey, local, len, lkey);
}

void sc_ib_answer(struct sc_net *net, int pe, uint64_t offset, void *local, uint32_t len,
		  uint32_t lkey)
{
	int inline_data = len <= net->max_inline;

	pthread_mutex_lock(&net->lock);
	sc_ib_post(net, IBV_WR_RDMA_WRITE, pe, net->peers[pe].replies + offset,
		   net->peers[pe].replies_rkey, local, len, inline_data ? 0 : lkey);
	/* inline data is copied as it is posted */
	if (!inline_data)
		reap_until(net, &net->peers[pe].outstanding, 0, "answering a PE's message");
	pthread_mutex_unlock(&net->lock);
}

void sc_net_put(struct sc_net *net, int pe, uint64_t offset, const void *source, size_t len,
		int nbi)
{
	const char *from = source;
	int direct = 0;

	if (net->peers[pe].by_message) {
		sc_ib_mail_put(net, pe, offset, source, len);
		return;
	}
	pthread_mutex_lock(&net->lock);
	while (len) {
		size_t n;

		if (len <= net->max_inline) {
			n = len;
			rdma(net, IBV_WR_RDMA_WRITE, pe, offset, (void *)from, (uint32_t)n, 0);
		} else if (in_segment(net, from, len)) {
			n = len < MAX_MESSAGE ? len : MAX_MESSAGE;
			rdma(net, IBV_WR_RDMA_WRITE, pe, offset, (void *)from, (uint32_t)n,
			     net->mr->lkey);
			direct = 1;
		} else {
			char *staged;

			n = len < BOUNCE_PIECE ? len : BOUNCE_PIECE;
			staged = sc_ib_bounce_take(net, n);
			memcpy(staged, from, n);
			rdma(net, IBV_WR_RDMA_WRITE, pe, offset, staged, (uint32_t)n,
			     net->bounce_mr->lkey);
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

	if (net->peers[pe].by_message) {
		sc_ib_mail_get(net, dest, pe, offset, len);
		return;
	}
	pthread_mutex_lock(&net->lock);
	while (len) {
		size_t n;

		if (in_segment(net, to, len)) {
			n = len < MAX_MESSAGE ? len : MAX_MESSAGE;
			rdma(net, IBV_WR_RDMA_READ, pe, offset, to, (uint32_t)n, net->mr->lkey);
			direct = 1;
		} else {
			char *staged;

			/* off the heap the data must pass through the bounce buffer now */
			n = len < BOUNCE_PIECE ? len : BOUNCE_PIECE;
			staged = sc_ib_bounce_take(net, n);
			rdma(net, IBV_WR_RDMA_READ, pe, offset, staged, (uint32_t)n,
			     net->bounce_mr->lkey);
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
		.wr.atomic = { 0, compare_add, swap, 0 },
	};

	wr.wr.atomic.remote_addr = remote_address(net, pe, offset, &wr.wr.atomic.rkey);
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

	if (net->peers[pe].by_message)
		return sc_ib_mail_amo(net, pe, offset, size, op, value, cond);
	if (net->amo_by_message)
		return sc_ib_amo_by_message(net, pe, offset, size, op, value, cond);
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
		}, *bad;

		if (mapped[pe])
			continue;
		if (net->peers[pe].by_message) {
			expected += (unsigned int)sc_ib_mail_last_words(net, pe, offset, data, len);
			continue;
		}
		wr.wr.rdma.remote_addr = remote_address(net, pe, offset, &wr.wr.rdma.rkey);
		if (!ibv_post_send(net->peers[pe].qp, &wr, &bad))
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
	struct timespec start;
	int err = 0;

	if (net->peers[pe].by_message)
		return sc_ib_mail_probe(net, value, pe, offset, seconds);
	pthread_mutex_lock(&net->lock);
	rdma(net, IBV_WR_RDMA_READ, pe, offset, staged, sizeof(*value), net->bounce_mr->lkey);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (net->peers[pe].outstanding && !err) {
		if (reap(net))
			continue;
		if (sc_ib_past(&start, seconds))
			err = -ETIMEDOUT;
		else
			sched_yield();
	}
	if (!err)
		memcpy(value, staged, sizeof(*value));
	pthread_mutex_unlock(&net->lock);
	return err;
}
