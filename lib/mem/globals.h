/*
 * The program's globals and statics (the executable's data and bss), made
 * symmetric as OpenSHMEM requires: every PE runs the same program, so an
 * object sits at the same offset in every PE's data, and the PEs of a node
 * map each other's data as they map each other's heap.
 *   kmod   the data and bss stay where they are: a user-memory region pins
 *          them (CREATE_USER), node peers import and map it
 *   memfd  the data and bss are moved onto a memfd at init (copied, then
 *          mapped over themselves, shared); node peers map the memfd. A
 *          child of fork() gets them private again (a pthread_atfork
 *          handler copies them back onto private memory)
 * Only the executable's own data: a shared library's globals are not
 * symmetric (each library would need its own window), and using one is an
 * error that names the library.
 */
#ifndef SHMEMCOMM_MEM_GLOBALS_H
#define SHMEMCOMM_MEM_GLOBALS_H

#include <stddef.h>
#include <stdint.h>

#include "boot/node.h"
#include "boot/bootstrap.h"
#include "mem/kmod.h"

struct sc_globals {
	char *start;		/* this PE's data, rounded down to a page */
	size_t size;		/* data and bss, rounded out to pages */
	void **base;		/* [npes]: each PE's globals mapped here; NULL off this node */
	struct sc_kmod_region *regions;	/* kmod: [npes], this PE's the owner's */
	volatile uint32_t stale;	/* kmod: the module sets it if the data is unmapped */
};

/* The executable's data and bss, as [start, start + size) of whole pages. */
void sc_globals_range(char **start, size_t *size);

/*
 * Collective over @boot: makes this PE's globals reachable by its node's
 * PEs and maps theirs. @dev is the open device for kmod, NULL for memfd.
 * 0, or a negative errno after a message naming the PE and the range.
 */
int sc_globals_setup(struct sc_globals *g, struct sc_kmod *dev, struct sc_boot *boot,
		     const struct sc_node *node);
void sc_globals_teardown(struct sc_globals *g, int npes);

/* Whether [addr, addr + len) lies in this PE's globals. */
static inline int sc_globals_contain(const struct sc_globals *g, const void *addr, size_t len)
{
	const char *p = addr;

	return g->size && p >= g->start && p < g->start + g->size &&
	       len <= g->size - (size_t)(p - g->start);
}

#endif
