/* The program's data and bss, as the symmetric globals window finds them:
 * whole pages, holding the program's globals and statics (initialized or
 * not), and neither its stack nor malloc's memory. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "mem/globals.h"

long initialized_global = 42;
static char zeroed_static[100000];

static int inside(const char *start, size_t size, const void *p)
{
	return (const char *)p >= start && (const char *)p < start + size;
}

int main(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *start, on_stack = 0;
	void *heap = malloc(64);
	size_t size;

	sc_globals_range(&start, &size);
	CHECK(size > 0);
	CHECK_EQ((uintptr_t)start % page, 0);
	CHECK_EQ(size % page, 0);
	CHECK(inside(start, size, &initialized_global));
	CHECK(inside(start, size, zeroed_static));
	CHECK(inside(start, size, zeroed_static + sizeof(zeroed_static) - 1));
	CHECK(!inside(start, size, &on_stack));
	CHECK(!inside(start, size, heap));
	free(heap);
	return 0;
}
