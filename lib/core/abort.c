/* How the job stops: the stop word in every node PE's segment, and the NIC's last words. */
#include <stdatomic.h>

#include "core/state.h"
#include "util/wait.h"

void sc_stop_all(int status, int fatal)
{
	int words[3] = { sc.me + 1, status, fatal };	/* struct sc_abort */

	if (!sc.mem.base)
		return;
	for (int i = 0; i < sc.node.local_size; i++) {
		struct sc_abort *stop = &sc_internal_of(sc.node.local_pes[i])->abort;
		int none = 0;

		atomic_store(&stop->status, status);
		atomic_store(&stop->fatal, fatal);
		atomic_compare_exchange_strong(&stop->pe, &none, sc.me + 1);
	}
	/* the node's PEs asleep on the bell look at their stop words now */
	sc_wait_ring();
	if (sc.net.active)
		sc_net_last_words(&sc.net, sc.mem.base,
				  sc_internal_offset(&sc_internal_of(sc.me)->abort), words,
				  sizeof(words));
}

static void stop_on_error(int status)
{
	/*
	 * under PMIx the resource manager ends the whole job, PEs of every
	 * node; first, as in shmem_global_exit
	 */
	sc_boot_abort(&sc.boot, status, "shmemcomm: a fatal error (the PE's message says which)");
	sc_stop_all(status, 1);
}

void sc_abort_init(void)
{
	sc_fatal_set_hook(stop_on_error);
}
