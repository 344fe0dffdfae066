/* An ioctl fuzzer: 100,000 calls or more, from root and from another uid at
 * once, with random commands, sizes, flags, bad pointers and overflowing
 * lengths, on the device, region files, dma-bufs, plus random mmaps.
 * CREATE_USER gets ranges over the fuzzer's own memory that straddle holes,
 * PFN maps of imported user memory, unmapped and kernel addresses and
 * overflowing lengths, while a second thread maps and unmaps a window
 * inside them. CREATE_DMABUF gets vgem's dma-bufs (read-write and
 * read-only), this module's own, region files, the device and numbers that
 * are no fd. Passes
 * when nothing crashes or hangs and every counter is back at baseline after
 * (run-tests then checks the kernel log for oopses and warnings).
 * FUZZ_SEED=N repeats a run; FUZZ_CALLS=N changes its length. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define POOL 12
#define HANDLES 16
#define ARG_BYTES 128	/* more than the largest argument struct */

struct shared {
	volatile uint64_t handles[HANDLES];
};

static struct shared *shared;
static uint64_t rng_state;
static uint8_t *guard_page_end;	/* a page followed by a PROT_NONE page */

static uint64_t next(void)
{
	/* xorshift64*: repeatable from FUZZ_SEED */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static uint64_t below(uint64_t n)
{
	return n ? next() % n : 0;
}

static const unsigned long commands[] = {
	SHMEMCOMM_IOC_GET_INFO, SHMEMCOMM_IOC_CREATE, SHMEMCOMM_IOC_IMPORT,
	SHMEMCOMM_IOC_REGION_INFO, SHMEMCOMM_IOC_EXPORT, SHMEMCOMM_IOC_REVOKE,
	SHMEMCOMM_IOC_EXPORT_DMABUF, SHMEMCOMM_IOC_CREATE_USER, SHMEMCOMM_IOC_CREATE_DMABUF,
};

/* vgem's dma-bufs for CREATE_DMABUF (-1 without vgem): read-write, then read-only */
#define VGEM_BUFS 4
static int vgem_bufs[VGEM_BUFS] = { -1, -1, -1, -1 };

static void make_vgem_bufs(void)
{
	int card = vgem_open();

	if (card < 0)
		return;
	for (int i = 0; i < VGEM_BUFS; i++)
		vgem_bufs[i] = vgem_dumb_dmabuf(card, (size_t)(i + 1) << 16, i < VGEM_BUFS / 2);
	close(card);
}

/*
 * CREATE_USER's playground: 64 pages with a hole at page 20 and a window
 * at pages 40-47 that the churn thread keeps unmapping and mapping again.
 */
#define PLAY_PAGES 64
static uint8_t *playground;
static volatile int churn_stop;

static void *churn(void *unused)
{
	uint8_t *window = playground + 40 * 4096;

	(void)unused;
	while (!churn_stop) {
		munmap(window, 8 * 4096);
		mmap(window, 8 * 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		window[0] = 1;
		madvise(window, 8 * 4096, MADV_DONTNEED);
	}
	return NULL;
}

/* The hole, a PFN map (the fuzzer's own user region, mapped at pages 30-31) */
static void make_playground(void)
{
	struct shmemcomm_create_user u = { .size = 2 * 4096 };
	uint8_t *backing;
	int dev;

	playground = mmap(NULL, PLAY_PAGES * 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(playground != MAP_FAILED);
	memset(playground, 7, PLAY_PAGES * 4096);
	CHECK(munmap(playground + 20 * 4096, 4096) == 0);
	backing = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(backing != MAP_FAILED);
	u.addr = (uintptr_t)backing;
	dev = open(SHMEMCOMM_DEVICE_PATH, O_RDWR);
	CHECK(dev >= 0);
	CHECK(ioctl(dev, SHMEMCOMM_IOC_CREATE_USER, &u) == 0);
	CHECK(mmap(playground + 30 * 4096, 2 * 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_FIXED, u.fd, 0) != MAP_FAILED);
	close(u.fd);
	close(dev);
}

static uint64_t user_address(void)
{
	switch (below(8)) {
	case 0:
		return 0xffff888000000000ull + below(1 << 20);	/* kernel */
	case 1:
		return 0x7ffffffff000ull - below(8192);	/* unmapped, top */
	case 2:
		return below(1 << 16);	/* the zero page and below mmap_min_addr */
	default:
		return (uintptr_t)playground + below(PLAY_PAGES * 4096);
	}
}

static unsigned long random_command(void)
{
	unsigned long cmd = commands[below(sizeof(commands) / sizeof(commands[0]))];

	switch (below(10)) {
	case 0:	/* right number, wrong size */
		return (cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		       (below(1 << _IOC_SIZEBITS) << _IOC_SIZESHIFT);
	case 1:	/* right number, wrong direction */
		return (cmd & ~(_IOC_DIRMASK << _IOC_DIRSHIFT)) |
		       (below(4) << _IOC_DIRSHIFT);
	case 2:	/* anything in our magic */
		return _IOC(below(4), SHMEMCOMM_IOC_MAGIC, below(256), below(512));
	case 3:
		return (uint32_t)next();
	default:
		return cmd;
	}
}

static uint64_t interesting_size(void)
{
	static const uint64_t sizes[] = {
		0, 1, 4095, 4096, 4097, 65536, 2 << 20, (2 << 20) + 4096,
		64ull << 20, 1ull << 40, (1ull << 40) + 1, UINT64_MAX,
		UINT64_MAX - 4095, 1ull << 63,
	};

	if (below(2))
		return 1 + below(256 << 10);
	return sizes[below(sizeof(sizes) / sizeof(sizes[0]))];
}

/* random bytes, but often shaped like a real argument */
static void fill_argument(unsigned long cmd, uint64_t *buf)
{
	for (size_t i = 0; i < ARG_BYTES / sizeof(*buf); i++)
		buf[i] = below(3) ? 0 : next();
	if (below(4) == 0)
		return;
	if (cmd == SHMEMCOMM_IOC_CREATE) {
		struct shmemcomm_create *c = (void *)buf;

		c->size = interesting_size();
		c->numa_node = below(4) ? SHMEMCOMM_NUMA_ANY : (int32_t)below(3) - 1;
		c->flags = below(4) ? 0 : (uint32_t)next();
	} else if (cmd == SHMEMCOMM_IOC_IMPORT) {
		struct shmemcomm_import *im = (void *)buf;

		im->handle = below(4) ? shared->handles[below(HANDLES)] : next();
		im->flags = (uint32_t)below(3);
	} else if (cmd == SHMEMCOMM_IOC_CREATE_USER) {
		struct shmemcomm_create_user *u = (void *)buf;

		u->addr = user_address();
		u->size = below(3) ? 1 + below(PLAY_PAGES * 4096) : interesting_size();
		u->stale_word = below(3) ? 0 : below(2) ? user_address() & ~3ull :
			next();
		u->flags = below(4) ? (uint32_t)below(2) : (uint32_t)next();
	} else if (cmd == SHMEMCOMM_IOC_EXPORT) {
		struct shmemcomm_export *e = (void *)buf;

		e->flags = (uint32_t)below(9);
		e->pad = 0;
	} else if (cmd == SHMEMCOMM_IOC_CREATE_DMABUF) {
		struct shmemcomm_create_dmabuf *d = (void *)buf;

		/* small numbers hit the pool's fds: dma-bufs of regions among them */
		d->dmabuf_fd = below(2) ? vgem_bufs[below(VGEM_BUFS)] :
			       below(2) ? (int32_t)below(64) : (int32_t)next();
		d->flags = below(4) ? (uint32_t)below(2) : (uint32_t)next();
	}
}

static void *random_pointer(void *good, size_t len)
{
	switch (below(12)) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)below(4096);
	case 2:
		return (void *)0xffff888000000000ull;	/* kernel memory */
	case 3:
		return (void *)0x7ffffffff000ull;	/* unmapped user memory */
	case 4:	/* straddles into the PROT_NONE page */
		return guard_page_end - (1 + below(len));
	default:
		return good;
	}
}

struct pool {
	int fd[POOL];
};

static void pool_put(struct pool *pool, int fd)
{
	int slot = (int)below(POOL);

	if (pool->fd[slot] >= 0)
		close(pool->fd[slot]);
	pool->fd[slot] = fd;
}

static void remember_result(struct pool *pool, unsigned long cmd, uint64_t *buf)
{
	if (cmd == SHMEMCOMM_IOC_CREATE)
		pool_put(pool, ((struct shmemcomm_create *)buf)->fd);
	else if (cmd == SHMEMCOMM_IOC_CREATE_USER)
		pool_put(pool, ((struct shmemcomm_create_user *)buf)->fd);
	else if (cmd == SHMEMCOMM_IOC_CREATE_DMABUF)
		pool_put(pool, ((struct shmemcomm_create_dmabuf *)buf)->fd);
	else if (cmd == SHMEMCOMM_IOC_IMPORT)
		pool_put(pool, ((struct shmemcomm_import *)buf)->fd);
	else if (cmd == SHMEMCOMM_IOC_EXPORT_DMABUF)
		pool_put(pool, ((struct shmemcomm_dmabuf *)buf)->fd);
	else if (cmd == SHMEMCOMM_IOC_EXPORT)
		shared->handles[below(HANDLES)] = ((struct shmemcomm_export *)buf)->handle;
}

static void random_mmap(int fd)
{
	size_t len = 4096 * (1 + below(80));
	int prot = (int)below(4);	/* none, read, write, both */
	int flags = below(5) ? MAP_SHARED : MAP_PRIVATE;
	off_t off = below(4) ? (off_t)(4096 * below(80)) : (off_t)(next() & ~4095ull) >> 1;
	uint8_t *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED)
		return;
	if (prot & PROT_READ)
		probe_read(p + 4096 * below(len / 4096));
	if (prot & PROT_WRITE)
		probe_write(p + 4096 * below(len / 4096), 1);
	if (below(3) == 0)
		madvise(p, len, below(2) ? MADV_DONTNEED : MADV_DONTFORK);
	munmap(p, len);
}

static const char *command_name(unsigned long cmd)
{
	static const char *const names[] = {
		"get_info", "create", "import", "region_info", "export", "revoke",
		"export_dmabuf", "create_user", "create_dmabuf",
	};

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i] == cmd)
			return names[i];
	return NULL;
}

static void fuzz(long calls, int devfd_count, const char *who)
{
	long succeeded[sizeof(commands) / sizeof(commands[0])] = { 0 }, failed = 0;
	uint64_t *buf = (uint64_t *)(guard_page_end - ARG_BYTES);
	struct pool pool;
	long done = 0;

	for (int i = 0; i < POOL; i++)
		pool.fd[i] = i < devfd_count ? open(SHMEMCOMM_DEVICE_PATH, O_RDWR) : -1;
	pool.fd[POOL - 1] = open("/dev/null", O_RDWR);

	while (done < calls) {
		int fd = pool.fd[below(POOL)];
		unsigned long cmd;
		uint64_t *arg;

		if (fd < 0) {
			fd = open(SHMEMCOMM_DEVICE_PATH, O_RDWR);
			pool_put(&pool, fd);
		}
		switch (below(50)) {
		case 0:
			random_mmap(fd);
			continue;
		case 1:	/* a fresh device fd now and then */
			pool_put(&pool, open(SHMEMCOMM_DEVICE_PATH, O_RDWR));
			continue;
		default:
			break;
		}
		cmd = random_command();
		fill_argument(cmd, buf);
		arg = random_pointer(buf, ARG_BYTES);
		/* a shifted pointer can still be readable: the result is there */
		if (ioctl(fd, cmd, arg) == 0) {
			remember_result(&pool, cmd, arg);
			for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				succeeded[i] += commands[i] == cmd;
		} else {
			failed++;
		}
		done++;
	}
	for (int i = 0; i < POOL; i++)
		if (pool.fd[i] >= 0)
			close(pool.fd[i]);
	printf("fuzz as %s: %ld calls, %ld refused; succeeded:", who, done, failed);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf(" %s %ld", command_name(commands[i]), succeeded[i]);
	printf("\n");
	fflush(stdout);
}

int main(void)
{
	long calls = getenv("FUZZ_CALLS") ? atol(getenv("FUZZ_CALLS")) : 100000;
	uint64_t seed = getenv("FUZZ_SEED") ? strtoull(getenv("FUZZ_SEED"), NULL, 0)
					    : (uint64_t)time(NULL);
	struct counters baseline;
	long long saved_cap;
	char cap[32];
	uint8_t *pages;
	int status;
	pid_t pid;

	printf("fuzz: FUZZ_SEED=%llu, %ld calls\n", (unsigned long long)seed, calls);
	read_baseline(&baseline);
	/* a small cap, so that the fuzzer's large sizes are refused, not allocated */
	saved_cap = read_number(PARAM_DIR "max_pinned_mb");
	write_string(PARAM_DIR "max_pinned_mb", "64");

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shared != MAP_FAILED);
	pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(pages != MAP_FAILED);
	CHECK(mprotect(pages + 4096, 4096, PROT_NONE) == 0);
	guard_page_end = pages + 4096;

	/* both in children, so that the check below sees only what the kernel holds */
	fflush(NULL);
	for (int uid = 0; uid <= 1; uid++) {
		pid = fork();
		CHECK(pid >= 0);
		if (pid)
			continue;
		rng_state = seed * 2 + 1 + uid;
		if (uid)
			become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
		make_playground();
		make_vgem_bufs();
		pthread_t churner;

		CHECK(pthread_create(&churner, NULL, churn, NULL) == 0);
		fuzz(uid ? calls / 2 : calls - calls / 2, 3, uid ? "uid 1000" : "root");
		churn_stop = 1;
		CHECK(pthread_join(churner, NULL) == 0);
		_exit(0);
	}
	for (int i = 0; i < 2; i++) {
		CHECK(wait(&status) > 0);
		expect_child_ok(status, "fuzzer");
	}

	snprintf(cap, sizeof(cap), "%lld", saved_cap);
	write_string(PARAM_DIR "max_pinned_mb", cap);
	expect_counters(&baseline);
	printf("fuzz: %ld ioctl calls, counters back at baseline\n", calls);
	return 0;
}
