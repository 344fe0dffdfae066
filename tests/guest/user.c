/* User-memory regions (CREATE_USER). Shared both ways between processes on
 * anonymous memory, a static array in the data and in the bss, and a
 * private file mapping; scope, read-only and revoke as for driver pages;
 * the memlock limit and the module cap; every range that cannot back a
 * region, with its errno. Coherence: munmap+mmap, MADV_DONTNEED, mremap and
 * free()+malloc() at the same address make the region stale (the stale word
 * set, SIGBUS in the importer, which never sees the old data, ESTALE for
 * imports, mmaps and dma-bufs), while mprotect, NUMA hinting, fork, a failed
 * migration, a huge page's split and MADV_FREE keep it, and say so in the
 * region's kept_events. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/mempolicy.h>

#include "guest.h"

#define PAGE 4096u

static _Alignas(8) uint8_t data_array[5 * PAGE + 100] = { 1 };
static _Alignas(8) uint8_t bss_array[3 * PAGE + 8];
/* words the module sets when a region goes stale; one per region made */
static volatile uint32_t stale_words[64];
static unsigned int next_word;
static struct sc_kmod dev;

static volatile uint32_t *fresh_stale_word(void)
{
	CHECK(next_word < sizeof(stale_words) / sizeof(stale_words[0]));
	return &stale_words[next_word++];
}

static uint8_t *anon(size_t len)
{
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	/* small pages: a huge page split would be a (documented) change */
	CHECK(madvise(p, len, MADV_NOHUGEPAGE) == 0);
	return p;
}

/* What the importer does after the parent's go. */
enum then { THEN_EXIT, THEN_GONE, THEN_SEE };

struct importer {
	pid_t pid;
	int ready;	/* the importer says: mapped, checked, written */
	int go;		/* the parent says: go on */
};

/*
 * A child that imports @handle, maps it, checks @seed at [@off, @off +
 * @len), writes @seed + 1 there (unless read-only), and after the go byte:
 * exits (THEN_EXIT); finds the mapping gone with SIGBUS and import and mmap
 * refused with @gone_err (THEN_GONE); or sees @later there (THEN_SEE).
 */
static void importer_start(struct importer *im, uint64_t handle, uint32_t flags,
			   uint64_t off, size_t len, uint32_t seed, enum then then,
			   int gone_err, uint32_t later)
{
	int ready[2], go[2];
	char byte;

	CHECK(pipe(ready) == 0 && pipe(go) == 0);
	fflush(NULL);
	im->pid = fork();
	CHECK(im->pid >= 0);
	if (!im->pid) {
		struct sc_kmod_region r, again;
		struct sc_kmod d;
		uint8_t *p;

		close(ready[0]);
		close(go[1]);
		open_device(&d);
		CHECK_OK(sc_kmod_import(&d, handle, flags, &r));
		CHECK_OK(sc_kmod_map(&r, !(flags & SHMEMCOMM_IMPORT_RDONLY)));
		p = (uint8_t *)r.addr + off;
		CHECK(check_pattern(p, len, seed));
		if (!(flags & SHMEMCOMM_IMPORT_RDONLY))
			fill_pattern(p, len, seed + 1);
		CHECK(write(ready[1], "r", 1) == 1);
		CHECK(read(go[0], &byte, 1) == 1);
		switch (then) {
		case THEN_EXIT:
			break;
		case THEN_GONE:
			CHECK_EQ(probe_read(p), SIGBUS);
			CHECK_EQ(probe_read(p + len - 1), SIGBUS);
			again = r;
			again.addr = NULL;
			CHECK_ERR(sc_kmod_map(&again, 0), gone_err);
			CHECK_ERR(sc_kmod_import(&d, handle, flags, &again), gone_err);
			break;
		case THEN_SEE:
			CHECK(check_pattern(p, len, later));
			break;
		}
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	im->ready = ready[0];
	im->go = go[1];
	CHECK(read(im->ready, &byte, 1) == 1);
}

static void importer_finish(struct importer *im, const char *what)
{
	int status;

	CHECK(write(im->go, "g", 1) == 1);
	CHECK(waitpid(im->pid, &status, 0) == im->pid);
	expect_child_ok(status, what);
	close(im->ready);
	close(im->go);
}

static uint32_t region_state(const struct sc_kmod_region *r)
{
	struct shmemcomm_region_info info;

	CHECK_OK(sc_kmod_region_info(r, &info));
	return info.state;
}

/* The region's "kept_events" as shmemctl -j shows it. */
static long kept_events(uint64_t handle)
{
	char line[16384], *row = shmemctl_row(handle, line, sizeof(line)), *field;
	long kept;

	field = strstr(row, "\"kind\":\"user\",\"kept_events\":");
	if (!field)
		FAIL("shmemctl's row has no kind user and kept_events: %s", row);
	CHECK(sscanf(field, "\"kind\":\"user\",\"kept_events\":%ld", &kept) == 1);
	return kept;
}

/* Both ways: the owner's pattern reaches the importer, its answer the owner. */
static void share_both_ways(const char *what, uint8_t *buf, size_t len, uint32_t seed)
{
	uintptr_t start = (uintptr_t)buf & ~(uintptr_t)(PAGE - 1);
	uintptr_t end = ((uintptr_t)buf + len + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
	volatile uint32_t *stale = fresh_stale_word();
	struct shmemcomm_region_info info;
	struct sc_kmod_region owner;
	struct importer im;

	CHECK_OK(sc_kmod_create_user(&dev, buf, len, 0, stale, &owner));
	CHECK_EQ(owner.user_start, start);
	CHECK_EQ(owner.size, end - start);
	CHECK_OK(sc_kmod_region_info(&owner, &info));
	CHECK_EQ(info.kind, SHMEMCOMM_KIND_USER);
	CHECK_EQ(info.user_start, start);
	CHECK_EQ(info.size, end - start);
	CHECK_EQ(info.state, SHMEMCOMM_STATE_OWNER | SHMEMCOMM_STATE_WRITABLE);

	fill_pattern(buf, len, seed);
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	importer_start(&im, owner.handle, 0, (uintptr_t)buf - start, len, seed,
		       THEN_SEE, 0, seed + 2);
	/* the importer's write is in the owner's own buffer, at its own address */
	CHECK(check_pattern(buf, len, seed + 1));
	fill_pattern(buf, len, seed + 2);
	importer_finish(&im, what);
	CHECK_EQ(*stale, 0);
	sc_kmod_release(&owner);
	printf("ok: %s (%zu bytes at %p, %zu pages) shared both ways\n", what, len,
	       (void *)buf, (size_t)(end - start) / PAGE);
}

static void share_file_mapping(void)
{
	const char *path = "/tmp/user-region-file";
	uint8_t *p, *back = malloc(3 * PAGE);
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && back);
	fill_pattern(back, 3 * PAGE, 40);
	CHECK(write(fd, back, 3 * PAGE) == 3 * PAGE);
	p = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED);
	CHECK(check_pattern(p, 3 * PAGE, 40));
	share_both_ways("a private file mapping", p + 8, 3 * PAGE - 8, 41);
	/* private: the file never saw any of it */
	CHECK(pread(fd, back, 3 * PAGE, 0) == 3 * PAGE);
	CHECK(check_pattern(back, 3 * PAGE, 40));
	CHECK(munmap(p, 3 * PAGE) == 0);
	close(fd);
	unlink(path);
	free(back);
}

static int create_user_raw(uint64_t addr, uint64_t size, uint64_t word, uint32_t flags,
			   uint64_t reserved)
{
	struct shmemcomm_create_user args = {
		.addr = addr, .size = size, .stale_word = word, .flags = flags,
		.reserved = { reserved },
	};

	if (ioctl(dev.fd, SHMEMCOMM_IOC_CREATE_USER, &args))
		return -errno;
	close(args.fd);
	return 0;
}

static void refusals(void)
{
	uint8_t *buf = anon(4 * PAGE), *ro, *gone;
	uintptr_t b = (uintptr_t)buf;
	struct sc_kmod_region owner, pfn;
	struct importer im;

	CHECK_ERR(create_user_raw(b, PAGE, 0, 0x80, 0), EINVAL);
	CHECK_ERR(create_user_raw(b, 0, 0, 0, 0), EINVAL);
	CHECK_ERR(create_user_raw(b, PAGE, 0, 0, 1), EINVAL);
	CHECK_ERR(create_user_raw(0xffff888000000000ull, PAGE, 0, 0, 0), EINVAL);
	CHECK_ERR(create_user_raw(b, UINT64_MAX - 100, 0, 0, 0), EINVAL);
	CHECK_ERR(create_user_raw(b, (1ull << 40) + 1, 0, 0, 0), EINVAL);
	CHECK_ERR(create_user_raw(b + PAGE - 1, (1ull << 40), 0, 0, 0), EINVAL);
	CHECK_ERR(create_user_raw(b, PAGE, b + 2, 0, 0), EINVAL);
	CHECK_ERR(create_user_raw(b, PAGE, 0xffff888000000000ull, 0, 0), EINVAL);
	CHECK_ERR_LOGGED(sc_kmod_create_user(&dev, buf, 0, 0, NULL, &owner), EINVAL,
			 "the range must be 1..");

	/* a hole in the middle, and memory that is not mapped at all */
	gone = anon(3 * PAGE);
	CHECK(munmap(gone + PAGE, PAGE) == 0);
	CHECK_ERR_LOGGED(sc_kmod_create_user(&dev, gone, 3 * PAGE, 0, NULL, &owner),
			 EFAULT, "part of it is not mapped");
	CHECK_ERR(create_user_raw((uintptr_t)gone + PAGE, 1, 0, 0, 0), EFAULT);
	/* a stale word that is not writable memory */
	CHECK_ERR(create_user_raw(b, PAGE, (uintptr_t)gone + PAGE, 0, 0), EFAULT);

	/* a PFN map: the owner's own mapping of a user-memory region */
	CHECK_OK(sc_kmod_create_user(&dev, buf, 4 * PAGE, 0, NULL, &pfn));
	CHECK_OK(sc_kmod_map(&pfn, 1));
	CHECK_ERR_LOGGED(sc_kmod_create_user(&dev, pfn.addr, PAGE, 0, NULL, &owner),
			 EOPNOTSUPP, "cannot be pinned");
	sc_kmod_release(&pfn);

	/* read-only memory: only a read-only region, only exported read-only */
	ro = anon(2 * PAGE);
	fill_pattern(ro, 2 * PAGE, 60);
	CHECK(mprotect(ro, 2 * PAGE, PROT_READ) == 0);
	CHECK_ERR_LOGGED(sc_kmod_create_user(&dev, ro, 2 * PAGE, 0, NULL, &owner), EACCES,
			 "the memory is read-only");
	CHECK_OK(sc_kmod_create_user(&dev, ro, 2 * PAGE, SHMEMCOMM_USER_RDONLY, NULL, &owner));
	CHECK_EQ(region_state(&owner), SHMEMCOMM_STATE_OWNER);
	CHECK_ERR(sc_kmod_map(&owner, 1), EACCES);
	CHECK_ERR_LOGGED(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER), EACCES,
			 "cannot export");
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER | SHMEMCOMM_EXPORT_RDONLY));
	importer_start(&im, owner.handle, SHMEMCOMM_IMPORT_RDONLY, 0, 2 * PAGE, 60,
		       THEN_EXIT, 0, 0);
	importer_finish(&im, "read-only importer");
	sc_kmod_release(&owner);
	printf("ok: bad arguments, holes, unmapped memory, PFN maps and read-only memory refused\n");
}

/* the owner's scope, a read-only export, and revoke */
static void scope_and_revoke(void)
{
	uint8_t *buf = anon(2 * PAGE);
	struct sc_kmod_region owner, ro_owner, again;
	struct importer im;
	int status;
	pid_t pid;

	fill_pattern(buf, 2 * PAGE, 70);
	CHECK_OK(sc_kmod_create_user(&dev, buf, 2 * PAGE, 0, NULL, &owner));
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		struct sc_kmod d;

		become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
		open_device(&d);
		CHECK_ERR(sc_kmod_import(&d, owner.handle, 0, &again), EACCES);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	expect_child_ok(status, "importer of another uid");

	importer_start(&im, owner.handle, 0, 0, 2 * PAGE, 70, THEN_GONE, EKEYREVOKED, 0);
	CHECK_OK(sc_kmod_revoke(&owner));
	importer_finish(&im, "importer after revoke");
	/* the owner's memory is its own: untouched by the revoke */
	CHECK(check_pattern(buf, 2 * PAGE, 71));
	CHECK_EQ(region_state(&owner) & SHMEMCOMM_STATE_REVOKED, SHMEMCOMM_STATE_REVOKED);
	sc_kmod_release(&owner);

	CHECK_OK(sc_kmod_create_user(&dev, buf, 2 * PAGE, 0, NULL, &ro_owner));
	CHECK_OK(sc_kmod_export(&ro_owner,
				SHMEMCOMM_EXPORT_SCOPE_OWNER | SHMEMCOMM_EXPORT_RDONLY));
	CHECK_ERR(sc_kmod_import(&dev, ro_owner.handle, 0, &again), EACCES);
	CHECK_OK(sc_kmod_import(&dev, ro_owner.handle, SHMEMCOMM_IMPORT_RDONLY, &again));
	CHECK_ERR(sc_kmod_map(&again, 1), EACCES);
	CHECK_OK(sc_kmod_map(&again, 0));
	CHECK(check_pattern(again.addr, 2 * PAGE, 71));
	sc_kmod_release(&again);
	sc_kmod_release(&ro_owner);
	printf("ok: scope, read-only export and revoke as for driver pages\n");
}

static void limits(void)
{
	long long saved_cap = read_number(PARAM_DIR "max_pinned_mb");
	struct sc_kmod_region r;
	char cap[32];
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		struct rlimit lim = { 64 << 10, 64 << 10 };
		uint8_t *buf = anon(32 * PAGE);
		struct sc_kmod d;

		become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
		CHECK(setrlimit(RLIMIT_MEMLOCK, &lim) == 0);
		open_device(&d);
		CHECK_ERR_LOGGED(sc_kmod_create_user(&d, buf, 32 * PAGE, 0, NULL, &r), ENOMEM,
				 "RLIMIT_MEMLOCK");
		CHECK_OK(sc_kmod_create_user(&d, buf, 16 * PAGE, 0, NULL, &r));
		CHECK_ERR_LOGGED(sc_kmod_create_user(&d, buf, PAGE, 0, NULL, &r), ENOMEM,
				 "RLIMIT_MEMLOCK");
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	expect_child_ok(status, "memlock");

	write_string(PARAM_DIR "max_pinned_mb", "1");
	{
		uint8_t *big = anon(2 << 20);

		CHECK_ERR_LOGGED(sc_kmod_create_user(&dev, big, 2 << 20, 0, NULL, &r), EPERM,
				 "module-wide cap");
		CHECK(munmap(big, 2 << 20) == 0);
	}
	snprintf(cap, sizeof(cap), "%lld", saved_cap);
	write_string(PARAM_DIR "max_pinned_mb", cap);
	printf("ok: RLIMIT_MEMLOCK and the module cap apply\n");
}

enum change { MUNMAP_MMAP, DONTNEED, MREMAP, FREE_MALLOC };
static const char *const change_names[] = {
	"munmap and mmap again", "MADV_DONTNEED", "mremap away and mmap again",
	"free() and malloc() again",
};

/* The owner changes its pages under an importer, then writes new data there. */
static void goes_stale(enum change how)
{
	size_t len = how == FREE_MALLOC ? 1 << 20 : 4 * PAGE;
	volatile uint32_t *stale = fresh_stale_word();
	struct sc_kmod_region owner;
	uint8_t *buf, *other, *now;
	struct importer im;
	int dmabuf;

	/* 1 MiB: beyond glibc's mmap threshold, so that free() unmaps it */
	buf = how == FREE_MALLOC ? malloc(len) : anon(len);
	CHECK(buf != NULL);
	fill_pattern(buf, len, 80);
	CHECK_OK(sc_kmod_create_user(&dev, buf, len, 0, stale, &owner));
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	importer_start(&im, owner.handle, 0, (uintptr_t)buf - owner.user_start, len, 80,
		       THEN_GONE, ESTALE, 0);
	CHECK(check_pattern(buf, len, 81));
	CHECK_EQ(*stale, 0);

	now = buf;
	switch (how) {
	case MUNMAP_MMAP:
		CHECK(munmap(buf, len) == 0);
		CHECK(mmap(buf, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == buf);
		break;
	case DONTNEED:
		CHECK(madvise(buf, len, MADV_DONTNEED) == 0);
		CHECK_EQ(buf[0], 0);
		break;
	case MREMAP:
		other = anon(len);
		CHECK(mremap(buf, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, other) == other);
		CHECK(mmap(buf, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == buf);
		/* the old pages moved with the mapping, and are still the owner's */
		CHECK(check_pattern(other, len, 81));
		CHECK(munmap(other, len) == 0);
		break;
	case FREE_MALLOC:
		free(buf);
		now = malloc(len);
		CHECK(now != NULL);
		break;
	}
	fill_pattern(now, len, 82);
	CHECK_EQ(*stale, 1);
	CHECK(region_state(&owner) & SHMEMCOMM_STATE_STALE);
	/* the importer never sees pattern 82's predecessor again: SIGBUS */
	importer_finish(&im, change_names[how]);
	dmabuf = sc_kmod_export_dmabuf(&owner);
	CHECK_EQ(dmabuf, -ESTALE);
	CHECK_ERR(sc_kmod_map(&owner, 0), ESTALE);
	sc_kmod_release(&owner);
	CHECK(check_pattern(now, len, 82));
	printf("ok: %s makes the region stale%s\n", change_names[how],
	       how == FREE_MALLOC ? (now == buf ? " (malloc gave the same address back)" :
				     " (malloc gave another address)") : "");
	if (how == FREE_MALLOC)
		free(now);
	else
		CHECK(munmap(now, len) == 0);
}

static void kept_by_mprotect_and_fork(void)
{
	volatile uint32_t *stale = fresh_stale_word();
	uint8_t *buf = anon(8 * PAGE), *dontfork = anon(2 * PAGE);
	struct sc_kmod_region owner, second;
	struct importer im;
	long kept_before;
	int status;
	pid_t pid;

	fill_pattern(buf, 8 * PAGE, 90);
	CHECK_OK(sc_kmod_create_user(&dev, buf, 8 * PAGE, 0, stale, &owner));
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	kept_before = kept_events(owner.handle);
	CHECK(mprotect(buf, 8 * PAGE, PROT_READ) == 0);
	CHECK(mprotect(buf + 2 * PAGE, 2 * PAGE, PROT_NONE) == 0);
	CHECK(mprotect(buf, 8 * PAGE, PROT_READ | PROT_WRITE) == 0);
	CHECK(kept_events(owner.handle) > kept_before);
	CHECK_EQ(*stale, 0);

	/* fork: the child gets copies of the pinned pages; the region stays ours */
	kept_before = kept_events(owner.handle);
	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		CHECK(check_pattern(buf, 8 * PAGE, 90));
		fill_pattern(buf, 8 * PAGE, 99);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	expect_child_ok(status, "forked child");
	CHECK(check_pattern(buf, 8 * PAGE, 90));
	CHECK_EQ(*stale, 0);

	importer_start(&im, owner.handle, 0, 0, 8 * PAGE, 90, THEN_SEE, 0, 92);
	CHECK(check_pattern(buf, 8 * PAGE, 91));
	fill_pattern(buf, 8 * PAGE, 92);
	importer_finish(&im, "importer after mprotect and fork");
	CHECK_EQ(*stale, 0);
	CHECK_EQ(region_state(&owner) & SHMEMCOMM_STATE_STALE, 0);
	printf("ok: mprotect and fork keep the region (kept_events %ld)\n",
	       kept_events(owner.handle));
	sc_kmod_release(&owner);

	/* MADV_DONTFORK: the child has no mapping there at all */
	CHECK(madvise(dontfork, 2 * PAGE, MADV_DONTFORK) == 0);
	CHECK_OK(sc_kmod_create_user(&dev, dontfork, 2 * PAGE, 0, stale, &second));
	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		CHECK_EQ(probe_read(dontfork), SIGSEGV);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	expect_child_ok(status, "child of MADV_DONTFORK");
	CHECK_EQ(*stale, 0);
	sc_kmod_release(&second);
	printf("ok: MADV_DONTFORK leaves the child without the range, the region kept\n");
}

/* NUMA hinting write-protects the range and reports PROTECTION_VMA: kept. */
static void kept_by_numa_hinting(void)
{
	const char *knob = "/proc/sys/kernel/numa_balancing";
	volatile uint32_t *stale = fresh_stale_word();
	size_t len = 8 << 20, reg = 1 << 20;
	long long saved, updates_before;
	struct sc_kmod_region owner;
	long kept_before, kept = 0;
	uint8_t *buf = anon(len);
	struct timespec t0, t;
	char value[32];

	saved = read_number(knob);
	write_string(knob, "1");
	memset(buf, 1, len);
	CHECK_OK(sc_kmod_create_user(&dev, buf + len / 2, reg, 0, stale, &owner));
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	kept_before = kept_events(owner.handle);
	updates_before = vmstat("numa_pte_updates");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct timespec spin_start, now;

		/*
		 * Stay on the CPU for a second between looks: the scanner is
		 * started from this task's ticks, after a second of its own
		 * run time (numa_balancing_scan_delay_ms).
		 */
		clock_gettime(CLOCK_MONOTONIC, &spin_start);
		do {
			for (size_t i = 0; i < len; i += PAGE)
				buf[i]++;
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while (now.tv_sec - spin_start.tv_sec < 2);
		kept = kept_events(owner.handle);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (kept == kept_before && t.tv_sec - t0.tv_sec < 90);
	snprintf(value, sizeof(value), "%lld", saved);
	write_string(knob, value);
	if (kept == kept_before)
		FAIL("no NUMA hinting pass reached the region in 90 s (numa_pte_updates %lld -> %lld)",
		     updates_before, vmstat("numa_pte_updates"));
	CHECK_EQ(*stale, 0);
	CHECK_EQ(region_state(&owner) & SHMEMCOMM_STATE_STALE, 0);
	/*
	 * The PTEs themselves may stay as they are (a single-threaded task's
	 * pages on its own node, pinned pages): the notification is what a
	 * region sees, and kept_events counts it.
	 */
	printf("ok: NUMA hinting's pass reached the region and kept it (kept_events %ld -> %ld after %ld s)\n",
	       kept_before, kept, (long)(t.tv_sec - t0.tv_sec));
	sc_kmod_release(&owner);
	CHECK(munmap(buf, len) == 0);
}

/*
 * Migration of a pinned page (move_pages here; NUMA balancing moves pages
 * the same way) unmaps it, finds it pinned, and maps the same page back: the
 * region is kept, an importer keeps reading it, and kept_events says so.
 */
static void kept_by_failed_migration(void)
{
	volatile uint32_t *stale = fresh_stale_word();
	struct sc_kmod_region owner, imported;
	int nodes[8], status[8], node;
	uint8_t *buf = anon(8 * PAGE);
	void *pages[8];
	long kept_before, moved;

	fill_pattern(buf, 8 * PAGE, 60);
	CHECK_OK(sc_kmod_create_user(&dev, buf, 8 * PAGE, 0, stale, &owner));
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	CHECK_OK(sc_kmod_import(&dev, owner.handle, 0, &imported));
	CHECK_OK(sc_kmod_map(&imported, 1));
	CHECK(check_pattern(imported.addr, 8 * PAGE, 60));
	kept_before = kept_events(owner.handle);
	/* where the pages are, then every one asked to move to the other node */
	for (int i = 0; i < 8; i++)
		pages[i] = buf + (size_t)i * PAGE;
	CHECK(syscall(SYS_move_pages, 0, 8, pages, NULL, status, 0) == 0);
	node = status[0];
	CHECK(node >= 0);
	for (int i = 0; i < 8; i++)
		nodes[i] = !node;
	moved = syscall(SYS_move_pages, 0, 8, pages, nodes, status, MPOL_MF_MOVE);
	CHECK(moved >= 0);
	CHECK(syscall(SYS_move_pages, 0, 8, pages, NULL, status, 0) == 0);
	for (int i = 0; i < 8; i++)
		CHECK_EQ(status[i], node);	/* pinned: not moved */
	CHECK_EQ(*stale, 0);
	CHECK_EQ(region_state(&owner) & SHMEMCOMM_STATE_STALE, 0);
	CHECK(kept_events(owner.handle) > kept_before);
	fill_pattern(buf, 8 * PAGE, 61);
	CHECK(check_pattern(imported.addr, 8 * PAGE, 61));
	printf("ok: a migration of the pinned pages (move_pages to node %d) failed and kept the region (kept_events %ld -> %ld)\n",
	       !node, kept_before, kept_events(owner.handle));
	sc_kmod_release(&imported);
	sc_kmod_release(&owner);
	CHECK(munmap(buf, 8 * PAGE) == 0);
}

/*
 * Events the kernel reports as CLEAR, like MADV_DONTNEED, that leave the
 * pinned pages where they were: the split of a huge page under the region
 * (here by an mprotect of its last page, outside the region), and
 * MADV_FREE. The module checks the owner's page table after each: the
 * region is kept, an importer's mapping carries on, kept_events counts it,
 * and the stale word tells the owner's cache to ask before serving it again.
 */
static void kept_by_checked_events(void)
{
	const size_t huge = HUGE_PAGE, len = huge / 2;
	volatile uint32_t *stale = fresh_stale_word();
	struct sc_kmod_region owner, imported;
	uint8_t *map, *buf;
	long kept_before;

	buf = huge_page(&map);
	fill_pattern(buf, huge, 70);
	CHECK_OK(sc_kmod_create_user(&dev, buf, len, 0, stale, &owner));
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	CHECK_OK(sc_kmod_import(&dev, owner.handle, 0, &imported));
	CHECK_OK(sc_kmod_map(&imported, 1));
	CHECK(check_pattern(imported.addr, len, 70));
	kept_before = kept_events(owner.handle);

	CHECK(mprotect(buf + huge - PAGE, PAGE, PROT_READ) == 0);
	CHECK_EQ(anon_huge_kb(buf), 0);	/* split: small page table entries now */
	CHECK_EQ(*stale, 1);
	CHECK_EQ(region_state(&owner) & SHMEMCOMM_STATE_STALE, 0);
	CHECK(kept_events(owner.handle) > kept_before);
	fill_pattern(buf, len, 71);
	CHECK(check_pattern(imported.addr, len, 71));
	fill_pattern(imported.addr, len, 72);
	CHECK(check_pattern(buf, len, 72));
	printf("ok: the split of a huge page under the region is checked and kept (kept_events %ld -> %ld)\n",
	       kept_before, kept_events(owner.handle));

	*stale = 0;
	kept_before = kept_events(owner.handle);
	CHECK(madvise(buf, len, MADV_FREE) == 0);
	CHECK_EQ(*stale, 1);
	CHECK_EQ(region_state(&owner) & SHMEMCOMM_STATE_STALE, 0);
	CHECK(kept_events(owner.handle) > kept_before);
	CHECK(check_pattern(buf, len, 72));
	fill_pattern(imported.addr, len, 73);
	CHECK(check_pattern(buf, len, 73));
	printf("ok: MADV_FREE on the region is checked and kept (pinned pages are never freed lazily)\n");

	sc_kmod_release(&imported);
	sc_kmod_release(&owner);
	CHECK(munmap(map, HUGE_PAGE_MAP) == 0);
}

/* A dma-buf of user memory: mapped, then refused once the region is stale. */
static void dmabuf_of_user_memory(void)
{
	volatile uint32_t *stale = fresh_stale_word();
	struct sc_kmod_region owner, imported;
	uint8_t *buf = anon(4 * PAGE), *cpu;
	int dmabuf;

	fill_pattern(buf, 4 * PAGE, 50);
	CHECK_OK(sc_kmod_create_user(&dev, buf, 4 * PAGE, 0, stale, &owner));
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	CHECK_OK(sc_kmod_import(&dev, owner.handle, 0, &imported));
	dmabuf = sc_kmod_export_dmabuf(&imported);
	CHECK(dmabuf >= 0);
	cpu = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	CHECK(cpu != MAP_FAILED);
	CHECK(check_pattern(cpu, 4 * PAGE, 50));
	fill_pattern(cpu, 4 * PAGE, 51);
	CHECK(check_pattern(buf, 4 * PAGE, 51));

	CHECK(munmap(buf, 4 * PAGE) == 0);
	CHECK_EQ(*stale, 1);
	CHECK_EQ(probe_read(cpu), SIGBUS);
	CHECK_EQ(sc_kmod_export_dmabuf(&imported), -ESTALE);
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, dmabuf, 0) == MAP_FAILED && errno == ESTALE);
	CHECK(munmap(cpu, 4 * PAGE) == 0);
	close(dmabuf);
	sc_kmod_release(&imported);
	sc_kmod_release(&owner);
	printf("ok: a dma-buf of user memory maps it, and is refused once it is stale\n");
}

int main(void)
{
	struct counters baseline;

	read_baseline(&baseline);
	open_device(&dev);
	if (!sc_kmod_has(&dev, SHMEMCOMM_FEATURE_USER_MEMORY))
		FAIL("the module lacks SHMEMCOMM_FEATURE_USER_MEMORY (ABI %u.%u)",
		     dev.info.abi_major, dev.info.abi_minor);

	share_both_ways("anonymous memory", anon(4 * PAGE) + 100, 3 * PAGE, 10);
	share_both_ways("a static array in the data", data_array + 4, sizeof(data_array) - 4, 20);
	share_both_ways("a static array in the bss", bss_array, sizeof(bss_array), 30);
	share_file_mapping();
	refusals();
	scope_and_revoke();
	limits();
	for (enum change how = MUNMAP_MMAP; how <= FREE_MALLOC; how++)
		goes_stale(how);
	kept_by_mprotect_and_fork();
	kept_by_numa_hinting();
	kept_by_failed_migration();
	kept_by_checked_events();
	dmabuf_of_user_memory();

	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
