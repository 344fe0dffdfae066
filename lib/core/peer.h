/*
 * How this PE reaches another PE's segment: loads and stores where the
 * segment is mapped here (its node), the NIC where it is not. Offsets
 * count from the segment's start, the internal area included.
 */
#ifndef SHMEMCOMM_CORE_PEER_H
#define SHMEMCOMM_CORE_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

/*
 * Where @pe's segment is mapped here: its byte at @offset, for loads and
 * stores; NULL when only the NIC reaches it.
 */
void *sc_peer_view(int pe, uint64_t offset);
/* Waits until everything this PE put or got with @nbi through the NIC has landed. */
void sc_peer_quiet(void);
/* For a timeout message about @n lost PEs in @pes: what they did, and their node mates. */
void sc_peer_name_lost(const int *pes, int n, char *did, unsigned long len);

/* With @nbi the NIC may still read @source after the call (quiet waits). */
void sc_peer_put(int pe, uint64_t offset, const void *source, size_t len, int nbi);
void sc_peer_get(void *dest, int pe, uint64_t offset, size_t len, int nbi);
/* An 8-byte word: an acquire load, or an RDMA read. */
uint64_t sc_peer_load(int pe, uint64_t offset);
/*
 * For messages, as a wait times out: sc_peer_load, or -ETIMEDOUT when a
 * remote @pe does not answer within a second (lost, or its node).
 */
int sc_peer_probe(int pe, uint64_t offset, uint64_t *value);
/* A release store, or an RDMA write ordered after this PE's earlier puts to @pe. */
void sc_peer_store(int pe, uint64_t offset, uint64_t value);

/*
 * Whether an atomic on @pe's heap is this CPU's: on a node alone, or where
 * atomics go by message (remote PEs' service threads use the CPU too);
 * else the NIC's, on every PE alike (net/net.h).
 */
int sc_peer_atomic_by_cpu(int pe);

/*
 * The symmetric offset of @addr, which must lie, with @len bytes, in this
 * PE's heap (an offset into its segment) or its program's globals (past the
 * segment's end); fatal, saying why, otherwise.
 */
uint64_t sc_symmetric_offset(const void *addr, size_t len, int pe, const char *function);
/* Whether [addr, addr + len) is symmetric: on the heap or in the globals. */
static inline int sc_symmetric_contains(const void *addr, size_t len)
{
	return sc_heap_contains(addr, len) || sc_globals_contain(&sc.mem.globals, addr, len);
}
/*
 * Fatal, saying why, unless [addr, addr + len) is symmetric (a collective's
 * buffers); with @len 0 any @addr passes, NULL too, since nothing is moved.
 */
void sc_symmetric_require(const void *addr, size_t len, const char *function);

#endif
