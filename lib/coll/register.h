/*
 * Buffers off the heap: registered with the module where that pays, so the
 * peers map them (single copy), or else staged; counted either way for
 * shmemx_buffer_stats.
 */
#ifndef SHMEMCOMM_COLL_REGISTER_H
#define SHMEMCOMM_COLL_REGISTER_H

#include "coll/types.h"

/*
 * At prepare, its registered[] NULL: this PE's buffers that would be staged,
 * registered where that pays.
 */
void sc_coll_register(struct shmemx_request *r, size_t src_bytes, size_t dst_bytes);
/*
 * Member @m's registered source (@which 0) or result (1), mapped here: its
 * region @handle, which starts at @start in @m; fatal if it cannot be.
 */
const char *sc_coll_registered_view(struct shmemx_request *r, int m, int which,
				    uint64_t handle, uint64_t start, uint64_t offset);
/* At the end: lets go of what the request used. */
void sc_coll_unregister(struct shmemx_request *r);
/* Counts a prepared call's buffers @staged, and read in place in the buffer pool (@pooled). */
void sc_coll_count_buffers(unsigned long staged, unsigned long pooled);

#endif
