#include "util/wait.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/env.h"
#include "util/fatal.h"
#include "util/log.h"

#define CLOCK_EVERY 64	/* pauses between clock reads while spinning */
#define YIELD_SECONDS 0.002	/* after the spin: about 2000 yields on this VM's host */
#define PEER_CHECK_EVERY 0.001	/* seconds */
/*
 * A sleep on the bell wakes for the stop word (sc_stop_all rings) and for
 * what it waits for; the timeout only finds a node PE that died, the
 * SHMEMCOMM_TIMEOUT, and a stop word written across nodes. Each wake reads
 * /proc for every node PE: every millisecond cost 28% of a CPU under
 * emulation.
 */
#define BELL_CHECK_EVERY 0.01
/* the first sleep after arming: the longest a ring missed at that instant delays (sc_wait_ring) */
#define BELL_FIRST_SLEEP 0.0001
#define MAX_SLEEP_NS 1000000
#define SPIN_US_ALONE 50	/* a PE per CPU: spinning is the fast path */
/*
 * More PEs than CPUs: the awaited PE may need this CPU, so the first step
 * yields. 4 PEs on 2 CPUs, against the 1 us spin before (which the clock
 * read every CLOCK_EVERY pauses made 64 pauses, about 2 us): 8 B 5.4 us a
 * call, now 4.4; 64 KiB 20.3, now 17.3; 256 KiB 47.3, now 42.6 (medians of
 * 9 interleaved launches); 3 PEs 8 B 5.4, now 2.9.
 */
#define SPIN_US_SHARED 0

static double spin_seconds = SPIN_US_ALONE * 1e-6;

static struct sc_wait_watch watched;

/* Alive, and not a zombie waiting to be reaped. */
static int pid_alive(int pid)
{
	char path[64], state = 0;
	FILE *f;

	if (kill(pid, 0) && errno == ESRCH)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return errno != ENOENT;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state != 'Z' && state != 'X';
}

static void check_abort(void)
{
	const struct sc_abort *stop = watched.abort;
	int pe = stop ? atomic_load(&stop->pe) : 0;

	if (pe) {
		int status = atomic_load(&stop->status);

		if (atomic_load(&stop->fatal)) {
			fprintf(stderr, "shmemcomm: error: PE %d: PE %d stopped the job on an error (its message says which); exiting\n",
				watched.me, pe - 1);
			_exit(status ? status : 1);
		}
		/* shmem_global_exit: the status the caller gave, and for 0 no word */
		if (status)
			fprintf(stderr, "shmemcomm: PE %d: PE %d called shmem_global_exit(%d); exiting with that status\n",
				watched.me, pe - 1, status);
		fflush(NULL);
		_exit(status);
	}
}

int sc_wait_init(int cpus_shared)
{
	long fallback = cpus_shared ? SPIN_US_SHARED : SPIN_US_ALONE, us;

	if (sc_env_long("SHMEMCOMM_SPIN_US", fallback, 0, 1000000, &us))
		return -1;
	spin_seconds = (double)us * 1e-6;
	return 0;
}

static long futex(_Atomic unsigned int *word, int op, unsigned int value,
		  const struct timespec *timeout)
{
	/* not FUTEX_PRIVATE: the bell is in memory the node's processes share */
	return syscall(SYS_futex, word, op, value, timeout, NULL, 0);
}

void sc_wait_watch(const struct sc_wait_watch *watch)
{
	watched = *watch;
	/* a page the kernel cannot key a futex on: the bell is a memfd's so that it can */
	if (watched.bell && futex(&watched.bell->seq, FUTEX_WAKE, 1, NULL) < 0) {
		sc_warn("PE %d: long waits sleep for set times: the node's bell cannot be a futex (%s)",
			watched.me, strerror(errno));
		watched.bell = NULL;
	}
}

void sc_wait_begin(struct sc_wait *w, const char *what, int peer,
		   sc_wait_missing_fn *missing, void *missing_ctx)
{
	w->what = what;
	w->peer = peer;
	w->missing = missing;
	w->missing_ctx = missing_ctx;
	w->owed = NULL;
	w->steps = 0;
	w->yields = 0;
	w->sleeps = 0;
	w->start = 0;
	w->next_check = 0;
	w->lost = -1;
	w->rung = 0;
	w->armed = 0;
	w->seq = 0;
}

static void check_peers(struct sc_wait *w, double t)
{
	const struct sc_wait_watch *on = &watched;
	int me = on->me;

	for (int i = 0; i < on->local_size; i++) {
		int pe = on->local_pes[i];

		if (pe == me || pid_alive(on->pids[pe]))
			continue;
		/*
		 * A PE that has done its part may have left. Where the wait can
		 * tell, it says whether this one had; where not, the next step is
		 * fatal only if the caller's poll fails again, which lets through
		 * a PE that was the one awaited and left between that poll and now.
		 */
		if (w->owed && !w->owed(w->missing_ctx, pe))
			continue;
		w->lost = pe;
		return;
	}
	if (t - w->start > on->timeout) {
		if (w->missing) {
			const char *did = "never arrived";
			char pes[512];

			w->missing(w->missing_ctx, pes, sizeof(pes), &did);
			sc_fatal(1, "PE %d: %s waited %g s (SHMEMCOMM_TIMEOUT); PE%s %s %s",
				 me, w->what, on->timeout, strchr(pes, ',') || strchr(pes, '-') ? "s" : "",
				 pes, did);
		}
		if (w->peer >= 0)
			sc_fatal(1, "PE %d: %s waited %g s (SHMEMCOMM_TIMEOUT) for PE %d, which is alive but has not arrived",
				 me, w->what, on->timeout, w->peer);
		sc_fatal(1, "PE %d: %s waited %g s (SHMEMCOMM_TIMEOUT)", me, w->what,
			 on->timeout);
	}
}

/*
 * The first call counts this wait among the sleepers and reads the bell
 * before the caller polls again; a writer storing after that poll then
 * finds a sleeper and bumps the bell, so that the futex wait below returns
 * at once or is woken. A writer whose store was still in its store buffer
 * when it looked for sleepers can miss one arming at that instant
 * (sc_wait_ring has no fence): the first sleep is short, so such a miss
 * costs at most BELL_FIRST_SLEEP. The timeout keeps the checks of
 * sc_wait_step running.
 */
static void sleep_on_bell(struct sc_wait *w)
{
	struct sc_bell *bell = watched.bell;
	const struct timespec first = { 0, (long)(BELL_FIRST_SLEEP * 1e9) };
	const struct timespec check = { 0, (long)(BELL_CHECK_EVERY * 1e9) };

	if (!w->armed) {
		atomic_fetch_add(&bell->sleepers, 1);
		w->armed = 1;
	} else if (futex(&bell->seq, FUTEX_WAIT, w->seq, w->sleeps++ ? &check : &first) < 0 &&
		   errno != EAGAIN && errno != EINTR && errno != ETIMEDOUT) {
		sc_fatal(1, "PE %d: %s: sleeping on the node's bell failed: %s", watched.me,
			 w->what, strerror(errno));
	}
	w->seq = atomic_load(&bell->seq);
}

void sc_wait_end(struct sc_wait *w)
{
	if (w->armed) {
		atomic_fetch_sub(&watched.bell->sleepers, 1);
		w->armed = 0;
	}
}

/*
 * No fence between the caller's store and the look for sleepers: a fence
 * waits for that store's line to leave the peers' caches, a line's round
 * trip (0.03 us of a 0.3 us allreduce of 512 B), on every publish, for
 * the rare wait that arms at that instant (sleep_on_bell bounds its cost).
 * The bump is a locked operation, so a sleeper that is found sees the
 * store before the bell.
 */
void sc_wait_ring(void)
{
	struct sc_bell *bell = watched.bell;

	if (bell && atomic_load_explicit(&bell->sleepers, memory_order_relaxed)) {
		atomic_fetch_add(&bell->seq, 1);
		futex(&bell->seq, FUTEX_WAKE, INT_MAX, NULL);
	}
}

void sc_wait_step(struct sc_wait *w)
{
	double t;

	if (w->lost >= 0)
		sc_fatal(1, "PE %d: PE %d (pid %d) exited while PE %d waited in %s", watched.me,
			 w->lost, watched.pids[w->lost], watched.me, w->what);

	if (!w->yields) {
		if (!w->steps++) {
			w->start = sc_now();
			/* reading /proc costs tens of microseconds: not on short waits */
			w->next_check = w->start + PEER_CHECK_EVERY;
		}
		if (spin_seconds > 0 && w->steps % CLOCK_EVERY) {	/* 0: no pause at all */
			__builtin_ia32_pause();
			return;
		}
		t = sc_now();
		if (t - w->start < spin_seconds)
			return;
	} else {
		t = sc_now();
	}
	check_abort();
	if (t >= w->next_check) {
		check_peers(w, t);
		w->next_check = t + PEER_CHECK_EVERY;
	}
	w->yields++;
	/* by time, not count: under emulation a yield costs 20 times what it does here */
	if (t - w->start < spin_seconds + YIELD_SECONDS) {
		sched_yield();
	} else if (w->rung && watched.bell) {
		sleep_on_bell(w);
	} else {
		unsigned long extra = w->sleeps++;
		long ns = extra < 10 ? 50000L << extra : MAX_SLEEP_NS;
		struct timespec ts = { 0, ns < MAX_SLEEP_NS ? ns : MAX_SLEEP_NS };

		nanosleep(&ts, NULL);
	}
}

int sc_wait_broken(char *out, unsigned long len)
{
	const struct sc_wait_watch *on = &watched;
	const struct sc_abort *stop = on->abort;
	int pe = stop ? atomic_load(&stop->pe) : 0;

	if (pe) {
		if (atomic_load(&stop->fatal))
			snprintf(out, len, "PE %d stopped the job on an error (its message says which)",
				 pe - 1);
		else
			snprintf(out, len, "PE %d called shmem_global_exit(%d)", pe - 1,
				 atomic_load(&stop->status));
		return 1;
	}
	for (int i = 0; i < on->local_size; i++) {
		pe = on->local_pes[i];
		if (pe != on->me && !pid_alive(on->pids[pe])) {
			snprintf(out, len, "PE %d (pid %d) has exited", pe, on->pids[pe]);
			return 1;
		}
	}
	if (len)
		out[0] = 0;
	return 0;
}
