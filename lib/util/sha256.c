#include "util/sha256.h"

#include <string.h>

static const uint32_t round_constants[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t state[8], const uint8_t block[64])
{
	uint32_t w[64], v[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
		       (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, state, sizeof(v));
	for (int i = 0; i < 64; i++) {
		/* v[0..7] are a..h of the standard */
		uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
		uint32_t choose = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + s1 + choose + round_constants[i] + w[i];
		uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
		uint32_t majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + s0 + majority;
	}
	for (int i = 0; i < 8; i++)
		state[i] += v[i];
}

void sc_sha256_init(struct sc_sha256 *s)
{
	static const uint32_t initial[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->state, initial, sizeof(initial));
	s->length = 0;
	s->used = 0;
}

void sc_sha256_update(struct sc_sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->length += len;
	while (len) {
		size_t take = sizeof(s->block) - s->used;

		if (take > len)
			take = len;
		memcpy(s->block + s->used, p, take);
		s->used += take;
		p += take;
		len -= take;
		if (s->used == sizeof(s->block)) {
			compress(s->state, s->block);
			s->used = 0;
		}
	}
}

void sc_sha256_final(struct sc_sha256 *s, uint8_t digest[SC_SHA256_BYTES])
{
	uint64_t bits = s->length * 8;
	uint8_t pad = 0x80, zero = 0, length[8];

	sc_sha256_update(s, &pad, 1);
	while (s->used != 56)
		sc_sha256_update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		length[i] = (uint8_t)(bits >> (56 - 8 * i));
	sc_sha256_update(s, length, sizeof(length));
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = (uint8_t)(s->state[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(s->state[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(s->state[i] >> 8);
		digest[4 * i + 3] = (uint8_t)s->state[i];
	}
}

void sc_hmac_sha256(const void *key, size_t key_len, const void *const *parts,
		    const size_t *lens, int n, uint8_t mac[SC_SHA256_BYTES])
{
	uint8_t block_key[64] = { 0 }, pad[64], inner[SC_SHA256_BYTES];
	struct sc_sha256 s;

	if (key_len > sizeof(block_key)) {
		sc_sha256_init(&s);
		sc_sha256_update(&s, key, key_len);
		sc_sha256_final(&s, block_key);
	} else {
		memcpy(block_key, key, key_len);
	}
	for (int i = 0; i < 64; i++)
		pad[i] = block_key[i] ^ 0x36;
	sc_sha256_init(&s);
	sc_sha256_update(&s, pad, sizeof(pad));
	for (int i = 0; i < n; i++)
		sc_sha256_update(&s, parts[i], lens[i]);
	sc_sha256_final(&s, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = block_key[i] ^ 0x5c;
	sc_sha256_init(&s);
	sc_sha256_update(&s, pad, sizeof(pad));
	sc_sha256_update(&s, inner, sizeof(inner));
	sc_sha256_final(&s, mac);
}

int sc_equal_secret(const void *a, const void *b, size_t len)
{
	const volatile uint8_t *x = a, *y = b;
	uint8_t diff = 0;

	for (size_t i = 0; i < len; i++)
		diff |= x[i] ^ y[i];
	return !diff;
}
