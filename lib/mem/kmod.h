/*
 * The kmod memory back end: regions of /dev/shmemcomm. A thin layer over
 * the ioctls of uapi/linux/shmemcomm.h; functions return 0 or a negative
 * errno and log what went wrong, naming the value and the limit.
 */
#ifndef SHMEMCOMM_MEM_KMOD_H
#define SHMEMCOMM_MEM_KMOD_H

#include <stddef.h>
#include <stdint.h>

#include <linux/shmemcomm.h>

#include "util/log.h"

struct sc_kmod {
	int fd;			/* the device */
	struct shmemcomm_info info;
};

struct sc_kmod_region {
	int fd;			/* the region file */
	uint64_t size;
	uint64_t user_start;	/* user memory: the first page covered, else 0 */
	uint64_t handle;	/* 0 until exported */
	void *addr;		/* NULL until mapped */
	size_t mapped;
};

/* Path of the device: SHMEMCOMM_DEVICE, else SHMEMCOMM_DEVICE_PATH. */
const char *sc_kmod_device_path(void);

/*
 * 0 if the library can use a module that reports @info, else -EPROTO with
 * the reason, naming both versions, in @why.
 */
int sc_kmod_check_abi(const struct shmemcomm_info *info, char *why, size_t len);

/* Opens the device and refuses a module of another ABI major. */
int sc_kmod_open(struct sc_kmod *dev);
void sc_kmod_close(struct sc_kmod *dev);
int sc_kmod_refresh_info(struct sc_kmod *dev);

/* numa_node: SHMEMCOMM_NUMA_ANY or a node. */
int sc_kmod_create(struct sc_kmod *dev, uint64_t size, int numa_node,
		   struct sc_kmod_region *region);
/* Whether the module has every SHMEMCOMM_FEATURE_* bit of @features. */
int sc_kmod_has(const struct sc_kmod *dev, uint64_t features);
/*
 * A region over [addr, addr + size) of this process's memory (pages
 * rounded out; region->user_start and region->size say what is covered).
 * @stale_word: NULL, or a word the module sets to 1 when the region goes
 * stale. -EOPNOTSUPP, logged, from a module without user-memory regions.
 */
int sc_kmod_create_user(struct sc_kmod *dev, const void *addr, uint64_t size,
			uint32_t flags, volatile uint32_t *stale_word,
			struct sc_kmod_region *region);
/* The same, with a refusal logged at @level (callers that stage instead warn once). */
int sc_kmod_create_user_logged(struct sc_kmod *dev, const void *addr, uint64_t size,
			       uint32_t flags, volatile uint32_t *stale_word,
			       struct sc_kmod_region *region, enum sc_log_level level);
/*
 * A region over a dma-buf from any exporter (device memory); the region
 * keeps its own reference, so the caller may close @dmabuf_fd. Refusals
 * are logged. @cpu_mappable (may be NULL): whether the exporter maps it
 * for the CPU, which sc_kmod_map needs.
 */
int sc_kmod_create_dmabuf(struct sc_kmod *dev, int dmabuf_fd, uint32_t flags,
			  struct sc_kmod_region *region, int *cpu_mappable);
int sc_kmod_export(struct sc_kmod_region *region, uint32_t flags);
/* A dma-buf fd for the whole region (the caller closes it), or a negative errno. */
int sc_kmod_export_dmabuf(const struct sc_kmod_region *region);
int sc_kmod_import(struct sc_kmod *dev, uint64_t handle, uint32_t flags,
		   struct sc_kmod_region *region);
int sc_kmod_revoke(struct sc_kmod_region *region);
int sc_kmod_region_info(const struct sc_kmod_region *region,
			struct shmemcomm_region_info *info);
/* Maps the whole region shared; read-only when @writable is false. */
int sc_kmod_map(struct sc_kmod_region *region, int writable);
/* Unmaps and closes; the region lives on while others hold it. */
void sc_kmod_release(struct sc_kmod_region *region);

#endif
