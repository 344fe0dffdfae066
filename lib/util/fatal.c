#include "util/fatal.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "util/log.h"

static void (*fatal_hook)(int status);

void sc_fatal_set_hook(void (*hook)(int status))
{
	fatal_hook = hook;
}

void sc_fatal(int status, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sc_error("%s", line);
	if (fatal_hook)
		fatal_hook(status);
	fflush(NULL);
	_exit(status);
}
