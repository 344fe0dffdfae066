#include "guest.h"

#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vgem.h"

long long read_number(const char *path)
{
	long long v;
	FILE *f = fopen(path, "r");

	if (!f)
		FAIL("cannot open %s: %s", path, strerror(errno));
	if (fscanf(f, "%lld", &v) != 1)
		FAIL("%s holds no number", path);
	fclose(f);
	return v;
}

void write_string(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(value, f) < 0 || fclose(f))
		FAIL("cannot write '%s' to %s: %s", value, path, strerror(errno));
}

long long vmstat(const char *name)
{
	char key[128];
	long long v;
	FILE *f;
	int refresh;

	/*
	 * The kernel folds each CPU's share of these counters in only now and
	 * then (6.12 by up to a hundred per CPU): a root write to stat_refresh
	 * folds them all first, so the figures are exact.
	 */
	refresh = geteuid() == 0 ? open("/proc/sys/vm/stat_refresh", O_WRONLY) : -1;
	if (refresh >= 0) {
		if (write(refresh, "1", 1) < 0)
			FAIL("cannot write /proc/sys/vm/stat_refresh: %s", strerror(errno));
		close(refresh);
	}
	f = fopen("/proc/vmstat", "r");

	if (!f)
		FAIL("cannot open /proc/vmstat: %s", strerror(errno));
	while (fscanf(f, "%127s %lld", key, &v) == 2)
		if (!strcmp(key, name)) {
			fclose(f);
			return v;
		}
	FAIL("/proc/vmstat has no %s", name);
}

static long long foll_pins(void)
{
	return vmstat("nr_foll_pin_acquired") - vmstat("nr_foll_pin_released");
}

void read_counters(struct counters *c)
{
	c->pinned_pages = read_number(SYSFS_DIR "pinned_pages");
	c->device_pages = read_number(SYSFS_DIR "device_pages");
	c->live_regions = read_number(SYSFS_DIR "live_regions");
	c->foll_pins = foll_pins();
}

/*
 * Other processes pin pages for a moment too (the guest's 9p file system
 * pins the buffers of its reads and writes, on 6.12): a baseline is the
 * least of a few looks, and the end is back at or below it.
 */
void read_baseline(struct counters *c)
{
	read_counters(c);
	for (int i = 0; i < 4; i++) {
		long long pins;

		usleep(20000);
		pins = foll_pins();
		if (pins < c->foll_pins)
			c->foll_pins = pins;
	}
}

void expect_counters(const struct counters *baseline)
{
	struct counters now;

	for (int i = 0; i < 500; i++) {
		read_counters(&now);
		if (now.pinned_pages == baseline->pinned_pages &&
		    now.device_pages == baseline->device_pages &&
		    now.live_regions == baseline->live_regions &&
		    now.foll_pins <= baseline->foll_pins)
			return;
		usleep(10000);
	}
	FAIL("counters not back at baseline: pinned_pages %lld (was %lld), device_pages %lld (was %lld), live_regions %lld (was %lld), FOLL_PIN pins %lld (was %lld)",
	     now.pinned_pages, baseline->pinned_pages, now.device_pages,
	     baseline->device_pages, now.live_regions,
	     baseline->live_regions, now.foll_pins, baseline->foll_pins);
}

void open_device(struct sc_kmod *dev)
{
	CHECK_OK(sc_kmod_open(dev));
}

void become(uid_t uid, gid_t gid)
{
	CHECK(setgroups(0, NULL) == 0);
	CHECK(setgid(gid) == 0);
	CHECK(setuid(uid) == 0);
}

int run_child(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid)
		_exit(fn(arg));
	CHECK(waitpid(pid, &status, 0) == pid);
	return status;
}

void expect_child_ok(int status, const char *what)
{
	if (WIFSIGNALED(status))
		FAIL("%s: killed by signal %d", what, WTERMSIG(status));
	if (WEXITSTATUS(status))
		FAIL("%s: exited with %d", what, WEXITSTATUS(status));
}

static int expect_log_fd = -1, expect_log_saved = -1;

void expect_log_begin(void)
{
	fflush(stderr);
	expect_log_fd = memfd_create("expected-log", MFD_CLOEXEC);
	CHECK(expect_log_fd >= 0);
	expect_log_saved = dup(STDERR_FILENO);
	CHECK(expect_log_saved >= 0);
	CHECK(dup2(expect_log_fd, STDERR_FILENO) == STDERR_FILENO);
}

void expect_log_end(const char *what, const char *want)
{
	char text[4096];
	ssize_t n;

	fflush(stderr);
	CHECK(dup2(expect_log_saved, STDERR_FILENO) == STDERR_FILENO);
	close(expect_log_saved);
	n = pread(expect_log_fd, text, sizeof(text) - 1, 0);
	close(expect_log_fd);
	text[n > 0 ? n : 0] = 0;
	if (!strstr(text, want))
		FAIL("%s logged \"%s\", not a line with \"%s\"", what, text, want);
}

static sigjmp_buf probe_jump;

static void probe_handler(int sig)
{
	siglongjmp(probe_jump, sig);
}

static int probe(volatile uint8_t *addr, int write, uint8_t value)
{
	struct sigaction sa = { .sa_handler = probe_handler }, old_bus, old_segv;
	volatile int sig;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(probe_jump, 1);
	if (!sig) {
		if (write)
			*addr = value;
		else
			(void)*addr;
	}
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

int probe_read(const volatile uint8_t *addr)
{
	return probe((volatile uint8_t *)addr, 0, 0);
}

int probe_write(volatile uint8_t *addr, uint8_t value)
{
	return probe(addr, 1, value);
}

uint32_t pattern_word(uint32_t seed, size_t i)
{
	uint32_t x = seed ^ (uint32_t)(i * 2654435761u);

	x ^= x >> 15;
	return x * 2246822519u;
}

void fill_pattern(void *addr, size_t len, uint32_t seed)
{
	uint32_t *w = addr;

	for (size_t i = 0; i < len / 4; i++)
		w[i] = pattern_word(seed, i);
}

int check_pattern(const void *addr, size_t len, uint32_t seed)
{
	const uint32_t *w = addr;

	for (size_t i = 0; i < len / 4; i++)
		if (w[i] != pattern_word(seed, i))
			return 0;
	return 1;
}

char *shmemctl_row(uint64_t handle, char *line, size_t len)
{
	char cmd[128], key[48], *row;
	FILE *out;

	snprintf(cmd, sizeof(cmd), "build/bin/shmemctl -j regions pid %d", (int)getpid());
	out = popen(cmd, "r");
	CHECK(out != NULL);
	CHECK(fgets(line, (int)len, out) != NULL);
	CHECK(pclose(out) == 0);
	snprintf(key, sizeof(key), "\"handle\":\"%#llx\"", (unsigned long long)handle);
	row = strstr(line, key);
	if (!row)
		FAIL("shmemctl has no row for handle %s: %s", key, line);
	return row;
}

long refusal_count(const char *reason)
{
	char line[4096], key[48], *at;
	FILE *out = popen("build/bin/shmemctl -j stats", "r");
	long n;

	CHECK(out != NULL);
	CHECK(fgets(line, (int)sizeof(line), out) != NULL);
	CHECK(pclose(out) == 0);
	snprintf(key, sizeof(key), "\"%s\":", reason);
	at = strstr(line, key);
	if (!at || sscanf(at + strlen(key), "%ld", &n) != 1)
		FAIL("shmemctl's stats have no refusal count %s: %s", key, line);
	return n;
}

long anon_huge_kb(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	int inside = 0;
	long kb = -1;

	CHECK(f != NULL);
	while (kb < 0 && fgets(line, sizeof(line), f)) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			inside = (uintptr_t)addr >= start && (uintptr_t)addr < end;
		else if (inside)
			sscanf(line, "AnonHugePages: %ld kB", &kb);
	}
	fclose(f);
	CHECK(kb >= 0);
	return kb;
}

uint8_t *huge_page(uint8_t **map)
{
	const size_t huge = HUGE_PAGE;
	uint8_t *buf;

	*map = mmap(NULL, HUGE_PAGE_MAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(*map != MAP_FAILED);
	buf = (uint8_t *)(((uintptr_t)*map + huge - 1) & ~(uintptr_t)(huge - 1));
	CHECK(madvise(buf, huge, MADV_HUGEPAGE) == 0);
	memset(buf, 1, huge);
	if (anon_huge_kb(buf) != 2048)
		FAIL("no transparent huge page at %p (AnonHugePages %ld kB): THP off in this kernel?",
		     (void *)buf, anon_huge_kb(buf));
	return buf;
}

int vgem_open(void)
{
	return vgem_card();
}

int vgem_dumb_dmabuf(int card, size_t size, int writable)
{
	int fd = vgem_export_dumb(card, size, writable);

	if (fd < 0)
		FAIL("vgem gave no dma-buf of %zu bytes: %s", size, strerror(-fd));
	return fd;
}
