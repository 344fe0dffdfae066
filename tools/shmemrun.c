/*
 * shmemrun: starts N PEs of a program on this host.
 *
 *   shmemrun -n N [--no-prefix] [--] PROGRAM [ARGS...]
 *
 * Every line a PE prints comes out prefixed with "[rank] ". Signals sent to
 * shmemrun (INT, TERM, HUP, QUIT, USR1, USR2) go to every PE; a second INT
 * or TERM kills them. When a PE fails (non-zero exit or a signal), shmemrun
 * names it, stops the others (TERM, then KILL after 2 s) and exits with
 * that PE's status (128 + signal for a signal). Each PE runs in its own
 * process group, which shmemrun kills at the end, so nothing a PE started
 * is left behind; a PE also dies if shmemrun itself is killed.
 *
 * A PE that calls shmem_global_exit(status) says so on a pipe every PE
 * inherits (SHMEMCOMM_LAUNCHER_FD): the PEs waiting in the library exit
 * with that status by themselves, shmemrun stops the others after 0.1 s
 * (TERM, then KILL), and exits with that status too.
 *
 * Each job gets a random secret (SHMEMCOMM_JOB_SECRET), which its PEs prove
 * at the rendezvous: another user's process that connects to the port is
 * refused.
 */

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the library's own limit (SC_PE_LIMIT): what its locks' tickets can count */
#define MAX_PES ((1 << 24) - 1)
#define GRACE_SECONDS 2.0
#define GLOBAL_EXIT_SECONDS 0.1	/* for PEs in a wait to see the stop word and exit */

struct stream {
	int fd;		/* read end, -1 at EOF */
	FILE *out;
	char buf[4096];
	size_t used;
};

struct pe {
	pid_t pid;	/* also its process group */
	int running;
	int status;
	struct stream streams[2];	/* stdout, stderr */
};

static struct pe *pes;
static int npes, prefix = 1;
static int control[2] = { -1, -1 };	/* the PEs write, shmemrun reads */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: shmemrun -n N [--no-prefix] [--] PROGRAM [ARGS...]\n");
}

/* A free loopback port for rank 0's rendezvous. */
static int free_port(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&addr, sizeof(addr)) &&
	    !getsockname(fd, (struct sockaddr *)&addr, &len))
		port = ntohs(addr.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static void emit(int rank, struct stream *s, const char *line, size_t len)
{
	if (prefix)
		fprintf(s->out, "[%d] ", rank);
	fwrite(line, 1, len, s->out);
	if (!len || line[len - 1] != '\n')
		fputc('\n', s->out);
	fflush(s->out);
}

/* Reads what a PE wrote; prints the complete lines. */
static void drain(int rank, struct stream *s)
{
	ssize_t n = read(s->fd, s->buf + s->used, sizeof(s->buf) - s->used);
	char *start = s->buf, *nl;

	if (n <= 0) {
		if (n < 0 && errno == EINTR)
			return;
		if (s->used)
			emit(rank, s, s->buf, s->used);
		s->used = 0;
		close(s->fd);
		s->fd = -1;
		return;
	}
	s->used += (size_t)n;
	while ((nl = memchr(start, '\n', s->used - (size_t)(start - s->buf)))) {
		emit(rank, s, start, (size_t)(nl - start + 1));
		start = nl + 1;
	}
	s->used -= (size_t)(start - s->buf);
	memmove(s->buf, start, s->used);
	/* a line longer than the buffer goes out in pieces */
	if (s->used == sizeof(s->buf)) {
		emit(rank, s, s->buf, s->used);
		s->used = 0;
	}
}

static void signal_all(int sig)
{
	for (int r = 0; r < npes; r++)
		if (pes[r].pid > 0)
			kill(-pes[r].pid, sig);
}

static void describe(int rank, int status)
{
	if (WIFSIGNALED(status))
		fprintf(stderr, "shmemrun: PE %d (pid %d) was killed by signal %d (%s)\n", rank,
			pes[rank].pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		fprintf(stderr, "shmemrun: PE %d (pid %d) exited with status %d\n", rank,
			pes[rank].pid, WEXITSTATUS(status));
}

static int exit_code(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/*
 * The PEs' lines on the control pipe; the first "global_exit RANK STATUS"
 * sets *@rank and *@status. Whether one came now.
 */
static int read_control(int *rank, int *status)
{
	static char buf[4096];
	static size_t used;
	int came = 0;
	ssize_t n;

	while ((n = read(control[0], buf + used, sizeof(buf) - 1 - used)) > 0) {
		char *line = buf, *end;

		used += (size_t)n;
		buf[used] = 0;
		while ((end = strchr(line, '\n'))) {
			int r, st;

			*end = 0;
			if (sscanf(line, "global_exit %d %d", &r, &st) == 2 && *rank < 0 &&
			    r >= 0 && r < npes) {
				*rank = r;
				*status = st;
				came = 1;
			}
			line = end + 1;
		}
		used -= (size_t)(line - buf);
		memmove(buf, line, used);
		if (used == sizeof(buf) - 1)
			used = 0;	/* no line is this long: not ours */
	}
	if (!n) {	/* every PE has ended: poll no more */
		close(control[0]);
		control[0] = -1;
	}
	return came;
}

static pid_t start_pe(int rank, char **argv, const char *bootstrap, const char *job,
		      const char *secret, const sigset_t *old_mask)
{
	int out[2], err[2];
	char value[32];
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, old_mask, NULL);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		snprintf(value, sizeof(value), "%d", rank);
		setenv("SHMEMCOMM_RANK", value, 1);
		snprintf(value, sizeof(value), "%d", npes);
		setenv("SHMEMCOMM_SIZE", value, 1);
		setenv("SHMEMCOMM_BOOTSTRAP", bootstrap, 1);
		setenv("SHMEMCOMM_JOB", job, 1);
		setenv("SHMEMCOMM_JOB_SECRET", secret, 1);
		fcntl(control[1], F_SETFD, 0);
		snprintf(value, sizeof(value), "%d", control[1]);
		setenv("SHMEMCOMM_LAUNCHER_FD", value, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "shmemrun: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);	/* also here: no race with signal_all */
	close(out[1]);
	close(err[1]);
	pes[rank].streams[0] = (struct stream){ .fd = out[0], .out = stdout };
	pes[rank].streams[1] = (struct stream){ .fd = err[0], .out = stderr };
	return pid;
}

int main(int argc, char **argv)
{
	int first_failure = -1, failure_status = 0, running, interrupts = 0, sfd, port;
	int exit_rank = -1, exit_status = 0;	/* of shmem_global_exit */
	double kill_at = 0, term_at = 0;
	char bootstrap[64], job[64], secret[65];
	unsigned char random[32];
	sigset_t mask, old_mask;
	struct pollfd *pfds;
	int arg = 1;

	while (arg < argc && argv[arg][0] == '-') {
		if (!strcmp(argv[arg], "--")) {
			arg++;
			break;
		} else if (!strcmp(argv[arg], "-n") || !strcmp(argv[arg], "--np")) {
			char *end;

			if (arg + 1 >= argc)
				goto bad_usage;
			npes = (int)strtol(argv[arg + 1], &end, 10);
			if (*end || npes < 1 || npes > MAX_PES) {
				fprintf(stderr, "shmemrun: -n %s is not a number of PEs in 1..%d\n",
					argv[arg + 1], MAX_PES);
				return 2;
			}
			arg += 2;
		} else if (!strcmp(argv[arg], "--no-prefix")) {
			prefix = 0;
			arg++;
		} else if (!strcmp(argv[arg], "-h") || !strcmp(argv[arg], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "shmemrun: unknown option '%s'\n", argv[arg]);
			goto bad_usage;
		}
	}
	if (!npes || arg >= argc)
		goto bad_usage;

	{
		/* two pipes a PE, beyond the usual soft limit of 1024 descriptors from 500 PEs */
		rlim_t need = 2 * (rlim_t)npes + 64;
		struct rlimit lim;

		if (!getrlimit(RLIMIT_NOFILE, &lim) && lim.rlim_cur < need) {
			lim.rlim_cur = lim.rlim_max < need ? lim.rlim_max : need;
			setrlimit(RLIMIT_NOFILE, &lim);
			if (lim.rlim_cur < need) {
				fprintf(stderr, "shmemrun: %d PEs need %lu file descriptors, and RLIMIT_NOFILE allows %lu: raise it (ulimit -n)\n",
					npes, (unsigned long)need, (unsigned long)lim.rlim_max);
				return 1;
			}
		}
	}
	port = free_port();
	if (port < 0) {
		fprintf(stderr, "shmemrun: cannot find a free loopback port: %s\n", strerror(errno));
		return 1;
	}
	snprintf(bootstrap, sizeof(bootstrap), "127.0.0.1:%d", port);
	snprintf(job, sizeof(job), "shmemrun-%d", (int)getpid());
	if (getrandom(random, sizeof(random), 0) != sizeof(random)) {
		fprintf(stderr, "shmemrun: cannot make the job's secret: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < 32; i++)
		snprintf(secret + 2 * i, 3, "%02x", random[i]);

	sigemptyset(&mask);
	for (int sig = 1; sig < 32; sig++)
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT ||
		    sig == SIGUSR1 || sig == SIGUSR2 || sig == SIGCHLD)
			sigaddset(&mask, sig);
	sigprocmask(SIG_BLOCK, &mask, &old_mask);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	pes = calloc((size_t)npes, sizeof(*pes));
	pfds = calloc((size_t)npes * 2 + 2, sizeof(*pfds));
	if (sfd < 0 || !pes || !pfds || pipe2(control, O_CLOEXEC) ||
	    fcntl(control[0], F_SETFL, O_NONBLOCK)) {
		fprintf(stderr, "shmemrun: cannot set up: %s\n", strerror(errno));
		return 1;
	}
	for (int r = 0; r < npes; r++) {
		pes[r].pid = start_pe(r, argv + arg, bootstrap, job, secret, &old_mask);
		if (pes[r].pid < 0) {
			fprintf(stderr, "shmemrun: cannot start PE %d: %s\n", r, strerror(errno));
			signal_all(SIGKILL);
			return 1;
		}
		pes[r].running = 1;
	}
	close(control[1]);

	running = npes;
	for (;;) {
		int n = 0, open_streams = 0, timeout = -1;

		pfds[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfds[n++] = (struct pollfd){ .fd = control[0], .events = POLLIN };
		for (int r = 0; r < npes; r++)
			for (int s = 0; s < 2; s++)
				if (pes[r].streams[s].fd >= 0) {
					pfds[n++] = (struct pollfd){ .fd = pes[r].streams[s].fd,
								     .events = POLLIN };
					open_streams++;
				}
		if (!running && !open_streams)
			break;
		if (kill_at || term_at) {
			double at = term_at ? term_at : kill_at;

			timeout = at > now() ? (int)((at - now()) * 1000) + 1 : 0;
		}
		if (!running)
			timeout = 1000;	/* only streams held by leftovers: do not wait on them long */
		if (poll(pfds, (nfds_t)n, timeout) == 0) {
			if (!running)
				break;
			if (term_at) {
				signal_all(SIGTERM);
				term_at = 0;
				kill_at = now() + GRACE_SECONDS;
				continue;
			}
			signal_all(SIGKILL);
			kill_at = 0;
			continue;
		}
		for (int r = 0, i = 2; r < npes; r++)
			for (int s = 0; s < 2; s++)
				if (pes[r].streams[s].fd >= 0 && pfds[i++].revents)
					drain(r, &pes[r].streams[s]);
		/* before the exits: the caller's own exit is no failure */
		if (pfds[1].revents && read_control(&exit_rank, &exit_status) && !kill_at) {
			if (exit_status)
				fprintf(stderr, "shmemrun: PE %d called shmem_global_exit(%d); stopping the job\n",
					exit_rank, exit_status);
			term_at = now() + GLOBAL_EXIT_SECONDS;
		}
		if (!(pfds[0].revents & POLLIN))
			continue;

		struct signalfd_siginfo info;

		if (read(sfd, &info, sizeof(info)) != sizeof(info))
			continue;
		if (info.ssi_signo != SIGCHLD) {
			if (info.ssi_signo == SIGINT || info.ssi_signo == SIGTERM)
				interrupts++;
			signal_all(interrupts > 1 ? SIGKILL : (int)info.ssi_signo);
			continue;
		}
		/*
		 * Reap every PE that has ended, then decide: a PE that died first
		 * and the peers that noticed it end up in one batch, all named
		 * before shmemrun stops anyone.
		 */
		int stopping = kill_at != 0, batch_failed = 0;

		for (;;) {
			int status;
			pid_t pid = waitpid(-1, &status, WNOHANG);

			if (pid <= 0)
				break;
			for (int r = 0; r < npes; r++) {
				if (pes[r].pid != pid || !pes[r].running)
					continue;
				pes[r].running = 0;
				pes[r].status = status;
				running--;
				if (!exit_code(status))
					continue;
				/* after shmemrun's own TERM or KILL, a death by them says nothing */
				int by_us = (stopping || exit_rank >= 0) && WIFSIGNALED(status) &&
					    (WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGKILL);

				if (exit_rank >= 0 && (by_us || exit_code(status) == exit_status))
					continue;
				if (!by_us)
					describe(r, status);
				if (first_failure < 0) {
					first_failure = r;
					failure_status = status;
				}
				batch_failed = 1;
			}
		}
		if (batch_failed && !stopping && !term_at && running) {
			fprintf(stderr, "shmemrun: stopping the other %d PE%s\n", running,
				running > 1 ? "s" : "");
			signal_all(SIGTERM);
			kill_at = now() + GRACE_SECONDS;
		}
	}
	/* whatever the PEs started goes with them */
	signal_all(SIGKILL);
	if (first_failure >= 0)
		return exit_code(failure_status);
	return exit_rank >= 0 ? exit_status & 0xff : 0;

bad_usage:
	usage(stderr);
	return 2;
}
