/*
 * The buffer pool: memory off the symmetric heap that the PEs of a node
 * read and write where it is, so that a collective's buffer there needs
 * neither staging nor registration. It is for the memfd back end, which
 * has no registration (on kmod, ordinary buffers are registered in place:
 * regcache.h), and for allocators that cannot be collective, such as
 * PyTorch's CPU allocator (the torch binding's tensors come from it).
 *
 * Each PE's pool is a memfd of SHMEMCOMM_BUFFER_POOL bytes, mapped by the
 * PEs of its node at init. A collective's slot names a buffer in it by its
 * offset, past the segment and the globals (peer.c reads the three as one
 * range), as it names a heap buffer; the offsets differ from PE to PE, and
 * each PE's slot carries its own. In core, above mem/ (the memfds) and
 * heap/ (whose offset allocator it runs over the pool).
 *
 * Allocation is local, not collective: any thread, any size, any time
 * (shmemx_buffer_malloc). The memfd is sparse: a page costs memory from
 * its first touch, and a freed block of SC_POOL_GIVE_BACK bytes or more
 * gives its pages back.
 *
 * Lifetime: this PE's pool outlives shmem_finalize while a block of it is
 * live (a tensor may outlive its process group), and goes with the last
 * one; the peers' pools are unmapped at finalize.
 *
 * fork(): a child gets the pool as malloc'd memory: private, copy on
 * write (a pthread_atfork handler maps it MAP_PRIVATE over itself), and
 * takes no new blocks from it, so a child's write never reaches the parent
 * or a peer.
 */
#ifndef SHMEMCOMM_CORE_POOL_H
#define SHMEMCOMM_CORE_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "boot/node.h"
#include "boot/bootstrap.h"
#include "mem/mem.h"

/*
 * A freed block this big or bigger gives its pages back (a hole punched in
 * the memfd), as glibc's free gives back blocks from its largest mmap
 * threshold; smaller ones keep theirs for the next block, as malloc does.
 */
#define SC_POOL_GIVE_BACK ((size_t)32 << 20)

/* SHMEMCOMM_BUFFER_POOL's limit: every node peer's pool takes this much address space here. */
#define SC_POOL_MAX ((uint64_t)1 << 40)

/*
 * The pools as this PE reaches them, in a job: its own from @start, and
 * every node PE's at @base[pe] (NULL off this node), @size bytes each;
 * size 0 when there is none, or in a fork child.
 */
struct sc_pool_span {
	char *start;
	size_t size;
	void **base;
};

extern struct sc_pool_span sc_pool_shared;

/*
 * Collective over @boot, after the segments (@kind's): this PE's pool of
 * SHMEMCOMM_BUFFER_POOL bytes (alike on every PE; 0: none), made, or kept
 * from an earlier init, and its node peers' mapped. 0, or a negative errno
 * after a message.
 */
int sc_pool_setup(enum sc_mem_kind kind, struct sc_boot *boot, const struct sc_node *node);
/* Unmaps the peers' pools; this PE's stays while a block of it is live. */
void sc_pool_teardown(void);

/* Whether [p, p + len) lies in this PE's pool, which its node peers map. */
static inline int sc_pool_contains(const void *p, size_t len)
{
	const char *c = p;

	return c >= sc_pool_shared.start && c < sc_pool_shared.start + sc_pool_shared.size &&
	       len <= sc_pool_shared.size - (size_t)(c - sc_pool_shared.start);
}

static inline uint64_t sc_pool_offset(const void *p)
{
	return (uint64_t)((const char *)p - sc_pool_shared.start);
}

/*
 * A block of @bytes (whole pages, page-aligned), or NULL with *err:
 * -ENOMEM when the pool has no room (-ENODEV: no pool; -EPERM: a fork
 * child's). Thread-safe, as are the rest.
 */
void *sc_pool_alloc(size_t bytes, int *err);
/* 0, or -EINVAL when @p starts no live block of this PE's pool. */
int sc_pool_free(void *p);
/* Whether @p lies in this process's pool, in a job or not (no lock: a deleter's question). */
int sc_pool_owns(const void *p);
/* The pool's bytes (0: none) and those in live blocks. */
void sc_pool_usage(size_t *size, size_t *used);

#endif
