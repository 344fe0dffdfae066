/*
 * The memory back ends: each PE gets one segment (its symmetric heap), and
 * maps the segments of the PEs on its node.
 *   kmod   regions of /dev/shmemcomm (pinned; RDMA-registrable); the default
 *          when the device exists
 *   memfd  memfd_create, passed to node peers with SCM_RIGHTS; for hosts
 *          without the module
 * SHMEMCOMM_TRANSPORT=kmod|memfd forces one; forcing kmod without the module
 * is an error, never a silent fallback. Adding rdma ("rdma", "memfd,rdma")
 * maps no other PE: all go through the NIC (net/net.h), as across nodes.
 */
#ifndef SHMEMCOMM_MEM_MEM_H
#define SHMEMCOMM_MEM_MEM_H

#include <stddef.h>

#include "boot/node.h"
#include "shmemx.h"
#include "mem/globals.h"
#include "mem/kmod.h"
#include "mem/regcache.h"

enum sc_mem_kind { SC_MEM_KMOD, SC_MEM_MEMFD };

/*
 * This PE's own segment is mapped so that the point @aligned_at bytes into
 * it (where the symmetric heap starts) is a multiple of SC_MEM_ALIGN: an
 * offset the heap aligns is then an aligned address on every PE, for
 * shmem_align. Only the address space of the slack is reserved, for a moment.
 */
#define SC_MEM_ALIGN ((size_t)1 << 30)

#define SC_NODE_PAGE 4096

struct sc_mem {
	enum sc_mem_kind kind;
	size_t size;		/* of every PE's segment */
	size_t aligned_at;	/* SC_MEM_ALIGN */
	int npes;
	void **base;		/* [npes]: each PE's segment here; NULL off this node */
	struct sc_kmod dev;	/* kmod */
	/* kmod: the module's own pages (no alloc_dmabuf), or a provider's device memory */
	shmemx_heap_provider_t provider;
	struct sc_kmod_region *regions;	/* kmod: [npes] */
	/*
	 * the program's globals, beside the segment; none (size 0) with
	 * SHMEMCOMM_GLOBALS=0. An offset past the segment's @size is one into
	 * them: the two read as one symmetric range.
	 */
	struct sc_globals globals;
	int globals_off;	/* SHMEMCOMM_GLOBALS=0 */
	/*
	 * a page the node's PEs share, the node's first PE's memfd, on which the
	 * kernel can key a futex (util/wait.h's bell): on the module's own
	 * pages it cannot (they belong to no file), so not in the segment
	 */
	void *node_page;
	/*
	 * kmod with user-memory regions, unless SHMEMCOMM_REGCACHE_ENTRIES=0:
	 * this PE's buffers registered for the collectives (@registered, its
	 * .entries NULL when there is none), and per node peer what it imported
	 * of theirs (@imports[pe], made on first use); each bounded by
	 * SHMEMCOMM_REGCACHE_ENTRIES and _BYTES
	 */
	struct sc_regcache registered;
	struct sc_regcache *imports;
	unsigned int regcache_entries;
	size_t regcache_bytes;
};

const char *sc_mem_name(enum sc_mem_kind kind);
/*
 * A SHMEMCOMM_TRANSPORT text: the memory (kmod or memfd; by default kmod
 * when the device exists) and whether "rdma" sends every other PE through
 * the NIC. -EINVAL for anything else.
 */
int sc_transport_parse(const char *text, enum sc_mem_kind *kind, int *rdma);
/* From SHMEMCOMM_TRANSPORT: 0, or -EINVAL after a message. */
int sc_transport_pick(enum sc_mem_kind *kind, int *rdma);
/*
 * @size of each segment; @aligned_at: see SC_MEM_ALIGN; @provider: NULL,
 * or the heap provider whose device memory the segments are (kmod only).
 */
int sc_mem_setup(struct sc_mem *mem, enum sc_mem_kind kind, size_t size, size_t aligned_at,
		 const shmemx_heap_provider_t *provider, struct sc_boot *boot,
		 const struct sc_node *node);
void sc_mem_teardown(struct sc_mem *mem);
/* PE @pe's import cache, made on first use; NULL (logged) if it cannot be. */
struct sc_regcache *sc_mem_imports_of(struct sc_mem *mem, int pe);

/* A dma-buf of this PE's segment (kmod), or -EOPNOTSUPP (memfd). */
int sc_mem_dmabuf(const struct sc_mem *mem, int me);

/*
 * kmod: gives every PE @regions[me]'s handle (0 when this PE failed, @err)
 * and imports and maps its node peers' into @regions[pe] and @base[pe];
 * where any PE failed, every PE fails, naming it. @what names the memory in
 * messages ("heap"). Collective over @boot; @err, or the first error.
 */
int sc_kmod_share_on_node(struct sc_kmod *dev, struct sc_kmod_region *regions, void **base,
			  int err, struct sc_boot *boot, const struct sc_node *node,
			  const char *what);
/*
 * memfd: maps each fds[local index] into @base[pe] (with @skip_me, not this
 * PE's; this PE's aligned as SC_MEM_ALIGN says, unless @aligned_at is 0).
 */
int sc_memfd_map_node(const int *fds, size_t size, size_t aligned_at, struct sc_boot *boot,
		      const struct sc_node *node, int skip_me, void **base, const char *what);

/*
 * memfd: every PE learns whether all could share their @fd (@err: this
 * PE's failure, 0 if none; where any PE failed, every PE fails, naming
 * it), then maps its node peers' @size bytes into @base[pe]. @what names
 * the memory in messages. Collective over @boot; @err, or the first error.
 * @fd stays the caller's.
 */
int sc_memfd_share_on_node(int fd, int err, size_t size, struct sc_boot *boot,
			   const struct sc_node *node, void **base, const char *what);

/* memfd.c: gives every PE of the node the others' fds; fds[local index]. */
int sc_memfd_exchange(int my_fd, struct sc_boot *boot, const struct sc_node *node,
		      int *fds);

#endif
