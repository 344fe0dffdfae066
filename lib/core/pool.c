#include "core/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heap/heap.h"
#include "util/env.h"
#include "util/log.h"

struct sc_pool_span sc_pool_shared;

static struct {
	pthread_mutex_t lock;
	int fd;
	char *start;
	size_t size;
	size_t used;		/* in live blocks */
	size_t page;
	struct sc_heap blocks;	/* offsets in [0, size) */
	int in_job;		/* from setup to teardown */
	int npes;		/* of the job: sc_pool_shared.base's length */
	int forked;		/* a fork child's: private, no new blocks */
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

/* With the lock: the pool goes once the job is over and no block is live. */
static void release_if_idle(void)
{
	if (pool.in_job || pool.used || !pool.start)
		return;
	munmap(pool.start, pool.size);
	close(pool.fd);
	sc_heap_destroy(&pool.blocks);
	pool.fd = -1;
	/* sc_pool_owns reads these without the lock */
	__atomic_store_n(&pool.start, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&pool.size, 0, __ATOMIC_RELEASE);
	pool.forked = 0;
}

static void lock_for_fork(void)
{
	pthread_mutex_lock(&pool.lock);
}

static void unlock_after_fork(void)
{
	pthread_mutex_unlock(&pool.lock);
}

/*
 * The child's live blocks become private, copy on write, as malloc'd
 * memory is after fork: the memfd mapped MAP_PRIVATE over them. Only up to
 * the last live block, so that the child is charged for what it can reach,
 * not for the whole (sparse) pool. If that cannot be, the child must not
 * write where the parent and its peers read: it ends, as it would have
 * corrupted their data.
 */
static void privatize_in_child(void)
{
	size_t top = 0;

	pthread_mutex_init(&pool.lock, NULL);
	sc_pool_shared = (struct sc_pool_span){ NULL, 0, NULL };
	if (!pool.start || pool.forked)
		return;
	pool.forked = 1;
	for (size_t i = 0; i < pool.blocks.count; i++)
		if (!pool.blocks.blocks[i].free)
			top = pool.blocks.blocks[i].offset + pool.blocks.blocks[i].size;
	if (top && mmap(pool.start, top, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE, pool.fd, 0) == MAP_FAILED) {
		static const char why[] =
			"shmemcomm: a child of fork cannot make its copy of the buffer pool private: it ends (status 127)\n";

		if (write(2, why, sizeof(why) - 1) < 0) {
			/* nothing more to say */
		}
		_exit(127);
	}
}

static void register_fork_handlers(void)
{
	pthread_atfork(lock_for_fork, unlock_after_fork, privatize_in_child);
}

/* With the lock: this PE's pool of @size bytes, made now or kept from an earlier init. */
static int make_mine(size_t size, int rank)
{
	static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;
	char *start;
	int err;

	if (pool.start && pool.size != size) {
		sc_error("PE %d: its buffer pool of %zu bytes, still holding live blocks from an earlier init, cannot become the %zu bytes SHMEMCOMM_BUFFER_POOL asks",
			 rank, pool.size, size);
		return -EINVAL;
	}
	if (pool.start)
		return 0;
	pool.page = (size_t)sysconf(_SC_PAGESIZE);
	pool.fd = memfd_create("shmemcomm-pool", MFD_CLOEXEC);
	if (pool.fd < 0 || ftruncate(pool.fd, (off_t)size)) {
		err = -errno;
		goto fail;
	}
	start = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, pool.fd, 0);
	if (start == MAP_FAILED) {
		err = -errno;
		goto fail;
	}
	err = sc_heap_init(&pool.blocks, size);
	if (err) {
		munmap(start, size);
		goto fail;
	}
	__atomic_store_n(&pool.size, size, __ATOMIC_RELEASE);
	__atomic_store_n(&pool.start, start, __ATOMIC_RELEASE);
	pthread_once(&fork_handlers_once, register_fork_handlers);
	return 0;
fail:
	sc_error("PE %d cannot make its buffer pool of %zu bytes (SHMEMCOMM_BUFFER_POOL) on a memfd: %s",
		 rank, size, strerror(-err));
	if (pool.fd >= 0)
		close(pool.fd);
	pool.fd = -1;
	return err;
}

/* Every PE's @value alike, or an error naming the first that differs. */
static int same_everywhere(size_t value, struct sc_boot *boot)
{
	size_t *all = calloc((size_t)boot->size, sizeof(*all));
	int err = all ? sc_boot_allgather(boot, &value, sizeof(value), all) : -ENOMEM;

	for (int pe = 0; pe < boot->size && !err; pe++)
		if (all[pe] != value) {
			sc_error("PE %d asks for a buffer pool of %zu bytes and PE %d for %zu: set SHMEMCOMM_BUFFER_POOL alike on every PE",
				 pe, all[pe], boot->rank, value);
			err = -EINVAL;
		}
	free(all);
	return err;
}

/*
 * By default as big as the machine's memory on memfd (it is sparse: only
 * touched pages cost memory, and peers pay address space alone), and none
 * on kmod, where ordinary buffers are registered in place.
 */
static int pool_size(enum sc_mem_kind kind, size_t *size)
{
	long page = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_PHYS_PAGES);
	uint64_t bytes, fallback = 0;

	if (kind == SC_MEM_MEMFD && page > 0 && pages > 0)
		fallback = (uint64_t)page * (uint64_t)pages;
	if (sc_env_size("SHMEMCOMM_BUFFER_POOL", fallback, 0, SC_POOL_MAX, &bytes))
		return -EINVAL;
	*size = (size_t)((bytes + (uint64_t)page - 1) & ~((uint64_t)page - 1));
	return 0;
}

int sc_pool_setup(enum sc_mem_kind kind, struct sc_boot *boot, const struct sc_node *node)
{
	void **base;
	size_t size;
	int err;

	err = pool_size(kind, &size);
	if (!err)
		err = same_everywhere(size, boot);
	if (err || !size)
		return err;
	base = calloc((size_t)boot->size, sizeof(void *));
	if (!base)
		return -ENOMEM;	/* every PE is that short of memory, or the job stops at the exchange */
	pthread_mutex_lock(&pool.lock);
	err = make_mine(size, boot->rank);
	if (!err) {
		pool.in_job = 1;
		base[boot->rank] = pool.start;
	}
	pthread_mutex_unlock(&pool.lock);
	err = sc_memfd_share_on_node(pool.fd, err, size, boot, node, base, "buffer pool");
	pool.npes = boot->size;
	/* the peers' mappings made before a failure go at sc_pool_teardown */
	sc_pool_shared = (struct sc_pool_span){ err ? NULL : pool.start, err ? 0 : pool.size, base };
	return err;
}

void sc_pool_teardown(void)
{
	void **base = sc_pool_shared.base;

	pthread_mutex_lock(&pool.lock);
	for (int pe = 0; base && pe < pool.npes; pe++)
		if (base[pe] && base[pe] != pool.start)
			munmap(base[pe], pool.size);
	free(base);
	sc_pool_shared = (struct sc_pool_span){ NULL, 0, NULL };
	pool.in_job = 0;
	release_if_idle();
	pthread_mutex_unlock(&pool.lock);
}

void *sc_pool_alloc(size_t bytes, int *err)
{
	size_t offset, size;
	void *p = NULL;

	pthread_mutex_lock(&pool.lock);
	if (!pool.start || !pool.in_job) {
		*err = -ENODEV;
	} else if (pool.forked) {
		*err = -EPERM;
	} else {
		size = (bytes + pool.page - 1) & ~(pool.page - 1);
		*err = size >= bytes ? sc_heap_alloc(&pool.blocks, size, pool.page, &offset) : -ENOMEM;
		if (!*err) {
			pool.used += size;
			p = pool.start + offset;
		}
	}
	pthread_mutex_unlock(&pool.lock);
	return p;
}

int sc_pool_free(void *p)
{
	const char *c = p;
	size_t offset, size = 0;

	pthread_mutex_lock(&pool.lock);
	if (pool.start && c >= pool.start && c < pool.start + pool.size) {
		offset = (size_t)(c - pool.start);
		size = sc_heap_size_of(&pool.blocks, offset);
	}
	if (size) {
		sc_heap_free(&pool.blocks, offset);
		pool.used -= size;
		/* never in a child: the memfd's pages are still the parent's */
		if (size >= SC_POOL_GIVE_BACK && !pool.forked)
			fallocate(pool.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)offset,
				  (off_t)size);
		release_if_idle();
	}
	pthread_mutex_unlock(&pool.lock);
	return size ? 0 : -EINVAL;
}

int sc_pool_owns(const void *p)
{
	const char *start = __atomic_load_n(&pool.start, __ATOMIC_ACQUIRE);
	size_t size = __atomic_load_n(&pool.size, __ATOMIC_ACQUIRE);

	return start && (const char *)p >= start && (const char *)p < start + size;
}

void sc_pool_usage(size_t *size, size_t *used)
{
	pthread_mutex_lock(&pool.lock);
	*size = pool.in_job && !pool.forked ? pool.size : 0;
	*used = pool.used;
	pthread_mutex_unlock(&pool.lock);
}
