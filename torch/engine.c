#include "engine.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK_EVERY 0.1		/* seconds between checks that the job can go on */
#define YIELD_FOR 0.01		/* seconds of sched_yield after the spin, then sleeps */
#define SLEEP_NS 20000
#define SPIN_ALONE 50e-6	/* seconds of spinning while a core per process is free */
#define SPIN_SHARED 1e-6	/* processes outnumber cores: the awaited one may need this core */
/*
 * How long an operation runs on its caller before the engine's thread
 * takes it over, and up to what size. Where the engine's thread has a core
 * of its own, only small operations run inline, for 50 us: a larger one
 * goes to the thread at once and moves while the caller computes (DDP's
 * buckets during the backward pass). Where it has not (the process may
 * use one CPU, or the node's ranks and their threads outnumber its cores),
 * the thread could only run in the caller's place: a hand-over then
 * overlaps nothing and costs a wake-up and two thread switches on that
 * core. Every operation then runs inline for up to 1 ms. Measured on 2
 * cores: 4 ranks, 8 B, 72-88 us per all_reduce with 50 us, 45-48 us with
 * 200 us or 1 ms; 2 ranks bound to a core each, 256 KiB, 47-56 us handed
 * over, 24-40 us inline.
 */
#define INLINE_ALONE 50e-6
#define INLINE_SHARED 1e-3
#define INLINE_ALONE_MAX_BYTES (64u << 10)

static struct {
	pthread_mutex_t lock;
	/* held by whichever thread is inside libshmemcomm: the engine's, or a caller's inline */
	pthread_mutex_t library;
	/* held while a turn's completions run, so that they run in order */
	pthread_mutex_t completing;
	pthread_cond_t wake;
	int drivers;		/* callers inside sct_engine_drive; under @lock */
	unsigned long outstanding;	/* submitted, not yet ended; under @lock */
	pthread_t thread;
	int running;
	int stopping;
	struct sct_op *queued_head, *queued_tail;	/* submitted, not yet taken */
	/* the thread's own: taken, in order, not yet done */
	struct sct_op *head, *tail;
	double spin;
	double inline_budget;	/* seconds an inline operation runs on its caller */
	size_t inline_max;	/* bytes of the largest operation that runs inline */
	int spin_set;		/* by SHMEMCOMM_TORCH_SPIN_US, which then wins */
	char broken[1024];	/* written once, by the thread, under @lock */
} engine = { .lock = PTHREAD_MUTEX_INITIALIZER, .library = PTHREAD_MUTEX_INITIALIZER,
	     .completing = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

const char *sct_engine_broken(void)
{
	const char *b;

	pthread_mutex_lock(&engine.lock);
	b = engine.broken[0] ? engine.broken : NULL;
	pthread_mutex_unlock(&engine.lock);
	return b;
}

static void break_engine(const char *why)
{
	pthread_mutex_lock(&engine.lock);
	if (!engine.broken[0])
		snprintf(engine.broken, sizeof(engine.broken), "%s", why);
	pthread_mutex_unlock(&engine.lock);
}

/* The inboxes: a header and P2P_CHUNK bytes for each sending PE, and the signals. */
#define P2P_CHUNK (64u << 10)

struct p2p_header {
	int64_t tag;
	uint64_t total;		/* the message's bytes */
	uint64_t offset;	/* this chunk's */
	uint64_t len;
};

static struct {
	int npes;
	char *inbox;		/* [npes][header + chunk], symmetric */
	uint64_t *posted;	/* [npes]: the sequence of the last chunk put here by each PE */
	uint64_t *acked;	/* [npes]: the sequence of the last chunk each PE took from here */
	uint64_t *sent, *taken;	/* [npes], local: chunks sent to, taken from, each PE */
	/*
	 * [npes] each, local: the messages to (from) each PE given a turn, and
	 * those done. A message moves only in its turn, so a later one between
	 * the same two PEs never overtakes it.
	 */
	uint64_t *send_turns, *sends_done, *recv_turns, *recvs_done;
} p2p;

static char *inbox_of(int from)
{
	return p2p.inbox + (size_t)from * (sizeof(struct p2p_header) + P2P_CHUNK);
}

int sct_p2p_setup(char *error, size_t len)
{
	size_t slot = sizeof(struct p2p_header) + P2P_CHUNK;

	p2p.npes = shmem_n_pes();
	p2p.inbox = shmem_malloc((size_t)p2p.npes * slot);
	p2p.posted = shmem_calloc((size_t)p2p.npes, sizeof(uint64_t));
	p2p.acked = shmem_calloc((size_t)p2p.npes, sizeof(uint64_t));
	p2p.sent = calloc((size_t)p2p.npes, sizeof(uint64_t));
	p2p.taken = calloc((size_t)p2p.npes, sizeof(uint64_t));
	p2p.send_turns = calloc(4 * (size_t)p2p.npes, sizeof(uint64_t));
	if (p2p.send_turns) {
		p2p.sends_done = p2p.send_turns + p2p.npes;
		p2p.recv_turns = p2p.sends_done + p2p.npes;
		p2p.recvs_done = p2p.recv_turns + p2p.npes;
	}
	if (!p2p.inbox || !p2p.posted || !p2p.acked || !p2p.sent || !p2p.taken || !p2p.send_turns) {
		snprintf(error, len,
			 "no room for the send/recv inboxes (%zu bytes of the symmetric heap): raise SHMEM_SYMMETRIC_SIZE",
			 (size_t)p2p.npes * slot);
		return -1;
	}
	return 0;
}

/* One chunk of a send, if the receiver has taken the one before: 1 when all are sent. */
static int send_step(struct sct_op *op)
{
	size_t total = op->count * shmemx_dtype_size(op->dtype);
	int me = shmem_my_pe(), to = op->peer;

	do {
		struct p2p_header h = { op->tag, total, op->moved, 0 };
		uint64_t seq = p2p.sent[to] + 1;

		if (shmem_uint64_atomic_fetch(&p2p.acked[to], me) < seq - 1)
			return 0;
		h.len = total - op->moved < P2P_CHUNK ? total - op->moved : P2P_CHUNK;
		shmem_putmem(inbox_of(me), &h, sizeof(h), to);
		shmem_fence();
		shmem_putmem_signal(inbox_of(me) + sizeof(h), (const char *)op->src + op->moved, h.len,
				    &p2p.posted[me], seq, SHMEM_SIGNAL_SET, to);
		p2p.sent[to] = seq;
		op->moved += h.len;
	} while (op->moved < total);
	return 1;
}

/* One chunk of a receive, if it has come: 1 when all have, -1 on a mismatch. */
static int recv_step(struct sct_op *op, char *error, size_t len)
{
	size_t total = op->count * shmemx_dtype_size(op->dtype);
	int me = shmem_my_pe(), from = op->peer;

	do {
		uint64_t seq = p2p.taken[from] + 1;
		struct p2p_header h;

		if (shmem_signal_fetch(&p2p.posted[from]) < seq)
			return 0;
		memcpy(&h, inbox_of(from), sizeof(h));
		if (h.tag != op->tag || h.total != total || h.offset != op->moved) {
			snprintf(error, len,
				 "shmemcomm: recv from PE %d expects %zu bytes with tag %lld, but PE %d sent %llu bytes with tag %lld (sends and receives between two ranks must pair up in order)",
				 from, total, (long long)op->tag, from, (unsigned long long)h.total,
				 (long long)h.tag);
			return -1;
		}
		memcpy((char *)op->dest + op->moved, inbox_of(from) + sizeof(h), h.len);
		p2p.taken[from] = seq;
		shmem_uint64_atomic_set(&p2p.acked[me], seq, from);
		op->moved += h.len;
	} while (op->moved < total);
	return 1;
}

static int team_size(shmem_team_t team)
{
	return shmem_team_n_pes(team);
}

/*
 * Starts the op's next request. 1 when the op has nothing more to start
 * (all its requests are under way or it needed none), 0 when it will start
 * another after this one completes, -1 on a refused argument.
 */
static int start(struct sct_op *op, char *error, size_t len)
{
	size_t elem = shmemx_dtype_size(op->dtype);
	int n, err = 0;

	switch (op->kind) {
	case SCT_NOTHING:
	case SCT_CALL:
	case SCT_SEND:
	case SCT_RECV:
		return 1;
	case SCT_ALLREDUCE:
		err = shmemx_allreduce_nb(op->team, op->dest, op->src, op->count, op->dtype, op->op,
					  &op->req);
		break;
	case SCT_BROADCAST:
		err = shmemx_broadcast_nb(op->team, op->dest, op->src, op->count, op->dtype,
					  op->root, &op->req);
		break;
	case SCT_ALLGATHER:
		err = shmemx_allgather_nb(op->team, op->dest, op->src, op->count, op->dtype,
					  &op->req);
		break;
	case SCT_REDUCE_SCATTER:
		err = shmemx_reduce_scatter_nb(op->team, op->dest, op->src, op->count, op->dtype,
					       op->op, &op->req);
		break;
	case SCT_ALLTOALL:
		err = shmemx_alltoall_nb(op->team, op->dest, op->src, op->count, op->dtype,
					 &op->req);
		break;
	case SCT_BARRIER:
		op->widest = 0;
		err = shmemx_allreduce_nb(op->team, &op->widest, &op->widest, 1, SHMEMX_UINT8,
					  SHMEMX_BOR, &op->req);
		break;
	case SCT_ALLTOALLV:
		n = team_size(op->team);
		if (op->phase == 0) {
			/* every block is padded to the widest one of any member */
			int64_t mine = 0;

			for (int i = 0; i < n; i++)
				if (op->send_counts[i] > mine)
					mine = op->send_counts[i];
			op->widest = mine;
			err = shmemx_allreduce_nb(op->team, &op->widest, &op->widest, 1, SHMEMX_INT64,
						  SHMEMX_MAX, &op->req);
			if (!err)
				return 0;
			break;
		}
		if (op->widest == 0)
			return 1;
		/* send blocks, then receive blocks */
		op->scratch = malloc(2 * (size_t)n * (size_t)op->widest * elem);
		if (!op->scratch) {
			snprintf(error, len, "%s: out of memory for %d blocks of %lld elements",
				 op->what, 2 * n, (long long)op->widest);
			return -1;
		}
		for (int i = 0; i < n; i++)
			memcpy((char *)op->scratch + (size_t)i * (size_t)op->widest * elem,
			       (const char *)op->src + (size_t)op->send_offsets[i] * elem,
			       (size_t)op->send_counts[i] * elem);
		err = shmemx_alltoall_nb(op->team,
					 (char *)op->scratch + (size_t)n * (size_t)op->widest * elem,
					 op->scratch, (size_t)op->widest, op->dtype, &op->req);
		break;
	}
	if (err) {
		snprintf(error, len, "%s: libshmemcomm refused the call (its message is above)",
			 op->what);
		return -1;
	}
	return 1;
}

/* The op's part after its last request: the unpacking of alltoallv. */
static void finish(struct sct_op *op)
{
	size_t elem = shmemx_dtype_size(op->dtype);
	int n;

	if (op->kind != SCT_ALLTOALLV || !op->scratch)
		return;
	n = team_size(op->team);
	for (int i = 0; i < n; i++)
		memcpy((char *)op->dest + (size_t)op->recv_offsets[i] * elem,
		       (char *)op->scratch + ((size_t)(n + i) * (size_t)op->widest) * elem,
		       (size_t)op->recv_counts[i] * elem);
}

/* Never inside the library lock: a completion may submit the next operation. */
static void end(struct sct_op *op, const char *error)
{
	free(op->scratch);
	op->scratch = NULL;
	pthread_mutex_lock(&engine.lock);
	engine.outstanding--;
	pthread_mutex_unlock(&engine.lock);
	op->done(op, error);
}

/*
 * Moves the op on: 1 when it has completed, 0 while under way. A request
 * that completes lets a multi-phase op start its next one.
 */
static int poll_op(struct sct_op *op, int *fully_started, char *error, size_t len)
{
	int done = 0, r;

	if (op->phase == 3)
		return 1;
	if (op->kind == SCT_SEND || op->kind == SCT_RECV) {
		int sending = op->kind == SCT_SEND;
		uint64_t *done = sending ? p2p.sends_done : p2p.recvs_done;

		/* the first poll is in issue order: it gives the message its turn */
		if (!op->phase) {
			op->widest = (int64_t)(sending ? p2p.send_turns : p2p.recv_turns)[op->peer]++;
			op->phase = 1;
		}
		if ((uint64_t)op->widest != done[op->peer])
			return 0;
		/* they start nothing in the library: later operations need not wait for them */
		r = sending ? send_step(op) : recv_step(op, error, len);
		if (r > 0) {
			done[op->peer]++;
			op->phase = 3;
		}
		return r;
	}
	if (!op->phase) {
		r = start(op, error, len);
		if (r < 0)
			return -1;
		op->phase = r ? 2 : 1;
	}
	for (;;) {
		if (op->req && shmemx_test(&op->req, &done)) {
			snprintf(error, len, "%s: shmemx_test failed (its message is above)", op->what);
			return -1;
		}
		if (op->req)
			break;
		if (op->phase == 2) {
			finish(op);
			op->phase = 3;
			return 1;
		}
		/* a multi-phase op whose first request completed: start the next */
		r = start(op, error, len);
		if (r < 0)
			return -1;
		op->phase = r ? 2 : 1;
	}
	*fully_started = op->phase == 2;
	return 0;
}

/* @list was built by pushing: the first finished is last */
static void end_finished(struct sct_op *list)
{
	struct sct_op *in_order = NULL;

	while (list) {
		struct sct_op *next = list->next;

		list->next = in_order;
		in_order = list;
		list = next;
	}
	while (in_order) {
		struct sct_op *next = in_order->next;

		end(in_order, in_order->result);
		in_order = next;
	}
}

/* Moves @op, the head, to @finished with @result. */
static void retire_head(struct sct_op *op, const char *result, struct sct_op **finished)
{
	engine.head = op->next;
	if (!engine.head)
		engine.tail = NULL;
	op->result = result;
	op->next = *finished;
	*finished = op;
}

/*
 * One pass over the operations, by whichever thread holds engine.library:
 * takes what was submitted, starts and polls, retires what completed (onto
 * @finished, newest first) and checks the head's deadline. Whether
 * anything moved.
 */
static int engine_turn(struct sct_op **finished)
{
	int progressed = 0, fully_started = 1;
	char error[1024];

	pthread_mutex_lock(&engine.lock);
	if (engine.queued_head) {
		if (engine.tail)
			engine.tail->next = engine.queued_head;
		else
			engine.head = engine.queued_head;
		engine.tail = engine.queued_tail;
		engine.queued_head = engine.queued_tail = NULL;
	}
	pthread_mutex_unlock(&engine.lock);

	if (sct_engine_broken()) {
		while (engine.head)
			retire_head(engine.head, sct_engine_broken(), finished);
		return 1;
	}
	for (struct sct_op **at = &engine.head; *at && fully_started;) {
		struct sct_op *op = *at;
		int r;

		if (op->kind == SCT_CALL && op != engine.head)
			break;
		if (op->kind == SCT_CALL) {
			retire_head(op, op->call(op->ctx), finished);
			progressed = 1;
			continue;
		}
		r = poll_op(op, &fully_started, error, sizeof(error));
		if (r < 0) {
			break_engine(error);
			return 1;
		}
		if (r == 0) {
			at = &op->next;
			continue;
		}
		/* done: ops complete in order, so only the head leaves the list */
		progressed = 1;
		if (op != engine.head) {
			at = &op->next;
			continue;
		}
		retire_head(op, NULL, finished);
	}
	/* the head's deadline counts from when it became the head */
	if (engine.head && !engine.head->deadline) {
		engine.head->deadline = now() + engine.head->timeout;
		engine.head->next_check = now() + CHECK_EVERY;
	}
	if (engine.head && now() > engine.head->next_check) {
		struct sct_op *head = engine.head;
		double t = now();
		char what[700];
		int lost = shmemx_request_describe(head->req, what, sizeof(what));

		if (head->kind == SCT_SEND || head->kind == SCT_RECV) {
			char why[400];

			lost = shmemx_request_describe(NULL, why, sizeof(why));
			snprintf(what, sizeof(what), "%s PE %d has %s%s%s",
				 head->kind == SCT_SEND ? "the receiving" : "the sending", head->peer,
				 head->kind == SCT_SEND ? "not taken the message" : "not sent",
				 lost ? "; " : "", lost ? strstr(why, "; ") + 2 : "");
		}

		head->next_check = t + CHECK_EVERY;
		/* a PE that did its part and then left: the head may be done now */
		if (lost && head->kind != SCT_CALL &&
		    poll_op(head, &fully_started, error, sizeof(error)) > 0)
			return 1;
		if (lost || t > head->deadline) {
			if (lost)
				snprintf(error, sizeof(error),
					 "shmemcomm: %s cannot complete: %s", head->what, what);
			else
				snprintf(error, sizeof(error),
					 "shmemcomm: %s timed out after %g s (the process group's timeout): %s",
					 head->what, head->timeout, what);
			break_engine(error);
			progressed = 1;
		}
	}
	return progressed;
}

/* The pause of a thread whose turn moved nothing since @idle_since (0: till now). */
static void back_off(double *idle_since)
{
	if (!*idle_since)
		*idle_since = now();
	else if (now() - *idle_since < engine.spin)
		return;
	else if (now() - *idle_since < engine.spin + YIELD_FOR)
		sched_yield();
	else
		nanosleep(&(struct timespec){ 0, SLEEP_NS }, NULL);
}

/*
 * Holding engine.library: one turn, then its completions outside the
 * library lock (a completion may submit the next operation) but inside
 * engine.completing, taken first, so that completions of later turns, on
 * any thread, come after; then the pause, if the turn moved nothing.
 */
static void turn_and_complete(double *idle_since)
{
	struct sct_op *finished = NULL;
	int progressed = engine_turn(&finished);

	pthread_mutex_lock(&engine.completing);
	pthread_mutex_unlock(&engine.library);
	end_finished(finished);
	pthread_mutex_unlock(&engine.completing);
	if (progressed)
		*idle_since = 0;
	else
		back_off(idle_since);
}

static void *engine_main(void *unused)
{
	double idle_since = 0;

	(void)unused;
	for (;;) {
		pthread_mutex_lock(&engine.lock);
		/* a waiting caller drives meanwhile: two pollers on one core only slow each other */
		while ((!engine.outstanding && !engine.stopping) || engine.drivers)
			pthread_cond_wait(&engine.wake, &engine.lock);
		if (!engine.outstanding && engine.stopping) {
			pthread_mutex_unlock(&engine.lock);
			return NULL;
		}
		pthread_mutex_unlock(&engine.lock);

		pthread_mutex_lock(&engine.library);
		turn_and_complete(&idle_since);
	}
}

void sct_engine_drive(int (*done)(void *ctx), void *ctx)
{
	double idle_since = 0;

	/* done inline, as small operations mostly are: leave the engine's thread asleep */
	if (done(ctx))
		return;
	pthread_mutex_lock(&engine.lock);
	if (!engine.running || engine.stopping) {
		pthread_mutex_unlock(&engine.lock);
		return;
	}
	engine.drivers++;
	pthread_mutex_unlock(&engine.lock);
	while (!done(ctx)) {
		if (pthread_mutex_trylock(&engine.library)) {
			/* the engine's thread is inside a turn: it sees engine.drivers after it */
			sched_yield();
			continue;
		}
		turn_and_complete(&idle_since);
	}
	pthread_mutex_lock(&engine.lock);
	engine.drivers--;
	/* the thread takes over what is left, or stops; idle, it sleeps on */
	if ((engine.outstanding || engine.stopping) && !engine.drivers)
		pthread_cond_signal(&engine.wake);
	pthread_mutex_unlock(&engine.lock);
}

void sct_engine_fit_cores(int node_pes)
{
	/* the node's cores, as the library's waits count them */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t allowed;
	/* this thread's, as the engine's thread, which inherited the caller's */
	long usable = sched_getaffinity(0, sizeof(allowed), &allowed) ? cores : CPU_COUNT(&allowed);

	if (2L * node_pes > cores || usable < 2) {
		engine.inline_budget = INLINE_SHARED;
		engine.inline_max = SIZE_MAX;
	}
	if (node_pes > cores && !engine.spin_set)
		engine.spin = SPIN_SHARED;
}

void sct_engine_settings(double *spin, double *inline_budget, size_t *inline_max)
{
	*spin = engine.spin;
	*inline_budget = engine.inline_budget;
	*inline_max = engine.inline_max;
}

int sct_engine_start(char *error, size_t len)
{
	const char *spin = getenv("SHMEMCOMM_TORCH_SPIN_US");
	int err = 0;

	pthread_mutex_lock(&engine.lock);
	if (engine.running)
		goto out;
	engine.spin = SPIN_ALONE;
	engine.inline_budget = INLINE_ALONE;
	engine.inline_max = INLINE_ALONE_MAX_BYTES;
	engine.spin_set = spin && *spin;
	if (engine.spin_set) {
		char *end;
		long us = strtol(spin, &end, 10);

		if (*end || us < 0 || us > 1000000) {
			snprintf(error, len,
				 "SHMEMCOMM_TORCH_SPIN_US=%s is not a number of microseconds in 0..1000000",
				 spin);
			err = -1;
			goto out;
		}
		engine.spin = (double)us * 1e-6;
	}
	engine.stopping = 0;
	err = pthread_create(&engine.thread, NULL, engine_main, NULL);
	if (err) {
		snprintf(error, len, "cannot start the progress thread: %s", strerror(err));
		err = -1;
		goto out;
	}
	engine.running = 1;
out:
	pthread_mutex_unlock(&engine.lock);
	return err;
}

static void reset(struct sct_op *op)
{
	op->next = NULL;
	op->phase = 0;
	op->req = NULL;
	op->deadline = 0;
	op->scratch = NULL;
}

/* Appends @op as it stands; under engine.lock. */
static void enqueue(struct sct_op *op)
{
	op->next = NULL;
	if (engine.queued_tail)
		engine.queued_tail->next = op;
	else
		engine.queued_head = op;
	engine.queued_tail = op;
	pthread_cond_signal(&engine.wake);
}

int sct_engine_run_inline(struct sct_op *op)
{
	char error[1024];
	int r, fully_started = 1;
	double until, idle_since = 0;

	if (op->count * shmemx_dtype_size(op->dtype) > engine.inline_max)
		return 0;
	pthread_mutex_lock(&engine.lock);
	if (!engine.running || engine.stopping || engine.outstanding || engine.broken[0] ||
	    pthread_mutex_trylock(&engine.library)) {
		pthread_mutex_unlock(&engine.lock);
		return 0;
	}
	engine.outstanding++;
	pthread_mutex_unlock(&engine.lock);
	reset(op);
	until = now() + engine.inline_budget;
	do {
		r = poll_op(op, &fully_started, error, sizeof(error));
		if (r == 0)
			back_off(&idle_since);
	} while (r == 0 && now() < until);
	if (r == 0) {
		/* the engine's thread takes it from here, as it stands */
		pthread_mutex_lock(&engine.lock);
		enqueue(op);
		pthread_mutex_unlock(&engine.lock);
		pthread_mutex_unlock(&engine.library);
		return 1;
	}
	pthread_mutex_unlock(&engine.library);
	if (r < 0)
		break_engine(error);
	end(op, r < 0 ? error : NULL);
	return 1;
}

void sct_engine_submit(struct sct_op *op)
{
	reset(op);
	pthread_mutex_lock(&engine.lock);
	if (!engine.running || engine.stopping) {
		pthread_mutex_unlock(&engine.lock);
		op->done(op, "shmemcomm: the progress thread has stopped (after destroy_process_group)");
		return;
	}
	engine.outstanding++;
	enqueue(op);
	pthread_mutex_unlock(&engine.lock);
}

struct call_wait {
	const char *(*call)(void *ctx);
	void *ctx;
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	int done;
	char *error;
	size_t len;
};

static const char *run_call(void *p)
{
	struct call_wait *w = p;

	return w->call(w->ctx);
}

static void call_done(struct sct_op *op, const char *error)
{
	struct call_wait *w = op->ctx;

	pthread_mutex_lock(&w->lock);
	w->done = 1;
	if (error)
		snprintf(w->error, w->len, "%s", error);
	pthread_cond_signal(&w->done_cond);
	pthread_mutex_unlock(&w->lock);
}

int sct_engine_call(const char *(*call)(void *ctx), void *ctx, char *error, size_t len)
{
	pthread_mutex_lock(&engine.lock);
	if (!engine.running || engine.stopping) {
		pthread_mutex_unlock(&engine.lock);
		snprintf(error, len, "the progress thread has stopped (after destroy_process_group)");
		return -1;
	}
	pthread_mutex_unlock(&engine.lock);
	struct call_wait w = { .call = call, .ctx = ctx, .lock = PTHREAD_MUTEX_INITIALIZER,
			       .done_cond = PTHREAD_COND_INITIALIZER, .error = error, .len = len };
	struct sct_op op = { .kind = SCT_CALL, .what = "call", .call = run_call, .ctx = &w,
			     .timeout = 1e9, .done = call_done };

	error[0] = 0;
	sct_engine_submit(&op);
	pthread_mutex_lock(&w.lock);
	while (!w.done)
		pthread_cond_wait(&w.done_cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	return error[0] ? -1 : 0;
}

void sct_engine_stop(void)
{
	pthread_mutex_lock(&engine.lock);
	if (!engine.running) {
		pthread_mutex_unlock(&engine.lock);
		return;
	}
	engine.stopping = 1;
	pthread_cond_signal(&engine.wake);
	pthread_mutex_unlock(&engine.lock);
	pthread_join(engine.thread, NULL);
	engine.running = 0;
}
