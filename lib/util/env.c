#include "util/env.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

const char *sc_env_string(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int sc_parse_size(const char *text, uint64_t *out, char *why, unsigned long why_len)
{
	unsigned int shift = 0;
	unsigned long long v;
	char *end;

	if (!text || !*text || *text == '-' || *text == '+' || *text == ' ')
		goto bad;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text)
		goto bad;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && (*end == 'b' || *end == 'B'))
		end++;
	if (*end)
		goto bad;
	if (shift && v > (UINT64_MAX >> shift)) {
		snprintf(why, why_len, "'%s' overflows 64 bits", text);
		return -EINVAL;
	}
	*out = (uint64_t)v << shift;
	return 0;
bad:
	snprintf(why, why_len,
		 "'%s' is not a size: a whole number of bytes with an optional k, m, g or t suffix (e.g. 512m)",
		 text ? text : "");
	return -EINVAL;
}

int sc_env_size(const char *name, uint64_t fallback, uint64_t min, uint64_t max,
		uint64_t *out)
{
	const char *text = sc_env_string(name);
	char why[256];

	if (!text) {
		*out = fallback;
		return 0;
	}
	if (sc_parse_size(text, out, why, sizeof(why))) {
		sc_error("%s=%s: %s", name, text, why);
		return -EINVAL;
	}
	if (*out < min || *out > max) {
		sc_error("%s=%s (%" PRIu64 " bytes) is outside %" PRIu64 "..%" PRIu64 " bytes",
			 name, text, *out, min, max);
		return -EINVAL;
	}
	return 0;
}

int sc_env_long(const char *name, long fallback, long min, long max, long *out)
{
	const char *text = sc_env_string(name);
	char *end;
	long v;

	if (!text) {
		*out = fallback;
		return 0;
	}
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max) {
		sc_error("%s=%s is not a whole number in %ld..%ld", name, text, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int sc_env_seconds(const char *name, double fallback, double *out)
{
	const char *text = sc_env_string(name);
	char *end;
	double v;

	if (!text) {
		*out = fallback;
		return 0;
	}
	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(v) || v <= 0 || v > 1e6) {
		sc_error("%s=%s is not a number of seconds in (0, 1000000]", name, text);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

const char *sc_env_standard(const char *shmem_name, const char *sma_name)
{
	return !getenv(shmem_name) && getenv(sma_name) ? sma_name : shmem_name;
}

int sc_env_standard_flag(const char *shmem_name, const char *sma_name)
{
	const char *value = getenv(sc_env_standard(shmem_name, sma_name));

	return value && *value && strcmp(value, "0");
}
