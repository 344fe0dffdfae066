/* not a test for shmemrun: it forks its own 4 PEs, and run-tests runs it once.
 * The library started through a caller's bootstrap (shmemx_bootstrap_t), as
 * a framework's store starts it: 4 forked PEs meet through an allgather over
 * shared memory, with no launcher variables and no port. Then teams of any
 * PEs made by their members only (shmemx_team_create), refused lists named on
 * every member, and shmemx_request_describe naming the PEs a request waits
 * for, and a PE that has exited, after leaving a barrier that another PE
 * is still in. First, shmemx_try_init_attr: an init that fails returns its
 * words instead of ending the process, and stays failed. */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemx.h>

#include "capture.h"

#define PES 4
#define MAX_BYTES 256

/* The board: each round's contributions, and a count of arrivals per round. */
struct board {
	_Atomic unsigned long arrived[2];
	_Atomic unsigned long left[2];
	char data[2][PES][MAX_BYTES];
};

struct shared_boot {
	struct board *board;
	int rank, size;		/* in this bootstrap: the world, or a team's members */
	const int *world_of;	/* this bootstrap's ranks as board slots */
	unsigned long round;
};

/* A sense-reversing exchange: write, arrive, wait for all, read, leave. */
static int board_allgather(void *ctx, const void *mine, size_t len, void *all)
{
	struct shared_boot *b = ctx;
	struct board *bd = b->board;
	int r = (int)(b->round++ & 1);

	if (len > MAX_BYTES)
		return -1;
	/* the round before this parity's last use must have been left by all */
	while (atomic_load(&bd->left[r]) % (unsigned long)b->size)
		sched_yield();
	memcpy(bd->data[r][b->world_of[b->rank]], mine, len);
	atomic_fetch_add(&bd->arrived[r], 1);
	while (atomic_load(&bd->arrived[r]) < (unsigned long)b->size)
		sched_yield();
	for (int i = 0; i < b->size; i++)
		memcpy((char *)all + (size_t)i * len, bd->data[r][b->world_of[i]], len);
	if (atomic_fetch_add(&bd->left[r], 1) + 1 == (unsigned long)b->size) {
		atomic_store(&bd->arrived[r], 0);
		atomic_store(&bd->left[r], 0);
	}
	return 0;
}

static const int identity[PES] = { 0, 1, 2, 3 };

/* How main() holds PEs 1 and 2 in the barrier before PE 3 leaves. */
struct hold {
	_Atomic int pe2_entering;
	_Atomic int pe1_go;
};

static shmemx_bootstrap_t bootstrap_of(struct shared_boot *b)
{
	return (shmemx_bootstrap_t){ b->rank, b->size, "the test's board", b, board_allgather };
}

static void pe_main(int me, struct board *world_board, struct board *team_boards,
		    struct hold *hold)
{
	struct shared_boot world = { world_board, me, PES, identity, 0 };
	shmemx_bootstrap_t boot = bootstrap_of(&world);
	/* the environment's transport: the run's back end, and a heap provider's (mp-device) */
	shmemx_init_attr_t attr = { .timeout_seconds = 30, .bootstrap = &boot };
	static const int odd[] = { 1, 3 }, three[] = { 3, 0, 2 };
	shmem_team_t team;
	float x[8], sum[8];

	shmemx_init_attr(&attr);
	CHECK(shmem_my_pe() == me && shmem_n_pes() == PES);
	for (int i = 0; i < 8; i++)
		x[i] = (float)(me + i);
	CHECK(shmemx_allreduce(SHMEM_TEAM_WORLD, sum, x, 8, SHMEMX_FP32, SHMEMX_SUM) == 0);
	CHECK(sum[0] == 6.0f && sum[7] == 34.0f);

	/* [1, 3]: only 1 and 3 call it; 0 and 2 go on with their own team meanwhile */
	if (me == 1 || me == 3) {
		struct shared_boot members = { &team_boards[0], me == 1 ? 0 : 1, 2, odd, 0 };
		shmemx_bootstrap_t mb = bootstrap_of(&members);

		CHECK(shmemx_team_create(odd, 2, &mb, &team) == 0);
		CHECK(shmem_team_my_pe(team) == members.rank && shmem_team_n_pes(team) == 2);
		CHECK(shmem_team_translate_pe(team, 1, SHMEM_TEAM_WORLD) == 3);
		CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 2, team) == -1);
		CHECK(shmemx_allreduce(team, sum, x, 8, SHMEMX_FP32, SHMEMX_SUM) == 0);
		CHECK(sum[0] == 4.0f);
		shmem_team_sync(team);
	}
	/* [3, 0, 2], in that order: team PE 0 is world PE 3 */
	if (me != 1) {
		struct shared_boot members = { &team_boards[1], me == 3 ? 0 : me == 0 ? 1 : 2, 3, three, 0 };
		shmemx_bootstrap_t mb = bootstrap_of(&members);
		int root_value = me == 3 ? 42 : 0, got = -1;

		CHECK(shmemx_team_create(three, 3, &mb, &team) == 0);
		CHECK(shmem_team_my_pe(team) == members.rank);
		CHECK(shmemx_broadcast(team, &got, &root_value, 1, SHMEMX_INT32, 0) == 0);
		CHECK(got == 42);
		/* lists that differ, and one naming a PE twice, fail on every member alike */
		{
			int mine[3] = { 3, 0, 2 }, twice[3] = { 3, 0, 3 };
			struct capture c;
			const char *said;
			int err;

			if (me == 2) {
				mine[1] = 1;
				mine[0] = 0;
				mine[2] = 2;
			}
			members.round = 0;
			members.board = &team_boards[2];
			mb = bootstrap_of(&members);
			capture_start(&c);
			err = shmemx_team_create(me == 2 ? mine : (me == 0 ? twice : three), 3, &mb, &team);
			said = capture_end(&c);
			CHECK(err == -1 && team == SHMEM_TEAM_INVALID);
			CHECK_CONTAINS(said, "shmemx_team_create");
		}
	}
	shmem_barrier_all();

	/* a request that waits: PE 0 starts an allreduce the others join later */
	if (me == 0) {
		shmemx_request_t req;
		char what[600];
		int done = 0;

		CHECK(shmemx_allreduce_nb(SHMEM_TEAM_WORLD, sum, x, 8, SHMEMX_FP32, SHMEMX_SUM, &req) == 0);
		CHECK(shmemx_test(&req, &done) == 0 && !done);
		CHECK(shmemx_request_describe(req, what, sizeof(what)) == 0);
		CHECK_CONTAINS(what, "waits for PEs 1-3");
		CHECK(shmemx_wait(&req) == 0);
	} else {
		usleep(200 * 1000);
		CHECK(shmemx_allreduce(SHMEM_TEAM_WORLD, sum, x, 8, SHMEMX_FP32, SHMEMX_SUM) == 0);
	}
	CHECK(sum[0] == 6.0f);

	/*
	 * A PE that leaves right after a barrier another PE is still in: PE 1
	 * comes last, and main() stops PE 2 after its first round, so that PE
	 * 3 is through (it hears from 2, then 1) while PE 0 waits for PE 2's
	 * second round. PE 3 did its part: its exit must not end PE 0's wait.
	 */
	if (me == 1) {
		while (!atomic_load(&hold->pe1_go))
			usleep(1000);
	}
	if (me == 2)
		atomic_store(&hold->pe2_entering, 1);
	shmem_barrier_all();

	/* PE 3 leaves; PE 0's next request can never complete, and says why */
	if (me == 3)
		_exit(0);
	if (me != 0) {
		/* stay until PE 0 has seen it, so that PE 3 is the one gone */
		while (!atomic_load(&team_boards[3].left[0]))
			usleep(1000);
		_exit(0);
	}
	if (me == 0) {
		shmemx_request_t req;
		char what[600];
		int lost = 0, done = 0;

		CHECK(shmemx_allreduce_nb(SHMEM_TEAM_WORLD, sum, x, 8, SHMEMX_FP32, SHMEMX_SUM, &req) == 0);
		for (int i = 0; i < 200 && !lost; i++) {
			usleep(10 * 1000);
			CHECK(shmemx_test(&req, &done) == 0 && !done);
			lost = shmemx_request_describe(req, what, sizeof(what));
		}
		CHECK(lost == 1);
		CHECK_CONTAINS(what, "PE 3");
		CHECK_CONTAINS(what, "has exited");
		atomic_store(&team_boards[3].left[0], 1);
	}
	/* the job cannot finish with a PE gone: no finalize */
	_exit(0);
}

static int failing_allgather(void *ctx, const void *mine, size_t len, void *all)
{
	(void)ctx, (void)mine, (void)len, (void)all;
	return -1;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	CHECK(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* An init whose bootstrap always fails: -1, its words in @why, and what it printed. */
static int try_failing_init(char *why, size_t len, const char **said)
{
	static struct capture c;
	shmemx_bootstrap_t broken = { 0, 2, "a failing store", NULL, failing_allgather };
	shmemx_init_attr_t attr = { .timeout_seconds = 5, .bootstrap = &broken };
	int err;

	why[0] = 0;
	capture_start(&c);
	err = shmemx_try_init_attr(&attr, why, len);
	*said = capture_end(&c);
	return err;
}

/* In a child of its own: an init that fails leaves the process going. */
static void try_init_fails(void)
{
	const char *said;
	char why[512];

	setenv("SHMEM_SYMMETRIC_SIZE", "12q", 1);
	CHECK(try_failing_init(why, sizeof(why), &said) == -1);
	CHECK_CONTAINS(why, "SHMEM_SYMMETRIC_SIZE");
	CHECK_CONTAINS(said, why);
	/* once failed, the library stays down in this process */
	unsetenv("SHMEM_SYMMETRIC_SIZE");
	CHECK(try_failing_init(why, sizeof(why), &said) == -1);
	CHECK_CONTAINS(why, "after a failed init");
	_exit(0);
}

/* The same past the settings: the bootstrap fails, and what init had opened is closed. */
static void try_init_fails_in_bootstrap(void)
{
	int fds = open_fds();
	const char *said;
	char why[512];

	CHECK(try_failing_init(why, sizeof(why), &said) == -1);
	CHECK_CONTAINS(why, "a failing store");
	CHECK(open_fds() == fds);
	_exit(0);
}

static int child_ok(void (*fn)(void), const char *what)
{
	pid_t pid = fork();
	int status;

	CHECK(pid >= 0);
	if (!pid) {
		alarm(30);
		fn();
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 1;
	fprintf(stderr, "%s: ended with status %#x\n", what, status);
	return 0;
}

/* Whether @pid sleeps in a system call a wait sleeps in: past its first round's store. */
static int sleeps_in_a_wait(pid_t pid)
{
	char path[64];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "r");
	CHECK(f);
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;	/* "running" */
	fclose(f);
	return nr == SYS_futex || nr == SYS_nanosleep || nr == SYS_clock_nanosleep;
}

/*
 * The hold of pe_main's last barrier: PE 2 stopped in it, PE 1 let in, PE
 * 3 through and gone, and PE 0 still waiting for PE 2, alive after many
 * checks of its peers (every 1 to 10 ms). 1 if all went so; PE 3 is
 * reaped, and so is PE 0 if it ended, each with its pid zeroed.
 */
static int pe3_leaves_a_barrier_early(pid_t *pids, struct hold *hold)
{
	int status, ok = 1;

	for (int ms = 0; !atomic_load(&hold->pe2_entering) || !sleeps_in_a_wait(pids[2]); ms++) {
		if (ms == 30000) {
			fprintf(stderr, "PE 2 did not wait in the barrier within 30 s\n");
			return 0;
		}
		usleep(1000);
	}
	CHECK(kill(pids[2], SIGSTOP) == 0);
	CHECK(waitpid(pids[2], &status, WUNTRACED) == pids[2] && WIFSTOPPED(status));
	atomic_store(&hold->pe1_go, 1);
	CHECK(waitpid(pids[3], &status, 0) == pids[3]);
	pids[3] = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "PE 3 ended with status %#x\n", status);
		ok = 0;
	}
	usleep(300 * 1000);
	if (waitpid(pids[0], &status, WNOHANG) == pids[0]) {
		fprintf(stderr, "PE 0 ended with status %#x while PE 2 was stopped in the barrier PE 3 had left\n",
			status);
		pids[0] = 0;
		ok = 0;
	}
	CHECK(kill(pids[2], SIGCONT) == 0);
	return ok;
}

int main(void)
{
	/* the world's board, three teams' boards, and one whose counter says PE 0 is done */
	struct board *boards = mmap(NULL, 5 * sizeof(struct board), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct hold *hold = mmap(NULL, sizeof(*hold), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pids[PES];
	int failed = 0;

	if (!child_ok(try_init_fails, "a bad setting") ||
	    !child_ok(try_init_fails_in_bootstrap, "a failing bootstrap"))
		return 1;
	CHECK(boards != MAP_FAILED && hold != MAP_FAILED);
	memset(boards, 0, 5 * sizeof(struct board));
	memset(hold, 0, sizeof(*hold));
	for (int i = 0; i < PES; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (!pids[i]) {
			alarm(60);
			pe_main(i, &boards[0], &boards[1], hold);
		}
	}
	if (!pe3_leaves_a_barrier_early(pids, hold)) {
		/* PEs 1 and 2 wait for PE 0's word: not for their alarms */
		for (int i = 0; i < PES; i++)
			if (pids[i])
				kill(pids[i], SIGKILL);
		failed = 1;
	}
	for (int i = 0; i < PES; i++) {
		int status;

		if (!pids[i])
			continue;
		CHECK(waitpid(pids[i], &status, 0) == pids[i]);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "PE %d ended with status %#x\n", i, status);
			failed = 1;
		}
	}
	return failed;
}
