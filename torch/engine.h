/*
 * The PyTorch backend's engine, in C and free of torch: one progress thread
 * per process that makes the calls into libshmemcomm, and runs the
 * operations of all process groups in the order they were submitted.
 *
 * Why one thread for all groups: the library's non-blocking collectives
 * are driven by one thread at a time and, where they share the staging
 * buffers, must be started in the same order on every PE (shmemx.h). The
 * thread starts each operation when it reaches it, then polls every
 * started one with shmemx_test, so operations of several groups are under
 * way at once and Python computes meanwhile. A caller that waits on an
 * operation takes the thread's place until it is done (sct_engine_drive),
 * so one thread per process polls. Idle, the thread sleeps on a condition
 * variable; with work in flight the polling thread spins for
 * SHMEMCOMM_TORCH_SPIN_US microseconds, then yields, then sleeps in short
 * steps (the CPU it costs is in the README).
 *
 * Errors never end the process: an operation that fails or outlives its
 * deadline completes with a message (naming the PEs it waited for), and
 * from then on every operation fails with that message, since the
 * library's state for the group can no longer be trusted (as a NCCL
 * communicator after a timeout).
 */
#ifndef SHMEMCOMM_TORCH_ENGINE_H
#define SHMEMCOMM_TORCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include <shmemx.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sct_kind {
	SCT_NOTHING,		/* completes in its turn: an operation on no elements */
	SCT_ALLREDUCE,
	SCT_BROADCAST,
	SCT_ALLGATHER,
	SCT_REDUCE_SCATTER,
	SCT_ALLTOALL,
	SCT_ALLTOALLV,		/* split sizes per peer, in elements */
	SCT_BARRIER,
	SCT_SEND,		/* @count elements of @src to world PE @peer, with @tag */
	SCT_RECV,		/* into @dest from world PE @peer, with @tag */
	SCT_CALL,		/* runs @call on the thread, after every operation before it */
};

struct sct_op {
	enum sct_kind kind;
	const char *what;	/* "allreduce", for messages */
	shmem_team_t team;
	void *dest;
	const void *src;
	size_t count;		/* elements per block (allgather, reduce_scatter, alltoall) */
	shmemx_dtype_t dtype;
	shmemx_op_t op;
	int root;		/* broadcast: team index */
	int peer;		/* send, recv: world PE */
	int64_t tag;
	/* alltoallv: elements sent to and received from each member, and where */
	const int64_t *send_counts, *send_offsets, *recv_counts, *recv_offsets;
	double timeout;		/* seconds from the start of its turn */
	/* SCT_CALL: returns NULL, or a message that lives until the next call */
	const char *(*call)(void *ctx);
	/* called on the engine's thread when it ends; @error NULL on success */
	void (*done)(struct sct_op *op, const char *error);
	void *ctx;

	/* the engine's */
	struct sct_op *next;
	const char *result;	/* a finished op's error, until it is ended */
	int phase;
	shmemx_request_t req;
	double deadline;
	double next_check;
	void *scratch;
	int64_t widest;
	size_t moved;		/* send, recv: bytes so far */
};

/*
 * Point to point: every PE allocates an inbox per peer on the symmetric heap
 * (collective: call it from init, on the engine's thread). A send puts a
 * chunk and its header into the receiver's inbox for it and raises a
 * signal; the receiver copies it out and acknowledges, which frees the
 * inbox for the next chunk. Messages between two PEs arrive in order.
 */
int sct_p2p_setup(char *error, size_t len);

/* Starts the thread (once per process); 0, or -1 with @error filled. */
int sct_engine_start(char *error, size_t len);
/*
 * After init, on the engine's thread: with more of the node's PEs than it
 * has cores, the default spin is 1 us, as the library's own waits do.
 * Where the engine's thread has no core of its own (the process may use
 * one CPU, or the node's PEs are more than half its cores), operations of
 * any size run inline, for up to 1 ms; else those up to 64 KiB, for 50 us.
 */
void sct_engine_fit_cores(int node_pes);
/* What the above chose: seconds of spin and of an inline run, bytes inline at most. */
void sct_engine_settings(double *spin, double *inline_budget, size_t *inline_max);
/* Queues @op; it completes through op->done, always, on the engine's thread. */
void sct_engine_submit(struct sct_op *op);
/*
 * When nothing is outstanding and @op is small enough, runs it on the
 * calling thread for up to 50 us (for both, see sct_engine_fit_cores) and,
 * if it has not completed by then, hands it to the engine's thread as it
 * stands: the operation then costs no thread switch. Returns 0 (and does
 * nothing) when the engine is busy or @op too big; the caller then submits it.
 */
int sct_engine_run_inline(struct sct_op *op);
/*
 * For a caller about to sleep until @done(ctx): it makes the engine's turns
 * itself until then, and the engine's thread sleeps meanwhile. A waiter
 * then costs no thread switch at the end of its operation, and where PEs
 * outnumber cores one thread per process polls instead of two.
 */
void sct_engine_drive(int (*done)(void *ctx), void *ctx);
/*
 * Runs @call on the engine's thread after everything submitted so far, and
 * waits for it: 0, or -1 with its message (or the engine's failure) in @error.
 */
int sct_engine_call(const char *(*call)(void *ctx), void *ctx, char *error, size_t len);
/* After a failure: its message, else NULL. */
const char *sct_engine_broken(void);
/* Ends the thread after what is queued (at exit, after shmem_finalize). */
void sct_engine_stop(void);

#ifdef __cplusplus
}
#endif

#endif
