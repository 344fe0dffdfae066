/*
 * Checks for the C tests: a failed check prints where and why, and ends the
 * test process with status 1. A test passes by reaching its end (exit 0).
 */
#ifndef SHMEMCOMM_TESTS_CHECK_H
#define SHMEMCOMM_TESTS_CHECK_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A repeatable xorshift generator for test data. */
static inline uint32_t xorshift32(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

#define FAIL(...)                                                          \
	do {                                                               \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);            \
		fprintf(stderr, __VA_ARGS__);                              \
		fputc('\n', stderr);                                       \
		exit(1);                                                   \
	} while (0)

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond))                                               \
			FAIL("check failed: %s (errno %d: %s)", #cond,     \
			     errno, strerror(errno));                      \
	} while (0)

/* @expr returns 0 or -errno, as the library does */
#define CHECK_OK(expr)                                                     \
	do {                                                               \
		long check_ret_ = (expr);                                  \
		if (check_ret_ != 0)                                       \
			FAIL("%s returned %ld (%s), wanted 0", #expr,      \
			     check_ret_, strerror((int)-check_ret_));      \
	} while (0)

#define CHECK_ERR(expr, want)                                              \
	do {                                                               \
		long check_ret_ = (expr);                                  \
		if (check_ret_ != -(want))                                 \
			FAIL("%s returned %ld (%s), wanted -%s", #expr,    \
			     check_ret_, strerror((int)-check_ret_),       \
			     #want);                                       \
	} while (0)

#define CHECK_EQ(a, b)                                                     \
	do {                                                               \
		long long check_a_ = (long long)(a);                       \
		long long check_b_ = (long long)(b);                       \
		if (check_a_ != check_b_)                                  \
			FAIL("%s == %lld, wanted %s == %lld", #a, check_a_, \
			     #b, check_b_);                                \
	} while (0)

#endif
