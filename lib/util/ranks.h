/* Lists of PEs as people read them in messages. */
#ifndef SHMEMCOMM_UTIL_RANKS_H
#define SHMEMCOMM_UTIL_RANKS_H

#include <stddef.h>

/* "3,5-7": @ranks[0..n) (ascending) as ranges, for messages. */
void sc_format_ranks(const int *ranks, int n, char *out, size_t len);

#endif
