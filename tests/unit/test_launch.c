/* Rank and rendezvous from each launcher's variables; bad values named. */
#include <stdlib.h>

#include "boot/launch.h"
#include "capture.h"

static const char *const all_vars[] = {
	"SHMEMCOMM_RANK", "SHMEMCOMM_SIZE", "SHMEMCOMM_BOOTSTRAP", "SHMEMCOMM_JOB", "RANK",
	"WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "OMPI_COMM_WORLD_RANK",
	"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_MCA_ess_base_jobid",
	"SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_NODELIST", "SLURM_NODELIST", "SLURM_JOB_ID",
	"SLURM_STEP_ID", "PMIX_RANK", "PMIX_NAMESPACE",
};

static void clear(void)
{
	for (size_t i = 0; i < sizeof(all_vars) / sizeof(all_vars[0]); i++)
		unsetenv(all_vars[i]);
}

static void none(void)
{
	struct sc_launch l;

	clear();
	CHECK_OK(sc_launch_detect(&l));
	CHECK(!strcmp(l.launcher, "none"));
	CHECK_EQ(l.rank, 0);
	CHECK_EQ(l.size, 1);
}

static void shmemrun(void)
{
	struct sc_launch l;
	struct capture cap;

	clear();
	setenv("SHMEMCOMM_RANK", "2", 1);
	setenv("SHMEMCOMM_SIZE", "4", 1);
	setenv("SHMEMCOMM_BOOTSTRAP", "10.1.2.3:4567", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK(!strcmp(l.launcher, "shmemrun"));
	CHECK_EQ(l.rank, 2);
	CHECK_EQ(l.size, 4);
	CHECK(!strcmp(l.host, "10.1.2.3"));
	CHECK_EQ(l.port, 4567);

	setenv("SHMEMCOMM_RANK", "4", 1);
	capture_start(&cap);
	CHECK_ERR(sc_launch_detect(&l), EINVAL);
	CHECK_CONTAINS(capture_end(&cap), "SHMEMCOMM_RANK=4 is not below SHMEMCOMM_SIZE=4");
	setenv("SHMEMCOMM_RANK", "1", 1);
	setenv("SHMEMCOMM_BOOTSTRAP", "nohost", 1);
	capture_start(&cap);
	CHECK_ERR(sc_launch_detect(&l), EINVAL);
	CHECK_CONTAINS(capture_end(&cap), "SHMEMCOMM_BOOTSTRAP=nohost is not host:port");
}

static void torchrun(void)
{
	struct sc_launch l;
	struct capture cap;

	clear();
	setenv("RANK", "1", 1);
	setenv("WORLD_SIZE", "8", 1);
	setenv("MASTER_ADDR", "node7", 1);
	setenv("MASTER_PORT", "29500", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK(!strcmp(l.launcher, "torchrun"));
	CHECK_EQ(l.rank, 1);
	CHECK_EQ(l.size, 8);
	CHECK(!strcmp(l.host, "node7"));
	CHECK_EQ(l.port, 29501);	/* torchrun's own store has 29500 */
	unsetenv("MASTER_PORT");
	capture_start(&cap);
	CHECK_ERR(sc_launch_detect(&l), EINVAL);
	CHECK_CONTAINS(capture_end(&cap), "MASTER_ADDR or MASTER_PORT is not");
}

static void mpirun(void)
{
	struct sc_launch l, again;
	struct capture cap;

	clear();
	setenv("OMPI_COMM_WORLD_RANK", "3", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1);
	setenv("OMPI_MCA_ess_base_jobid", "12345", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK(!strcmp(l.launcher, "mpirun"));
	CHECK_EQ(l.rank, 3);
	CHECK(!strcmp(l.host, "127.0.0.1"));
	CHECK(l.port >= 20000 && l.port < 32768);
	/* every rank of the job derives the same port */
	setenv("OMPI_COMM_WORLD_RANK", "0", 1);
	CHECK_OK(sc_launch_detect(&again));
	CHECK_EQ(again.port, l.port);
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
	capture_start(&cap);
	CHECK_ERR(sc_launch_detect(&l), EINVAL);
	CHECK_CONTAINS(capture_end(&cap), "more than one host (2 on this one): set SHMEMCOMM_BOOTSTRAP");
	/* across hosts, a named rendezvous is what it takes */
	setenv("SHMEMCOMM_BOOTSTRAP", "head:9000", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK(!strcmp(l.host, "head"));
	CHECK_EQ(l.port, 9000);
}

static void srun(void)
{
	struct sc_launch l;
	char host[64];

	clear();
	setenv("SLURM_PROCID", "5", 1);
	setenv("SLURM_NTASKS", "6", 1);
	setenv("SLURM_STEP_NODELIST", "gpu[07-09,12],cpu01", 1);
	setenv("SLURM_JOB_ID", "77", 1);
	setenv("SLURM_STEP_ID", "0", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK(!strcmp(l.launcher, "srun"));
	CHECK_EQ(l.rank, 5);
	CHECK(!strcmp(l.host, "gpu07"));
	CHECK_OK(sc_slurm_first_host("cpu01,gpu[1-2]", host, sizeof(host)));
	CHECK(!strcmp(host, "cpu01"));
	CHECK_OK(sc_slurm_first_host("n[100-200]", host, sizeof(host)));
	CHECK(!strcmp(host, "n100"));
	CHECK_ERR(sc_slurm_first_host("n[x]", host, sizeof(host)), EINVAL);
	CHECK_ERR(sc_slurm_first_host("", host, sizeof(host)), EINVAL);
}

/* No cap of 4096 PEs any more: a job is bounded by what the locks' tickets count */
static void big_jobs(void)
{
	struct sc_launch l;
	struct capture cap;

	clear();
	setenv("SLURM_PROCID", "99999", 1);
	setenv("SLURM_NTASKS", "100000", 1);
	setenv("SLURM_STEP_NODELIST", "n[0001-1000]", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK_EQ(l.size, 100000);
	CHECK_EQ(l.rank, 99999);
	setenv("SLURM_NTASKS", "16777216", 1);
	capture_start(&cap);
	CHECK_ERR(sc_launch_detect(&l), EINVAL);
	CHECK_CONTAINS(capture_end(&cap), "SLURM_NTASKS=16777216");
}

/* A PMIx server's variables: PMIx, unless torchrun or shmemrun started the process, or tcp is asked */
static void pmix(void)
{
	struct sc_launch l;
	struct capture cap;

	clear();
	setenv("PMIX_RANK", "1", 1);
	setenv("PMIX_NAMESPACE", "slurm.pmix.7.0", 1);
	setenv("SLURM_PROCID", "1", 1);
	setenv("SLURM_NTASKS", "2", 1);
	setenv("SLURM_STEP_NODELIST", "node1", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK_EQ(l.kind, SC_BOOT_PMIX);
	CHECK(!strcmp(l.launcher, "srun through PMIx"));
	CHECK(!strcmp(l.job, "pmix-slurm.pmix.7.0"));

	/* the plugin missing: the launcher's own variables */
	CHECK_OK(sc_launch_detect_tcp(&l));
	CHECK_EQ(l.kind, SC_BOOT_TCP);
	CHECK(!strcmp(l.launcher, "srun"));
	CHECK_EQ(l.rank, 1);

	setenv("SHMEMCOMM_BOOTSTRAP", "tcp", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK_EQ(l.kind, SC_BOOT_TCP);
	CHECK(!strcmp(l.host, "node1"));

	/* torchrun under srun: its children inherit one task's PMIx rank */
	unsetenv("SHMEMCOMM_BOOTSTRAP");
	setenv("RANK", "5", 1);
	setenv("WORLD_SIZE", "8", 1);
	setenv("MASTER_ADDR", "node1", 1);
	setenv("MASTER_PORT", "29500", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK(!strcmp(l.launcher, "torchrun"));
	CHECK_EQ(l.rank, 5);
	/* unless PMIx is asked for */
	setenv("SHMEMCOMM_BOOTSTRAP", "pmix", 1);
	CHECK_OK(sc_launch_detect(&l));
	CHECK_EQ(l.kind, SC_BOOT_PMIX);

	clear();
	setenv("SHMEMCOMM_BOOTSTRAP", "pmix", 1);
	capture_start(&cap);
	CHECK_ERR(sc_launch_detect(&l), ENOTCONN);
	CHECK_CONTAINS(capture_end(&cap), "SHMEMCOMM_BOOTSTRAP=pmix, but no PMIx server started this process");
	unsetenv("SHMEMCOMM_BOOTSTRAP");
}

int main(void)
{
	none();
	shmemrun();
	torchrun();
	mpirun();
	srun();
	pmix();
	big_jobs();
	return 0;
}
