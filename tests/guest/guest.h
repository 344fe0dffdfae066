/*
 * Helpers for the tests that run in the QEMU guest with shmemcomm.ko loaded.
 */
#ifndef SHMEMCOMM_TESTS_GUEST_H
#define SHMEMCOMM_TESTS_GUEST_H

#include <stdint.h>
#include <sys/types.h>

#include "check.h"
#include "mem/kmod.h"

#define SYSFS_DIR "/sys/class/misc/shmemcomm/"
#define PARAM_DIR "/sys/module/shmemcomm/parameters/"
#define UNPRIVILEGED_UID 1000
#define UNPRIVILEGED_GID 1000

/* A number read from a sysfs or proc file; fails the test if unreadable. */
long long read_number(const char *path);
void write_string(const char *path, const char *value);
/* A counter from /proc/vmstat, e.g. "nr_foll_pin_acquired". */
long long vmstat(const char *name);

struct counters {
	long long pinned_pages;
	long long device_pages;	/* what dma-buf regions cover */
	long long live_regions;
	long long foll_pins;	/* acquired - released */
};
void read_counters(struct counters *c);
/* read_counters for a test's start: the FOLL_PIN count is the least of a
 * few looks, since other processes pin pages for a moment too. */
void read_baseline(struct counters *c);
/* Fails unless the module's counters are back at @baseline and FOLL_PIN
 * pins at or below it, waiting up to 5 s for exits and deferred releases. */
void expect_counters(const struct counters *baseline);

void open_device(struct sc_kmod *dev);
/* setgid/setuid: drops every capability, CAP_IPC_LOCK included */
void become(uid_t uid, gid_t gid);

/* Runs @fn(arg) in a child; returns its wait status. */
int run_child(int (*fn)(void *arg), void *arg);
/* Fails unless the child exited with 0. */
void expect_child_ok(int status, const char *what);

/* Touches @addr: 0 if it could, else the signal it got (SIGBUS, SIGSEGV). */
int probe_read(const volatile uint8_t *addr);
int probe_write(volatile uint8_t *addr, uint8_t value);

/*
 * An expected error: what the library logs to stderr between the two is
 * captured, not printed, and must contain @want; a log without it fails
 * the test, showing what was logged instead.
 */
void expect_log_begin(void);
void expect_log_end(const char *what, const char *want);

/* CHECK_ERR for a call that logs its refusal: the log is checked, not printed. */
#define CHECK_ERR_LOGGED(expr, err, want)                                  \
	do {                                                               \
		long logged_ret_;                                          \
		expect_log_begin();                                        \
		logged_ret_ = (expr);                                      \
		expect_log_end(#expr, want);                               \
		if (logged_ret_ != -(err))                                 \
			FAIL("%s returned %ld (%s), wanted -%s", #expr,    \
			     logged_ret_, strerror((int)-logged_ret_), #err); \
	} while (0)

/*
 * This process's region @handle as `shmemctl -j regions` shows it: the rest
 * of the JSON line (read into @line) from its "handle" on; fails the test
 * if there is none.
 */
char *shmemctl_row(uint64_t handle, char *line, size_t len);
/* The module's count of refusals for @reason, from shmemctl -j stats. */
long refusal_count(const char *reason);

/*
 * A transparent huge page: HUGE_PAGE bytes of anonymous memory, aligned and
 * mapped by one PMD (fails the test if the kernel gives small pages). *@map
 * is the mapping to munmap, HUGE_PAGE_MAP bytes from it.
 */
#define HUGE_PAGE	(2u << 20)
#define HUGE_PAGE_MAP	(2 * HUGE_PAGE)
uint8_t *huge_page(uint8_t **map);
/* The AnonHugePages of the mapping that holds @addr, in kB, from /proc/self/smaps. */
long anon_huge_kb(const void *addr);

/* vgem's card (the stand-in GPU driver), or -1 when vgem is not loaded */
int vgem_open(void);
/*
 * A vgem dumb buffer of @size bytes (a multiple of 4096) exported with
 * PRIME, as a GPU runtime hands out device memory: its dma-buf fd,
 * read-write or read-only. Fails the test if vgem refuses.
 */
int vgem_dumb_dmabuf(int card, size_t size, int writable);

void fill_pattern(void *addr, size_t len, uint32_t seed);
int check_pattern(const void *addr, size_t len, uint32_t seed);
/* Word @i that fill_pattern(@seed) writes (a device reads word 0 to check it) */
uint32_t pattern_word(uint32_t seed, size_t i);

#endif
