#include "sync/wait.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/state.h"
#include "util/env.h"

#define CLOCK_EVERY 64	/* pauses between clock reads while spinning */
#define YIELD_STEPS 2000
#define PEER_CHECK_EVERY 0.001	/* seconds */
#define MAX_SLEEP_NS 1000000
#define SPIN_US_ALONE 50	/* a PE per CPU: spinning is the fast path */
#define SPIN_US_SHARED 1	/* more PEs than CPUs: the awaited PE may need this CPU */

static double spin_seconds = SPIN_US_ALONE * 1e-6;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	struct sc_internal *mine = sc_internal_of(sc.me);
	int pe = atomic_load(&mine->abort_pe);

	if (pe) {
		int status = atomic_load(&mine->abort_status);

		if (atomic_load(&mine->abort_fatal))
			fprintf(stderr, "shmemcomm: error: PE %d: PE %d stopped the job on an error (its message says which); exiting\n",
				sc.me, pe - 1);
		else
			fprintf(stderr, "shmemcomm: error: PE %d: PE %d called shmem_global_exit(%d); exiting\n",
				sc.me, pe - 1, status);
		_exit(status ? status : 1);
	}
}

int sc_wait_init(int local_pes)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long fallback = local_pes > cpus ? SPIN_US_SHARED : SPIN_US_ALONE, us;

	if (sc_env_long("SHMEMCOMM_SPIN_US", fallback, 0, 1000000, &us))
		return -1;
	spin_seconds = (double)us * 1e-6;
	return 0;
}

void sc_wait_begin(struct sc_wait *w, const char *what, int peer,
		   void (*missing)(char *out, unsigned long len))
{
	w->what = what;
	w->peer = peer;
	w->missing = missing;
	w->missing_did = "never arrived";
	w->steps = 0;
	w->yields = 0;
	w->start = 0;
	w->next_check = 0;
}

static void check_peers(struct sc_wait *w, double t)
{
	const struct sc_node *node = &sc.node;

	for (int i = 0; i < node->local_size; i++) {
		int pe = node->local_pes[i];

		if (pe != sc.me && !pid_alive(node->pids[pe]))
			sc_fatal(1, "PE %d: PE %d (pid %d) exited while PE %d waited in %s",
				 sc.me, pe, node->pids[pe], sc.me, w->what);
	}
	if (t - w->start > sc.timeout) {
		if (w->missing) {
			char pes[512];

			w->missing(pes, sizeof(pes));
			sc_fatal(1, "PE %d: %s waited %g s (SHMEMCOMM_TIMEOUT); PE%s %s %s",
				 sc.me, w->what, sc.timeout, strchr(pes, ',') || strchr(pes, '-') ? "s" : "",
				 pes, w->missing_did);
		}
		if (w->peer >= 0)
			sc_fatal(1, "PE %d: %s waited %g s (SHMEMCOMM_TIMEOUT) for PE %d, which is alive but has not arrived",
				 sc.me, w->what, sc.timeout, w->peer);
		sc_fatal(1, "PE %d: %s waited %g s (SHMEMCOMM_TIMEOUT)", sc.me, w->what,
			 sc.timeout);
	}
}

void sc_wait_step(struct sc_wait *w)
{
	double t;

	if (!w->yields) {
		if (!w->steps++) {
			w->start = now();
			/* reading /proc costs tens of microseconds: not on short waits */
			w->next_check = w->start + PEER_CHECK_EVERY;
		}
		if (w->steps % CLOCK_EVERY) {
			__builtin_ia32_pause();
			return;
		}
		t = now();
		if (t - w->start < spin_seconds)
			return;
	} else {
		t = now();
	}
	check_abort();
	if (t >= w->next_check) {
		check_peers(w, t);
		w->next_check = t + PEER_CHECK_EVERY;
	}
	if (w->yields++ < YIELD_STEPS) {
		sched_yield();
	} else {
		unsigned long extra = w->yields - YIELD_STEPS;
		long ns = extra < 10 ? 50000L << extra : MAX_SLEEP_NS;
		struct timespec ts = { 0, ns < MAX_SLEEP_NS ? ns : MAX_SLEEP_NS };

		nanosleep(&ts, NULL);
	}
}
