/* Three processes share a region: what one writes, the others read. The
 * importers are separate programs (exec'd), holding nothing but the handle. */
#include <inttypes.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#define SIZE (4u << 20)
#define IMPORTERS 2

/* importer: checks the owner's pattern, then writes its own in its slice */
static int importer(uint64_t handle, int index)
{
	struct sc_kmod_region region;
	size_t slice = SIZE / (IMPORTERS + 1);
	struct sc_kmod dev;
	uint8_t *base;

	open_device(&dev);
	CHECK_OK(sc_kmod_import(&dev, handle, 0, &region));
	CHECK_EQ(region.size, SIZE);
	CHECK_OK(sc_kmod_map(&region, 1));
	base = region.addr;
	CHECK(check_pattern(base, slice, 1));
	fill_pattern(base + slice * (index + 1), slice, 100 + index);
	sc_kmod_release(&region);
	sc_kmod_close(&dev);
	return 0;
}

int main(int argc, char **argv)
{
	size_t slice = SIZE / (IMPORTERS + 1);
	struct shmemcomm_region_info info;
	struct counters baseline;
	struct sc_kmod_region region;
	struct sc_kmod dev;
	char handle[32], index[8];
	uint8_t *base;

	if (argc == 4 && !strcmp(argv[1], "import"))
		return importer(strtoull(argv[2], NULL, 0), atoi(argv[3]));

	read_baseline(&baseline);
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &region));
	CHECK_OK(sc_kmod_region_info(&region, &info));
	printf("4 MiB region: %u contiguous 2 MiB chunks\n", info.nr_chunks);
	CHECK_OK(sc_kmod_map(&region, 1));
	base = region.addr;
	CHECK(check_pattern(base, SIZE, 0) == 0);
	for (size_t i = 0; i < SIZE; i++)
		if (base[i])
			FAIL("a new region is not zeroed at byte %zu", i);
	fill_pattern(base, slice, 1);
	CHECK_OK(sc_kmod_export(&region, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	snprintf(handle, sizeof(handle), "%#" PRIx64, region.handle);

	for (int i = 0; i < IMPORTERS; i++) {
		int status;
		pid_t pid = fork();

		CHECK(pid >= 0);
		if (!pid) {
			snprintf(index, sizeof(index), "%d", i);
			execl("/proc/self/exe", argv[0], "import", handle, index, (char *)NULL);
			_exit(127);
		}
		CHECK(waitpid(pid, &status, 0) == pid);
		expect_child_ok(status, "importer");
	}
	/* the importers are gone; what they wrote stays */
	for (int i = 0; i < IMPORTERS; i++)
		CHECK(check_pattern(base + slice * (i + 1), slice, 100 + i));
	CHECK(check_pattern(base, slice, 1));

	sc_kmod_release(&region);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
