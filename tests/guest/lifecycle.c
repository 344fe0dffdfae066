/* The last reference frees: a mapping alone keeps a region alive after its
 * file is closed; mappings are inherited across fork and stay shared with
 * the parent; MADV_DONTFORK keeps them out of the child. */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#define SIZE (128u << 10)

static int child_writes(void *arg)
{
	uint8_t *p = arg;

	CHECK(check_pattern(p, SIZE, 11));
	fill_pattern(p, SIZE, 12);
	return 0;
}

static int child_has_no_mapping(void *arg)
{
	CHECK_EQ(probe_read(arg), SIGSEGV);
	return 0;
}

int main(void)
{
	struct counters baseline, now;
	struct sc_kmod_region region;
	struct sc_kmod dev;
	uint8_t *p;

	read_baseline(&baseline);
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &region));
	CHECK_OK(sc_kmod_map(&region, 1));
	p = region.addr;
	read_counters(&now);
	CHECK_EQ(now.live_regions, baseline.live_regions + 1);
	CHECK_EQ(now.pinned_pages, baseline.pinned_pages + SIZE / 4096);

	/* the file goes, the mapping keeps the region */
	close(region.fd);
	region.fd = -1;
	read_counters(&now);
	CHECK_EQ(now.live_regions, baseline.live_regions + 1);
	fill_pattern(p, SIZE, 11);

	/* fork: the child's mapping is the same memory */
	expect_child_ok(run_child(child_writes, p), "child after fork");
	CHECK(check_pattern(p, SIZE, 12));

	/* a partial munmap splits the mapping; both halves hold the region */
	CHECK(munmap(p, 4096) == 0);
	read_counters(&now);
	CHECK_EQ(now.live_regions, baseline.live_regions + 1);

	CHECK(madvise(p + 4096, SIZE - 4096, MADV_DONTFORK) == 0);
	expect_child_ok(run_child(child_has_no_mapping, p + 4096), "MADV_DONTFORK");

	CHECK(munmap(p + 4096, SIZE - 4096) == 0);
	region.addr = NULL;
	expect_counters(&baseline);
	sc_kmod_close(&dev);
	return 0;
}
