# Shared by the programs scripts/guest-cluster runs on each node (sourced,
# never run): $node (0 or 1) and $repo must be set. Brings up the node's
# virtio NIC as 10.11.0.(node + 1), Soft-RoCE on it and shmemcomm.ko, and
# waits until the other node answers; then cluster_env gives the variables
# torchrun would set for this node's PE $1 of a 4-PE job on port $2.
kdir=${SHMEMCOMM_KERNEL_DIR:?run this through scripts/guest-cluster}
master=10.11.0.1

cluster_setup() {
	local nic
	for m in crc32_generic virtio_net rdma_rxe ib_uverbs; do
		modprobe -d "$kdir" "$m" || return 1
	done
	nic=$(ls /sys/class/net | grep -v '^lo$' | head -n1)
	[ -n "$nic" ] || return 1
	ip addr add "10.11.0.$((node + 1))/24" dev "$nic" && ip link set "$nic" up &&
		rdma link add rxe0 type rxe netdev "$nic" &&
		insmod "$repo/build/kbuild/$(uname -r)/kmod/shmemcomm.ko" dev_mode=0666 || return 1
	# the other node boots at its own pace
	for _ in $(seq 120); do
		busybox ping -c 1 -W 1 "10.11.0.$((2 - node))" >/dev/null 2>&1 && return 0
	done
	return 1
}

cluster_env() {	# cluster_env LOCAL_RANK PORT
	echo "RANK=$((node * 2 + $1)) WORLD_SIZE=4 LOCAL_RANK=$1 LOCAL_WORLD_SIZE=2" \
		"MASTER_ADDR=$master MASTER_PORT=$2"
}
