/*
 * The PMIx bootstrap, built as libshmemcomm-pmix.so.0 and loaded by
 * boot/bootstrap.c when a PMIx server (Open MPI's mpirun, Slurm's srun
 * --mpi=pmix, PRRTE) started the process. lib/boot/plugin.h is the interface.
 *
 * The allgather is the modex: each rank puts its bytes under a key of this
 * round, commits, and a fence with data collection brings every rank's
 * bytes to every node; the gets after it are local. A barrier is a fence
 * without data.
 */
#include <errno.h>
#include <pmix.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boot/plugin.h"

static pmix_proc_t me;
static uint32_t job_size;
static unsigned long round_no;
static int timeout_seconds;

static int fail(char *why, size_t len, int err, const char *fmt, const char *what,
		pmix_status_t status)
{
	snprintf(why, len, fmt, what, PMIx_Error_string(status), (int)status);
	return err;
}

/* a job-level (@rank wildcard) or a process's value of @key, as an integer */
static int get_number(int rank, const char *key, long *out, pmix_status_t *status)
{
	pmix_proc_t who;
	pmix_value_t *value = NULL;

	PMIX_LOAD_PROCID(&who, me.nspace, rank < 0 ? PMIX_RANK_WILDCARD : (pmix_rank_t)rank);
	*status = PMIx_Get(&who, key, NULL, 0, &value);
	if (*status != PMIX_SUCCESS)
		return -1;
	switch (value->type) {
	case PMIX_UINT16:
		*out = value->data.uint16;
		break;
	case PMIX_UINT32:
		*out = value->data.uint32;
		break;
	case PMIX_INT:
		*out = value->data.integer;
		break;
	default:
		*status = PMIX_ERR_TYPE_MISMATCH;
		PMIX_VALUE_RELEASE(value);
		return -1;
	}
	PMIX_VALUE_RELEASE(value);
	return 0;
}

static int pmix_init(double timeout, struct sc_boot_plugin_job *job, char *why, size_t len)
{
	pmix_status_t status;
	long size, local_rank, local_size;
	const char *version;
	size_t version_len;

	status = PMIx_Init(&me, NULL, 0);
	if (status != PMIX_SUCCESS)
		return fail(why, len, -ENOTCONN,
			    "%s: PMIx_Init failed: %s (%d); was the process started by a PMIx server (srun --mpi=pmix, mpirun)?",
			    "PMIx", status);
	/* PMIx takes whole seconds, and 0 would mean no limit */
	timeout_seconds = timeout < 1 ? 1 : timeout > INT32_MAX ? INT32_MAX : (int)(timeout + 0.5);
	if (get_number(-1, PMIX_JOB_SIZE, &size, &status))
		goto no_value;
	/* a server may not give these; a node of one process is the safe reading */
	if (get_number((int)me.rank, PMIX_LOCAL_RANK, &local_rank, &status))
		local_rank = 0;
	if (get_number(-1, PMIX_LOCAL_SIZE, &local_size, &status))
		local_size = 1;
	if (size < 1 || me.rank >= (pmix_rank_t)size) {
		snprintf(why, len, "PMIx: rank %u is not within the job's size %ld", me.rank, size);
		PMIx_Finalize(NULL, 0);
		return -EINVAL;
	}
	job_size = (uint32_t)size;
	job->rank = (int)me.rank;
	job->size = (int)size;
	job->local_rank = (int)local_rank;
	job->local_size = (int)local_size;
	snprintf(job->job, sizeof(job->job), "%s", me.nspace);
	/* "OpenPMIx 4.2.2 (PMIX Standard: 4.2, ...)": the part before the parenthesis */
	version = PMIx_Get_version();
	version_len = strcspn(version, "(");
	while (version_len && version[version_len - 1] == ' ')
		version_len--;
	snprintf(job->server, sizeof(job->server), "%.*s server, namespace %.250s",
		 (int)version_len, version, me.nspace);
	return 0;
no_value:
	fail(why, len, 0, "%s: the job's size is not given: %s (%d)", "PMIx", status);
	PMIx_Finalize(NULL, 0);
	return -EPROTO;
}

static int fence(int collect, char *why, size_t len)
{
	pmix_info_t info[2];
	bool yes = true;
	pmix_status_t status;

	PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &timeout_seconds, PMIX_INT);
	PMIX_INFO_LOAD(&info[1], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	status = PMIx_Fence(NULL, 0, info, collect ? 2 : 1);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	if (status == PMIX_ERR_TIMEOUT) {
		/* PMIx does not say who is missing, only that the fence did not complete */
		snprintf(why, len,
			 "PMIx_Fence of namespace %s: not every rank arrived within %d s (SHMEMCOMM_TIMEOUT); PMIx does not say which ranks are missing",
			 me.nspace, timeout_seconds);
		return -ETIMEDOUT;
	}
	if (status != PMIX_SUCCESS)
		return fail(why, len, -EIO, "%s: PMIx_Fence failed: %s (%d); did a rank of the job exit?",
			    "PMIx", status);
	return 0;
}

static int pmix_publish(const char *key, const void *data, size_t len, char *why,
			size_t why_len);

static int pmix_allgather(const void *mine, size_t len, void *all, char *why, size_t why_len)
{
	char key[PMIX_MAX_KEYLEN + 1];
	pmix_status_t status;
	int err;

	if (!len)
		return fence(0, why, why_len);
	snprintf(key, sizeof(key), "sc.ag.%lu", round_no++);
	err = pmix_publish(key, mine, len, why, why_len);
	if (!err)
		err = fence(1, why, why_len);
	if (err)
		return err;
	for (uint32_t rank = 0; rank < job_size; rank++) {
		pmix_proc_t who;
		pmix_value_t *got = NULL;

		PMIX_LOAD_PROCID(&who, me.nspace, rank);
		if (rank == me.rank) {
			memcpy((char *)all + (size_t)rank * len, mine, len);
			continue;
		}
		status = PMIx_Get(&who, key, NULL, 0, &got);
		if (status != PMIX_SUCCESS) {
			snprintf(why, why_len, "PMIx_Get of rank %u's %s: %s (%d)", rank, key,
				 PMIx_Error_string(status), (int)status);
			return -EIO;
		}
		if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != len) {
			snprintf(why, why_len,
				 "PMIx: rank %u gave %zu bytes under %s where %zu were expected: the ranks do not run the same program",
				 rank, got->type == PMIX_BYTE_OBJECT ? got->data.bo.size : 0, key, len);
			PMIX_VALUE_RELEASE(got);
			return -EPROTO;
		}
		memcpy((char *)all + (size_t)rank * len, got->data.bo.bytes, len);
		PMIX_VALUE_RELEASE(got);
	}
	return 0;
}

static int pmix_publish(const char *key, const void *data, size_t len, char *why,
			size_t why_len)
{
	pmix_value_t value;
	pmix_status_t status;

	PMIX_VALUE_CONSTRUCT(&value);
	value.type = PMIX_BYTE_OBJECT;
	value.data.bo.bytes = (char *)data;
	value.data.bo.size = len;
	status = PMIx_Put(PMIX_GLOBAL, key, &value);
	if (status == PMIX_SUCCESS)
		status = PMIx_Commit();
	if (status != PMIX_SUCCESS)
		return fail(why, why_len, -EIO, "%s: PMIx_Put or PMIx_Commit failed: %s (%d)",
			    "PMIx", status);
	return 0;
}

/* A PMIx_Get of a key not yet put waits for it (the server's direct modex), up to the timeout */
static int pmix_lookup(int rank, const char *key, void *data, size_t len, char *why,
		       size_t why_len)
{
	pmix_proc_t who;
	pmix_info_t info;
	pmix_value_t *got = NULL;
	pmix_status_t status;

	PMIX_LOAD_PROCID(&who, me.nspace, (pmix_rank_t)rank);
	PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout_seconds, PMIX_INT);
	/*
	 * Slurm's server holds the request until the key comes; Open MPI 4.1's
	 * answers NOT-FOUND while the rank has not connected to it yet: ask
	 * again, within the timeout
	 */
	for (long waited_us = 0, pause_us = 1000;; waited_us += pause_us) {
		status = PMIx_Get(&who, key, &info, 1, &got);
		if (status != PMIX_ERR_NOT_FOUND || waited_us >= 1000000L * timeout_seconds)
			break;
		/* 1 ms, doubling to 100 ms: a thousand ranks asking must not flood the server */
		usleep((useconds_t)pause_us);
		if (pause_us < 100000)
			pause_us *= 2;
	}
	if (status == PMIX_ERR_NOT_FOUND)
		status = PMIX_ERR_TIMEOUT;
	PMIX_INFO_DESTRUCT(&info);
	if (status != PMIX_SUCCESS) {
		snprintf(why, why_len, "PMIx_Get of rank %d's %s: %s (%d)%s", rank, key,
			 PMIx_Error_string(status), (int)status,
			 status == PMIX_ERR_TIMEOUT ? ": it did not publish it within SHMEMCOMM_TIMEOUT; did it start?" : "");
		return status == PMIX_ERR_TIMEOUT ? -ETIMEDOUT : -EIO;
	}
	if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != len) {
		snprintf(why, why_len,
			 "PMIx: rank %d gave %zu bytes under %s where %zu were expected: the ranks do not run the same library",
			 rank, got->type == PMIX_BYTE_OBJECT ? got->data.bo.size : 0, key, len);
		PMIX_VALUE_RELEASE(got);
		return -EPROTO;
	}
	memcpy(data, got->data.bo.bytes, len);
	PMIX_VALUE_RELEASE(got);
	return 0;
}

static void pmix_abort(int status, const char *message)
{
	/* every process of the namespace: the resource manager ends the job */
	PMIx_Abort(status, message, NULL, 0);
}

/*
 * With a fence first, as MPI_Finalize has: a process that leaves before its
 * server has counted every process in is taken by Open MPI's mpirun for one
 * that crashed (seen at 1,024 processes on 2 cores)
 */
static void pmix_finalize(void)
{
	char why[256];

	/* Open MPI 4.1's server does not answer PMIX_EMBED_BARRIER's fence: one of our own */
	fence(0, why, sizeof(why));
	PMIx_Finalize(NULL, 0);
}

static const struct sc_boot_plugin plugin = {
	.abi = SC_BOOT_PLUGIN_ABI,
	.name = "pmix",
	.init = pmix_init,
	.allgather = pmix_allgather,
	.publish = pmix_publish,
	.lookup = pmix_lookup,
	.abort = pmix_abort,
	.finalize = pmix_finalize,
};

const struct sc_boot_plugin *shmemcomm_boot_plugin(void);

const struct sc_boot_plugin *shmemcomm_boot_plugin(void)
{
	return &plugin;
}
