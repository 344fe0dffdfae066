#include "boot/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/env.h"
#include "util/log.h"

int sc_launch_port_for_job(const char *job)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (const char *c = job; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	/*
	 * below Linux's ephemeral ports (32768 up): a port there can be any
	 * connection's source port for a while, and bind fails on it
	 */
	return 20000 + (int)(h % 12768);
}

int sc_slurm_first_host(const char *list, char *host, unsigned long len)
{
	const char *bracket = strchr(list, '[');
	const char *comma = strchr(list, ',');
	size_t prefix, digits;

	if (!*list)
		return -EINVAL;
	if (!bracket || (comma && comma < bracket)) {
		prefix = comma ? (size_t)(comma - list) : strlen(list);
		if (prefix + 1 > len)
			return -EINVAL;
		memcpy(host, list, prefix);
		host[prefix] = '\0';
		return 0;
	}
	/* "gpu[07-09,12]": the prefix, then the first number as written */
	prefix = (size_t)(bracket - list);
	digits = strspn(bracket + 1, "0123456789");
	if (!digits || prefix + digits + 1 > len)
		return -EINVAL;
	memcpy(host, list, prefix);
	memcpy(host + prefix, bracket + 1, digits);
	host[prefix + digits] = '\0';
	return 0;
}

static int read_rank_size(struct sc_launch *l, const char *rank_var,
			  const char *size_var)
{
	long rank, size;

	if (sc_env_long(size_var, 1, 1, SC_PE_LIMIT, &size) ||
	    sc_env_long(rank_var, 0, 0, SC_PE_LIMIT - 1, &rank))
		return -EINVAL;
	if (rank >= size) {
		sc_error("%s=%ld is not below %s=%ld", rank_var, rank, size_var, size);
		return -EINVAL;
	}
	l->rank = (int)rank;
	l->size = (int)size;
	return 0;
}

static int parse_host_port(const char *var, const char *text, struct sc_launch *l)
{
	const char *colon = strrchr(text, ':');
	char *end;
	long port;

	if (!colon || colon == text || (size_t)(colon - text) >= sizeof(l->host))
		goto bad;
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 1 || port > 65535)
		goto bad;
	memcpy(l->host, text, (size_t)(colon - text));
	l->host[colon - text] = '\0';
	l->port = (int)port;
	return 0;
bad:
	sc_error("%s=%s is not host:port (port 1..65535)", var, text);
	return -EINVAL;
}

/* One host, no address given: loopback, on a port derived from the job. */
static void same_host_rendezvous(struct sc_launch *l, const char *job)
{
	if (job != l->job)	/* overlapping copies are undefined */
		snprintf(l->job, sizeof(l->job), "%s", job);
	snprintf(l->host, sizeof(l->host), "127.0.0.1");
	l->port = sc_launch_port_for_job(job);
}

static int detect_torchrun(struct sc_launch *l)
{
	const char *addr = sc_env_string("MASTER_ADDR");
	long port;

	l->launcher = "torchrun";
	if (read_rank_size(l, "RANK", "WORLD_SIZE"))
		return -EINVAL;
	if (!addr || !sc_env_string("MASTER_PORT")) {
		sc_error("RANK and WORLD_SIZE are set but MASTER_ADDR or MASTER_PORT is not; set both, or SHMEMCOMM_BOOTSTRAP=host:port");
		return -EINVAL;
	}
	/* torchrun's own store listens on MASTER_PORT; rank 0 takes the next */
	if (sc_env_long("MASTER_PORT", 0, 1, 65534, &port))
		return -EINVAL;
	snprintf(l->host, sizeof(l->host), "%s", addr);
	l->port = (int)port + 1;
	snprintf(l->job, sizeof(l->job), "torchrun-%s-%ld", addr, port);
	return 0;
}

static int detect_mpirun(struct sc_launch *l)
{
	const char *job = sc_env_string("OMPI_MCA_ess_base_jobid");
	long local_size;
	char key[64];

	l->launcher = "mpirun";
	if (read_rank_size(l, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE") ||
	    sc_env_long("OMPI_COMM_WORLD_LOCAL_SIZE", l->size, 1, SC_PE_LIMIT, &local_size))
		return -EINVAL;
	/* no host is known for rank 0 across hosts, unless the user names it */
	if (local_size != l->size && !sc_env_string("SHMEMCOMM_BOOTSTRAP")) {
		sc_error("mpirun started %d PEs on more than one host (%ld on this one): set SHMEMCOMM_BOOTSTRAP=host:port to a free port on rank 0's host",
			 l->size, local_size);
		return -EINVAL;
	}
	snprintf(key, sizeof(key), "mpirun-%s", job ? job : "0");
	same_host_rendezvous(l, key);
	return 0;
}

static int detect_srun(struct sc_launch *l)
{
	const char *nodes = sc_env_string("SLURM_STEP_NODELIST");
	const char *job = sc_env_string("SLURM_JOB_ID");
	const char *step = sc_env_string("SLURM_STEP_ID");

	l->launcher = "srun";
	if (read_rank_size(l, "SLURM_PROCID", "SLURM_NTASKS"))
		return -EINVAL;
	snprintf(l->job, sizeof(l->job), "srun-%s.%s", job ? job : "0", step ? step : "0");
	if (!nodes)
		nodes = sc_env_string("SLURM_NODELIST");
	/* rank 0 runs on the first node of the step under srun's default block distribution */
	if (!nodes || sc_slurm_first_host(nodes, l->host, sizeof(l->host))) {
		sc_error("SLURM_STEP_NODELIST='%s' names no first host; set SHMEMCOMM_BOOTSTRAP=host:port",
			 nodes ? nodes : "");
		return -EINVAL;
	}
	l->port = sc_launch_port_for_job(l->job);
	return 0;
}

/* SHMEMCOMM_LAUNCHER_FD: kept from the program's own children; a bad one is ignored, with a warning. */
static int control_pipe(void)
{
	const char *text = sc_env_string("SHMEMCOMM_LAUNCHER_FD");
	char *end;
	long fd;

	if (!text)
		return -1;
	fd = strtol(text, &end, 10);
	if (*end || fd < 0 || fd > INT_MAX || fcntl((int)fd, F_SETFD, FD_CLOEXEC)) {
		sc_log(SC_LOG_WARN, "SHMEMCOMM_LAUNCHER_FD=%s is not an open file descriptor: shmem_global_exit cannot tell shmemrun the job's status",
		       text);
		return -1;
	}
	return (int)fd;
}

void sc_launch_tell_exit(const struct sc_launch *l, int status)
{
	char line[64];
	int n;

	if (l->control_fd < 0)
		return;
	/* one write of less than PIPE_BUF: whole, whatever other PEs write */
	n = snprintf(line, sizeof(line), "global_exit %d %d\n", l->rank, status);
	if (write(l->control_fd, line, (size_t)n) != n)
		sc_log(SC_LOG_WARN, "PE %d: cannot tell shmemrun of shmem_global_exit(%d): %s",
		       l->rank, status, strerror(errno));
}

static int started_by_pmix(void)
{
	return sc_env_string("PMIX_RANK") && sc_env_string("PMIX_NAMESPACE");
}

static int detect(struct sc_launch *l, int pmix_usable)
{
	const char *bootstrap = sc_env_string("SHMEMCOMM_BOOTSTRAP");
	int force_pmix = bootstrap && !strcmp(bootstrap, "pmix");
	int force_tcp = bootstrap && !strcmp(bootstrap, "tcp");
	int err;

	memset(l, 0, sizeof(*l));
	l->control_fd = -1;
	if (force_tcp || force_pmix)
		bootstrap = NULL;	/* a choice, not an address */
	if (force_pmix && !started_by_pmix()) {
		sc_error("SHMEMCOMM_BOOTSTRAP=pmix, but no PMIx server started this process (PMIX_RANK or PMIX_NAMESPACE is unset): start it with srun --mpi=pmix or mpirun, or unset SHMEMCOMM_BOOTSTRAP");
		return -ENOTCONN;
	}
	if (force_pmix || (pmix_usable && !force_tcp && !sc_env_string("SHMEMCOMM_RANK") &&
			   !(sc_env_string("RANK") && sc_env_string("WORLD_SIZE")) &&
			   started_by_pmix())) {
		/* rank, size and job come from the server, at sc_boot_open */
		l->launcher = sc_env_string("OMPI_COMM_WORLD_RANK") ? "mpirun through PMIx" :
			      sc_env_string("SLURM_PROCID") ? "srun through PMIx" : "a PMIx server";
		l->kind = SC_BOOT_PMIX;
		snprintf(l->job, sizeof(l->job), "pmix-%s", sc_env_string("PMIX_NAMESPACE"));
		return 0;
	}
	if (sc_env_string("SHMEMCOMM_RANK")) {
		l->launcher = "shmemrun";
		l->control_fd = control_pipe();
		err = read_rank_size(l, "SHMEMCOMM_RANK", "SHMEMCOMM_SIZE");
		if (!err && !bootstrap) {
			sc_error("SHMEMCOMM_RANK is set but SHMEMCOMM_BOOTSTRAP is not: start the job with shmemrun, or set both");
			err = -EINVAL;
		}
		snprintf(l->job, sizeof(l->job), "%s",
			 sc_env_string("SHMEMCOMM_JOB") ? sc_env_string("SHMEMCOMM_JOB") : "shmemrun");
	} else if (sc_env_string("RANK") && sc_env_string("WORLD_SIZE")) {
		err = detect_torchrun(l);
	} else if (sc_env_string("OMPI_COMM_WORLD_RANK")) {
		err = detect_mpirun(l);
	} else if (sc_env_string("SLURM_PROCID") && sc_env_string("SLURM_NTASKS")) {
		err = detect_srun(l);
	} else {
		l->launcher = "none";
		l->rank = 0;
		l->size = 1;
		snprintf(l->job, sizeof(l->job), "single-%d", (int)getpid());
		same_host_rendezvous(l, l->job);
		err = 0;
	}
	if (!err && bootstrap)
		err = parse_host_port("SHMEMCOMM_BOOTSTRAP", bootstrap, l);
	return err;
}

int sc_launch_detect(struct sc_launch *l)
{
	return detect(l, 1);
}

int sc_launch_detect_tcp(struct sc_launch *l)
{
	return detect(l, 0);
}
