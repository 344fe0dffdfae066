# A one-node Slurm of our own, for the launch tests (sourced, never run): munged,
# slurmctld and slurmd, with every file (key, socket, state, logs) under one
# folder, so that it touches nothing of the machine's. Not for production:
# root runs everything, and nothing is kept.
#   slurm_start DIR   starts them; sets SLURM_CONF; true once the node is idle
#   slurm_stop        stops them, by their pid files

slurm_start() {
	local dir=$1 host
	host=$(hostname -s)
	mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
	chmod 700 "$dir" "$dir/munge"
	cat >"$dir/slurm.conf" <<CONF
ClusterName=shmemcomm-test
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=$((6900 + RANDOM % 90 * 2))
SlurmdPort=$((7100 + RANDOM % 90 * 2))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
# more CPUs than the host has, so that jobs of 8 tasks fit as on a training
# node; config_overrides keeps slurmd from draining the node for it
SlurmdParameters=config_overrides
# jobs of the 1,024 processes of the bootstrap test on one node
MaxTasksPerNode=4096
NodeName=$host CPUs=16 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
	export SLURM_CONF=$dir/slurm.conf
	head -c 1024 /dev/urandom >"$dir/munge/key" && chmod 400 "$dir/munge/key" || return 1
	munged --force --key-file="$dir/munge/key" --socket="$dir/munge/socket" \
		--pid-file="$dir/munge/pid" --log-file="$dir/munge/log" \
		--seed-file="$dir/munge/seed" || return 1
	slurmctld -f "$SLURM_CONF" || return 1
	slurmd -f "$SLURM_CONF" || return 1
	for _ in $(seq 100); do
		sinfo -h -o %t 2>/dev/null | grep -qx idle && return 0
		sleep 0.2
	done
	echo "slurm: the node did not come up within 20 s; slurmctld's log says:"
	tail -n 5 "$dir/slurmctld.log"
	return 1
}

slurm_stop() {
	local dir=${SLURM_CONF%/*} f
	for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	# the daemons leave within a second; their files go with the folder
	for _ in $(seq 50); do
		running=
		for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/pid"; do
			[ -s "$f" ] && [ -e "/proc/$(cat "$f")" ] && running=yes
		done
		[ -z "$running" ] && return 0
		sleep 0.1
	done
	return 1
}
