/* Revoke reaches every path through a dma-buf: an importer's dma-buf made
 * before the revoke (its CPU mappings get SIGBUS, new ones are refused, and
 * so are new device mappings), one asked for after it (refused); a device
 * attached dynamically is told (move_notify) and cannot map again; one
 * attached statically keeps its mapping and the pages, and shmemctl shows
 * it; the owner's dma-bufs carry on. The devices are the test importer
 * (tests/guest/importer) and vgem, a real DRM driver importing through
 * PRIME. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libdrm/drm.h>

#include "guest.h"
#include "importer/importer.h"

#define SIZE (256u << 10)
#define IMPORTER_DEV "/dev/shmemcomm-test-importer"

struct device {
	int fd;
	struct importer_state st;
};

static int export_dmabuf(const struct sc_kmod_region *region)
{
	struct shmemcomm_dmabuf args = { 0 };

	return ioctl(region->fd, SHMEMCOMM_IOC_EXPORT_DMABUF, &args) ? -errno : args.fd;
}

/* A device attached to @dmabuf (0, or the attach's negative errno). */
static int attach(struct device *d, int dmabuf, int dynamic)
{
	struct importer_attach args = { .fd = dmabuf, .dynamic = (uint32_t)dynamic };

	d->fd = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);
	CHECK(d->fd >= 0);
	return ioctl(d->fd, IMPORTER_IOC_ATTACH, &args) ? -errno : 0;
}

static void state(struct device *d, int map_again)
{
	CHECK(ioctl(d->fd, map_again ? IMPORTER_IOC_MAP : IMPORTER_IOC_STATE, &d->st) == 0);
}

/* vgem imports @dmabuf through PRIME: 0, or the negative errno */
static int vgem_import(int card, int dmabuf)
{
	struct drm_prime_handle args = { .fd = dmabuf };

	return ioctl(card, DRM_IOCTL_PRIME_FD_TO_HANDLE, &args) ? -errno : 0;
}

/* "dmabufs", "dmabuf_attachments" and "state" of region @handle, as shmemctl -j shows them */
static void region_figures(uint64_t handle, long *dmabufs, long *attachments, char *state)
{
	char line[8192], *row = shmemctl_row(handle, line, sizeof(line));

	CHECK(sscanf(strstr(row, "\"dmabufs\":"), "\"dmabufs\":%ld", dmabufs) == 1);
	CHECK(sscanf(strstr(row, "\"dmabuf_attachments\":"), "\"dmabuf_attachments\":%ld",
		     attachments) == 1);
	CHECK(sscanf(strstr(row, "\"state\":\""), "\"state\":\"%15[a-z]", state) == 1);
}

int main(void)
{
	struct device dyn, stat, own, late_stat, late_dyn;
	struct sc_kmod_region owner, imported;
	long dmabufs, attachments, vgem_attached;
	int d_imp, d_own, d_own_late, card, card2;
	struct counters baseline;
	struct sc_kmod dev;
	char row_state[16];
	uint8_t *cpu;

	read_baseline(&baseline);
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, SIZE, SHMEMCOMM_NUMA_ANY, &owner));
	CHECK_OK(sc_kmod_map(&owner, 1));
	fill_pattern(owner.addr, SIZE, 47);
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	CHECK_OK(sc_kmod_import(&dev, owner.handle, 0, &imported));

	/* before the revoke: an importer's dma-buf, mapped by the CPU and three devices */
	d_imp = export_dmabuf(&imported);
	CHECK(d_imp >= 0);
	cpu = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, d_imp, 0);
	CHECK(cpu != MAP_FAILED);
	CHECK(check_pattern(cpu, SIZE, 47));
	CHECK_OK(attach(&dyn, d_imp, 1));
	CHECK_OK(attach(&stat, d_imp, 0));
	state(&dyn, 0);
	state(&stat, 0);
	CHECK(dyn.st.mapped && stat.st.mapped);
	CHECK_EQ(dyn.st.first_word, pattern_word(47, 0));
	CHECK_EQ(stat.st.first_word, pattern_word(47, 0));
	card = vgem_open();
	if (card >= 0)
		CHECK_OK(vgem_import(card, d_imp));
	else
		printf("vgem is not loaded: the PRIME checks are left out\n");
	vgem_attached = card >= 0;
	/* and the owner's own dma-buf, with a device on it */
	d_own = export_dmabuf(&owner);
	CHECK(d_own >= 0);
	CHECK_OK(attach(&own, d_own, 1));
	region_figures(owner.handle, &dmabufs, &attachments, row_state);
	CHECK_EQ(dmabufs, 2);
	CHECK_EQ(attachments, 3 + vgem_attached);
	CHECK(!strcmp(row_state, "exported"));

	CHECK_OK(sc_kmod_revoke(&owner));

	/* the dynamic device was told, gave its mapping back, and cannot map again */
	state(&dyn, 0);
	CHECK_EQ(dyn.st.move_notifies, 1);
	CHECK_EQ(dyn.st.mapped, 0);
	state(&dyn, 1);
	CHECK_EQ(dyn.st.mapped, 0);
	CHECK_EQ(dyn.st.map_error, -EKEYREVOKED);
	/* the static one cannot be told: it keeps its mapping, and the pages */
	state(&stat, 0);
	CHECK_EQ(stat.st.move_notifies, 0);
	CHECK(stat.st.mapped);
	CHECK_EQ(stat.st.first_word, pattern_word(47, 0));
	/* the owner's device was not told */
	state(&own, 1);
	CHECK(own.st.mapped && own.st.move_notifies == 0);

	/* the CPU mapping made before: SIGBUS; a new one, a new dma-buf: refused */
	CHECK_EQ(probe_read(cpu), SIGBUS);
	CHECK(mmap(NULL, SIZE, PROT_READ, MAP_SHARED, d_imp, 0) == MAP_FAILED &&
	      errno == EKEYREVOKED);
	CHECK_EQ(export_dmabuf(&imported), -EKEYREVOKED);
	/* new devices on the dma-buf made before: no mapping */
	CHECK_EQ(attach(&late_stat, d_imp, 0), -EKEYREVOKED);
	CHECK_OK(attach(&late_dyn, d_imp, 1));
	state(&late_dyn, 1);
	CHECK(!late_dyn.st.mapped && late_dyn.st.map_error == -EKEYREVOKED);
	if (card >= 0) {
		/* a second card file: PRIME imports again rather than reusing the first */
		card2 = vgem_open();
		CHECK(card2 >= 0);
		CHECK_EQ(vgem_import(card2, d_imp), -EKEYREVOKED);
		close(card2);
	}

	/* the owner's dma-bufs carry on, old and new */
	d_own_late = export_dmabuf(&owner);
	CHECK(d_own_late >= 0);
	CHECK(check_pattern(owner.addr, SIZE, 47));
	{
		uint8_t *p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, d_own_late, 0);

		CHECK(p != MAP_FAILED);
		CHECK(check_pattern(p, SIZE, 47));
		CHECK(munmap(p, SIZE) == 0);
	}

	/* shmemctl: revoked, and the static holders still attached */
	region_figures(owner.handle, &dmabufs, &attachments, row_state);
	CHECK(!strcmp(row_state, "revoked"));
	CHECK_EQ(dmabufs, 3);
	/* dyn and late_dyn (attached, unmapped), stat, own, and vgem's */
	CHECK_EQ(attachments, 4 + vgem_attached);
	CHECK(close(dyn.fd) == 0 && close(late_dyn.fd) == 0);
	if (card >= 0)
		CHECK(close(card) == 0);
	region_figures(owner.handle, &dmabufs, &attachments, row_state);
	CHECK_EQ(attachments, 2);

	/* everything let go: the region and its pages are gone */
	CHECK(close(stat.fd) == 0 && close(own.fd) == 0 && close(late_stat.fd) == 0);
	CHECK(munmap(cpu, SIZE) == 0);
	CHECK(close(d_imp) == 0 && close(d_own) == 0 && close(d_own_late) == 0);
	sc_kmod_release(&imported);
	sc_kmod_release(&owner);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
