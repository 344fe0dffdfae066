/*
 * shmemcomm's extensions to OpenSHMEM: initialization with attributes, and
 * queries. (Training collectives arrive here with their issue.)
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
typedef struct {
	size_t symmetric_size;		/* SHMEM_SYMMETRIC_SIZE */
	const char *transport;		/* SHMEMCOMM_TRANSPORT: "kmod" or "memfd" */
	double timeout_seconds;		/* SHMEMCOMM_TIMEOUT */
	unsigned long reserved[4];	/* must be zero */
} shmemx_init_attr_t;

/* shmem_init with attributes; a bad attribute ends the process with a message. */
void shmemx_init_attr(const shmemx_init_attr_t *attr);

/* The memory back end in use: "kmod" or "memfd". */
const char *shmemx_transport_name(void);
/* The symmetric heap per PE, and what is free in it now, in bytes. */
size_t shmemx_heap_size(void);
size_t shmemx_heap_free(void);
/* This PE among the PEs of its node, and how many they are. */
int shmemx_local_pe(void);
int shmemx_n_local_pes(void);

#ifdef __cplusplus
}
#endif

#endif /* SHMEMX_H */
