#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/env.h"

static const char *const level_names[] = { "error", "warn", "info", "debug" };

enum sc_log_level sc_log_threshold(void)
{
	const char *env = getenv("SHMEMCOMM_LOG");
	static int warned;

	if (!env || !*env)
		return sc_env_standard_flag("SHMEM_DEBUG", "SMA_DEBUG") ? SC_LOG_DEBUG : SC_LOG_WARN;
	for (int i = 0; i < 4; i++)
		if (!strcmp(env, level_names[i]))
			return (enum sc_log_level)i;
	if (!warned++)
		fprintf(stderr, "shmemcomm: warn: SHMEMCOMM_LOG='%s' is not one of error, warn, info, debug; using warn\n",
			env);
	return SC_LOG_WARN;
}

/* The last error's words, for a caller that raises them (shmemx_try_init_attr). */
static char last_error[1024];

const char *sc_log_last_error(void)
{
	return last_error;
}

void sc_log(enum sc_log_level level, const char *fmt, ...)
{
	char line[1024];
	int n;
	va_list ap;

	if (level == SC_LOG_ERROR) {
		va_start(ap, fmt);
		vsnprintf(last_error, sizeof(last_error), fmt, ap);
		va_end(ap);
	}
	if (level > sc_log_threshold())
		return;
	n = snprintf(line, sizeof(line), "shmemcomm: %s: ", level_names[level]);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	/*
	 * One write(2) per line: lines of PEs sharing a pipe do not interleave,
	 * and a PE killed mid-message leaves no half line.
	 */
	fflush(stderr);
	if (write(STDERR_FILENO, line, strlen(line)) < 0)
		return;
}
