# Shared by the scripts in this folder: where the caches live and which
# Debian kernel we build against and boot. Sourced, never run.

SHMEMCOMM_CACHE=${SHMEMCOMM_CACHE:-/var/cache/shmemcomm}

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

log() {
	echo "[$(basename "$0")] $*" >&2
}

# The ABI Debian currently ships (e.g. 6.1.0-57-amd64). Resolved at run time
# because the archive moves on; SHMEMCOMM_KVER pins it when needed.
kernel_abi() {
	if [ -n "${SHMEMCOMM_KVER:-}" ]; then
		echo "$SHMEMCOMM_KVER"
		return
	fi
	local k
	k=$(apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-\([0-9].*-amd64\)$/\1/p' | head -n1)
	if [ -z "$k" ]; then
		# Debian 12's ABIs look like 6.1.0-57-amd64; backports' have a '+'
		k=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | grep -v + | sort -V | tail -n1)
		k=${k#/usr/src/linux-headers-}
	fi
	[ -n "$k" ] || die "cannot resolve the Debian kernel ABI: run scripts/setup first"
	echo "$k"
}

# The newest kernel of bookworm-backports (6.12.95+deb12-amd64 when this was
# written: Debian 13's kernel, close to current Ubuntu's and RHEL 10's).
backports_kernel_abi() {
	local k
	k=$(apt-cache depends -t bookworm-backports linux-headers-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-\([0-9].*+deb12-amd64\)$/\1/p' | head -n1)
	if [ -z "$k" ]; then
		k=$(ls -d /usr/src/linux-headers-*+deb12-amd64 2>/dev/null | sort -V | tail -n1)
		k=${k#/usr/src/linux-headers-}
	fi
	[ -n "$k" ] || die "cannot resolve bookworm-backports' kernel ABI: run scripts/setup first"
	echo "$k"
}

# The kernels the module is built and tested for: Debian 12's and
# bookworm-backports'; only SHMEMCOMM_KVER when that is set.
tested_kernels() {
	if [ -n "${SHMEMCOMM_KVER:-}" ]; then
		echo "$SHMEMCOMM_KVER"
		return
	fi
	kernel_abi
	backports_kernel_abi
}

kernel_image_dir() {
	echo "$SHMEMCOMM_CACHE/kernel/$1"
}

linux_source_dir() {
	echo "$SHMEMCOMM_CACHE/linux-source-6.1"
}

checkpatch() {
	echo "$(linux_source_dir)/scripts/checkpatch.pl"
}

# copy_rate_gbs STREAM-BINARY [FOOTPRINT]: how fast all cores copy FOOTPRINT
# bytes in all (sources and destinations; default 512 MiB a core), in GB/s
# of bytes read + written (tools/bench/stream.c): the cache's speed where
# they fit there, DRAM's past it
copy_rate_gbs() {
	if [ -n "${2:-}" ]; then
		"$1" --footprint "$2" | awk '{ print $2 }'
	else
		"$1" | awk '{ print $2 }'
	fi
}

# The last-level cache as the library sees it (lib/util/cache.c, by
# tools/bench/stream.c), in words: for the benchmarks' headers
last_level_cache_said() {
	"$1" --cache | awk '{
		source = $0; sub(/.* source /, "", source); sub(/ hypervisor .*/, "", source)
		printf "%d KiB (L%d by %s, shared by %d CPUs)%s", $2 / 1024, $6, source, $4,
			$NF ? ", under a hypervisor: the host'"'"'s, shared with its other guests" : "" }'
}

# The Debian 13 (trixie) root where the PyTorch backend is built and tested:
# Debian 12's torch (1.13) is older than the c10d::Backend API.
torch_root_dir() {
	echo "$SHMEMCOMM_CACHE/torch-root"
}
