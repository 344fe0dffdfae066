/*
 * The CPU's last-level cache: how large one instance is, and how many
 * logical CPUs share it. The library's streaming rule (coll/tune.c) and the
 * benchmarks' memory floor (scripts/lib.sh, through tools/bench/stream.c)
 * both ask here, so that they agree.
 */
#ifndef SHMEMCOMM_UTIL_CACHE_H
#define SHMEMCOMM_UTIL_CACHE_H

#include <stddef.h>

struct sc_cache {
	size_t bytes;		/* one instance; 0: nothing said */
	unsigned sharing;	/* logical CPUs sharing that instance (0: not said) */
	int level;
	const char *source;	/* "cpuid leaf 4", "cpuid 0x8000001d", "sysfs", or "none" */
	/*
	 * CPUID says a hypervisor runs this CPU (leaf 1, ECX bit 31): the cache
	 * described is the host's, shared with whatever else the host runs
	 */
	int hypervisor;
};

/*
 * The largest-level data or unified cache of the CPU this runs on: from
 * CPUID's deterministic cache parameters (leaf 4 on Intel, 0x8000001D on
 * AMD and Hygon, one layout), else /sys/devices/system/cpu/cpu0/cache,
 * else nothing (bytes 0). A VM's CPUID describes the host's cache as its
 * hypervisor chooses (a 480 MiB L3 "shared by 2 CPUs" on this project's
 * 2-CPU machines), which is why @hypervisor is said too.
 */
void sc_last_level_cache(struct sc_cache *out);

#endif
