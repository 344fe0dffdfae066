/*
 * Every environment variable the library reads goes through here, so each
 * bad value gets the same kind of message: the variable, the value, and
 * what it may be.
 */
#ifndef SHMEMCOMM_UTIL_ENV_H
#define SHMEMCOMM_UTIL_ENV_H

#include <stdint.h>

/*
 * A size with an optional k, m, g or t suffix (powers of 1024, any case,
 * an optional trailing "b"), e.g. "512m", "1G", "65536".
 * 0 on success; -EINVAL naming the value in @why otherwise.
 */
int sc_parse_size(const char *text, uint64_t *out, char *why, unsigned long why_len);

/*
 * Reads @name as a size in [min, max]; @fallback when unset or empty.
 * Logs and returns -EINVAL on a bad value.
 */
int sc_env_size(const char *name, uint64_t fallback, uint64_t min, uint64_t max,
		uint64_t *out);

/* Reads @name as a whole number in [min, max]; @fallback when unset. */
int sc_env_long(const char *name, long fallback, long min, long max, long *out);

/* Reads @name as seconds (a positive decimal, e.g. "30" or "2.5"). */
int sc_env_seconds(const char *name, double fallback, double *out);

/* The value of @name if set and not empty, else NULL. */
const char *sc_env_string(const char *name);

/*
 * OpenSHMEM's variables: @shmem_name, or, where that is unset, its
 * deprecated SMA_ name @sma_name. The name to read.
 */
const char *sc_env_standard(const char *shmem_name, const char *sma_name);
/* Whether that variable is set, and neither empty nor 0. */
int sc_env_standard_flag(const char *shmem_name, const char *sma_name);

#endif
