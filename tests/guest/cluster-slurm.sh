# Slurm across the two guests, for tests/guest/cluster-node (sourced, never
# run; cluster-lib.sh first): slurmd on each node, slurmctld on node 0, and
# node 0 runs OpenSHMEM programs with srun --mpi=pmix -N 2 -n 4 over rxe.
# Every file of munge and Slurm is on the guest's own /tmp. The munge key is
# made from the job secret both guests are given, so the nodes agree on it.
# cluster_slurm: node 0's results and node 1's; node 1 returns once node 0
# has stopped its slurmctld.
slurm_dir=/tmp/slurm
slurm_ctld_port=6817

slurm_conf() {
	cat <<CONF
ClusterName=shmemcomm-guests
SlurmctldHost=node0(${master})
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$slurm_dir/munge/socket
StateSaveLocation=$slurm_dir/state
SlurmdSpoolDir=$slurm_dir/spool
SlurmctldPidFile=$slurm_dir/slurmctld.pid
SlurmdPidFile=$slurm_dir/slurmd.pid
SlurmctldLogFile=$slurm_dir/slurmctld.log
SlurmdLogFile=$slurm_dir/slurmd.log
SlurmctldPort=$slurm_ctld_port
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=node0 NodeAddr=10.11.0.1 CPUs=4 State=UNKNOWN
NodeName=node1 NodeAddr=10.11.0.2 CPUs=4 State=UNKNOWN
PartitionName=guests Nodes=node0,node1 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
}

slurm_daemons() {
	hostname "node$node" || return 1
	# slurmd sets up its cgroup plugin whatever the task and proctrack plugins are
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup || return 1
	# where systemd would have made it; slurmd's stepd scope goes below
	mkdir -p /sys/fs/cgroup/system.slice || return 1
	mkdir -p "$slurm_dir/state" "$slurm_dir/spool" "$slurm_dir/munge" &&
		chmod 700 "$slurm_dir/munge" || return 1
	printf '%s' "${SHMEMCOMM_JOB_SECRET:?guest-cluster passes the job secret}" | sha512sum |
		cut -c1-128 >"$slurm_dir/munge/key" && chmod 400 "$slurm_dir/munge/key" || return 1
	slurm_conf >"$slurm_dir/slurm.conf"
	# no systemd (nor dbus) in the guest: slurmd makes its cgroup tree itself
	printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$slurm_dir/cgroup.conf"
	export SLURM_CONF=$slurm_dir/slurm.conf
	munged --force --key-file="$slurm_dir/munge/key" --socket="$slurm_dir/munge/socket" \
		--pid-file="$slurm_dir/munge/pid" --log-file="$slurm_dir/munge/log" \
		--seed-file="$slurm_dir/munge/seed" 2>/dev/null || return 1
	if [ "$node" = 0 ]; then
		slurmctld -f "$SLURM_CONF" || return 1
	fi
	slurmd -f "$SLURM_CONF" -N "node$node"
}

ctld_listening() {
	(exec 3<>"/dev/tcp/$master/$slurm_ctld_port") 2>/dev/null
}

cluster_slurm() {
	local started=$SECONDS up= daemons
	slurm_daemons
	daemons=$?
	result $daemons "node $node: munged and slurmd (and on node 0 slurmctld) with their files on /tmp"
	if [ "$node" = 1 ]; then
		# node 0 runs the jobs here too: wait for its slurmctld, then for it to stop
		for _ in $(seq 120); do
			ctld_listening && break
			sleep 1
		done
		for _ in $(seq 900); do
			ctld_listening || break
			sleep 1
		done
		kill "$(cat "$slurm_dir/slurmd.pid")" "$(cat "$slurm_dir/munge/pid")" 2>/dev/null
		return
	fi
	for _ in $(seq 120); do
		[ "$daemons" = 0 ] || break
		[ "$(sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle')" = 2 ] && up=yes && break
		sleep 1
	done
	[ -n "$up" ]
	result $? "Slurm across the guests: both nodes idle in sinfo within $((SECONDS - started)) s"
	if [ -n "$up" ]; then
		for t in rma atomic collectives teams; do
			SHMEMCOMM_LOG=info SHMEMCOMM_TIMEOUT=120 SHMEM_SYMMETRIC_SIZE=16m timeout -k 5 400 \
				srun --mpi=pmix --kill-on-bad-exit=1 -N 2 -n 4 --ntasks-per-node=2 \
				"$mp/$t" >"$out/slurm" 2>&1 &&
				grep -q "info: 4 PEs on 2 nodes started by srun through PMIx, kmod back end and RDMA" \
					"$out/slurm"
			local status=$?
			[ "$status" = 0 ] || tail -n 8 "$out/slurm"
			result "$status" "srun --mpi=pmix -N 2 -n 4 $t: over rxe, on the PMIx bootstrap"
		done
		SHMEM_SYMMETRIC_SIZE=16m timeout -k 5 400 srun --mpi=pmix --kill-on-bad-exit=1 -N 2 -n 4 \
			--ntasks-per-node=2 "$perf" -b 4 -e 256k -f 8 -n 2 -w 1 -c 1 >"$out/slurm" 2>&1
		result $? "srun --mpi=pmix -N 2 -n 4 shmemcomm-perf -c 1: every element checked, over rxe"
	fi
	kill "$(cat "$slurm_dir/slurmctld.pid")" "$(cat "$slurm_dir/slurmd.pid")" \
		"$(cat "$slurm_dir/munge/pid")" 2>/dev/null
	# node 1 goes on once slurmctld's port is closed
	sleep 3
}
