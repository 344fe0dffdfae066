#include "mem/globals.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem/mem.h"
#include "util/log.h"

struct data_range {
	uintptr_t lo, hi;
};

/*
 * The program is the first object dl_iterate_phdr reports. Its data and bss
 * are its last writable PT_LOAD, less the part that RELRO makes read-only
 * after relocation (which ends on a page boundary).
 */
static int find_program_data(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct data_range *r = arg;
	uintptr_t relro_lo = 0, relro_hi = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz) {
			r->lo = lo;
			r->hi = lo + ph->p_memsz;
		} else if (ph->p_type == PT_GNU_RELRO) {
			relro_lo = lo;
			relro_hi = lo + ph->p_memsz;
		}
	}
	if (relro_lo < r->hi && relro_hi > r->lo)
		r->lo = relro_hi;
	return 1;
}

void sc_globals_range(char **start, size_t *size)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct data_range r = { 0, 0 };

	dl_iterate_phdr(find_program_data, &r);
	r.lo &= ~(page - 1);
	r.hi = (r.hi + page - 1) & ~(page - 1);
	*start = (char *)r.lo;
	*size = r.hi > r.lo ? r.hi - r.lo : 0;
}

/* the range, for the fork handlers (set once, before any fork can see it) */
static char *moved_start;
static size_t moved_size;

/*
 * What the globals held as fork() began. A child's copy comes from here,
 * not from the memfd, which the parent goes on writing as soon as fork
 * returns there: Python keeps its runtime in the program's globals, and
 * its after-fork unlocks in the parent raced the child's copy ("PyMutex_
 * Unlock: unlocking mutex that is not locked", and a dead child). The
 * lock keeps two threads' forks from sharing the snapshot.
 */
static char *at_fork;
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Puts @copy, private anonymous memory holding [start, start + size)'s
 * bytes, in the range's place. mremap swaps the mappings in one step under
 * the process's mm lock, so another thread reads either the shared pages or
 * the copy, never a page in between: a torch process reads the program's
 * data (the interpreter's state, its lazily bound PLT slots) from threads of
 * its own while the backend finalizes, and mapping zeros first and copying
 * into them made one of those threads call address 0.
 */
static int swap_in_copy(char *start, size_t size, void *copy)
{
	if (mremap(copy, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, start) == MAP_FAILED)
		return -errno;
	return 0;
}

/*
 * Puts the range back on private memory with its present bytes. A write
 * another thread makes between the copy and the swap is lost, as on the
 * way in (move_onto_memfd); this thread writes no global in between.
 */
static int privatize(char *start, size_t size)
{
	void *copy = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int err;

	if (copy == MAP_FAILED)
		return -errno;
	memcpy(copy, start, size);
	err = swap_in_copy(start, size, copy);
	if (err)
		munmap(copy, size);
	return err;
}

static void snapshot_before_fork(void)
{
	pthread_mutex_lock(&fork_lock);
	if (moved_size && at_fork)
		memcpy(at_fork, moved_start, moved_size);
}

static void unlock_in_parent(void)
{
	pthread_mutex_unlock(&fork_lock);
}

/* A child of fork gets its own globals, as without the library: as they were at the fork. */
static void privatize_in_child(void)
{
	size_t size = moved_size;

	pthread_mutex_init(&fork_lock, NULL);
	if (!size)
		return;
	/* the snapshot is the child's own copy-on-write memory: it becomes the range */
	if (swap_in_copy(moved_start, size, at_fork))
		_exit(127);
	moved_size = 0;
	at_fork = NULL;
}

static void register_fork_handler(void)
{
	pthread_atfork(snapshot_before_fork, unlock_in_parent, privatize_in_child);
}

/*
 * Moves the data onto a new memfd: written there from where it is, then
 * the memfd mapped over it. Between the two this thread writes no global
 * (errno is thread-local); other threads must not write any (init runs
 * before the program's threads do their work, as the standard expects).
 */
static int move_onto_memfd(char *start, size_t size, int *fd_out)
{
	int fd = memfd_create("shmemcomm-globals", MFD_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) || pwrite(fd, start, size, 0) != (ssize_t)size ||
	    mmap(start, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		err = errno ? -errno : -EIO;
		close(fd);
		return err;
	}
	*fd_out = fd;
	return 0;
}

static int memfd_globals(struct sc_globals *g, struct sc_boot *boot, const struct sc_node *node)
{
	static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
	int fd = -1, err;

	err = move_onto_memfd(g->start, g->size, &fd);
	if (err)
		sc_error("PE %d cannot move its globals (%p, %zu bytes) onto a memfd: %s",
			 boot->rank, (void *)g->start, g->size, strerror(-err));
	if (!err) {
		/* address space only, until the first fork writes it */
		at_fork = mmap(NULL, g->size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (at_fork == MAP_FAILED) {
			err = -errno;
			at_fork = NULL;
			sc_error("PE %d cannot reserve %zu bytes for its globals' copy at fork: %s",
				 boot->rank, g->size, strerror(-err));
		}
	}
	moved_start = g->start;
	moved_size = err ? 0 : g->size;
	if (!err)
		pthread_once(&fork_handler_once, register_fork_handler);
	err = sc_memfd_share_on_node(fd, err, g->size, boot, node, g->base, "globals");
	if (fd >= 0)
		close(fd);
	return err;
}

static int kmod_globals(struct sc_globals *g, struct sc_kmod *dev, struct sc_boot *boot,
			const struct sc_node *node)
{
	struct sc_kmod_region *mine = &g->regions[boot->rank];
	int err;

	err = sc_kmod_create_user(dev, g->start, g->size, 0, &g->stale, mine);
	if (!err)
		err = sc_kmod_export(mine, SHMEMCOMM_EXPORT_SCOPE_OWNER);
	if (err)
		sc_error("PE %d cannot make its globals (%p, %zu bytes) a region: %s",
			 boot->rank, (void *)g->start, g->size, strerror(-err));
	return sc_kmod_share_on_node(dev, g->regions, g->base, err, boot, node, "globals");
}

int sc_globals_setup(struct sc_globals *g, struct sc_kmod *dev, struct sc_boot *boot,
		     const struct sc_node *node)
{
	size_t *sizes;
	int err = 0;

	memset(g, 0, sizeof(*g));
	sc_globals_range(&g->start, &g->size);
	g->base = calloc((size_t)boot->size, sizeof(void *));
	sizes = calloc((size_t)boot->size, sizeof(size_t));
	if (dev)
		g->regions = calloc((size_t)boot->size, sizeof(*g->regions));
	if (!g->base || !sizes || (dev && !g->regions)) {
		free(sizes);
		return -ENOMEM;
	}
	for (int pe = 0; dev && pe < boot->size; pe++)
		g->regions[pe].fd = -1;
	g->base[boot->rank] = g->start;

	/* every PE runs the same program, or no PE's globals are symmetric */
	err = sc_boot_allgather(boot, &g->size, sizeof(g->size), sizes);
	for (int pe = 0; pe < boot->size && !err; pe++)
		if (sizes[pe] != g->size) {
			sc_error("PE %d's program has %zu bytes of data and bss, PE %d's %zu: globals are symmetric only when every PE runs the same program",
				 pe, sizes[pe], boot->rank, g->size);
			err = -EINVAL;
		}
	free(sizes);
	if (!err && g->size)
		err = dev ? kmod_globals(g, dev, boot, node) : memfd_globals(g, boot, node);
	if (!err)
		sc_debug("PE %d: globals %p, %zu bytes, symmetric on this node (%s)", boot->rank,
			 (void *)g->start, g->size, dev ? "a user-memory region" : "moved onto a memfd");
	return err;
}

void sc_globals_teardown(struct sc_globals *g, int npes)
{
	if (g->regions) {
		for (int pe = 0; pe < npes; pe++)
			sc_kmod_release(&g->regions[pe]);
		free(g->regions);
	} else if (g->base) {
		for (int pe = 0; pe < npes; pe++)
			if (g->base[pe] && g->base[pe] != g->start)
				munmap(g->base[pe], g->size);
		/* the program carries on with its data where it was, private */
		pthread_mutex_lock(&fork_lock);
		if (moved_size && !privatize(moved_start, moved_size)) {
			if (at_fork)
				munmap(at_fork, moved_size);
			at_fork = NULL;
			moved_size = 0;
		}
		pthread_mutex_unlock(&fork_lock);
	}
	free(g->base);
	memset(g, 0, sizeof(*g));
}
