/*
 * vgem, the stand-in for a GPU driver: its card, and its dumb buffers
 * exported with PRIME as a GPU runtime hands out device memory. For the
 * guest tests (tests/guest/guest.c) and the vgem heap provider
 * (tests/guest/vgem_provider.c).
 */
#ifndef SHMEMCOMM_TESTS_VGEM_H
#define SHMEMCOMM_TESTS_VGEM_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <libdrm/drm.h>
#include <libdrm/drm_mode.h>

/* vgem's card, or -1 when vgem is not loaded */
static inline int vgem_card(void)
{
	char name[16] = "";
	struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };
	int fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, DRM_IOCTL_VERSION, &v) || strcmp(name, "vgem")) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A dumb buffer of @size bytes (rounded up to 4 KiB rows) exported with
 * PRIME: its dma-buf fd, read-write or read-only, or the negative errno.
 */
static inline int vgem_export_dumb(int card, size_t size, int writable)
{
	struct drm_mode_create_dumb dumb = { .width = 1024, .bpp = 32 };
	struct drm_prime_handle prime = { .flags = DRM_CLOEXEC | (writable ? DRM_RDWR : 0) };
	struct drm_gem_close gem_close = { 0 };
	int err = 0;

	/* vgem's size is the pitch (4 KiB here) times the height */
	dumb.height = (uint32_t)((size + 4095) / 4096);
	if (ioctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &dumb))
		return -errno;
	prime.handle = dumb.handle;
	if (ioctl(card, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime))
		err = -errno;
	/* the dma-buf keeps the object: the handle is not needed */
	gem_close.handle = dumb.handle;
	ioctl(card, DRM_IOCTL_GEM_CLOSE, &gem_close);
	return err ? err : prime.fd;
}

#endif
