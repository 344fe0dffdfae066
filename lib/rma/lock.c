/*
 * Distributed locks (shmem_set_lock, shmem_test_lock, shmem_clear_lock): a
 * ticket lock in the lock's word on PE 0. The word holds three fields: the
 * next ticket to hand out (its top 24 bits), the ticket being served (the
 * next 24) and the holder, PE + 1 (the low 16; 0 while free). A PE takes a
 * ticket with one fetch-and-add on the top field, whose carry leaves the
 * word, and waits until it is served, so PEs enter in the order they asked
 * and none starves. The waiter polls the word (a load on the node, an
 * atomic fetch through the NIC) under sc_wait: spin, then sleep, the job's
 * timeout (whose message names the holder), and a stop when a PE of the
 * node dies.
 *
 * Only the holder, or the PE whose ticket is served, changes the low
 * fields: by compare-and-swap of the whole word, retried when a ticket was
 * taken meanwhile. 2^24 tickets wrap round, so that many PEs and threads
 * may wait at once.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/peer.h"
#include "core/state.h"
#include "shmem.h"
#include "util/wait.h"

#define LOCK_HOME 0
#define NEXT_SHIFT 40
#define SERVING_SHIFT 16
#define TICKET_MASK 0xffffffu
#define HOLDER_MASK 0xffffu

/*
 * A PE's mark in the holder field: PE + 1, or HOLDER_MASK for every PE from
 * 65534 up (the field only names the holder in messages and catches a
 * clear by a PE that does not hold the lock; up there it names a range)
 */
static uint64_t holder_mark(int pe)
{
	return pe < (int)HOLDER_MASK - 1 ? (uint64_t)pe + 1 : HOLDER_MASK;
}

_Static_assert(SC_PE_LIMIT < (1 << 24), "every PE of a job may wait for one lock: a ticket each");

static uint32_t next_ticket(uint64_t word)
{
	return (uint32_t)(word >> NEXT_SHIFT) & TICKET_MASK;
}

static uint32_t serving(uint64_t word)
{
	return (uint32_t)(word >> SERVING_SHIFT) & TICKET_MASK;
}

/* holder_mark of the PE that holds it, or 0 */
static int holder(uint64_t word)
{
	return (int)(word & HOLDER_MASK);
}

/* The holder, for messages */
static void name_holder(uint64_t word, char *out, size_t len)
{
	if (holder(word) == HOLDER_MASK)
		snprintf(out, len, "%u or above", HOLDER_MASK - 1);
	else
		snprintf(out, len, "%d", holder(word) - 1);
}

/* @word with @ticket served, by @pe (-1: nobody) */
static uint64_t with_low(uint64_t word, uint32_t ticket, int pe)
{
	return (word & ~(((uint64_t)1 << NEXT_SHIFT) - 1)) |
	       (uint64_t)(ticket & TICKET_MASK) << SERVING_SHIFT | (pe < 0 ? 0 : holder_mark(pe));
}

/* The lock's word on PE 0, after checking that it can be one. */
static uint64_t *lock_word(long *lock, const char *function)
{
	sc_require_init(function);
	if ((uintptr_t)lock % sizeof(*lock))
		sc_fatal(1, "PE %d: %s: the lock %p is not aligned to %zu bytes", sc.me, function,
			 (void *)lock, sizeof(*lock));
	sc_symmetric_offset(lock, sizeof(*lock), LOCK_HOME, function);
	/* long and uint64_t are one size here; the word is only ever used whole */
	_Static_assert(sizeof(long) == sizeof(uint64_t), "a lock is a 64-bit long");
	return (uint64_t *)lock;
}

struct lock_wait {
	uint64_t *word;
	uint32_t ticket;
};

/* For the timeout message: who holds the lock, and where the queue stands. */
static void lock_state(void *ctx, char *out, unsigned long len, const char **did)
{
	static char said[200];	/* the message is the last thing the PE says */
	struct lock_wait *w = ctx;
	uint64_t now = shmem_uint64_atomic_fetch(w->word, LOCK_HOME);

	if (holder(now))
		name_holder(now, out, len);
	else
		snprintf(out, len, "%d", LOCK_HOME);
	snprintf(said, sizeof(said), "%s the lock at %p (ticket %u served, this PE's %u, %u handed out)",
		 holder(now) ? "holds and has not released" : "(the home PE) has served nobody for",
		 (void *)w->word, serving(now), w->ticket, next_ticket(now));
	*did = said;
}

/* Takes the lock whose ticket @ticket is served in @now: the holder field says who. */
static int take(uint64_t *word, uint64_t now, uint32_t ticket)
{
	for (;;) {
		uint64_t was = shmem_uint64_atomic_compare_swap(word, now,
							       with_low(now, ticket, sc.me),
							       LOCK_HOME);

		if (was == now)
			return 1;
		if (serving(was) != ticket || holder(was))
			return 0;
		now = was;
	}
}

void shmem_set_lock(long *lock)
{
	struct lock_wait w = { lock_word(lock, "shmem_set_lock"), 0 };
	struct sc_wait wait;
	uint64_t now;

	w.ticket = next_ticket(shmem_uint64_atomic_fetch_add(w.word, (uint64_t)1 << NEXT_SHIFT,
							     LOCK_HOME));
	sc_wait_begin(&wait, "shmem_set_lock", -1, lock_state, &w);
	while (serving(now = shmem_uint64_atomic_fetch(w.word, LOCK_HOME)) != w.ticket)
		sc_wait_step(&wait);
	/* served: nobody else changes the low fields until this PE releases */
	take(w.word, now, w.ticket);
}

int shmem_test_lock(long *lock)
{
	uint64_t *word = lock_word(lock, "shmem_test_lock");
	uint64_t now = shmem_uint64_atomic_fetch(word, LOCK_HOME);
	uint64_t mine;

	if (next_ticket(now) != serving(now))
		return 1;	/* held, or promised to a waiter */
	/* a ticket and the lock in one step, or nothing */
	mine = with_low(now + ((uint64_t)1 << NEXT_SHIFT), serving(now), sc.me);
	return shmem_uint64_atomic_compare_swap(word, now, mine, LOCK_HOME) != now;
}

void shmem_clear_lock(long *lock)
{
	uint64_t *word = lock_word(lock, "shmem_clear_lock");
	uint64_t now, was;

	/* what the holder put under the lock is visible before the next holder enters */
	shmem_quiet();
	now = shmem_uint64_atomic_fetch(word, LOCK_HOME);
	for (;;) {
		if ((uint64_t)holder(now) != holder_mark(sc.me)) {
			char who[32];

			name_holder(now, who, sizeof(who));
			if (holder(now))
				sc_fatal(1, "PE %d: shmem_clear_lock: the lock at %p is held by PE %s, not this PE",
					 sc.me, (void *)lock, who);
			sc_fatal(1, "PE %d: shmem_clear_lock: the lock at %p is not held", sc.me,
				 (void *)lock);
		}
		was = shmem_uint64_atomic_compare_swap(word, now, with_low(now, serving(now) + 1, -1),
						       LOCK_HOME);
		if (was == now)
			return;
		now = was;
	}
}
