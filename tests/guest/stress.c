/* Hostile concurrency, for STRESS_SECONDS (default 60): owner processes
 * create regions (driver pages, or user memory over their own buffers),
 * export them, write them and make dma-bufs while a sibling thread reads and
 * writes too, then revoke, unmap a user-memory buffer under its importers
 * (the region goes stale), or simply close; importer
 * processes import, map, read and check every word, and unmap, while a
 * sibling thread faults the same mapping at random, map the region's
 * dma-bufs, and fork children that touch the mapping; and this process
 * SIGKILLs a worker every so often and starts another. Fails on a wrong
 * word, a SIGBUS that no revoke or stale region explains, any other signal, a worker that
 * ends otherwise, or counters not back at their start (run-tests then
 * checks the kernel log and rmmod). Prints what it did. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define SLOTS 16
#define OWNERS 2
#define IMPORTERS 3
#define WORKERS (OWNERS + IMPORTERS)
#define PAGE 4096u

/* Regions on offer: an owner puts its handle in a slot, importers take it. */
struct board {
	_Atomic int stop;
	_Atomic uint32_t next_seed;
	_Atomic uint64_t handle[SLOTS];
	_Atomic uint64_t created, user_created, revoked, made_stale, dmabufs, imports, import_refused;
	_Atomic uint64_t maps, map_refused;
	_Atomic uint64_t words, sibling_reads, sigbus_after_revoke, forks;
};

static struct board *board;
static struct sc_kmod dev;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint32_t rnd(uint32_t *state, uint32_t below)
{
	return xorshift32(state) % below;
}

/*
 * Word i of a region: its seed, then a check of (seed, i) in the high half
 * of the low word, then the generation the owner last wrote. A word from
 * another region, another offset, or torn, fails the check; the owner may
 * rewrite any word with a new generation at any time.
 */
static uint64_t word_of(uint32_t seed, size_t i, uint16_t gen)
{
	uint32_t check = seed ^ (uint32_t)(i * 2654435761u);

	check ^= check >> 13;
	check *= 2246822519u;
	return (uint64_t)seed << 32 | (check & 0xffff0000u) | gen;
}

static void write_words(volatile uint64_t *w, size_t from, size_t to, uint32_t seed, uint16_t gen)
{
	for (size_t i = from; i < to; i++)
		w[i] = word_of(seed, i, gen);
}

/* Checks words [from, to) of a mapping: the seed is word 0's. */
static void check_words(const volatile uint64_t *w, size_t from, size_t to)
{
	uint32_t seed = (uint32_t)(w[0] >> 32);

	if (!seed)
		FAIL("word 0 is %#llx: no seed", (unsigned long long)w[0]);
	for (size_t i = from; i < to; i++) {
		uint64_t v = w[i];

		if ((v & ~0xffffull) != (word_of(seed, i, 0) & ~0xffffull))
			FAIL("word %zu of region seed %u is %#llx, wanted %#llx with any generation",
			     i, seed, (unsigned long long)v,
			     (unsigned long long)word_of(seed, i, 0));
	}
	atomic_fetch_add(&board->words, to - from);
}

/* SIGBUS jumps back to the access that raised it, in whichever thread. */
static _Thread_local sigjmp_buf *bus_jump;

static void on_sigbus(int sig)
{
	(void)sig;
	if (!bus_jump)
		abort();
	siglongjmp(*bus_jump, 1);
}

/* A SIGBUS on an importer's mapping is right only once the region is revoked or stale. */
static void sigbus_seen(int region_fd)
{
	struct shmemcomm_region_info info = { 0 };

	CHECK(ioctl(region_fd, SHMEMCOMM_IOC_REGION_INFO, &info) == 0);
	if (!(info.state & (SHMEMCOMM_STATE_REVOKED | SHMEMCOMM_STATE_STALE)))
		FAIL("SIGBUS on a mapping of a region that is neither revoked nor stale");
	atomic_fetch_add(&board->sigbus_after_revoke, 1);
}

/* Reads and checks pages at random; 0, or 1 after a SIGBUS. */
static int touch(const volatile uint64_t *w, size_t size, uint32_t *rs, int pages)
{
	sigjmp_buf jump;

	if (sigsetjmp(jump, 1)) {
		bus_jump = NULL;
		return 1;
	}
	bus_jump = &jump;
	for (int k = 0; k < pages; k++) {
		size_t page = rnd(rs, (uint32_t)(size / PAGE)), words = PAGE / 8;

		check_words(w, page * words, page * words + words);
	}
	bus_jump = NULL;
	return 0;
}

/* Reads and checks every word; 0, or 1 after a SIGBUS. */
static int touch_all(const volatile uint64_t *w, size_t size)
{
	sigjmp_buf jump;

	if (sigsetjmp(jump, 1)) {
		bus_jump = NULL;
		return 1;
	}
	bus_jump = &jump;
	check_words(w, 0, size / 8);
	bus_jump = NULL;
	return 0;
}

/* ---- owners ---- */

struct owner_region {
	struct sc_kmod_region r;
	uint8_t *buf;	/* the mapping, or the user memory, the owner writes */
	uint32_t seed;
	_Atomic int live;
	_Atomic uint16_t gen;
};

/* The owner's sibling: reads and rewrites pages at random, also after a revoke. */
static void *owner_sibling(void *arg)
{
	struct owner_region *o = arg;
	uint32_t rs = o->seed * 7u + 1;

	while (!atomic_load(&board->stop) && atomic_load(&o->live)) {
		size_t words = o->r.size / 8, i = rnd(&rs, (uint32_t)words);
		volatile uint64_t *w = (volatile uint64_t *)o->buf;

		/* the owner keeps access after a revoke: no SIGBUS here */
		if (touch(w, o->r.size, &rs, 1))
			FAIL("the owner got SIGBUS on its own region");
		w[i] = word_of(o->seed, i, atomic_load(&o->gen));
	}
	return NULL;
}

static void owner_round(uint32_t *rs)
{
	static const uint64_t sizes[] = { 64u << 10, 256u << 10, 1u << 20 };
	struct owner_region o = { .live = 1 };
	uint64_t handle, expected, size = sizes[rnd(rs, 3)];
	int slot, dmabuf, user_memory = (int)rnd(rs, 2);
	uint8_t *buf = NULL;
	pthread_t sibling;

	if (user_memory) {
		/* the owner's own buffer; o.r.addr stays NULL, so release unmaps nothing */
		buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		CHECK(buf != MAP_FAILED);
		if (sc_kmod_create_user(&dev, buf, size, 0, NULL, &o.r))
			FAIL("create_user failed");
		atomic_fetch_add(&board->user_created, 1);
	} else {
		if (sc_kmod_create(&dev, size, SHMEMCOMM_NUMA_ANY, &o.r))
			FAIL("create failed");
		CHECK_OK(sc_kmod_map(&o.r, 1));
		buf = o.r.addr;
	}
	o.buf = buf;
	o.seed = atomic_fetch_add(&board->next_seed, 1);
	write_words((volatile uint64_t *)buf, 0, o.r.size / 8, o.seed, 0);
	atomic_fetch_add(&board->created, 1);
	CHECK_OK(sc_kmod_export(&o.r, SHMEMCOMM_EXPORT_SCOPE_ANY));
	handle = o.r.handle;
	slot = (int)rnd(rs, SLOTS);
	atomic_store(&board->handle[slot], handle);
	CHECK(pthread_create(&sibling, NULL, owner_sibling, &o) == 0);

	for (int k = 0; k < 20 && !atomic_load(&board->stop); k++) {
		uint16_t gen = (uint16_t)(atomic_fetch_add(&o.gen, 1) + 1);
		size_t page = rnd(rs, (uint32_t)(o.r.size / PAGE)), words = PAGE / 8;

		write_words((volatile uint64_t *)buf, page * words, page * words + words, o.seed,
			    gen);
		if (rnd(rs, 4) == 0) {
			dmabuf = sc_kmod_export_dmabuf(&o.r);
			CHECK(dmabuf >= 0);
			atomic_fetch_add(&board->dmabufs, 1);
			close(dmabuf);
		}
		usleep(rnd(rs, 2000));
	}
	if (rnd(rs, 2)) {
		CHECK_OK(sc_kmod_revoke(&o.r));
		atomic_fetch_add(&board->revoked, 1);
		usleep(rnd(rs, 2000));	/* the sibling faults the pages back in */
	}
	atomic_store(&o.live, 0);
	CHECK(pthread_join(sibling, NULL) == 0);
	if (user_memory && rnd(rs, 2)) {
		/* under the importers, while the handle is still on offer */
		CHECK(munmap(buf, size) == 0);
		buf = NULL;
		atomic_fetch_add(&board->made_stale, 1);
		usleep(rnd(rs, 2000));
	}
	expected = handle;
	atomic_compare_exchange_strong(&board->handle[slot], &expected, 0);
	sc_kmod_release(&o.r);
	if (user_memory && buf)
		CHECK(munmap(buf, size) == 0);
}

/* ---- importers ---- */

/* The mapping both of an importer's threads use; @lock keeps munmap apart from the sibling. */
struct importer {
	pthread_rwlock_t lock;
	const volatile uint64_t *map;
	size_t size;
	int fd;
};

static void *importer_sibling(void *arg)
{
	struct importer *imp = arg;
	uint32_t rs = (uint32_t)getpid() * 13u + 5;

	while (!atomic_load(&board->stop)) {
		CHECK(pthread_rwlock_rdlock(&imp->lock) == 0);
		if (imp->map) {
			atomic_fetch_add(&board->sibling_reads, 1);
			if (touch(imp->map, imp->size, &rs, 1))
				sigbus_seen(imp->fd);
		}
		CHECK(pthread_rwlock_unlock(&imp->lock) == 0);
		usleep(100);
	}
	return NULL;
}

static void fork_and_touch(struct importer *imp, uint32_t *rs)
{
	int status;
	pid_t pid;

	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		/* the mapping came along; it is revoked or not like the parent's */
		if (touch(imp->map, imp->size, rs, 2))
			sigbus_seen(imp->fd);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	expect_child_ok(status, "forked importer child");
	atomic_fetch_add(&board->forks, 1);
}

static void importer_round(struct importer *imp, uint32_t *rs)
{
	struct shmemcomm_import args = { 0 };
	struct shmemcomm_dmabuf dargs = { 0 };
	void *map;

	args.handle = atomic_load(&board->handle[rnd(rs, SLOTS)]);
	if (!args.handle) {
		usleep(500);
		return;
	}
	if (ioctl(dev.fd, SHMEMCOMM_IOC_IMPORT, &args)) {
		/* the owner revoked it, unmapped its user memory, or closed it */
		if (errno != EKEYREVOKED && errno != ESTALE && errno != ENOENT)
			FAIL("import failed: %s", strerror(errno));
		atomic_fetch_add(&board->import_refused, 1);
		return;
	}
	atomic_fetch_add(&board->imports, 1);
	map = mmap(NULL, args.size, PROT_READ, MAP_SHARED, args.fd, 0);
	if (map == MAP_FAILED) {
		if (errno != EKEYREVOKED && errno != ESTALE)
			FAIL("mmap of an import failed: %s", strerror(errno));
		atomic_fetch_add(&board->map_refused, 1);
		close(args.fd);
		return;
	}
	atomic_fetch_add(&board->maps, 1);
	CHECK(pthread_rwlock_wrlock(&imp->lock) == 0);
	imp->map = map;
	imp->size = args.size;
	imp->fd = args.fd;
	CHECK(pthread_rwlock_unlock(&imp->lock) == 0);

	/* every word once, then pages at random while the sibling faults too */
	if (touch_all(map, args.size))
		sigbus_seen(args.fd);
	for (int k = 0; k < 10 && !atomic_load(&board->stop); k++) {
		if (touch(map, args.size, rs, 4)) {
			sigbus_seen(args.fd);
			break;
		}
		usleep(rnd(rs, 1000));
	}
	if (rnd(rs, 4) == 0)
		fork_and_touch(imp, rs);
	/* the import's dma-buf, mapped and read, unless revoked or stale by now */
	if (rnd(rs, 3) == 0) {
		if (ioctl(args.fd, SHMEMCOMM_IOC_EXPORT_DMABUF, &dargs) == 0) {
			void *via = mmap(NULL, args.size, PROT_READ, MAP_SHARED, dargs.fd, 0);

			atomic_fetch_add(&board->dmabufs, 1);
			if (via != MAP_FAILED) {
				if (touch(via, args.size, rs, 2))
					sigbus_seen(args.fd);
				CHECK(munmap(via, args.size) == 0);
			} else if (errno != EKEYREVOKED && errno != ESTALE) {
				FAIL("mmap of an import's dma-buf failed: %s", strerror(errno));
			}
			close(dargs.fd);
		} else if (errno != EKEYREVOKED && errno != ESTALE) {
			FAIL("EXPORT_DMABUF of an import failed: %s", strerror(errno));
		}
	}
	CHECK(pthread_rwlock_wrlock(&imp->lock) == 0);
	imp->map = NULL;
	CHECK(munmap(map, args.size) == 0);
	CHECK(pthread_rwlock_unlock(&imp->lock) == 0);
	close(args.fd);
}

/* ---- workers and the killer ---- */

static void worker(int role, uint32_t seed)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct importer imp = { .lock = PTHREAD_RWLOCK_INITIALIZER };
	pthread_t sibling;
	uint32_t rs = seed;

	CHECK(sigaction(SIGBUS, &sa, NULL) == 0);
	open_device(&dev);
	if (role >= OWNERS)
		CHECK(pthread_create(&sibling, NULL, importer_sibling, &imp) == 0);
	while (!atomic_load(&board->stop)) {
		if (role < OWNERS)
			owner_round(&rs);
		else
			importer_round(&imp, &rs);
	}
	if (role >= OWNERS)
		CHECK(pthread_join(sibling, NULL) == 0);
	sc_kmod_close(&dev);
	exit(0);
}

static pid_t start_worker(int role, uint32_t seed)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid)
		worker(role, seed);
	return pid;
}

int main(void)
{
	const char *env = getenv("STRESS_SECONDS");
	long seconds = env ? strtol(env, NULL, 10) : 60;
	uint64_t kills = 0, end;
	struct counters baseline;
	pid_t pids[WORKERS];
	uint32_t rs = 12345;
	int status;

	if (seconds < 1 || seconds > 3600)
		FAIL("STRESS_SECONDS=%s is outside 1..3600", env);
	board = mmap(NULL, sizeof(*board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(board != MAP_FAILED);
	memset(board, 0, sizeof(*board));
	atomic_store(&board->next_seed, 1);
	read_baseline(&baseline);
	for (int i = 0; i < WORKERS; i++)
		pids[i] = start_worker(i, rs + (uint32_t)i * 977u);

	end = now_ns() + (uint64_t)seconds * 1000000000u;
	while (now_ns() < end) {
		int i = (int)rnd(&rs, WORKERS);

		usleep(200000 + rnd(&rs, 300000));
		/* one that ended on its own has failed: its message is above */
		for (int j = 0; j < WORKERS; j++)
			if (waitpid(pids[j], &status, WNOHANG) == pids[j])
				FAIL("worker %d (%s) ended before the stop: status %#x", j,
				     j < OWNERS ? "owner" : "importer", status);
		CHECK(kill(pids[i], SIGKILL) == 0);
		CHECK(waitpid(pids[i], &status, 0) == pids[i]);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
			FAIL("worker %d ended with status %#x before its SIGKILL landed", i, status);
		kills++;
		pids[i] = start_worker(i, xorshift32(&rs));
	}
	atomic_store(&board->stop, 1);
	for (int i = 0; i < WORKERS; i++) {
		CHECK(waitpid(pids[i], &status, 0) == pids[i]);
		expect_child_ok(status, i < OWNERS ? "owner" : "importer");
	}

	printf("stress: %ld s, %d owner and %d importer processes of 2 threads each: "
	       "%llu regions made (%llu of user memory), %llu revoked, %llu made stale; "
	       "%llu imports (%llu refused), %llu maps (%llu refused); "
	       "%llu dma-bufs; %llu words checked; %llu sibling reads; "
	       "%llu SIGBUS after a revoke or stale; %llu forks; %llu SIGKILLs\n",
	       seconds, OWNERS, IMPORTERS,
	       (unsigned long long)board->created, (unsigned long long)board->user_created,
	       (unsigned long long)board->revoked, (unsigned long long)board->made_stale,
	       (unsigned long long)board->imports, (unsigned long long)board->import_refused,
	       (unsigned long long)board->maps, (unsigned long long)board->map_refused,
	       (unsigned long long)board->dmabufs, (unsigned long long)board->words,
	       (unsigned long long)board->sibling_reads,
	       (unsigned long long)board->sigbus_after_revoke,
	       (unsigned long long)board->forks, (unsigned long long)kills);
	/* a run that never reached these paths proves nothing */
	CHECK(board->revoked > 0 && board->maps > 0 && board->words > 0);
	CHECK(board->user_created > 0 && board->made_stale > 0);
	CHECK(board->sigbus_after_revoke > 0 && board->forks > 0 && kills > 0);
	expect_counters(&baseline);
	return 0;
}
