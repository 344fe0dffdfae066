/*
 * The smallest allreduce on a node, up to SC_TINY_MAX bytes: one-shot on
 * cache lines, at the cost of one line's trip from each member to every
 * other, all at once, and little else.
 * - Each member writes its input into its own lines of the call's parity:
 *   56 bytes of data, then the call's tag, in each line. A reader that sees
 *   the tag (acquire) sees the data (release), and one miss brings both,
 *   where a flag apart from the data costs a second trip after the first.
 * - Each member reads every member's lines as their tags arrive and
 *   reduces them in member order, so that every member gets the same bits.
 * - No step counter and no end step: a member writes a parity's lines again
 *   two calls later, after every member has written the call between, which
 *   each did only once done reading these.
 * - The tag holds the call's number, bytes, dtype and op, so a member that
 *   called with other arguments is named, not read.
 * A call runs in its team's queue like any request (request.c), in the
 * order of the calls, blocking or not, so that a blocking call meets a
 * non-blocking one; when the queue is empty a blocking call runs at once,
 * with no request at all.
 *
 * Measured (2 PEs on the 2 CPUs of this VM, fp32 sum, shmemcomm-perf): 8 B
 * in 0.38-0.41 us and 128 B in 0.40-0.48, where the request's one-shot
 * (a step line, then the data lines: two trips) took 0.54-0.62; one line
 * each way at once costs 0.29-0.32 us here (shmemcomm-latency's exchange),
 * and the call, the copy in and the reduction cost 0.05 us (1 PE). Past
 * 128 B the lines lose: each is a miss of its own after the last line's
 * tag, and 512 B took 0.69 us against one-shot's 0.62. Where PEs outnumber
 * CPUs the lines lose too (sc_coll_tiny_lines_win in tune.c says where they
 * serve). The costs are timed, not counted: this VM exposes no hardware
 * counters (perf stat reports cycles, instructions and cache-misses as not
 * supported), so the misses are inferred from the exchange's time, and the
 * instructions come from callgrind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/tiny.h"
#include "coll/tune.h"
#include "util/ranks.h"
#include "util/wait.h"

#define TAG_CALL_SHIFT 20

/* Every element size's lines hold the largest call: 16-byte elements fill 48 bytes of 56. */
_Static_assert(SC_TINY_LINES * (SC_TINY_LINE_DATA / 16 * 16) >= SC_TINY_MAX,
	       "the lines hold SC_TINY_MAX bytes");

/* What one call writes and reads: its tag, and how its bytes lie in the lines. */
struct tiny_call {
	uint64_t tag;		/* the call's number, bytes, dtype and op */
	size_t bytes;
	size_t payload;		/* data bytes a line, whole elements */
	int nlines;
	unsigned parity;
};

struct tiny_wait {
	const struct sc_coll_args *a;
	uint64_t call;
};

static struct tiny_call call_of(const struct sc_coll_args *a, uint64_t call)
{
	size_t elem = sc_dtype_size(a->dtype), bytes = a->count * elem;
	size_t payload = SC_TINY_LINE_DATA / elem * elem;

	return (struct tiny_call){
		.tag = call << TAG_CALL_SHIFT | (uint64_t)a->op << 15 | (uint64_t)a->dtype << 10 |
		       bytes,
		.bytes = bytes,
		.payload = payload,
		.nlines = (int)((bytes + payload - 1) / payload),
		.parity = (unsigned)(call & 1),
	};
}

/* The data bytes of line @l of call @c. */
static size_t line_bytes(const struct tiny_call *c, int l)
{
	size_t at = (size_t)l * c->payload;

	return c->bytes - at < c->payload ? c->bytes - at : c->payload;
}

static struct sc_tiny_line *lines_of(const struct sc_team *t, int m, unsigned parity)
{
	return sc_internal_of(sc_team_world_pe(t, m))->tiny[t->slot][parity];
}

int sc_coll_tiny_team_fits(const struct sc_team *team, enum sc_op op, size_t bytes)
{
	return team && team->my_index >= 0 && (unsigned)op < SC_OP_ALL &&
	       sc_coll_tiny_lines_win(bytes, team);
}

static void __attribute__((noreturn, cold))
mismatch(const struct sc_coll_args *a, int m, uint64_t theirs, uint64_t mine)
{
	sc_fatal(1, "PE %d: %s: PE %d called it with %llu bytes of %s, op %s; this PE with %llu bytes of %s, op %s (every member must pass the same count, dtype and op)",
		 sc.me, a->what, sc_team_world_pe(a->team, m),
		 (unsigned long long)(theirs & 1023), sc_dtype_name((theirs >> 10) & 31),
		 sc_op_name((theirs >> 15) & 7), (unsigned long long)(mine & 1023),
		 sc_dtype_name((mine >> 10) & 31), sc_op_name((mine >> 15) & 7));
}

/* Whether member @m's line is this call's; fatal if the call is but its arguments are not. */
static inline int line_arrived(const struct sc_coll_args *a, int m,
			       const struct sc_tiny_line *line, uint64_t tag)
{
	uint64_t seen = atomic_load_explicit(&line->tag, memory_order_acquire);

	if (seen == tag)
		return 1;
	if (seen >> TAG_CALL_SHIFT == tag >> TAG_CALL_SHIFT)
		mismatch(a, m, seen, tag);
	return 0;
}

int sc_coll_tiny_late(const struct sc_coll_args *a, uint64_t call, int *late)
{
	struct tiny_call c = call_of(a, call);
	int n = 0;

	for (int m = 0; m < a->team->size; m++)
		if (atomic_load(&lines_of(a->team, m, c.parity)[c.nlines - 1].tag) != c.tag)
			late[n++] = sc_team_world_pe(a->team, m);
	return n;
}

static void members_missing(void *ctx, char *out, unsigned long len, const char **did)
{
	const struct tiny_wait *w = ctx;
	int *late = malloc(sizeof(int) * (size_t)w->a->team->size);

	(void)did;
	if (!late) {
		snprintf(out, len, "(no memory to list them)");
		return;
	}
	sc_format_ranks(late, sc_coll_tiny_late(w->a, w->call, late), out, len);
	free(late);
}

static void wait_for_line(const struct sc_coll_args *a, int m, const struct sc_tiny_line *line,
			  uint64_t tag)
{
	struct tiny_wait waited = { a, tag >> TAG_CALL_SHIFT };
	struct sc_wait wait;

	for (int spin = 0; spin < 64; spin++) {
		if (line_arrived(a, m, line, tag))
			return;
		__builtin_ia32_pause();
	}
	sc_wait_begin(&wait, a->what, -1, members_missing, &waited);
	while (!line_arrived(a, m, line, tag))
		sc_wait_step(&wait);
}

/*
 * Member @m's lines of call @c, once all have arrived (NULL if one has not
 * and !@block); the data gathered into @into past one line.
 */
static const void *input_of(const struct sc_coll_args *a, int m, const struct tiny_call *c,
			    int block, char *into)
{
	const struct sc_tiny_line *lines = lines_of(a->team, m, c->parity);

	/*
	 * the last line's tag first: its release covers the lines written
	 * before it, whose misses then overlap, where waiting on each line in
	 * turn pulls each from the writer as it writes the next
	 */
	for (int l = c->nlines - 1; l >= 0; l--) {
		if (m == a->team->my_index || line_arrived(a, m, &lines[l], c->tag))
			continue;
		if (!block)
			return NULL;
		wait_for_line(a, m, &lines[l], c->tag);
	}
	if (c->nlines == 1)
		return lines[0].data;
	for (int l = 0; l < c->nlines; l++)
		memcpy(into + (size_t)l * c->payload, lines[l].data, line_bytes(c, l));
	return into;
}

void sc_coll_tiny_write(const struct sc_coll_args *a, uint64_t call)
{
	struct tiny_call c = call_of(a, call);
	struct sc_tiny_line *mine = lines_of(a->team, a->team->my_index, c.parity);

	for (int l = 0; l < c.nlines; l++) {
		memcpy(mine[l].data, (const char *)a->source + (size_t)l * c.payload,
		       line_bytes(&c, l));
		atomic_store_explicit(&mine[l].tag, c.tag, memory_order_release);
	}
}

int sc_coll_tiny_reduce(const struct sc_coll_args *a, uint64_t call, int block)
{
	struct tiny_call c = call_of(a, call);
	int n = a->team->size;
	char gathered[c.nlines > 1 ? n : 1][c.nlines > 1 ? SC_TINY_MAX : 1];
	const void *in[n];

	for (int m = 0; m < n; m++) {
		in[m] = input_of(a, m, &c, block, gathered[m]);
		if (!in[m])
			return 0;
	}
	sc_kernel((enum sc_simd)sc.coll.simd, a->dtype, a->op)(a->dest, in, n, a->count);
	return 1;
}

void sc_coll_tiny_forget(int slot)
{
	struct sc_tiny_line (*lines)[SC_TINY_LINES] = sc_internal_of(sc.me)->tiny[slot];

	for (int p = 0; p < 2; p++)
		for (int l = 0; l < SC_TINY_LINES; l++)
			atomic_store(&lines[p][l].tag, 0);
}
