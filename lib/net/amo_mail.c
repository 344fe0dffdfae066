/*
 * Atomics by message: a mailbox per requesting PE, served by a thread on
 * the target, which serves a segment's inbox too (segment_mail.c).
 */
#include "net/ib.h"

#include <endian.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
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

char *sc_ib_local(struct sc_net *net, int pe, uint64_t offset, uint64_t len, const char *what)
{
	uint64_t total = net->segment_size + net->globals_size;

	if (len > total || offset > total - len ||
	    (offset < net->segment_size && len > net->segment_size - offset))
		sc_fatal(1, "PE %d: PE %d asked for %s of %llu bytes at offset %llu, outside this PE's %zu-byte segment and %zu bytes of globals",
			 net->me, pe, what, (unsigned long long)len, (unsigned long long)offset,
			 net->segment_size, net->globals_size);
	return offset < net->segment_size ? net->segment + offset :
					    net->globals + (offset - net->segment_size);
}

uint64_t sc_ib_serve_amo(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
			 enum sc_net_amo op, uint64_t value, uint64_t cond)
{
	if ((size != 4 && size != 8) || offset % size)
		sc_fatal(1, "PE %d: PE %d asked for a %u-byte atomic at offset %llu: atomics are of 4 or 8 aligned bytes",
			 net->me, pe, size, (unsigned long long)offset);
	return cpu_amo(sc_ib_local(net, pe, offset, size, "an atomic"), size, op, value, cond);
}

/*
 * The atomics' mailboxes: each request done with the CPU on this PE's
 * segment, answered with the old value, then the sequence number (RC keeps
 * the pair's writes in order), into the requester's replies.
 */
static int serve_mailboxes(struct sc_net *net, uint64_t *served)
{
	struct sc_amo_mail *mailboxes = (struct sc_amo_mail *)(net->segment + net->amo_mail);
	struct sc_amo_reply *answer = (struct sc_amo_reply *)(net->bounce + BOUNCE_ANSWER(net->npes));
	int answered = 0;

	for (int pe = 0; pe < net->npes; pe++) {
		struct sc_amo_mail *m = &mailboxes[pe];
		uint64_t seq = atomic_load_explicit(&m->seq, memory_order_acquire);

		if (seq == served[pe] || seq != m->check)
			continue;
		served[pe] = seq;
		answered = 1;
		answer->old = sc_ib_serve_amo(net, pe, m->offset, m->size, (enum sc_net_amo)m->op,
					      m->value, m->cond);
		atomic_store_explicit(&answer->seq, seq, memory_order_relaxed);
		sc_ib_answer(net, pe, REPLY_AMO, &answer->old, sizeof(answer->old),
			     net->bounce_mr->lkey);
		sc_ib_answer(net, pe, REPLY_AMO + offsetof(struct sc_amo_reply, seq), &answer->seq,
			     sizeof(seq), net->bounce_mr->lkey);
	}
	return answered;
}

#define SERVICE_SPIN 20000		/* empty polls before the service thread naps */
#define SERVICE_NAP_US 200

/*
 * The service thread: serves the atomics' mailboxes and, when this PE's
 * segment goes by message, its inbox (segment_mail.c). It holds no lock
 * while it waits, so requests crossing each other cannot deadlock.
 */
static void *service(void *arg)
{
	struct sc_net *net = arg;
	uint64_t *served = calloc(2 * (size_t)net->npes, sizeof(*served));
	unsigned long idle = 0;

	if (!served)
		sc_fatal(1, "PE %d: no memory for the service thread", net->me);
	while (!atomic_load(&net->service_stop)) {
		int answered = 0;

		if (net->amo_by_message && net->mr)
			answered |= serve_mailboxes(net, served);
		if (net->inbox)
			answered |= sc_ib_serve_inbox(net, served + net->npes);
		if (answered)
			idle = 0;
		else if (++idle > SERVICE_SPIN)
			usleep(SERVICE_NAP_US);
	}
	free(served);
	return NULL;
}

int sc_ib_start_service(struct sc_net *net)
{
	int err = pthread_create(&net->service, NULL, service, net);

	if (err) {
		sc_error("PE %d: starting the service thread failed: %s", net->me, strerror(err));
		return -err;
	}
	net->service_running = 1;
	return 0;
}

/* An atomic on a remote PE by message to its service thread; the old value. */
uint64_t sc_ib_amo_by_message(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
			       enum sc_net_amo op, uint64_t value, uint64_t cond)
{
	struct sc_amo_reply *answer = (struct sc_amo_reply *)(net->bounce + REPLY_AMO);
	uint64_t mail = net->amo_mail + (uint64_t)net->me * sizeof(struct sc_amo_mail);
	struct sc_amo_mail request = {
		.offset = offset, .value = value, .cond = cond, .op = op, .size = size,
	};
	struct sc_ib_wait_one waited = { .net = net, .pe = pe };
	struct sc_wait wait;
	uint64_t seq, old;

	pthread_mutex_lock(&net->amo_lock);
	seq = ++net->amo_seq;
	request.check = seq;
	sc_net_put(net, pe, mail + 8, (char *)&request + 8, 40, 0);
	sc_net_put(net, pe, mail, &seq, sizeof(seq), 0);
	sc_wait_begin(&wait, "an atomic by message", -1, sc_ib_one_unanswered, &waited);
	while (atomic_load_explicit(&answer->seq, memory_order_acquire) != seq)
		sc_wait_step(&wait);
	old = answer->old;
	pthread_mutex_unlock(&net->amo_lock);
	return old;
}
