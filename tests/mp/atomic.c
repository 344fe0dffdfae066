/* Atomics from every PE at once on one word: fetch_inc hands out every value
 * exactly once, and inc/add add up; every operation's own result, float and
 * double forms; wait_until and test in all forms (the "any" forms fair: each
 * satisfied index in turn); put with signal, with set
 * and add. An argument sets the rounds of contention (500; even, so that the
 * xors undo themselves): fewer where every atomic is a message across
 * emulated machines. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp.h"

int main(int argc, char **argv)
{
	const int ROUNDS = argc > 1 ? atoi(argv[1]) : 500;
	uint64_t *counter, *tickets, *handed_out, *bits, *sig, *flags;
	long *data;
	double *real;
	int *pair;
	uint32_t *mask32;
	int me, npes;

	if (ROUNDS < 2 || ROUNDS % 2) {
		fprintf(stderr, "usage: atomic [ROUNDS]: an even number of rounds, at least 2\n");
		return 2;
	}
	shmem_init();
	me = shmem_my_pe();
	npes = shmem_n_pes();
	counter = shmem_calloc(1, sizeof(*counter));
	tickets = shmem_calloc(1, sizeof(*tickets));
	handed_out = shmem_calloc((size_t)npes * ROUNDS, sizeof(*handed_out));
	bits = shmem_calloc(1, sizeof(*bits));
	sig = shmem_calloc(1, sizeof(*sig));
	flags = shmem_calloc((size_t)npes, sizeof(*flags));
	data = shmem_calloc((size_t)npes * 8, sizeof(long));
	real = shmem_calloc(1, sizeof(double));
	pair = shmem_calloc(2, sizeof(int));
	mask32 = shmem_calloc(2, sizeof(uint32_t));
	MP_CHECK(((uintptr_t)pair & 7) == 0 && sizeof(int) == 4);

	/* contention: every ticket is handed out once; the sums add up */
	uint64_t last = 0;

	for (int i = 0; i < ROUNDS; i++) {
		uint64_t ticket = shmem_uint64_atomic_fetch_inc(tickets, 0);

		MP_CHECK(ticket < (uint64_t)npes * ROUNDS);
		MP_CHECK(i == 0 || ticket > last);	/* this PE's tickets only grow */
		last = ticket;
		shmem_uint64_atomic_inc(&handed_out[ticket], 0);
		shmem_uint64_atomic_fetch_add(counter, 2, 0);
		shmem_uint64_atomic_add(counter, 1, 0);
	}
	shmem_uint64_atomic_or(bits, 1ull << me, 0);
	/*
	 * 32-bit atomics next to each other in one 8-byte word, from every PE
	 * at once: the NIC has only 8-byte atomics, so these are compare-swap
	 * loops there, which must neither lose an update nor touch the neighbour.
	 */
	for (int i = 0; i < ROUNDS; i++) {
		shmem_int_atomic_add(&pair[0], 1, 0);
		shmem_int_atomic_fetch_add(&pair[1], -2, 0);
		shmem_uint32_atomic_fetch_xor(&mask32[me % 2], 1u << (me / 2 % 32), 0);
	}
	shmem_barrier_all();
	MP_CHECK(shmem_int_atomic_fetch(&pair[0], 0) == ROUNDS * npes);
	MP_CHECK(shmem_int_atomic_fetch(&pair[1], 0) == -2 * ROUNDS * npes);
	/* ROUNDS is even: every xor was undone */
	MP_CHECK(shmem_uint32_atomic_fetch(&mask32[0], 0) == 0 && shmem_uint32_atomic_fetch(&mask32[1], 0) == 0);
	shmem_barrier_all();
	if (me == npes - 1)
		MP_CHECK(shmem_int_atomic_compare_swap(&pair[0], ROUNDS * npes, 7, 0) ==
			 ROUNDS * npes);
	shmem_barrier_all();
	MP_CHECK(shmem_int_atomic_fetch(&pair[0], 0) == 7);
	MP_CHECK(shmem_int_atomic_fetch(&pair[1], 0) == -2 * ROUNDS * npes);
	shmem_barrier_all();
	MP_CHECK(shmem_uint64_atomic_fetch(counter, 0) == (uint64_t)3 * ROUNDS * npes);
	if (me == 0)
		for (int t = 0; t < npes * ROUNDS; t++)
			MP_CHECK(handed_out[t] == 1);
	MP_CHECK(shmem_uint64_atomic_fetch(bits, 0) == (npes == 64 ? ~0ull : (1ull << npes) - 1));
	shmem_barrier_all();

	/* every operation's own result, one PE at a time on its right neighbour */
	int right = (me + 1) % npes;
	long *mine = &data[me * 8];
	long fetched;

	MP_CHECK(shmem_long_atomic_swap(mine, 5, right) == 0);
	MP_CHECK(shmem_long_atomic_compare_swap(mine, 4, 9, right) == 5);	/* no match */
	MP_CHECK(shmem_long_atomic_compare_swap(mine, 5, 9, right) == 5);	/* match */
	MP_CHECK(shmem_long_atomic_fetch_inc(mine, right) == 9);
	MP_CHECK(shmem_atomic_fetch_add(mine, 10L, right) == 10);	/* C11 generic */
	shmem_long_atomic_set(mine + 1, 0xf0, right);
	MP_CHECK(shmem_ulong_atomic_fetch_and((unsigned long *)(mine + 1), 0x3c, right) == 0xf0);
	MP_CHECK(shmem_ulong_atomic_fetch_xor((unsigned long *)(mine + 1), 0xff, right) == 0x30);
	shmem_long_atomic_fetch_nbi(&fetched, mine, right);
	MP_CHECK(fetched == 20);
	shmem_double_atomic_set(real, 2.5, right);
	MP_CHECK(shmem_double_atomic_swap(real, 1.25, right) == 2.5);
	shmem_barrier_all();
	MP_CHECK(*real == 1.25);
	int left = (me + npes - 1) % npes;

	MP_CHECK(data[left * 8] == 20);
	MP_CHECK(data[left * 8 + 1] == 0xcf);

	/* put with signal: data first, then the signal; waited for on the target */
	long payload[4] = { me, me + 1, me + 2, me + 3 };

	shmem_long_put_signal(&data[me * 8 + 4], payload, 4, sig, 1, SHMEM_SIGNAL_ADD, right);
	MP_CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_GE, 1) == 1);
	for (int k = 0; k < 4; k++)
		MP_CHECK(data[left * 8 + 4 + k] == left + k);
	shmem_barrier_all();
	shmem_putmem_signal(&data[me * 8 + 4], payload, sizeof(long), sig, 7, SHMEM_SIGNAL_SET,
			    right);
	shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, 7);
	MP_CHECK(shmem_signal_fetch(sig) == 7);
	/* the sized forms, with and without a context */
	shmem_barrier_all();
	int32_t word = me + 1000;

	shmem_put32_signal(&data[me * 8 + 5], &word, 1, sig, 1, SHMEM_SIGNAL_ADD, right);
	shmem_ctx_put64_signal_nbi(SHMEM_CTX_DEFAULT, &data[me * 8 + 6], payload, 1, sig, 1,
				   SHMEM_SIGNAL_ADD, right);
	shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, 9);
	MP_CHECK(*(int32_t *)&data[left * 8 + 5] == left + 1000 && data[left * 8 + 6] == left);

	/* wait_until_all/any/some and test: every PE raises its flag on PE 0 */
	shmem_barrier_all();
	shmem_uint64_atomic_set(&flags[me], (uint64_t)me + 1, 0);
	if (me == 0) {
		size_t idx[64];
		int status[64] = { 0 };

		shmem_uint64_wait_until_all(flags, (size_t)npes, NULL, SHMEM_CMP_GT, 0);
		MP_CHECK(shmem_uint64_test_all(flags, (size_t)npes, NULL, SHMEM_CMP_NE, 0));
		if (npes > 1)	/* only PE 1 wrote a 2 */
			MP_CHECK(shmem_uint64_wait_until_any(flags, (size_t)npes, NULL,
							     SHMEM_CMP_EQ, 2) == 1);
		MP_CHECK(shmem_uint64_wait_until_some(flags, (size_t)npes, idx, NULL,
						      SHMEM_CMP_GE, 1) == (size_t)npes);
		status[0] = 1;	/* excluded */
		MP_CHECK(shmem_uint64_test_any(flags, 1, status, SHMEM_CMP_EQ, 1) == SIZE_MAX);
		MP_CHECK(shmem_uint64_test_some(flags, (size_t)npes, idx, status, SHMEM_CMP_LE,
						1) == 0);
		MP_CHECK(!shmem_uint64_test(&flags[0], SHMEM_CMP_LT, 1));

		/* the vector forms: a value of its own for each element */
		uint64_t want[64];

		for (int i = 0; i < npes; i++)
			want[i] = (uint64_t)i + 1;
		MP_CHECK(shmem_uint64_test_all_vector(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, want));
		MP_CHECK(shmem_uint64_test_some_vector(flags, (size_t)npes, idx, NULL, SHMEM_CMP_EQ,
						       want) == (size_t)npes);
		want[npes - 1] = 0;
		MP_CHECK(!shmem_uint64_test_all_vector(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, want));
		MP_CHECK(shmem_uint64_test_some_vector(flags, (size_t)npes, idx, NULL, SHMEM_CMP_NE,
						       want) == 1 && idx[0] == (size_t)npes - 1);
		MP_CHECK(shmem_uint64_test_any_vector(flags, (size_t)npes, NULL, SHMEM_CMP_NE, want) ==
			 (size_t)npes - 1);
		status[0] = 0;
		status[npes - 1] = 1;
		MP_CHECK(shmem_uint64_test_any_vector(flags, (size_t)npes, status, SHMEM_CMP_NE,
						      want) == SIZE_MAX);
		status[npes - 1] = 0;

		/*
		 * every flag is up and the status is NULL: test_any, and then
		 * wait_until_any, called npes times, return every index once
		 */
		for (int round = 0; round < 2; round++) {
			int seen[64] = { 0 };

			for (int k = 0; k < npes; k++) {
				size_t i = round ? shmem_uint64_wait_until_any(flags, (size_t)npes, NULL,
									       SHMEM_CMP_NE, 0) :
						   shmem_uint64_test_any(flags, (size_t)npes, NULL,
									 SHMEM_CMP_NE, 0);

				MP_CHECK(i < (size_t)npes && !seen[i]);
				seen[i] = 1;
			}
		}
	}
	shmem_barrier_all();
	if (me == 0)
		printf("atomic: %d PEs ok (%d tickets, each once)\n", npes, npes * ROUNDS);
	shmem_finalize();
	return 0;
}
