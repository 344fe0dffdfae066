/*
 * Who am I in which job, and how the job's processes meet: read from
 * whichever launcher started the process. The launchers, first match wins:
 *   shmemrun  SHMEMCOMM_RANK, SHMEMCOMM_SIZE, SHMEMCOMM_BOOTSTRAP, SHMEMCOMM_JOB
 *   torchrun  RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
 *   PMIx      PMIX_RANK and PMIX_NAMESPACE: a PMIx server started the
 *             process (mpirun, srun --mpi=pmix); rank and size come from
 *             the server at sc_boot_open, and the PEs meet through it
 *   mpirun    OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_SIZE
 *   srun      SLURM_PROCID, SLURM_NTASKS, SLURM_STEP_NODELIST, SLURM_JOB_ID
 *   none      a single PE
 * torchrun comes before PMIx because it may run under srun, and its children
 * inherit the PMIx variables of the one task that started them.
 * Every launcher but PMIx meets through rank 0's TCP rendezvous.
 *
 * SHMEMCOMM_BOOTSTRAP chooses instead of the order above:
 *   pmix       PMIx, or an error if no PMIx server started the process
 *   tcp        the TCP rendezvous, with rank and size from the launcher's
 *              variables, even where a PMIx server is there
 *   host:port  the TCP rendezvous at that address, for any launcher
 * shmemrun also passes SHMEMCOMM_LAUNCHER_FD, a pipe on which
 * shmem_global_exit tells it the job's status (sc_launch_tell_exit).
 */
#ifndef SHMEMCOMM_BOOT_LAUNCH_H
#define SHMEMCOMM_BOOT_LAUNCH_H

/*
 * The largest job: per-PE state is sized from the job, and this is what
 * the data structures can count, not a memory budget. The distributed
 * locks' 24-bit tickets bound it (that many PEs may wait on one lock at once).
 */
#define SC_PE_LIMIT ((1 << 24) - 1)

enum sc_boot_kind { SC_BOOT_TCP, SC_BOOT_PMIX };

struct sc_launch {
	const char *launcher;	/* "shmemrun", "torchrun", "mpirun through PMIx", ... */
	enum sc_boot_kind kind;	/* PMIx: rank and size are known only once it is open */
	int rank;
	int size;
	char host[256];		/* where rank 0 listens */
	int port;
	char job[64];		/* tells concurrent jobs on one host apart */
	int control_fd;		/* shmemrun's pipe, or -1 */
};

/*
 * 0, or -EINVAL after logging which variable is wrong and why (-ENOTCONN:
 * PMIx asked for, and no server).
 */
int sc_launch_detect(struct sc_launch *launch);
/*
 * As sc_launch_detect, with PMIx out of the order (unless
 * SHMEMCOMM_BOOTSTRAP=pmix asks for it): for a process that a PMIx server
 * started where this build cannot load the PMIx plugin.
 */
int sc_launch_detect_tcp(struct sc_launch *launch);

/*
 * shmem_global_exit(@status): tells the launcher, when it gave a pipe, so
 * that it stops the PEs that are not in a library call and exits with
 * @status.
 */
void sc_launch_tell_exit(const struct sc_launch *launch, int status);

/*
 * The port a job without an explicit rendezvous uses on one host: derived
 * from its job id, in 20000..32767 (below Linux's ephemeral ports).
 */
int sc_launch_port_for_job(const char *job);

/* The first host of a Slurm node list such as "gpu[07-09,12],cpu01". */
int sc_slurm_first_host(const char *list, char *host, unsigned long len);

#endif
