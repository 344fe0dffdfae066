/* Atomics by message: a mailbox per requesting PE, served by a thread on the target. */
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
			    m->offset > net->segment_size + net->globals_size - m->size)
				sc_fatal(1, "PE %d: PE %d asked for a %u-byte atomic at offset %lu, outside this PE's %zu-byte segment and %zu bytes of globals",
					 net->me, pe, m->size, (unsigned long)m->offset,
					 net->segment_size, net->globals_size);
			old = cpu_amo(m->offset < net->segment_size ?
				      net->segment + m->offset :
				      net->globals + (m->offset - net->segment_size),
				      m->size, (enum sc_net_amo)m->op, m->value, m->cond);
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

int sc_ib_start_amo_service(struct sc_net *net)
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
uint64_t sc_ib_amo_by_message(struct sc_net *net, int pe, uint64_t offset, unsigned int size,
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
