/* The one clock every deadline in the library is measured on. */
#ifndef SHMEMCOMM_UTIL_CLOCK_H
#define SHMEMCOMM_UTIL_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC: immune to the wall clock being set. */
static inline double sc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
