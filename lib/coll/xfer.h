/*
 * The transport of a step: a member's bytes viewed, read or written through
 * the node's mapping or the NIC, and the lines on which partners tell each
 * other of their steps. The rest of coll/ does not know which it is.
 */
#ifndef SHMEMCOMM_COLL_XFER_H
#define SHMEMCOMM_COLL_XFER_H

#include "coll/types.h"

/* Room for what remote members' slices are read into; per thread, kept. */
char *sc_coll_scratch_for(size_t bytes);
/* Member @m's @bytes at @offset: where they are on this node, else read into @into. */
const char *sc_coll_fetch(const struct shmemx_request *r, int m, uint64_t offset, size_t bytes,
			  char *into);
/* @bytes of member @m at @offset into @to: a copy on this node, else an RDMA read. */
void sc_coll_copy_from(const struct shmemx_request *r, int m, uint64_t offset, char *to,
		       size_t bytes);
/* @bytes from @from to @offset in member @m's segment; landed by sc_coll_land_all. */
void sc_coll_push(const struct shmemx_request *r, int m, uint64_t offset, const void *from,
		  size_t bytes);
/*
 * Whether team member @m has told this PE, on @line, that it completed the
 * step before @step; with @block waits until so, or the timeout.
 */
int sc_coll_partner_ready(const struct shmemx_request *r, int m, int line, uint64_t step,
			  int block);
/* Tells team member @m, on its @line, that this PE completed step @step - 1. */
void sc_coll_tell(const struct shmemx_request *r, int m, int line, uint64_t step);
/* Whether member @m is reached through the NIC. */
int sc_coll_remote(const struct shmemx_request *r, int m);
/*
 * While a step waits (for a partner, or for the NIC to land what it
 * reads), the request's other work: its busy hook (r->while_busy, the
 * hierarchical pipelines' node phases), if any.
 */
void sc_coll_busy(struct shmemx_request *r, int waited);
/* What this PE read from member @m has landed; while the NIC reads it, sc_coll_busy. */
void sc_coll_land(struct shmemx_request *r, int m);
/* Everything read from or pushed to members has landed. */
void sc_coll_land_all(void);

#endif
