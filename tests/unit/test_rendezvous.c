/* The rendezvous, with forked ranks on loopback: allgather and barrier in
 * rank order; a rank that never comes is named with the address, on rank 0
 * and (through its ABORT) on the ranks that came; a connection from another
 * job is ignored; rank lists format as ranges. */
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include "boot/rendezvous.h"
#include "util/ranks.h"
#include "capture.h"

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	CHECK(!bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	      !getsockname(fd, (struct sockaddr *)&a, &len));
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static struct sc_launch launch_of(int rank, int size, int port, const char *job)
{
	struct sc_launch l = { .launcher = "test", .rank = rank, .size = size, .port = port };

	snprintf(l.host, sizeof(l.host), "127.0.0.1");
	snprintf(l.job, sizeof(l.job), "%s", job);
	return l;
}

/* Runs @ranks of @size as children; each returns its check status. */
static void run_ranks(int size, const int *ranks, int n, int port, double timeout,
		      int (*body)(struct sc_boot *, int, int), const char *job, int *statuses)
{
	pid_t pids[16];

	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (!pids[i]) {
			struct sc_launch l = launch_of(ranks[i], size, port, job);
			struct sc_boot boot;
			int err = sc_boot_open(&boot, &l, timeout);

			_exit(err ? 10 : body(&boot, ranks[i], size));
		}
	}
	for (int i = 0; i < n; i++)
		CHECK(waitpid(pids[i], &statuses[i], 0) == pids[i]);
}

static int gather_body(struct sc_boot *boot, int rank, int size)
{
	int all[16] = { 0 }, mine = rank * 11;

	for (int round = 0; round < 3; round++) {
		if (sc_boot_allgather(boot, &mine, sizeof(mine), all) || sc_boot_barrier(boot))
			return 11;
		for (int r = 0; r < size; r++)
			if (all[r] != r * 11)
				return 12;
	}
	sc_boot_close(boot);
	return 0;
}

static void allgather_in_rank_order(void)
{
	int ranks[5] = { 4, 2, 0, 3, 1 }, statuses[5];

	/* started in a scrambled order: rank 0 is neither first nor last */
	run_ranks(5, ranks, 5, free_port(), 10, gather_body, "gather", statuses);
	for (int i = 0; i < 5; i++)
		CHECK(WIFEXITED(statuses[i]) && WEXITSTATUS(statuses[i]) == 0);
}

/* A rank that arrived: its next step must fail with rank 0's reason. */
static int expect_abort_body(struct sc_boot *boot, int rank, int size)
{
	(void)rank;
	(void)size;
	return sc_boot_barrier(boot) == -ECANCELED ? 0 : 13;
}

static void missing_rank_is_named(void)
{
	int ranks[2] = { 0, 1 }, statuses[2];
	struct capture cap;
	const char *text;
	char where[64];
	int port = free_port();

	capture_start(&cap);
	run_ranks(4, ranks, 2, port, 1, expect_abort_body, "missing", statuses);
	text = capture_end(&cap);
	/* rank 0's open times out; rank 1 learns why from it */
	CHECK(WEXITSTATUS(statuses[0]) == 10 && WEXITSTATUS(statuses[1]) == 0);
	CHECK_CONTAINS(text, "ranks 2-3 never arrived within 1 s (SHMEMCOMM_TIMEOUT)");
	snprintf(where, sizeof(where), "rendezvous at 127.0.0.1:%d", port);
	CHECK_CONTAINS(text, where);
}

static void other_job_is_ignored(void)
{
	int ranks[2] = { 0, 1 }, statuses[2], port = free_port();
	pid_t intruder = fork();

	CHECK(intruder >= 0);
	if (!intruder) {
		/* same port, another job: rank 0 must not count it */
		struct sc_launch l = launch_of(1, 2, port, "another-job");
		struct sc_boot boot;

		_exit(sc_boot_open(&boot, &l, 3) ? 0 : 1);
	}
	usleep(100000);
	run_ranks(2, ranks, 2, port, 10, gather_body, "this-job", statuses);
	CHECK(WIFEXITED(statuses[0]) && WEXITSTATUS(statuses[0]) == 0);
	CHECK(WIFEXITED(statuses[1]) && WEXITSTATUS(statuses[1]) == 0);
	kill(intruder, SIGKILL);
	waitpid(intruder, NULL, 0);
}

static void rank_lists(void)
{
	int some[] = { 1, 2, 3, 5, 7, 8 }, one[] = { 4 };
	char text[64];

	sc_format_ranks(some, 6, text, sizeof(text));
	CHECK(!strcmp(text, "1-3,5,7-8"));
	sc_format_ranks(one, 1, text, sizeof(text));
	CHECK(!strcmp(text, "4"));
	sc_format_ranks(some, 0, text, sizeof(text));
	CHECK(!strcmp(text, ""));
}

int main(void)
{
	rank_lists();
	allgather_in_rank_order();
	missing_rank_is_named();
	other_job_is_ignored();
	return 0;
}
