/*
 * shmemcomm's extensions to OpenSHMEM: initialization with attributes,
 * queries, and the training collectives.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What shmemx_init_attr takes. A field left zero (or NULL) falls back to its
 * environment variable, then to the default; a field that is set wins over
 * the variable. Zero the whole struct first: later versions add fields.
 */
/*
 * A bootstrap of the caller's own, for a framework that has one already (a
 * key-value store such as torch.distributed's, an MPI communicator): the PEs
 * meet through it instead of the library's TCP rendezvous, so neither
 * launcher variables nor a port of ours are needed.
 *
 * allgather puts every rank's @len bytes, in rank order, into @all (size *
 * len bytes); every rank calls it alike, @len may be 0 (a barrier). It
 * returns 0, or a negative value after the caller's own message; it must
 * not wait forever. The library calls it only from the thread inside
 * shmemx_init_attr, shmemx_team_create or shmem_finalize.
 */
typedef struct shmemx_bootstrap {
	int rank;		/* this process among the @size that meet */
	int size;
	const char *name;	/* for messages, e.g. "torch.distributed store" */
	void *ctx;		/* handed to allgather */
	int (*allgather)(void *ctx, const void *mine, size_t len, void *all);
} shmemx_bootstrap_t;

/*
 * A symmetric heap in device memory: each PE's segment lives in memory that
 * the provider hands over as a dma-buf, as a GPU runtime exports its own
 * allocation (amdgpu or i915 through PRIME, CUDA's
 * cuMemGetHandleForAddressRange, a dma-buf heap). The module (transport
 * kmod) makes it a region; the node's PEs map each other's through the
 * exporter, so the exporter must map for the CPU. Across nodes (rdma) the
 * NIC takes the module's dma-buf of it; a NIC that cannot (rxe) leaves the
 * segment to go by message, through the PE's service thread and its CPU
 * mapping, with a warning (SHMEMCOMM_IB_SEGMENT in shmemcomm(7)).
 *
 * alloc_dmabuf returns a dma-buf fd of at least @bytes bytes for PE @pe, or
 * a negative errno after a message of its own. The library takes the fd
 * (it closes it once the module holds the buffer) and frees nothing else:
 * the buffer lives while the module's region holds it, until finalize. It
 * is called once per init, from the thread inside shmemx_init_attr.
 * SHMEMCOMM_HEAP_PROVIDER names a shared object whose
 * shmemx_heap_provider() returns one, for programs that cannot pass it.
 */
typedef struct shmemx_heap_provider {
	const char *name;		/* for messages, e.g. "vgem", "cuda" */
	void *ctx;			/* handed to alloc_dmabuf */
	int (*alloc_dmabuf)(void *ctx, int pe, size_t bytes);
} shmemx_heap_provider_t;

typedef struct {
	size_t symmetric_size;		/* SHMEM_SYMMETRIC_SIZE */
	const char *transport;		/* SHMEMCOMM_TRANSPORT: "kmod", "memfd", "kmod,rdma"... */
	double timeout_seconds;		/* SHMEMCOMM_TIMEOUT */
	/* NULL: the launcher's variables and the TCP rendezvous (shmemrun(1)) */
	const shmemx_bootstrap_t *bootstrap;
	/* NULL: SHMEMCOMM_HEAP_PROVIDER, or the module's own pages (or memfd) */
	const shmemx_heap_provider_t *heap_provider;
	unsigned long reserved[2];	/* must be zero */
} shmemx_init_attr_t;

/* shmem_init with attributes; a bad attribute ends the process with a message. */
void shmemx_init_attr(const shmemx_init_attr_t *attr);
/*
 * The same for a caller that reports errors itself (a Python binding): a
 * setting, attribute or resource the library cannot have (a bad variable,
 * RLIMIT_MEMLOCK, the module's refusal, a bootstrap that fails) returns -1,
 * after the message, with its words in @why, and undoes what init had set
 * up. The library then stays down in this process: a later init fails too.
 */
int shmemx_try_init_attr(const shmemx_init_attr_t *attr, char *why, size_t len);

/*
 * A team of any PEs, in the order given (@pes are world PE numbers, each
 * once). Only the members call it, and they meet through @members, a
 * bootstrap over just them (its rank is the index in @pes), to agree on the
 * team's sync slot: unlike shmem_team_split_strided, the other PEs take no
 * part, as a framework's subgroups need. Returns 0, or -1 after a message
 * (with *@team SHMEM_TEAM_INVALID). Destroyed by shmem_team_destroy.
 */
int shmemx_team_create(const int *pes, int n, const shmemx_bootstrap_t *members,
		       shmem_team_t *team);

/* The memory back end in use, "kmod" or "memfd", with "+rdma" when PEs are reached by RDMA. */
const char *shmemx_transport_name(void);
/* The symmetric heap per PE, and what is free in it now, in bytes. */
size_t shmemx_heap_size(void);
size_t shmemx_heap_free(void);
/* This PE among the PEs of its node, and how many they are. */
int shmemx_local_pe(void);
int shmemx_n_local_pes(void);

/*
 * Training collectives.
 *
 * Every PE of @team calls the same collective with the same count, dtype,
 * op and root, in the same order. @dest may equal @source (in place) or
 * must not overlap it. Buffers may be anywhere: on the symmetric heap (or
 * in the globals) they are read by the peers where they are (zero copy);
 * in this PE's buffer pool (shmemx_buffer_malloc, below) the same;
 * elsewhere they are registered (shmemx_buffer_register, below) or go
 * through the library's staging buffers, in a pipeline. Any count and any
 * alignment work. Every PE gets the same bits, run after run: each element
 * is reduced in team order by the same code. fp16 and bf16 accumulate in
 * fp32 and round once; integers wrap on sum and prod; avg is the sum
 * divided by the team size (integers: truncated toward zero).
 *
 * They return 0, or -1 after a message naming the bad argument.
 */
typedef enum {
	SHMEMX_FP32, SHMEMX_FP64, SHMEMX_FP16, SHMEMX_BF16,
	SHMEMX_INT8, SHMEMX_INT16, SHMEMX_INT32, SHMEMX_INT64,
	SHMEMX_UINT8, SHMEMX_UINT16, SHMEMX_UINT32, SHMEMX_UINT64,
} shmemx_dtype_t;

/* band, bor and bxor are for the integer dtypes. */
typedef enum {
	SHMEMX_SUM, SHMEMX_PROD, SHMEMX_MIN, SHMEMX_MAX, SHMEMX_AVG,
	SHMEMX_BAND, SHMEMX_BOR, SHMEMX_BXOR,
} shmemx_op_t;

/* The size of one element of @dtype in bytes, or 0 if it is not a dtype. */
size_t shmemx_dtype_size(shmemx_dtype_t dtype);

/* dest[i] = source[i] of PE 0 OP ... OP source[i] of PE n-1, on every PE. */
int shmemx_allreduce(shmem_team_t team, void *dest, const void *source, size_t count,
		     shmemx_dtype_t dtype, shmemx_op_t op);
/* source holds n blocks of @count; PE i gets block i reduced over the team. */
int shmemx_reduce_scatter(shmem_team_t team, void *dest, const void *source, size_t count,
			  shmemx_dtype_t dtype, shmemx_op_t op);
/* dest holds n blocks of @count: block i is PE i's source. */
int shmemx_allgather(shmem_team_t team, void *dest, const void *source, size_t count,
		     shmemx_dtype_t dtype);
/* Every PE's dest gets @root's source (root is a team index). */
int shmemx_broadcast(shmem_team_t team, void *dest, const void *source, size_t count,
		     shmemx_dtype_t dtype, int root);
/* source and dest hold n blocks of @count: dest block i is PE i's source block me. */
int shmemx_alltoall(shmem_team_t team, void *dest, const void *source, size_t count,
		    shmemx_dtype_t dtype);

/*
 * Non-blocking forms. Each starts the collective and returns a request;
 * shmemx_test and shmemx_wait complete it, and free it then (setting *req
 * to NULL). The buffers belong to the collective until it completes.
 *
 * Progress model: the data moves by this PE's own loads and stores, so it
 * moves while this PE is inside the library: in the starting call (as far
 * as it can go without waiting), in shmemx_test, in shmemx_wait, and in any
 * other collective on the same team. Calling shmemx_test now and then from
 * a compute loop keeps the collective moving while the peers catch up.
 * Requests on one team complete in the order they were started; several
 * may be outstanding at once, on one team or several. A team's requests
 * are driven by one thread at a time. On a team that spans nodes the
 * same holds, with one limit: a stage's RDMA reads and writes, once begun,
 * complete before the call returns; the waits between stages do not block.
 * Buffers off the symmetric heap go through this PE's staging buffers,
 * which serve one request at a time, as do the world team's collectives
 * across nodes (other teams' use buffers of the team's own): such a
 * request on another team waits for the one before it, driving it when
 * blocking. So those requests, on different teams, must be started in the
 * same order on the PEs they share, and from one thread.
 */
typedef struct shmemx_request *shmemx_request_t;

int shmemx_allreduce_nb(shmem_team_t team, void *dest, const void *source, size_t count,
			shmemx_dtype_t dtype, shmemx_op_t op, shmemx_request_t *req);
int shmemx_reduce_scatter_nb(shmem_team_t team, void *dest, const void *source, size_t count,
			     shmemx_dtype_t dtype, shmemx_op_t op, shmemx_request_t *req);
int shmemx_allgather_nb(shmem_team_t team, void *dest, const void *source, size_t count,
			shmemx_dtype_t dtype, shmemx_request_t *req);
int shmemx_broadcast_nb(shmem_team_t team, void *dest, const void *source, size_t count,
			shmemx_dtype_t dtype, int root, shmemx_request_t *req);
int shmemx_alltoall_nb(shmem_team_t team, void *dest, const void *source, size_t count,
		       shmemx_dtype_t dtype, shmemx_request_t *req);
/* Sets *done to 1 (and frees the request) if it has completed, else 0. */
int shmemx_test(shmemx_request_t *req, int *done);
/* Completes the request. A NULL *req is complete already. */
int shmemx_wait(shmemx_request_t *req);
/*
 * For a caller that drives requests with shmemx_test and keeps deadlines
 * of its own: what @req waits for, in words that name the PEs ("allreduce
 * on a team of 4 waits for PE 2, which has not arrived"), into @buf.
 * Returns 1 when a PE of this node that the job needs has exited, so the
 * request can never complete; else 0.
 */
int shmemx_request_describe(shmemx_request_t req, char *buf, size_t len);

/*
 * Buffers off the heap, single copy (kmod back end with user-memory
 * regions). A collective's buffer of at least SHMEMCOMM_COLL_REGISTER_MIN
 * bytes is registered on first use: its pages are pinned, node peers map
 * them, and later calls find it in a cache (SHMEMCOMM_REGCACHE_ENTRIES,
 * SHMEMCOMM_REGCACHE_BYTES, least recently used first) that the module
 * keeps true: a buffer freed, unmapped or discarded and reallocated is
 * registered anew, never served stale. shmemx_buffer_register does it
 * ahead of time and keeps the buffer out of the LRU's reach until
 * shmemx_buffer_unregister (of any address in it) or shmem_finalize, as
 * ncclCommRegister does; it is local to the PE. Both return 0, or -1 after
 * a message (on memfd, where the collectives stage such buffers, too).
 */
int shmemx_buffer_register(void *addr, size_t bytes);
int shmemx_buffer_unregister(void *addr);

/* This PE's registration figures since init, and how its collectives' buffers went. */
typedef struct {
	unsigned long misses;		/* own buffers not found: registered, or tried */
	unsigned long hits;		/* own buffers found registered */
	unsigned long stale;		/* entries the module made stale, found and let go */
	unsigned long evictions;	/* entries let go for the limits */
	unsigned long entries;		/* own entries now */
	size_t pinned_bytes;		/* and the bytes they pin */
	unsigned long imports;		/* node peers' buffers imported and mapped */
	unsigned long import_hits;	/* and found mapped already */
	size_t mapped_bytes;		/* peers' buffers mapped now */
	unsigned long staged;		/* collectives' buffers that went through staging */
	unsigned long pooled;		/* and those read in place in the buffer pool */
} shmemx_buffer_stats_t;
int shmemx_buffer_stats(shmemx_buffer_stats_t *stats);

/*
 * The buffer pool, for zero copy where buffers cannot be registered (the
 * memfd back end) or allocated collectively (a framework's allocator): a
 * collective's buffer in it is read and written by the node's PEs where it
 * is, as on the heap, though each PE allocates on its own, any size, any
 * time. Each PE's pool is a memfd of SHMEMCOMM_BUFFER_POOL bytes (by
 * default the machine's memory on memfd and none on kmod), sparse, which
 * its node's PEs map at init.
 *
 * shmemx_buffer_malloc: whole pages, page-aligned, between init and
 * finalize; any thread. NULL after a message when there is no pool or no
 * room. A block may outlive shmem_finalize (the pool stays until its last
 * block is freed), and shmemx_buffer_free takes it then too. In a child
 * of fork() the blocks are private, copy on write, as malloc'd memory.
 * shmemx_buffer_pool_usage: the pool's bytes (0: none, or not in a job)
 * and those in live blocks. shmemx_buffer_in_pool: whether @p lies in this
 * process's pool (an allocator's deleter asks it, at any time).
 */
void *shmemx_buffer_malloc(size_t bytes);
void shmemx_buffer_free(void *p);
void shmemx_buffer_pool_usage(size_t *size, size_t *used);
int shmemx_buffer_in_pool(const void *p);

/* The algorithm the next allreduce of @bytes on @team would use, by name. */
const char *shmemx_allreduce_algorithm(shmem_team_t team, size_t bytes);
/*
 * The same for any collective by name ("allreduce", "reduce_scatter",
 * "allgather", "broadcast", "alltoall"; NULL for another name), @bytes
 * being the larger of what one PE sends and receives: "pipeline" for the
 * staged pipeline, or "oneshot", "rsag", "ring", "rhd", "hier", "chain".
 */
const char *shmemx_collective_algorithm(shmem_team_t team, const char *collective,
					size_t bytes);
/* The instruction set of the reduction kernels: "scalar", "avx2" or "avx512". */
const char *shmemx_simd_name(void);

#ifdef __cplusplus
}
#endif

#endif /* SHMEMX_H */
