/*
 * The job's secret, which a process proves at the TCP rendezvous before
 * rank 0 takes anything from it (and rank 0 proves back). Where it comes
 * from, first found wins:
 *   SHMEMCOMM_JOB_SECRET  the secret itself, at least 16 characters;
 *                         shmemrun makes a random one per job
 *   SHMEMCOMM_SECRET_FILE a file of at least 16 bytes, readable by its
 *                         owner (this user) only
 *   ~/.shmemcomm/secret   the same, made with 32 random bytes when missing,
 *                         as MUNGE's key and Erlang's cookie are; on
 *                         clusters without a shared home, copy it to every
 *                         node
 * The key is the SHA-256 of the secret's bytes. It guards against other
 * users' processes only: a process of the same user can read it.
 */
#ifndef SHMEMCOMM_BOOT_SECRET_H
#define SHMEMCOMM_BOOT_SECRET_H

#include <stddef.h>
#include <stdint.h>

#include "util/sha256.h"

#define SC_SECRET_MIN 16

struct sc_secret {
	uint8_t key[SC_SHA256_BYTES];
	char source[300];	/* for messages: the variable or the file */
};

/* 0, or a negative errno after saying what is wrong and what to do */
int sc_secret_find(struct sc_secret *secret);
/* A secret of @len random bytes, made here, as hex into @text (2 * len + 1 bytes) */
int sc_secret_make(struct sc_secret *secret, char *text, size_t len, const char *source);
/* The secret whose text is @text (from sc_secret_make elsewhere) */
void sc_secret_of_text(struct sc_secret *secret, const char *text, const char *source);

#endif
