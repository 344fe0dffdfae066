/* What tells this host apart from others: its name and the kernel's boot id. */
#ifndef SHMEMCOMM_UTIL_HOST_H
#define SHMEMCOMM_UTIL_HOST_H

#include <stddef.h>

/* "name/boot-id" into @key; two processes on one running kernel get the same */
void sc_host_key(char *key, size_t len);

#endif
