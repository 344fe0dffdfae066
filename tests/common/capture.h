/* Captures what a call writes to stderr, to check the library's messages. */
#ifndef SHMEMCOMM_TESTS_CAPTURE_H
#define SHMEMCOMM_TESTS_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

#include "check.h"

struct capture {
	FILE *file;
	int saved_stderr;
	char text[4096];
};

static inline void capture_start(struct capture *c)
{
	fflush(stderr);
	c->file = tmpfile();
	CHECK(c->file);
	c->saved_stderr = dup(STDERR_FILENO);
	CHECK(dup2(fileno(c->file), STDERR_FILENO) >= 0);
}

/* Returns everything written since capture_start, NUL-terminated. */
static inline const char *capture_end(struct capture *c)
{
	size_t n;

	fflush(stderr);
	CHECK(dup2(c->saved_stderr, STDERR_FILENO) >= 0);
	close(c->saved_stderr);
	rewind(c->file);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->file);
	c->text[n] = '\0';
	fclose(c->file);
	return c->text;
}

/* @text is evaluated once: it may be capture_end(), which may run only once */
#define CHECK_CONTAINS(text, part)                                          \
	do {                                                                \
		const char *checked_text_ = (text);                         \
		if (!strstr(checked_text_, (part)))                         \
			FAIL("'%s' does not contain '%s'", checked_text_, (part)); \
	} while (0)

#endif
