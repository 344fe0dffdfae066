/*
 * Barrier and ordering among the PEs of a node, on shared memory.
 *
 * The barrier is a dissemination barrier: in round k, PE i adds one to
 * round k's counter in PE (i + 2^k) mod n, then waits until its own
 * counter for round k has reached the number of barriers it has entered.
 * Counters only grow, so nothing is reset and a fast PE can run ahead into
 * the next barrier safely. ceil(log2 n) rounds, no shared hot spot.
 */
#include <stdatomic.h>

#include "api/state.h"
#include "sync/wait.h"
#include "shmem.h"

/* The PEs of the node that have not entered the barrier this PE is in. */
static void missing_pes(char *out, unsigned long len)
{
	int missing[SC_MAX_PES], n = 0;

	for (int pe = 0; pe < sc.npes; pe++)
		if (atomic_load(&sc_internal_of(pe)->barriers_entered.value) < sc.barrier_epoch)
			missing[n++] = pe;
	sc_format_ranks(missing, n, out, len);
}

static void barrier(const char *what)
{
	uint64_t epoch = ++sc.barrier_epoch;
	struct sc_internal *mine = sc_internal_of(sc.me);

	atomic_store(&mine->barriers_entered.value, epoch);
	for (int k = 0, step = 1; step < sc.npes; k++, step <<= 1) {
		int to = (sc.me + step) % sc.npes;
		int from = (sc.me - step + sc.npes) % sc.npes;
		struct sc_wait wait;

		atomic_fetch_add(&sc_internal_of(to)->barrier[k].value, 1);
		sc_wait_begin(&wait, what, from, missing_pes);
		while (atomic_load(&mine->barrier[k].value) < epoch)
			sc_wait_step(&wait);
	}
}

void shmem_quiet(void)
{
	sc_require_init("shmem_quiet");
	/* stores to peers are plain stores to shared memory: order them all */
	atomic_thread_fence(memory_order_seq_cst);
}

void shmem_fence(void)
{
	sc_require_init("shmem_fence");
	atomic_thread_fence(memory_order_release);
}

void shmem_barrier_all(void)
{
	sc_require_init("shmem_barrier_all");
	atomic_thread_fence(memory_order_seq_cst);
	barrier("shmem_barrier_all");
	atomic_thread_fence(memory_order_seq_cst);
}

void shmem_sync_all(void)
{
	sc_require_init("shmem_sync_all");
	barrier("shmem_sync_all");
}
