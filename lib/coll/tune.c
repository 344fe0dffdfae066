/*
 * The choice of algorithm and its tuning: every SHMEMCOMM_ variable of the
 * collectives is read here, and every rule that picks an algorithm is here.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coll/tune.h"
#include "util/cache.h"
#include "util/env.h"
#include "util/log.h"

static const char *const kind_names[SC_COLL_KINDS] = {
	"allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall",
};
static const char *const algo_names[SC_ALGO_COUNT] = { "oneshot", "rsag", "ring", "rhd",
							 "hier", "chain" };

const char *sc_coll_kind_name(int kind)
{
	return kind >= 0 && kind < SC_COLL_KINDS ? kind_names[kind] : "?";
}

int sc_coll_kind_parse(const char *name)
{
	for (int k = 0; name && k < SC_COLL_KINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

/*
 * @var's value among @allowed (SC_ALGO_DIRECT: "direct"), or -1 for auto
 * or unset: 0, or -1 after a message listing the choices.
 */
static int parse_algo(const char *var, const int *allowed, int count, int *out)
{
	const char *value = sc_env_string(var);
	char list[128] = "auto";

	*out = -1;
	if (!value || !*value || !strcmp(value, "auto"))
		return 0;
	for (int i = 0; i < count; i++) {
		const char *name = allowed[i] == SC_ALGO_DIRECT ? "direct" : algo_names[allowed[i]];

		if (!strcmp(value, name)) {
			*out = allowed[i];
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ", %s", name);
	}
	sc_error("%s=%s: not one of %s", var, value, list);
	return -1;
}

const char *sc_coll_algo_name(int algo)
{
	return algo >= 0 && algo < SC_ALGO_COUNT ? algo_names[algo] : "pipeline";
}

/*
 * The last-level cache the streaming rule counts on: SHMEMCOMM_CACHE_BYTES
 * where set (0: unknown), else the cache that CPUID (or sysfs) says this
 * CPU's core complex shares. Under a hypervisor that figure is the host's,
 * shared with the host's other guests: this project's 2-CPU VMs report a
 * 480 MiB L3 "shared by 2 CPUs", and streaming paid there from 16 MiB at
 * 2 PEs, where the rule with 480 MiB streams nothing below 120 MiB (2 PEs,
 * medians of 5 interleaved launches: 32 MiB 3.6 against 5.6 ms, 64 MiB 8.8
 * against 11.5). So a hypervisor's figure is taken as unknown, and the
 * rule falls back to the sizes measured here.
 */
static int find_cache(struct sc_coll_tuning *t)
{
	struct sc_cache llc;
	uint64_t bytes;

	if (sc_env_size("SHMEMCOMM_CACHE_BYTES", SIZE_MAX, 0, UINT64_MAX, &bytes))
		return -1;
	if (bytes != SIZE_MAX) {
		t->cache_bytes = bytes;
		snprintf(t->cache_note, sizeof(t->cache_note), "%zu bytes (SHMEMCOMM_CACHE_BYTES)",
			 (size_t)bytes);
		return 0;
	}
	sc_last_level_cache(&llc);
	if (llc.hypervisor) {
		t->cache_bytes = 0;
		snprintf(t->cache_note, sizeof(t->cache_note),
			 "%zu KiB by %s under a hypervisor, which shares the host's cache with its other guests: taken as unknown (SHMEMCOMM_CACHE_BYTES sets it)",
			 llc.bytes >> 10, llc.source);
	} else {
		t->cache_bytes = llc.bytes;
		snprintf(t->cache_note, sizeof(t->cache_note), "%zu KiB, L%d shared by %u CPUs (%s)",
			 llc.bytes >> 10, llc.level, llc.sharing, llc.source);
	}
	return 0;
}

/*
 * How a collective writes @dst_bytes of results a member on a team of
 * @members. With streaming stores where every member's inputs and results
 * (2 x members x bytes) outgrow the last-level cache, since a cached store
 * would first read a line that is not there; or from
 * SHMEMCOMM_COLL_STREAM_MIN. Without a cache size (find_cache), from 16 MiB,
 * measured on this machine kind (2 PEs, streamed against cached, medians of
 * 5 interleaved launches: 8 MiB 0.62 against 0.63 ms, 16 MiB 1.28 against
 * 1.32, the own slice cached).
 *
 * A PE's own reduced slice streams too only where the results alone (the
 * members' own slices together) outgrow the cache, or from
 * SHMEMCOMM_COLL_STREAM_OWN_MIN: below that they stay there for the next
 * call, whose cached stores then read nothing from DRAM.
 * 2 PEs, one process alternating the two from call to call (60 rounds,
 * twice): 64 MiB 7.44 and 8.62 ms streamed against 7.76 and 9.20 cached;
 * 16 MiB 2.10 and 1.91 ms streamed against 2.04 and 1.73 cached; 32 MiB
 * even. 4 PEs on 2 CPUs, 64 MiB: 18.4 against 18.6 ms.
 */
enum sc_coll_store sc_coll_streams(size_t dst_bytes, int members)
{
	size_t cache = sc.coll.cache_bytes ? sc.coll.cache_bytes : 32u << 20;
	int stream;

	if (sc.coll.stream_min != SIZE_MAX)
		stream = dst_bytes >= sc.coll.stream_min;
	else if (!sc.coll.cache_bytes)
		stream = dst_bytes >= 16u << 20;
	else
		stream = 2 * (size_t)members * dst_bytes > cache;
	if (!stream)
		return SC_STORE_CACHED;
	if (sc.coll.stream_own_min != SIZE_MAX)
		return dst_bytes >= sc.coll.stream_own_min ? SC_STORE_STREAM_ALL : SC_STORE_STREAM;
	return dst_bytes > cache ? SC_STORE_STREAM_ALL : SC_STORE_STREAM;
}

int sc_coll_tune(struct sc_coll_tuning *t)
{
	static const int allreduce[] = { SC_ALGO_ONESHOT, SC_ALGO_RSAG, SC_ALGO_RING, SC_ALGO_RHD,
					 SC_ALGO_HIER };
	static const int blocks[] = { SC_ALGO_DIRECT, SC_ALGO_RING, SC_ALGO_RHD, SC_ALGO_HIER };
	static const int broadcast[] = { SC_ALGO_DIRECT, SC_ALGO_CHAIN, SC_ALGO_HIER };
	const char *simd = sc_env_string("SHMEMCOMM_SIMD");
	uint64_t oneshot, chunk, stream, stream_own, rhd, register_min;
	long pipeline;
	enum sc_simd chosen;
	int err;

	if (parse_algo("SHMEMCOMM_ALLREDUCE_ALGO", allreduce, 5, &t->algorithm) ||
	    parse_algo("SHMEMCOMM_COLL_ALGO", blocks, 4, &t->block_algorithm) ||
	    parse_algo("SHMEMCOMM_BROADCAST_ALGO", broadcast, 3, &t->broadcast_algorithm))
		return -1;
	if (sc_env_size("SHMEMCOMM_ALLREDUCE_ONESHOT_MAX", SIZE_MAX, 0, SC_COLL_SMALL_MAX,
			&oneshot) ||
	    sc_env_size("SHMEMCOMM_COLL_CHUNK", SC_COLL_STAGE_MAX, 4u << 10, SC_COLL_STAGE_MAX, &chunk) ||
	    sc_env_size("SHMEMCOMM_COLL_STREAM_MIN", SIZE_MAX, 0, UINT64_MAX, &stream) ||
	    sc_env_size("SHMEMCOMM_COLL_STREAM_OWN_MIN", SIZE_MAX, 0, UINT64_MAX, &stream_own) ||
	    sc_env_size("SHMEMCOMM_ALLREDUCE_RHD_MAX", 256u << 10, 0, UINT64_MAX, &rhd) ||
	    sc_env_size("SHMEMCOMM_COLL_REGISTER_MIN", 64u << 10, 0, UINT64_MAX, &register_min) ||
	    sc_env_long("SHMEMCOMM_HIER_PIPELINE", 1, 0, 1, &pipeline))
		return -1;
	if (find_cache(t))
		return -1;
	err = sc_simd_parse(simd, &chosen);
	if (err) {
		sc_error("SHMEMCOMM_SIMD=%s: %s", simd,
			 err == -EINVAL ? "not one of auto, scalar, avx2, avx512" :
					  "this CPU does not support it");
		return -1;
	}
	t->oneshot_max = oneshot;
	t->chunk = chunk;
	t->stream_min = stream;
	t->stream_own_min = stream_own;
	t->rhd_max = rhd;
	t->register_min = register_min;
	t->hier_pipeline = (int)pipeline;
	t->simd = chosen;
	return 0;
}

/* The one ring-or-rhd rule: rhd (log2 n steps) for what is small on 2^k members, else the ring. */
static int ring_or_rhd(size_t bytes, int members)
{
	return bytes <= sc.coll.rhd_max && !(members & (members - 1)) ? SC_ALGO_RHD : SC_ALGO_RING;
}

int sc_coll_hier_fits(const struct sc_team *team)
{
	return team->nodes >= 2 && team->per_node >= 2 && team->per_node <= SC_PAIR_LOCAL_MAX;
}

/*
 * One-shot has one sync, and every member reads every input; rsag two
 * syncs, and each member reads a slice of each. A sync costs a cache line's
 * round trip where every PE has a CPU, but CPU switches where PEs share
 * CPUs. Measured on 2 CPUs (scripts/bench-peers' sizes, us per call):
 * 2 PEs, one-shot 0.83 against rsag 1.11 at 1 KiB, 1.24 against 1.09 at
 * 2 KiB; 4 PEs, one-shot 12-13 against 21 at 4 KiB and 16 against 19 at
 * 16 KiB, the most its buffers hold.
 */
static int oneshot_fits(size_t bytes, const struct sc_team *team)
{
	size_t max = sc.coll.oneshot_max;

	(void)team;
	if (max == SIZE_MAX)
		max = sc.cpus_shared ? SC_COLL_SMALL_MAX : 1024;
	return bytes <= max;
}

static int on_node(size_t bytes, const struct sc_team *team)
{
	(void)bytes;
	return !team->spans;
}

static int hier_fits(size_t bytes, const struct sc_team *team)
{
	(void)bytes;
	return sc_coll_hier_fits(team);
}

static int rhd_fits(size_t bytes, const struct sc_team *team)
{
	return ring_or_rhd(bytes, team->size) == SC_ALGO_RHD;
}

static int anywhere(size_t bytes, const struct sc_team *team)
{
	(void)bytes;
	(void)team;
	return 1;
}

/*
 * The automatic choice, kind by kind: the first algorithm whose rule fits
 * the call (@bytes: the allreduce's buffer, else all the call moves).
 *
 * On a node every PE reads the others' memory at memory speed: one-shot
 * for the tiniest allreduce, else the single-copy reduce-scatter, and the
 * pipeline for the other kinds. Across nodes each step costs a network
 * round trip and a link carries one stream best: hier where the team lies
 * evenly on its nodes, else recursive halving and doubling (log2 n steps)
 * for what is small, then the ring (2(n-1) steps, each PE talking to its
 * neighbours only); broadcast a chain from the root, so that the root's
 * link carries the data once. All-to-all always the pipeline: each PE
 * reads its blocks from each, pairs already.
 */
static const struct {
	int algo;		/* SC_ALGO_DIRECT: the pipeline */
	int (*fits)(size_t bytes, const struct sc_team *team);
} choices[SC_COLL_KINDS][5] = {
	[SC_ALLREDUCE] = { { SC_ALGO_ONESHOT, oneshot_fits }, { SC_ALGO_RSAG, on_node },
			   { SC_ALGO_HIER, hier_fits }, { SC_ALGO_RHD, rhd_fits },
			   { SC_ALGO_RING, anywhere } },
	[SC_REDUCE_SCATTER] = { { SC_ALGO_DIRECT, on_node }, { SC_ALGO_HIER, hier_fits },
				{ SC_ALGO_RHD, rhd_fits }, { SC_ALGO_RING, anywhere } },
	[SC_ALLGATHER] = { { SC_ALGO_DIRECT, on_node }, { SC_ALGO_HIER, hier_fits },
			   { SC_ALGO_RHD, rhd_fits }, { SC_ALGO_RING, anywhere } },
	[SC_BROADCAST] = { { SC_ALGO_DIRECT, on_node }, { SC_ALGO_HIER, hier_fits },
			   { SC_ALGO_CHAIN, anywhere } },
	[SC_ALLTOALL] = { { SC_ALGO_DIRECT, anywhere } },
};

/* The forced choice of @kind (SHMEMCOMM_*_ALGO), -1 for none, if it applies to @bytes. */
static int forced(enum sc_coll_kind kind, size_t bytes)
{
	switch (kind) {
	case SC_ALLREDUCE:
		/* one-shot's buffers hold SC_COLL_SMALL_MAX: past it, by size */
		return sc.coll.algorithm != SC_ALGO_ONESHOT || bytes <= SC_COLL_SMALL_MAX ?
		       sc.coll.algorithm : -1;
	case SC_REDUCE_SCATTER:
	case SC_ALLGATHER:
		return sc.coll.block_algorithm;
	case SC_BROADCAST:
		return sc.coll.broadcast_algorithm;
	default:
		return -1;
	}
}

static int choose(enum sc_coll_kind kind, size_t bytes, const struct sc_team *team)
{
	int algo = forced(kind, bytes);

	for (int i = 0; algo == -1; i++)
		if (choices[kind][i].fits(bytes, team))
			algo = choices[kind][i].algo;
	return algo == SC_ALGO_DIRECT ? -1 : algo;
}

int sc_coll_pick_algo(size_t bytes, const struct sc_team *team)
{
	return choose(SC_ALLREDUCE, bytes, team);
}

/*
 * The tiny lines (tiny.c) win where one-shot would run on a node whose PEs
 * each have a CPU. Where PEs share CPUs a member waits on each peer's lines
 * in turn, and 4 PEs on 2 CPUs took 6.6 us at 8 B and 7.2 at 64 B, against
 * one-shot's 5.2 and 5.4 (builds side by side, pairs of runs interleaved).
 */
int sc_coll_tiny_lines_win(size_t bytes, const struct sc_team *team)
{
	return !team->spans && !sc.cpus_shared && sc_coll_pick_algo(bytes, team) == SC_ALGO_ONESHOT;
}

int sc_coll_pick_kind_algo(enum sc_coll_kind kind, size_t bytes, const struct sc_team *team)
{
	return kind == SC_ALLREDUCE ? -1 : choose(kind, bytes, team);
}

int sc_coll_rail_algo(size_t bytes, const struct sc_team *team)
{
	return ring_or_rhd(bytes, team->nodes);
}

/* The variable that forces @kind's algorithm, for messages. */
const char *sc_coll_algo_variable(enum sc_coll_kind kind)
{
	return kind == SC_ALLREDUCE ? "SHMEMCOMM_ALLREDUCE_ALGO" :
	       kind == SC_BROADCAST ? "SHMEMCOMM_BROADCAST_ALGO" : "SHMEMCOMM_COLL_ALGO";
}
