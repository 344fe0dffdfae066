/* A helper for run-tests, not a test: holds one region by a single kind of
 * reference (its file, a mapping alone, or a dma-buf alone), says "held",
 * and waits to be killed. run-tests checks that rmmod is refused meanwhile. */
#include <sys/ioctl.h>
#include <unistd.h>

#include "guest.h"

int main(int argc, char **argv)
{
	struct shmemcomm_dmabuf dmabuf = { 0 };
	struct sc_kmod_region region;
	struct sc_kmod dev;

	if (argc != 2)
		FAIL("usage: hold file|mapping|dmabuf");
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, 1 << 20, SHMEMCOMM_NUMA_ANY, &region));
	if (!strcmp(argv[1], "mapping")) {
		CHECK_OK(sc_kmod_map(&region, 1));
		close(region.fd);
	} else if (!strcmp(argv[1], "dmabuf")) {
		CHECK(ioctl(region.fd, SHMEMCOMM_IOC_EXPORT_DMABUF, &dmabuf) == 0);
		close(region.fd);
	} else if (strcmp(argv[1], "file")) {
		FAIL("hold: '%s' is not file, mapping or dmabuf", argv[1]);
	}
	sc_kmod_close(&dev);
	printf("held\n");
	fflush(stdout);
	for (;;)
		pause();
}
