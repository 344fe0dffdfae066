/*
 * Distributed locks (shmem_set_lock, shmem_test_lock, shmem_clear_lock): a
 * ticket lock in the lock's word on PE 0. The word's high half is the next
 * ticket to hand out, its low half the ticket being served. A PE takes a
 * ticket with one fetch-and-add and waits until it is served, so PEs enter
 * in the order they asked and none starves. The waiter polls the word (a
 * load on the node, an atomic fetch through the NIC) under sc_wait: spin,
 * then sleep, the job's timeout, and a stop when a PE of the node dies.
 *
 * Only the holder changes the low half: a release is a compare-and-swap of
 * the word, retried when a ticket was taken meanwhile, so neither half
 * carries into the other when it wraps.
 */
#include <stdint.h>
#include <stdio.h>

#include "core/peer.h"
#include "core/state.h"
#include "shmem.h"
#include "util/wait.h"

#define LOCK_HOME 0
#define TICKET ((uint64_t)1 << 32)

static uint32_t next_ticket(uint64_t word)
{
	return (uint32_t)(word >> 32);
}

static uint32_t serving(uint64_t word)
{
	return (uint32_t)word;
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

/* For the timeout message: where the queue stands. */
static void lock_state(void *ctx, char *out, unsigned long len, const char **did)
{
	struct lock_wait *w = ctx;
	uint64_t now = shmem_uint64_atomic_fetch(w->word, LOCK_HOME);

	snprintf(out, len, "the holder of the lock at %p (serving ticket %u; this PE holds %u, %u taken in all)",
		 (void *)w->word, serving(now), w->ticket, next_ticket(now));
	*did = "never released it";
}

void shmem_set_lock(long *lock)
{
	struct lock_wait w = { lock_word(lock, "shmem_set_lock"), 0 };
	struct sc_wait wait;

	w.ticket = next_ticket(shmem_uint64_atomic_fetch_add(w.word, TICKET, LOCK_HOME));
	sc_wait_begin(&wait, "shmem_set_lock", -1, lock_state, &w);
	while (serving(shmem_uint64_atomic_fetch(w.word, LOCK_HOME)) != w.ticket)
		sc_wait_step(&wait);
}

int shmem_test_lock(long *lock)
{
	uint64_t *word = lock_word(lock, "shmem_test_lock");
	uint64_t now = shmem_uint64_atomic_fetch(word, LOCK_HOME);

	if (next_ticket(now) != serving(now))
		return 1;	/* held, or promised to a waiter */
	return shmem_uint64_atomic_compare_swap(word, now, now + TICKET, LOCK_HOME) != now;
}

void shmem_clear_lock(long *lock)
{
	uint64_t *word = lock_word(lock, "shmem_clear_lock");
	uint64_t now, was;

	/* what the holder put under the lock is visible before the next holder enters */
	shmem_quiet();
	now = shmem_uint64_atomic_fetch(word, LOCK_HOME);
	for (;;) {
		if (next_ticket(now) == serving(now))
			sc_fatal(1, "PE %d: shmem_clear_lock: the lock at %p is not held (ticket %u served, none waiting)",
				 sc.me, (void *)lock, serving(now));
		was = shmem_uint64_atomic_compare_swap(word, now,
						       (now & ~(TICKET - 1)) |
						       (uint32_t)(serving(now) + 1), LOCK_HOME);
		if (was == now)
			return;
		now = was;
	}
}
