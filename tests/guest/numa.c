/* CREATE on a NUMA node puts every page on that node; an offline node is
 * refused. scripts/guest-run gives the guest two nodes. */
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest.h"

#define SIZE (4u << 20)
#define PAGES (SIZE / 4096)

static int online_nodes(void)
{
	DIR *dir = opendir("/sys/devices/system/node");
	struct dirent *e;
	int n = 0, id;

	CHECK(dir);
	while ((e = readdir(dir)))
		n += sscanf(e->d_name, "node%d", &id) == 1;
	closedir(dir);
	return n;
}

int main(void)
{
	struct counters baseline;
	struct sc_kmod_region region;
	struct sc_kmod dev;
	static void *pages[PAGES];
	static int status[PAGES];
	int nodes = online_nodes();

	if (nodes < 2)
		FAIL("the guest has %d NUMA node(s); scripts/guest-run gives it 2", nodes);
	read_baseline(&baseline);
	open_device(&dev);
	for (int node = 0; node < nodes; node++) {
		CHECK_OK(sc_kmod_create(&dev, SIZE, node, &region));
		CHECK_OK(sc_kmod_map(&region, 1));
		for (unsigned int i = 0; i < PAGES; i++)
			pages[i] = (char *)region.addr + i * 4096ul;
		/* the first fault maps every page of the mapping */
		CHECK_EQ(*(volatile char *)region.addr, 0);
		/* move_pages with no target nodes only reports where pages are */
		CHECK(syscall(SYS_move_pages, 0, PAGES, pages, NULL, status, 0) == 0);
		for (unsigned int i = 0; i < PAGES; i++)
			if (status[i] != node)
				FAIL("page %u of a region created on node %d is on node %d",
				     i, node, status[i]);
		sc_kmod_release(&region);
	}
	CHECK_ERR_LOGGED(sc_kmod_create(&dev, SIZE, nodes, &region), EINVAL, "the node online");
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	printf("numa: regions on each of %d nodes placed there\n", nodes);
	return 0;
}
