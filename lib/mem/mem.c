#include "mem/mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/env.h"
#include "util/log.h"

const char *sc_mem_name(enum sc_mem_kind kind)
{
	return kind == SC_MEM_KMOD ? "kmod" : "memfd";
}

int sc_transport_parse(const char *text, enum sc_mem_kind *kind, int *rdma)
{
	char words[64], *save = NULL, *word;
	int named = 0;

	*rdma = 0;
	*kind = access(sc_kmod_device_path(), F_OK) ? SC_MEM_MEMFD : SC_MEM_KMOD;
	if (!text)
		return 0;
	if (strlen(text) >= sizeof(words))
		return -EINVAL;
	strcpy(words, text);
	for (word = strtok_r(words, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
		if (!strcmp(word, "rdma")) {
			*rdma = 1;
			continue;
		}
		if (named || (strcmp(word, "kmod") && strcmp(word, "memfd")))
			return -EINVAL;
		*kind = strcmp(word, "kmod") ? SC_MEM_MEMFD : SC_MEM_KMOD;
		named = 1;
	}
	return 0;
}

int sc_transport_pick(enum sc_mem_kind *kind, int *rdma)
{
	const char *text = sc_env_string("SHMEMCOMM_TRANSPORT");

	if (sc_transport_parse(text, kind, rdma)) {
		sc_error("SHMEMCOMM_TRANSPORT=%s is not kmod, memfd or rdma, or kmod or memfd with rdma (\"kmod,rdma\")",
			 text);
		return -EINVAL;
	}
	return 0;
}

int sc_kmod_share_on_node(struct sc_kmod *dev, struct sc_kmod_region *regions, void **base,
			  int err, struct sc_boot *boot, const struct sc_node *node,
			  const char *what)
{
	uint64_t *handles = calloc((size_t)boot->size, sizeof(*handles));
	uint64_t mine = err ? 0 : regions[boot->rank].handle;

	if (!handles)
		return -ENOMEM;
	/* a PE that failed sends 0, and every PE then fails naming it */
	if (sc_boot_allgather(boot, &mine, sizeof(mine), handles) && !err)
		err = -EIO;
	for (int i = 0; i < node->local_size && !err; i++) {
		int pe = node->local_pes[i];

		if (pe == boot->rank)
			continue;
		if (!handles[pe]) {
			sc_error("PE %d cannot map PE %d's %s: PE %d could not share it", boot->rank,
				 pe, what, pe);
			err = -EIO;
			break;
		}
		err = sc_kmod_import(dev, handles[pe], 0, &regions[pe]);
		if (!err)
			err = sc_kmod_map(&regions[pe], 1);
		if (err)
			sc_error("PE %d cannot map PE %d's %s (handle %#" PRIx64 "): %s",
				 boot->rank, pe, what, handles[pe], strerror(-err));
		else
			base[pe] = regions[pe].addr;
	}
	free(handles);
	return err;
}

/*
 * @fd's first @size bytes, mapped so that @aligned_at bytes in is a
 * multiple of SC_MEM_ALIGN: an address-space reservation of SC_MEM_ALIGN
 * more, the mapping fixed inside it, the rest given back.
 */
static void *map_aligned(int fd, size_t size, int prot, size_t aligned_at)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), span = size + SC_MEM_ALIGN;
	char *reserved, *at, *end;
	uintptr_t heap;
	void *addr;

	reserved = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (reserved == MAP_FAILED)
		return MAP_FAILED;
	heap = ((uintptr_t)reserved + aligned_at + SC_MEM_ALIGN - 1) & ~(uintptr_t)(SC_MEM_ALIGN - 1);
	at = (char *)(heap - aligned_at);
	addr = mmap(at, size, prot, MAP_SHARED | MAP_FIXED, fd, 0);
	if (addr == MAP_FAILED) {
		int err = errno;

		munmap(reserved, span);
		errno = err;
		return MAP_FAILED;
	}
	end = at + (size + page - 1) / page * page;
	if (at > reserved)
		munmap(reserved, (size_t)(at - reserved));
	if (end < reserved + span)
		munmap(end, (size_t)(reserved + span - end));
	return addr;
}

int sc_memfd_map_node(const int *fds, size_t size, size_t aligned_at, struct sc_boot *boot,
		      const struct sc_node *node, int skip_me, void **base, const char *what)
{
	for (int i = 0; i < node->local_size; i++) {
		int pe = node->local_pes[i];
		void *addr;

		if (skip_me && pe == boot->rank)
			continue;
		addr = pe == boot->rank && aligned_at ?
		       map_aligned(fds[i], size, PROT_READ | PROT_WRITE, aligned_at) :
		       mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
		if (addr == MAP_FAILED) {
			int err = -errno;

			sc_error("memfd: PE %d cannot map PE %d's %s: %s", boot->rank, pe, what,
				 strerror(-err));
			return err;
		}
		base[pe] = addr;
	}
	return 0;
}

int sc_memfd_share_on_node(int fd, int err, size_t size, struct sc_boot *boot,
			   const struct sc_node *node, void **base, const char *what)
{
	int *fds = calloc((size_t)node->local_size, sizeof(int));
	int *ready = calloc((size_t)boot->size, sizeof(int));
	int ok = !err && fds && ready;

	for (int i = 0; fds && i < node->local_size; i++)
		fds[i] = -1;
	/*
	 * Everyone is ready, or everyone stops; and once all are here, the
	 * exchange before, which used the same socket names, is over everywhere.
	 */
	if (!ready || sc_boot_allgather(boot, &ok, sizeof(ok), ready))
		err = err ? err : -EIO;
	for (int pe = 0; pe < boot->size && !err; pe++)
		if (!ready[pe]) {
			sc_error("PE %d cannot map PE %d's %s: PE %d could not share it", boot->rank,
				 pe, what, pe);
			err = -EIO;
		}
	if (!err)
		err = sc_memfd_exchange(fd, boot, node, fds);
	if (!err)
		err = sc_memfd_map_node(fds, size, 0, boot, node, 1, base, what);
	/* fds[] holds this PE's own fd too, which stays the caller's */
	for (int i = 0; fds && i < node->local_size; i++)
		if (fds[i] >= 0 && fds[i] != fd)
			close(fds[i]);
	free(fds);
	free(ready);
	return err;
}

/* This PE's region: the module's own pages, or a heap provider's device memory */
static int create_segment(struct sc_mem *mem, int me, struct sc_kmod_region *mine)
{
	const shmemx_heap_provider_t *provider = &mem->provider;
	int fd, mappable, err;

	if (!provider->alloc_dmabuf)
		return sc_kmod_create(&mem->dev, mem->size, SHMEMCOMM_NUMA_ANY, mine);
	fd = provider->alloc_dmabuf(provider->ctx, me, mem->size);
	if (fd < 0) {
		err = fd == -1 ? -EIO : fd;
		sc_error("PE %d: the heap provider %s gave no dma-buf of %zu bytes: %s", me,
			 provider->name, mem->size, strerror(-err));
		return err;
	}
	err = sc_kmod_create_dmabuf(&mem->dev, fd, 0, mine, &mappable);
	close(fd);
	if (err)
		return err;
	if (mine->size < mem->size) {
		sc_error("PE %d: the heap provider %s gave a dma-buf of %" PRIu64 " bytes, where the segment needs %zu",
			 me, provider->name, mine->size, mem->size);
		return -EINVAL;
	}
	if (!mappable) {
		sc_error("PE %d: the heap provider %s gave memory that its exporter cannot map for the CPU; the PEs of a node reach each other's heaps by loads and stores, so it cannot back the heap",
			 me, provider->name);
		return -EOPNOTSUPP;
	}
	sc_info("PE %d: the heap in device memory from the provider %s", me, provider->name);
	return 0;
}

static int kmod_setup(struct sc_mem *mem, struct sc_boot *boot, const struct sc_node *node)
{
	struct sc_kmod_region *mine;
	int err;

	mem->regions = calloc((size_t)mem->npes, sizeof(*mem->regions));
	if (!mem->regions)
		return -ENOMEM;
	for (int pe = 0; pe < mem->npes; pe++)
		mem->regions[pe].fd = -1;
	mine = &mem->regions[boot->rank];

	/* every PE runs the same steps; a failure anywhere must not leave others waiting */
	err = sc_kmod_open(&mem->dev);
	if (!err)
		err = create_segment(mem, boot->rank, mine);
	if (!err) {
		void *addr = map_aligned(mine->fd, mine->size, PROT_READ | PROT_WRITE,
					 mem->aligned_at);

		if (addr == MAP_FAILED) {
			err = -errno;
		} else {
			mine->addr = addr;
			mine->mapped = mine->size;
		}
	}
	if (!err)
		err = sc_kmod_export(mine, SHMEMCOMM_EXPORT_SCOPE_OWNER);
	if (!err)
		sc_info("PE %d (pid %d): segment in region %#" PRIx64 " of %" PRIu64 " bytes",
			boot->rank, (int)getpid(), mine->handle, mine->size);
	mem->base[boot->rank] = mine->addr;
	return sc_kmod_share_on_node(&mem->dev, mem->regions, mem->base, err, boot, node, "heap");
}

static int memfd_setup(struct sc_mem *mem, struct sc_boot *boot, const struct sc_node *node)
{
	int *fds = calloc((size_t)node->local_size, sizeof(int));
	int fd, err = 0;

	if (!fds)
		return -ENOMEM;
	fd = memfd_create("shmemcomm-heap", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)mem->size)) {
		err = -errno;
		sc_error("memfd: cannot make a %zu-byte heap: %s", mem->size, strerror(-err));
		if (fd >= 0)
			close(fd);
		free(fds);
		return err;
	}
	err = sc_memfd_exchange(fd, boot, node, fds);
	if (!err)
		err = sc_memfd_map_node(fds, mem->size, mem->aligned_at, boot, node, 0, mem->base,
					"heap");
	for (int i = 0; i < node->local_size; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return err;
}

static int share_node_page(struct sc_mem *mem, struct sc_boot *boot, const struct sc_node *node)
{
	int *fds = calloc((size_t)node->local_size, sizeof(int));
	int fd = memfd_create("shmemcomm-node", MFD_CLOEXEC), err = 0;
	void *page;

	if (!fds || fd < 0 || ftruncate(fd, SC_NODE_PAGE)) {
		err = fds ? -errno : -ENOMEM;
		sc_error("memfd: cannot make the node's shared page: %s", strerror(-err));
		if (fd >= 0)
			close(fd);
		free(fds);
		return err;
	}
	/* every PE offers one, so that the exchange is the heap's; the first PE's is kept */
	err = sc_memfd_exchange(fd, boot, node, fds);
	if (!err) {
		page = mmap(NULL, SC_NODE_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
		if (page == MAP_FAILED) {
			err = -errno;
			sc_error("memfd: cannot map the node's shared page: %s", strerror(-err));
		} else {
			mem->node_page = page;
		}
	}
	for (int i = 0; i < node->local_size; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return err;
}

#define REGCACHE_ENTRIES 256
#define REGCACHE_BYTES (4ull << 30)

/* Whether this process has CAP_IPC_LOCK, which the module's RLIMIT_MEMLOCK charge spares. */
static int can_lock_memory(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *status = fopen("/proc/self/status", "r");

	while (status && fgets(line, sizeof(line), status))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	if (status)
		fclose(status);
	return (caps >> 14) & 1;	/* CAP_IPC_LOCK */
}

/*
 * The registration caches' limits. By default at most 4 GiB pinned, or
 * half of a finite RLIMIT_MEMLOCK that applies (the heap is charged to it
 * too).
 */
static int regcache_limits(struct sc_mem *mem)
{
	uint64_t bytes, fallback = REGCACHE_BYTES;
	struct rlimit memlock;
	long entries;

	if (!getrlimit(RLIMIT_MEMLOCK, &memlock) && memlock.rlim_cur != RLIM_INFINITY &&
	    memlock.rlim_cur / 2 < fallback && !can_lock_memory())
		fallback = memlock.rlim_cur / 2 ? memlock.rlim_cur / 2 : 1;
	if (sc_env_long("SHMEMCOMM_REGCACHE_ENTRIES", REGCACHE_ENTRIES, 0,
			SC_REGCACHE_MAX_ENTRIES, &entries) ||
	    sc_env_size("SHMEMCOMM_REGCACHE_BYTES", fallback, 1, UINT64_MAX, &bytes))
		return -EINVAL;
	mem->regcache_entries = (unsigned int)entries;
	mem->regcache_bytes = bytes;
	return 0;
}

/* kmod: this PE's cache of registered buffers, where the module has user memory. */
static int regcache_setup(struct sc_mem *mem)
{
	if (mem->kind != SC_MEM_KMOD || !mem->regcache_entries)
		return 0;
	if (!sc_kmod_has(&mem->dev, SHMEMCOMM_FEATURE_USER_MEMORY)) {
		sc_info("collectives stage their buffers off the heap: %s (ABI %u.%u) has no user-memory regions",
			sc_kmod_device_path(), mem->dev.info.abi_major, mem->dev.info.abi_minor);
		return 0;
	}
	mem->imports = calloc((size_t)mem->npes, sizeof(*mem->imports));
	if (!mem->imports)
		return -ENOMEM;
	return sc_regcache_init(&mem->registered, &mem->dev, mem->regcache_entries,
				mem->regcache_bytes);
}

struct sc_regcache *sc_mem_imports_of(struct sc_mem *mem, int pe)
{
	struct sc_regcache *c = &mem->imports[pe];

	if (!c->entries && sc_regcache_init_imports(c, &mem->dev, mem->regcache_entries,
						    mem->regcache_bytes)) {
		sc_error("cannot make the cache of PE %d's registered buffers: out of memory", pe);
		return NULL;
	}
	return c;
}

int sc_mem_setup(struct sc_mem *mem, enum sc_mem_kind kind, size_t size, size_t aligned_at,
		 const shmemx_heap_provider_t *provider, struct sc_boot *boot,
		 const struct sc_node *node)
{
	long globals;
	int err;

	memset(mem, 0, sizeof(*mem));
	if (sc_env_long("SHMEMCOMM_GLOBALS", 1, 0, 1, &globals) || regcache_limits(mem))
		return -EINVAL;
	mem->globals_off = !globals;
	mem->kind = kind;
	mem->size = size;
	mem->aligned_at = aligned_at;
	mem->npes = boot->size;
	mem->dev.fd = -1;
	if (provider)
		mem->provider = *provider;
	mem->base = calloc((size_t)boot->size, sizeof(void *));
	if (!mem->base)
		return -ENOMEM;
	err = kind == SC_MEM_KMOD ? kmod_setup(mem, boot, node) : memfd_setup(mem, boot, node);
	if (!err)
		err = share_node_page(mem, boot, node);
	if (!err && !mem->globals_off)
		err = sc_globals_setup(&mem->globals, kind == SC_MEM_KMOD ? &mem->dev : NULL,
				       boot, node);
	if (!err)
		err = regcache_setup(mem);
	if (err)
		sc_mem_teardown(mem);
	return err;
}

void sc_mem_teardown(struct sc_mem *mem)
{
	if (mem->imports)
		for (int pe = 0; pe < mem->npes; pe++)
			sc_regcache_destroy(&mem->imports[pe]);
	free(mem->imports);
	sc_regcache_destroy(&mem->registered);
	sc_globals_teardown(&mem->globals, mem->npes);
	if (mem->node_page)
		munmap(mem->node_page, SC_NODE_PAGE);
	if (mem->regions) {
		for (int pe = 0; pe < mem->npes; pe++)
			sc_kmod_release(&mem->regions[pe]);
		free(mem->regions);
	} else if (mem->base) {
		for (int pe = 0; pe < mem->npes; pe++)
			if (mem->base[pe])
				munmap(mem->base[pe], mem->size);
	}
	sc_kmod_close(&mem->dev);
	free(mem->base);
	memset(mem, 0, sizeof(*mem));
	mem->dev.fd = -1;
}

int sc_mem_dmabuf(const struct sc_mem *mem, int me)
{
	if (mem->kind != SC_MEM_KMOD)
		return -EOPNOTSUPP;
	return sc_kmod_export_dmabuf(&mem->regions[me]);
}
