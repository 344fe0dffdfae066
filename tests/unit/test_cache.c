/*
 * The last-level cache as util/cache.c finds it: on x86 CPUID (or sysfs)
 * describes it (a size, a level of at least 2, the CPUs sharing it), and
 * where the kernel lists caches in sysfs too, both say the same size.
 */
#include <stdio.h>

#include "../common/check.h"
#include "util/cache.h"

int main(void)
{
	struct sc_cache llc;
	FILE *f;

	sc_last_level_cache(&llc);
	CHECK(llc.source != NULL);
#if defined(__x86_64__)
	CHECK(llc.bytes >= 256 << 10);
	CHECK(llc.level >= 2);
	CHECK(llc.sharing >= 1 || !strcmp(llc.source, "sysfs"));
	/* CPUID's leaf, or sysfs where the CPU has none (AMD without topology extensions) */
	CHECK(strcmp(llc.source, "none"));
#endif
	f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
	if (f) {
		unsigned long kib = 0;
		char unit = 0;

		CHECK(fscanf(f, "%lu%c", &kib, &unit) == 2 && unit == 'K');
		fclose(f);
		if (llc.level == 3)
			CHECK_EQ(llc.bytes, (size_t)kib << 10);
		printf("ok - CPUID and sysfs agree: %lu KiB\n", kib);
	} else {
		printf("ok - no sysfs cache list here; CPUID says %zu KiB\n", llc.bytes >> 10);
	}
	printf("ok - the last-level cache: %zu KiB, L%d shared by %u CPUs (%s%s)\n", llc.bytes >> 10,
	       llc.level, llc.sharing, llc.source, llc.hypervisor ? ", under a hypervisor" : "");
	return 0;
}
