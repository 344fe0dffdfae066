/* Symmetric globals and statics: put, get, atomics, wait_until, put with
 * signal, shmem_ptr and the team collectives on variables of the program's
 * data and bss, never on the heap; a child of fork() keeps its own
 * globals, as without the library; and another thread reads the globals
 * right through shmem_finalize, which gives them back to the program. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp.h"

#define BIG (256 * 1024)

long in_data[64] = { 1, 2, 3 };		/* initialized: the data */
static long in_bss[64];			/* zero: the bss */
static int counter;
static long flag;
static uint64_t signal_word;
static char big[BIG];
static long reduce_source[32], reduce_dest[32];
static long collected[64 * 8];
static long broadcast_dest[16];

/* on the reader's stack, not in the globals it watches */
struct reader {
	atomic_int stop;
	long bss_value, reads, wrong;
};

/*
 * A torch process has threads of its own that read the program's data (the
 * interpreter's state, the lazily bound PLT slots) while the backend
 * finalizes: they must see the values, never a page of zeros on the way.
 */
static void *read_globals(void *arg)
{
	struct reader *r = arg;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		r->wrong += *(volatile long *)&in_data[0] != 1 ||
			    *(volatile long *)&in_bss[63] != r->bss_value;
		r->reads++;
	}
	return NULL;
}

int main(void)
{
	int me, n, right, left, status;
	pid_t child;

	shmem_init();
	me = shmem_my_pe();
	n = shmem_n_pes();
	right = (me + 1) % n;
	left = (me + n - 1) % n;
	MP_CHECK(in_data[0] == 1 && in_data[2] == 3);

	/* put: everyone writes its number into everyone's data */
	for (int pe = 0; pe < n; pe++)
		shmem_long_p(&in_data[8 + me], 100 + me, pe);
	shmem_barrier_all();
	for (int pe = 0; pe < n; pe++)
		MP_CHECK(in_data[8 + pe] == 100 + pe);

	/* get: the left neighbour's bss, filled by itself */
	for (int i = 0; i < 64; i++)
		in_bss[i] = me * 1000 + i;
	shmem_barrier_all();
	{
		long got[64];

		shmem_long_get(got, in_bss, 64, left);
		for (int i = 0; i < 64; i++)
			MP_CHECK(got[i] == left * 1000 + i);
	}

	/* atomics on a static int */
	shmem_int_atomic_inc(&counter, 0);
	shmem_barrier_all();
	if (me == 0)
		MP_CHECK(counter == n);
	shmem_barrier_all();
	MP_CHECK(shmem_int_atomic_fetch_add(&counter, 1, 0) >= n);
	shmem_barrier_all();
	if (me == 0)
		MP_CHECK(counter == 2 * n);

	/* wait_until: a token goes round the ring */
	if (me == 0)
		shmem_long_atomic_set(&flag, 1, right);
	else
		shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
	if (me != 0)
		shmem_long_atomic_set(&flag, 1, right);
	if (me == 0)
		shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);

	/* put with signal: 256 KiB into the right neighbour's bss */
	memset(big, me + 1, BIG);
	shmem_barrier_all();
	{
		static char mine[BIG];

		memset(mine, 'a' + me % 26, BIG);
		shmem_putmem_signal(big, mine, BIG, &signal_word, 1, SHMEM_SIGNAL_SET, right);
		shmem_signal_wait_until(&signal_word, SHMEM_CMP_EQ, 1);
		for (int i = 0; i < BIG; i += 4093)
			MP_CHECK(big[i] == 'a' + left % 26);
	}

	/* shmem_ptr: the neighbour's globals by load, where its heap is mapped too */
	{
		long *theirs = shmem_ptr(&in_data[8], right), *heap = shmem_malloc(sizeof(long));
		int mapped = shmem_ptr(heap, right) != NULL;

		MP_CHECK(shmem_addr_accessible(in_bss, right));
		MP_CHECK((theirs != NULL) == mapped);
		MP_CHECK(!theirs || theirs[right] == 100 + right);
		shmem_free(heap);
	}

	/* collectives into statics */
	for (int i = 0; i < 32; i++)
		reduce_source[i] = me + i;
	shmem_barrier_all();
	MP_CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, reduce_dest, reduce_source, 32) == 0);
	for (int i = 0; i < 32; i++)
		MP_CHECK(reduce_dest[i] == (long)n * (n - 1) / 2 + (long)n * i);
	MP_CHECK(shmem_long_max_reduce(SHMEM_TEAM_WORLD, reduce_dest, reduce_source, 32) == 0);
	MP_CHECK(reduce_dest[0] == n - 1);
	MP_CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, collected, in_bss, 64) == 0);
	for (int pe = 0; pe < n; pe++)
		MP_CHECK(collected[pe * 64 + 5] == pe * 1000 + 5);
	if (me == n - 1)
		for (int i = 0; i < 16; i++)
			in_data[32 + i] = 7 * i;
	MP_CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, broadcast_dest, &in_data[32], 16,
				      n - 1) == 0);
	MP_CHECK(broadcast_dest[15] == 7 * 15);

	/* a forked child writes its own globals, not the PE's */
	shmem_barrier_all();
	child = fork();
	MP_CHECK(child >= 0);
	if (!child) {
		in_data[0] = -1;
		counter = -1;
		_exit(in_data[0] == -1 ? 0 : 1);
	}
	MP_CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		 WEXITSTATUS(status) == 0);
	MP_CHECK(in_data[0] == 1);
	shmem_barrier_all();
	if (me == 0)
		MP_CHECK(counter == 2 * n);

	{
		struct reader r = { .bss_value = in_bss[63] };
		pthread_t reader;

		MP_CHECK(pthread_create(&reader, NULL, read_globals, &r) == 0);
		while (!*(volatile long *)&r.reads)
			;
		shmem_finalize();
		atomic_store(&r.stop, 1);
		pthread_join(reader, NULL);
		/* no MP_CHECK past finalize: it would ask the library for the PE */
		if (r.wrong) {
			fprintf(stderr, "PE %d: %ld of %ld reads across shmem_finalize saw a global change\n",
				me, r.wrong, r.reads);
			return 1;
		}
	}
	/* after finalize the program's globals are its own, and keep their values */
	if (in_data[8 + right] != 100 + right) {
		fprintf(stderr, "PE %d: a global lost its value in shmem_finalize\n", me);
		return 1;
	}
	return 0;
}
