/* The rendezvous, with forked ranks on loopback: allgather and barrier in
 * rank order; a rank that never comes is named with the address, on rank 0
 * and (through its ABORT) on the ranks that came; a connection from another
 * job is refused; hostile clients (garbage, a cut-off header, a hello
 * without the secret, another job's hello replayed, 1,000 connections at
 * once) neither stop nor stall the job and are logged with their address;
 * a process holding the port without the secret is not taken for rank 0;
 * rank lists format as ranges. */
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include "boot/rendezvous.h"
#include "util/clock.h"
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
		      int (*body)(struct sc_tcp *, int, int), const char *job, int *statuses)
{
	pid_t pids[16];

	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0);
		if (!pids[i]) {
			struct sc_launch l = launch_of(ranks[i], size, port, job);
			struct sc_tcp boot;
			int err = sc_tcp_open(&boot, &l, timeout);

			_exit(err ? 10 : body(&boot, ranks[i], size));
		}
	}
	for (int i = 0; i < n; i++)
		CHECK(waitpid(pids[i], &statuses[i], 0) == pids[i]);
}

static int gather_body(struct sc_tcp *boot, int rank, int size);

static pid_t async_rank;

/* Starts @rank of @size in the background (async_rank), running gather_body. */
static void run_ranks_async(int size, int rank, int port, const char *job, int *status)
{
	(void)status;
	async_rank = fork();
	CHECK(async_rank >= 0);
	if (!async_rank) {
		struct sc_launch l = launch_of(rank, size, port, job);
		struct sc_tcp tcp;

		_exit(sc_tcp_open(&tcp, &l, 10) ? 10 : gather_body(&tcp, rank, size));
	}
}

static int gather_body(struct sc_tcp *boot, int rank, int size)
{
	int all[16] = { 0 }, mine = rank * 11;

	for (int round = 0; round < 3; round++) {
		if (sc_tcp_allgather(boot, &mine, sizeof(mine), all) || sc_tcp_allgather(boot, &mine, 0, all))
			return 11;
		for (int r = 0; r < size; r++)
			if (all[r] != r * 11)
				return 12;
	}
	sc_tcp_close(boot);
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
static int expect_abort_body(struct sc_tcp *boot, int rank, int size)
{
	(void)rank;
	(void)size;
	return sc_tcp_allgather(boot, NULL, 0, NULL) == -ECANCELED ? 0 : 13;
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
	int statuses[2], port = free_port();
	struct capture cap;
	const char *text;
	pid_t intruder;

	capture_start(&cap);
	run_ranks_async(2, 0, port, "this-job", &statuses[0]);
	intruder = fork();
	CHECK(intruder >= 0);
	if (!intruder) {
		/* same port, another job: refused, and rank 0 must not count it */
		struct sc_launch l = launch_of(1, 2, port, "another-job");
		struct sc_tcp boot;

		_exit(sc_tcp_open(&boot, &l, 3) == -ECANCELED ? 0 : 1);
	}
	CHECK(waitpid(intruder, &statuses[1], 0) == intruder && WIFEXITED(statuses[1]) &&
	      WEXITSTATUS(statuses[1]) == 0);
	run_ranks(2, (int[]){ 1 }, 1, port, 10, gather_body, "this-job", &statuses[1]);
	CHECK(waitpid(async_rank, &statuses[0], 0) == async_rank);
	text = capture_end(&cap);
	CHECK(WIFEXITED(statuses[0]) && WEXITSTATUS(statuses[0]) == 0);
	CHECK(WIFEXITED(statuses[1]) && WEXITSTATUS(statuses[1]) == 0);
	CHECK_CONTAINS(text,
		       "refused this process: it is of job another-job, and this is job this-job's rendezvous");
}

static int connect_to(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	for (int tries = 0; tries < 500; tries++) {
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			return fd;
		usleep(10000);
	}
	close(fd);
	return -1;
}

/* the rendezvous's challenge: a 16-byte header and a 16-byte nonce */
static void read_challenge(int fd)
{
	char challenge[32];
	size_t got = 0;

	while (got < sizeof(challenge)) {
		ssize_t n = read(fd, challenge + got, sizeof(challenge) - got);

		if (n <= 0)
			_exit(20);
		got += (size_t)n;
	}
}

/*
 * Between a rank and rank 0: passes the bytes both ways and keeps the
 * first @len the rank sent (its hello) in @hello_file, for a replay.
 */
static void record_hello(int listen_port, int root_port, const char *hello_file)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)listen_port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0), client, root;
	char buf[4096], kept[4096];
	size_t n_kept = 0;

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1))
		_exit(30);
	client = accept(lfd, NULL, NULL);
	root = connect_to(root_port);
	if (client < 0 || root < 0)
		_exit(31);
	for (;;) {
		struct pollfd p[2] = { { .fd = client, .events = POLLIN },
				       { .fd = root, .events = POLLIN } };
		ssize_t n;

		if (poll(p, 2, 10000) <= 0)
			break;
		if (p[0].revents) {
			n = read(client, buf, sizeof(buf));
			if (n <= 0 || write(root, buf, (size_t)n) != n)
				break;
			if (n_kept + (size_t)n <= sizeof(kept)) {
				memcpy(kept + n_kept, buf, (size_t)n);
				n_kept += (size_t)n;
			}
		}
		if (p[1].revents) {
			n = read(root, buf, sizeof(buf));
			if (n <= 0 || write(client, buf, (size_t)n) != n)
				break;
		}
	}
	FILE *f = fopen(hello_file, "w");

	if (!f || fwrite(kept, 1, n_kept, f) != n_kept)
		_exit(32);
	fclose(f);
	_exit(0);
}

enum attack { GARBAGE, CUT_HEADER, WRONG_SECRET, REPLAY, FLOOD, ATTACKS };

static void attack(enum attack how, int port, const char *replay_file)
{
	int fd;

	if (how == WRONG_SECRET) {
		/* a well-formed hello of this job's rank 1, from a process without the secret */
		struct sc_launch l = launch_of(1, 2, port, "hostile");
		struct sc_tcp tcp;

		setenv("SHMEMCOMM_JOB_SECRET", "not the job's secret at all", 1);
		_exit(sc_tcp_open(&tcp, &l, 3) == -ECANCELED ? 0 : 40);
	}
	if (how == FLOOD) {
		struct rlimit lim;
		int *fds = calloc(1000, sizeof(int));

		getrlimit(RLIMIT_NOFILE, &lim);
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
		for (int i = 0; i < 1000; i++)
			fds[i] = connect_to(port);
		sleep(3);
		_exit(0);
	}
	fd = connect_to(port);
	if (fd < 0)
		_exit(41);
	read_challenge(fd);
	if (how == GARBAGE) {
		char junk[200];

		memset(junk, 0x5a, sizeof(junk));
		if (write(fd, junk, sizeof(junk)) < 0)
			_exit(42);
	} else if (how == CUT_HEADER) {
		uint32_t half[2] = { 0x53434232u, 2 };	/* magic and type: 8 of 16 bytes */

		if (write(fd, half, sizeof(half)) < 0)
			_exit(43);
	} else if (how == REPLAY) {
		char bytes[4096];
		FILE *f = fopen(replay_file, "r");
		size_t n = f ? fread(bytes, 1, sizeof(bytes), f) : 0;

		if (!n || write(fd, bytes, n) != (ssize_t)n)
			_exit(44);
	}
	sleep(8);	/* past the handshake's 5 s: rank 0 must not wait for it */
	_exit(0);
}

static void hostile_clients(void)
{
	int statuses[2], port = free_port(), proxy_port = free_port();
	char replay_file[] = "/tmp/sc-replay-XXXXXX";
	pid_t attackers[ATTACKS], recorder, ranks[2];
	struct capture cap;
	const char *text;
	double start;

	/* job "hostile" once, through a recorder: rank 1's hello, for the replay */
	close(mkstemp(replay_file));
	recorder = fork();
	if (!recorder)
		record_hello(proxy_port, port, replay_file);
	usleep(100000);
	for (int r = 0; r < 2; r++) {
		ranks[r] = fork();
		if (!ranks[r]) {
			struct sc_launch l = launch_of(r, 2, r ? proxy_port : port, "hostile");
			struct sc_tcp tcp;

			_exit(sc_tcp_open(&tcp, &l, 10) ? 10 : gather_body(&tcp, r, 2));
		}
	}
	for (int r = 0; r < 2; r++)
		CHECK(waitpid(ranks[r], &statuses[r], 0) == ranks[r] && WIFEXITED(statuses[r]) &&
		      WEXITSTATUS(statuses[r]) == 0);
	CHECK(waitpid(recorder, &statuses[0], 0) == recorder && WEXITSTATUS(statuses[0]) == 0);

	/* the same job's name and secret again, its rank 1 late and every attack first */
	capture_start(&cap);
	start = sc_now();
	ranks[0] = fork();
	if (!ranks[0]) {
		struct sc_launch l = launch_of(0, 2, port, "hostile");
		struct sc_tcp tcp;

		_exit(sc_tcp_open(&tcp, &l, 20) ? 10 : gather_body(&tcp, 0, 2));
	}
	for (int a = 0; a < ATTACKS; a++) {
		attackers[a] = fork();
		if (!attackers[a])
			attack((enum attack)a, port, replay_file);
	}
	usleep(500000);
	run_ranks(2, (int[]){ 1 }, 1, port, 20, gather_body, "hostile", &statuses[1]);
	CHECK(waitpid(ranks[0], &statuses[0], 0) == ranks[0]);
	text = capture_end(&cap);
	/* in, and not held up by the clients that stall: they have 5 s, the job starts in less */
	CHECK(WIFEXITED(statuses[0]) && WEXITSTATUS(statuses[0]) == 0);
	CHECK(WIFEXITED(statuses[1]) && WEXITSTATUS(statuses[1]) == 0);
	CHECK(sc_now() - start < 5);
	for (int a = 0; a < ATTACKS; a++) {
		int status;

		kill(attackers[a], SIGKILL);
		CHECK(waitpid(attackers[a], &status, 0) == attackers[a]);
		if (a == WRONG_SECRET)
			CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	unlink(replay_file);
	/* each named with its address: garbage, the hello without the secret and the replayed one */
	CHECK_CONTAINS(text, "refused a connection from 127.0.0.1:");
	CHECK_CONTAINS(text, "what it sent is not shmemcomm's rendezvous protocol");
	CHECK(strstr(text, ": its proof of the job secret is wrong") &&
	      strstr(strstr(text, ": its proof of the job secret is wrong") + 1,
		     ": its proof of the job secret is wrong"));
	/* the cut-off header, and the flood's last ones, still waiting when the job was in */
	CHECK_CONTAINS(text, "it was still in its handshake when every rank had come");
	CHECK_CONTAINS(text, "too many connections in their handshake at once");
	CHECK_CONTAINS(text, "connections in all: too many connections");
	/* the process without the secret hears why */
	CHECK_CONTAINS(text, "(job hostile) refused this process: its proof of the job secret is wrong");
}

/* A process that holds the port and answers like rank 0, without the secret. */
static void false_root(void)
{
	int port = free_port(), status;
	struct capture cap;
	pid_t squatter, rank;
	const char *text;
	char expect[128];

	capture_start(&cap);
	squatter = fork();
	if (!squatter) {
		struct sc_launch l = launch_of(0, 2, port, "squat");
		struct sc_tcp tcp;

		setenv("SHMEMCOMM_JOB_SECRET", "the squatter's own secret", 1);
		_exit(sc_tcp_open(&tcp, &l, 3) ? 0 : 1);
	}
	usleep(100000);
	rank = fork();
	if (!rank) {
		struct sc_launch l = launch_of(1, 2, port, "squat");
		struct sc_tcp tcp;

		_exit(sc_tcp_open(&tcp, &l, 3) ? 0 : 1);
	}
	CHECK(waitpid(rank, &status, 0) == rank && WEXITSTATUS(status) == 0);
	kill(squatter, SIGKILL);
	waitpid(squatter, NULL, 0);
	snprintf(expect, sizeof(expect), "rendezvous at 127.0.0.1:%d (job squat) refused this process", port);
	/*
	 * Each side refuses the other: the squatter, the rank's proof; and had
	 * the squatter welcomed it, the rank would refuse the welcome
	 */
	text = capture_end(&cap);
	CHECK_CONTAINS(text, expect);
}

/* Where the secret comes from, and what is refused: short, or readable by others. */
static void secrets(void)
{
	char home[] = "/tmp/sc-home-XXXXXX", path[256], text_file[300];
	struct sc_secret a, b;
	struct capture cap;
	const char *text;
	struct stat st;
	FILE *f;

	CHECK(mkdtemp(home));
	unsetenv("SHMEMCOMM_JOB_SECRET");
	unsetenv("SHMEMCOMM_SECRET_FILE");
	setenv("HOME", home, 1);
	/* none yet: made, 0600, and the same key read back */
	CHECK_OK(sc_secret_find(&a));
	snprintf(path, sizeof(path), "%s/.shmemcomm/secret", home);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0600 && st.st_size == 64);
	CHECK(!strcmp(a.source, path));
	CHECK_OK(sc_secret_find(&b));
	CHECK(!memcmp(a.key, b.key, sizeof(a.key)));

	chmod(path, 0644);
	capture_start(&cap);
	CHECK_ERR(sc_secret_find(&a), EPERM);
	text = capture_end(&cap);
	CHECK_CONTAINS(text, "no one else may read or write (it is mode 0644");
	CHECK_CONTAINS(text, "chmod 600 it");

	snprintf(text_file, sizeof(text_file), "%s/short", home);
	f = fopen(text_file, "w");
	CHECK(f && fputs("too short", f) >= 0 && !fclose(f));
	chmod(text_file, 0600);
	setenv("SHMEMCOMM_SECRET_FILE", text_file, 1);
	capture_start(&cap);
	CHECK_ERR(sc_secret_find(&a), EINVAL);
	text = capture_end(&cap);
	CHECK_CONTAINS(text, "has 9 bytes; it needs at least 16");

	setenv("SHMEMCOMM_JOB_SECRET", "tiny", 1);
	capture_start(&cap);
	CHECK_ERR(sc_secret_find(&a), EINVAL);
	text = capture_end(&cap);
	CHECK_CONTAINS(text, "SHMEMCOMM_JOB_SECRET has 4 characters; a secret needs at least 16");
	setenv("SHMEMCOMM_JOB_SECRET", "one secret for the whole job", 1);
	CHECK_OK(sc_secret_find(&a));
	CHECK(!strcmp(a.source, "SHMEMCOMM_JOB_SECRET"));

	unlink(text_file);
	unlink(path);
	snprintf(path, sizeof(path), "%s/.shmemcomm", home);
	rmdir(path);
	rmdir(home);
	unsetenv("SHMEMCOMM_SECRET_FILE");
}

/* SHA-256 and HMAC-SHA-256 against FIPS 180-2's and RFC 4231's vectors */
static void digests(void)
{
	static const char *const abc_digest =
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
	static const char *const rfc4231_case2 =
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
	const void *parts[1] = { "what do ya want for nothing?" };
	size_t lens[1] = { 28 };
	uint8_t digest[SC_SHA256_BYTES];
	struct sc_sha256 s;
	char hex[65];

	sc_sha256_init(&s);
	sc_sha256_update(&s, "abc", 3);
	sc_sha256_final(&s, digest);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	CHECK(!strcmp(hex, abc_digest));
	sc_hmac_sha256("Jefe", 4, parts, lens, 1, digest);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	CHECK(!strcmp(hex, rfc4231_case2));
}

/* The bootstrap's binomial tree: parents, children, and each subtree a range */
static void tree_shape(void)
{
	int children[SC_TREE_MAX_CHILDREN], n, covered[37] = { 0 };

	CHECK_EQ(sc_tree_parent(1), 0);
	CHECK_EQ(sc_tree_parent(6), 4);
	CHECK_EQ(sc_tree_parent(12), 8);
	n = sc_tree_children(0, 37, children);
	CHECK_EQ(n, 6);	/* 1 2 4 8 16 32 */
	CHECK_EQ(children[5], 32);
	n = sc_tree_children(8, 37, children);
	CHECK(n == 3 && children[0] == 9 && children[1] == 10 && children[2] == 12);
	CHECK_EQ(sc_tree_children(32, 37, children), 3);	/* 33 34 36: 40 is past the end */
	CHECK_EQ(sc_tree_end(32, 37), 37);
	CHECK_EQ(sc_tree_end(0, 37), 37);
	CHECK_EQ(sc_tree_children(7, 37, children), 0);
	/* every rank is in exactly its parent's subtree range, and each child's range is in it */
	for (int r = 1; r < 37; r++) {
		int p = sc_tree_parent(r);

		CHECK(r > p && r < sc_tree_end(p, 37));
		CHECK(sc_tree_end(r, 37) <= sc_tree_end(p, 37));
		covered[r]++;
	}
	for (int r = 1; r < 37; r++)
		CHECK_EQ(covered[r], 1);
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
	digests();
	secrets();
	/* every rank of these tests, unless one says otherwise */
	setenv("SHMEMCOMM_JOB_SECRET", "the unit test's job secret", 1);
	rank_lists();
	tree_shape();
	allgather_in_rank_order();
	missing_rank_is_named();
	other_job_is_ignored();
	hostile_clients();
	false_root();
	return 0;
}
