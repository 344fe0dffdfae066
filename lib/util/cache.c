#include "util/cache.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/*
 * Walks a deterministic-cache-parameters leaf (4, or 0x8000001D: the same
 * registers) and keeps the highest level's data or unified cache: size
 * ways x partitions x line x sets, shared by EAX[25:14] + 1 logical CPUs.
 */
static int walk_leaf(unsigned leaf, struct sc_cache *out)
{
	unsigned a, b, c, d;

	out->bytes = 0;
	for (unsigned i = 0; i < 16; i++) {
		unsigned type, level;

		__cpuid_count(leaf, i, a, b, c, d);
		type = a & 0x1f;
		if (!type)
			break;
		level = (a >> 5) & 7;
		if (type == 2 || (int)level < out->level)	/* 2: instructions only */
			continue;
		out->level = (int)level;
		out->sharing = ((a >> 14) & 0xfff) + 1;
		out->bytes = (size_t)(((b >> 22) & 0x3ff) + 1) * (((b >> 12) & 0x3ff) + 1) *
			     ((b & 0xfff) + 1) * ((size_t)c + 1);
	}
	(void)d;
	return out->bytes != 0;
}

static int from_cpuid(struct sc_cache *out)
{
	unsigned max, a, b, c, d;
	char vendor[13];

	max = __get_cpuid_max(0, NULL);
	if (!max)
		return 0;
	__cpuid(1, a, b, c, d);
	out->hypervisor = !!(c & (1u << 31));
	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
		/* 0x8000001D needs the topology extensions (0x80000001 ECX bit 22) */
		if (__get_cpuid_max(0x80000000, NULL) < 0x8000001d)
			return 0;
		__cpuid(0x80000001, a, b, c, d);
		if (!(c & (1u << 22)))
			return 0;
		out->source = "cpuid 0x8000001d";
		return walk_leaf(0x8000001d, out);
	}
	if (max < 4)
		return 0;
	out->source = "cpuid leaf 4";
	return walk_leaf(4, out);
}
#else
static int from_cpuid(struct sc_cache *out)
{
	(void)out;
	return 0;
}
#endif

/* sysfs's index3 (the L3) where the kernel lists caches; its sharing is not read (0). */
static int from_sysfs(struct sc_cache *out)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
	unsigned long size = 0;
	char unit = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%lu%c", &size, &unit) < 1)
		size = 0;
	fclose(f);
	out->bytes = unit == 'M' ? size << 20 : unit == 'K' ? size << 10 : size;
	out->level = 3;
	out->sharing = 0;
	out->source = "sysfs";
	return out->bytes != 0;
}

void sc_last_level_cache(struct sc_cache *out)
{
	int hypervisor;

	memset(out, 0, sizeof(*out));
	if (from_cpuid(out))
		return;
	hypervisor = out->hypervisor;
	if (!from_sysfs(out)) {
		memset(out, 0, sizeof(*out));
		out->source = "none";
	}
	out->hypervisor = hypervisor;
}
