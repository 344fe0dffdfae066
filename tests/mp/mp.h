/* Checks for the multi-process tests: a failure names the PE and ends the job. */
#ifndef SHMEMCOMM_TESTS_MP_H
#define SHMEMCOMM_TESTS_MP_H

#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

#define MP_CHECK(cond)                                                            \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s:%d: PE %d: check failed: %s\n",       \
				__FILE__, __LINE__, shmem_my_pe(), #cond);        \
			shmem_global_exit(1);                                     \
		}                                                                 \
	} while (0)

#endif
