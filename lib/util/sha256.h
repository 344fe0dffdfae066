/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the TCP rendezvous's
 * proof that a peer knows the job's secret (boot/rendezvous.c). Not for bulk
 * data: it is written for clarity, not speed.
 */
#ifndef SHMEMCOMM_UTIL_SHA256_H
#define SHMEMCOMM_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SC_SHA256_BYTES 32

struct sc_sha256 {
	uint32_t state[8];
	uint64_t length;	/* bytes hashed so far */
	uint8_t block[64];
	size_t used;		/* bytes waiting in @block */
};

void sc_sha256_init(struct sc_sha256 *s);
void sc_sha256_update(struct sc_sha256 *s, const void *data, size_t len);
void sc_sha256_final(struct sc_sha256 *s, uint8_t digest[SC_SHA256_BYTES]);

/* HMAC-SHA-256 of the @n pieces @parts[i] (@lens[i] bytes each), as one message */
void sc_hmac_sha256(const void *key, size_t key_len, const void *const *parts,
		    const size_t *lens, int n, uint8_t mac[SC_SHA256_BYTES]);

/* 1 when the @len bytes are equal, in a time that does not depend on where they differ */
int sc_equal_secret(const void *a, const void *b, size_t len);

#endif
