/*
 * shmem_init and finalize, the queries, and the exits. Settings:
 *   SHMEM_SYMMETRIC_SIZE  heap per PE (k/m/g suffixes), default 128m
 *   SHMEMCOMM_TIMEOUT     seconds any wait may last, default 300
 *   SHMEMCOMM_DEBUG       1: check that every PE allocates alike
 *   SHMEMCOMM_TRANSPORT   kmod or memfd, and rdma (mem/mem.h, net/net.h)
 * PEs on other nodes (or every other PE, with rdma) are reached through the
 * NIC: the transport is set up at init when there are any.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/team.h"
#include "coll/tune.h"
#include "core/peer.h"
#include "core/pool.h"
#include "core/state.h"
#include "shmem.h"
#include "shmemx.h"
#include "sync/sync.h"
#include "util/env.h"
#include "util/log.h"
#include "util/wait.h"

#define DEFAULT_HEAP (128ull << 20)
#define DEFAULT_TIMEOUT 300.0

/*
 * Every PE exits with @status: those of the node in a wait see the stop
 * word, those across nodes the NIC's last words, and shmemrun stops those
 * busy outside the library.
 */
void shmem_global_exit(int status)
{
	sc_require_init("shmem_global_exit");
	fflush(NULL);
	/*
	 * Under PMIx the resource manager ends every process, and the job has
	 * @status: first, so that it hears of the abort before any PE of the
	 * node leaves on the stop word, which it would take for a crash
	 */
	sc_boot_abort(&sc.boot, status, "shmem_global_exit");
	sc_stop_all(status, 0);
	sc_launch_tell_exit(&sc.launch, status);
	_exit(status);
}

/* SHMEM_VERSION and SHMEM_INFO: PE 0 says, once the job is up */
static void say_what_was_asked(void)
{
	if (sc.me)
		return;
	if (sc_env_standard_flag("SHMEM_VERSION", "SMA_VERSION"))
		printf("OpenSHMEM %d.%d, %s\n", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION,
		       SHMEM_VENDOR_STRING);
	if (sc_env_standard_flag("SHMEM_INFO", "SMA_INFO"))
		printf("OpenSHMEM's environment variables here (the library's own, SHMEMCOMM_*, are in shmemcomm(7)):\n"
		       "  SHMEM_SYMMETRIC_SIZE  the symmetric heap of each PE, in bytes (k, m, g suffixes); now %zu\n"
		       "  SHMEM_VERSION         set, not 0: PE 0 prints the library's version at start-up\n"
		       "  SHMEM_INFO            set, not 0: PE 0 prints this text at start-up\n"
		       "  SHMEM_DEBUG           set, not 0: the library's debug messages, as SHMEMCOMM_LOG=debug\n"
		       "  SMA_SYMMETRIC_SIZE, SMA_VERSION, SMA_INFO, SMA_DEBUG: their deprecated names, read where the SHMEM_ one is unset\n",
		       sc.heap_size);
	fflush(stdout);
}

/* NULL, or the attributes of shmemx_init_attr: set fields win over the environment */
static int apply_attributes(const shmemx_init_attr_t *attr, uint64_t *heap,
			    enum sc_mem_kind *kind)
{
	for (int i = 0; i < 2; i++)
		if (attr->reserved[i]) {
			sc_error("shmemx_init_attr: reserved[%d] is %lu; zero the whole attribute struct",
				 i, attr->reserved[i]);
			return -1;
		}
	if (attr->symmetric_size) {
		if (attr->symmetric_size < (1u << 20) || attr->symmetric_size > (1ull << 40)) {
			sc_error("shmemx_init_attr: symmetric_size %zu is outside 1048576..%llu bytes",
				 attr->symmetric_size, 1ull << 40);
			return -1;
		}
		*heap = attr->symmetric_size;
	}
	if (attr->timeout_seconds) {
		if (!(attr->timeout_seconds > 0 && attr->timeout_seconds <= 1e6)) {
			sc_error("shmemx_init_attr: timeout_seconds %g is not in (0, 1000000]",
				 attr->timeout_seconds);
			return -1;
		}
		sc.timeout = attr->timeout_seconds;
	}
	if (attr->bootstrap) {
		const shmemx_bootstrap_t *b = attr->bootstrap;

		if (!b->allgather || b->size < 1 || b->size > SC_PE_LIMIT || b->rank < 0 ||
		    b->rank >= b->size) {
			sc_error("shmemx_init_attr: the bootstrap's rank %d of size %d (1..%d PEs) or its allgather (%s) is not usable",
				 b->rank, b->size, SC_PE_LIMIT, b->allgather ? "set" : "NULL");
			return -1;
		}
	}
	if (attr->heap_provider && !attr->heap_provider->alloc_dmabuf) {
		sc_error("shmemx_init_attr: the heap provider %s has no alloc_dmabuf",
			 attr->heap_provider->name ? attr->heap_provider->name : "(unnamed)");
		return -1;
	}
	if (attr->transport && sc_transport_parse(attr->transport, kind, &sc.force_rdma)) {
		sc_error("shmemx_init_attr: transport '%s' is not kmod, memfd or rdma, or kmod or memfd with rdma (\"kmod,rdma\")",
			 attr->transport);
		return -1;
	}
	return 0;
}

/*
 * SHMEMCOMM_HEAP_PROVIDER: a shared object whose shmemx_heap_provider()
 * gives the provider, for programs that call shmem_init. The object stays
 * loaded: the provider's code may be called again at the next init.
 */
static int load_heap_provider(const shmemx_heap_provider_t **provider)
{
	const char *path = sc_env_string("SHMEMCOMM_HEAP_PROVIDER");
	const shmemx_heap_provider_t *(*get)(void);
	void *object;

	if (!path || !*path)
		return 0;
	object = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!object) {
		sc_error("SHMEMCOMM_HEAP_PROVIDER=%s cannot be loaded: %s", path, dlerror());
		return -1;
	}
	*(void **)&get = dlsym(object, "shmemx_heap_provider");
	*provider = get ? get() : NULL;
	if (!*provider || !(*provider)->alloc_dmabuf) {
		sc_error("SHMEMCOMM_HEAP_PROVIDER=%s gives no heap provider: it needs a function shmemx_heap_provider() returning one with alloc_dmabuf",
			 path);
		dlclose(object);
		return -1;
	}
	return 0;
}

/*
 * The heap provider of @attr or SHMEMCOMM_HEAP_PROVIDER into @chosen, named
 * for messages (none: left zero); it needs the module.
 */
static int pick_heap_provider(const shmemx_init_attr_t *attr, enum sc_mem_kind kind,
			      shmemx_heap_provider_t *chosen)
{
	const shmemx_heap_provider_t *provider = attr ? attr->heap_provider : NULL;

	if (!provider && load_heap_provider(&provider))
		return -1;
	if (!provider)
		return 0;
	*chosen = *provider;
	if (!chosen->name)
		chosen->name = "(unnamed)";
	if (kind != SC_MEM_KMOD) {
		int named = sc_env_string("SHMEMCOMM_TRANSPORT") || (attr && attr->transport);

		sc_error("the heap provider %s needs the module (transport kmod), and the transport is %s%s",
			 chosen->name, sc_mem_name(kind),
			 named ? "" : ": /dev/shmemcomm is not there; load shmemcomm.ko");
		return -1;
	}
	return 0;
}

/*
 * The bootstrap the launcher chose; where a PMIx server started the process
 * and this build cannot load the PMIx plugin, the launcher's variables and
 * the TCP rendezvous, after a warning.
 */
static int open_launched(struct sc_boot *boot, struct sc_launch *launch, double timeout)
{
	int err = sc_boot_open(boot, launch, timeout);

	if (err == -ENOPKG && launch->kind == SC_BOOT_PMIX && !sc_env_string("SHMEMCOMM_BOOTSTRAP")) {
		err = sc_launch_detect_tcp(launch);
		if (!err)
			err = sc_boot_open(boot, launch, timeout);
	}
	return err;
}

/* 0, or -1 after a message, with whatever it had set up undone. */
static int init(const shmemx_init_attr_t *attr)
{
	shmemx_heap_provider_t provider = { 0 };
	const shmemx_bootstrap_t *bootstrap = attr ? attr->bootstrap : NULL;
	uint64_t heap;
	long debug;
	enum sc_mem_kind kind;
	struct sc_internal *mine;

	sc_abort_init();
	if (sc.initialized || sc.finalized || sc.init_failed) {
		sc_error("shmem_init called %s on PE %d; the library initializes once per process",
			 sc.finalized ? "after shmem_finalize" :
			 sc.initialized ? "twice" : "after a failed init", sc.me);
		return -1;
	}
	if (sc_env_size(sc_env_standard("SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE"),
			DEFAULT_HEAP, 1ull << 20, 1ull << 40, &heap) ||
	    sc_env_seconds("SHMEMCOMM_TIMEOUT", DEFAULT_TIMEOUT, &sc.timeout) ||
	    sc_env_long("SHMEMCOMM_DEBUG", 0, 0, 1, &debug) ||
	    sc_transport_pick(&kind, &sc.force_rdma) || sc_coll_tune(&sc.coll))
		goto failed;
	if ((attr && apply_attributes(attr, &heap, &kind)) ||
	    pick_heap_provider(attr, kind, &provider))
		goto failed;
	if (bootstrap)
		sc.launch = (struct sc_launch){ .rank = bootstrap->rank, .size = bootstrap->size,
						.launcher = bootstrap->name ? bootstrap->name :
							    "the caller's bootstrap",
						.control_fd = -1 };
	else if (sc_launch_detect(&sc.launch))
		goto failed;
	sc.heap_size = heap;
	sc.debug = (int)debug;

	if (bootstrap ? sc_boot_open_external(&sc.boot, bootstrap, sc.timeout) :
			open_launched(&sc.boot, &sc.launch, sc.timeout))
		goto failed;
	/* a PMIx server tells rank and size only once it is open */
	sc.me = sc.boot.rank;
	sc.npes = sc.boot.size;
	sc.internal_size = sc_internal_size(sc.npes);
	sc_debug("PE %d: an internal area of %zu bytes before the heap, for %d PEs", sc.me,
		 sc.internal_size, sc.npes);
	if (sc_node_discover(&sc.node, &sc.boot, sc.force_rdma))
		goto close_boot;
	sc.cpus_shared = sc.node.local_size > sysconf(_SC_NPROCESSORS_ONLN);
	if (sc_wait_init(sc.cpus_shared) ||
	    sc_mem_setup(&sc.mem, kind, sc.internal_size + sc.heap_size, sc.internal_size,
			 &provider, &sc.boot, &sc.node))
		goto free_node;
	if (sc_heap_init(&sc.heap, sc.heap_size))
		goto teardown_mem;
	if (sc_pool_setup(kind, &sc.boot, &sc.node))
		goto teardown_pool;
	mine = sc_internal_of(sc.me);
	sc_wait_watch(&(struct sc_wait_watch){
		.me = sc.me, .timeout = sc.timeout, .abort = &mine->abort,
		.local_size = sc.node.local_size, .local_pes = sc.node.local_pes,
		.pids = sc.node.pids, .bell = sc.mem.node_page,
	});
	if (sc.node.local_size != sc.npes) {
		struct sc_net_segment segment = {
			.base = sc.mem.base[sc.me], .size = sc.mem.size,
			.globals = sc.mem.globals.start, .globals_size = sc.mem.globals.size,
			.dmabuf_fd = sc_mem_dmabuf(&sc.mem, sc.me),
			.device_memory = sc.mem.provider.alloc_dmabuf != NULL,
			.amo_mail = sc_amo_mail_offset(sc.npes),
		};
		int err;

		err = sc_net_setup(&sc.net, &sc.boot, &sc.node, &segment);
		if (segment.dmabuf_fd >= 0)
			close(segment.dmabuf_fd);
		if (err)
			goto teardown_pool;
	}
	sc_teams_init();
	/* everyone has mapped everyone before anyone writes */
	if (sc_boot_barrier(&sc.boot))
		goto teardown_net;
	sc.initialized = 1;
	if (!sc.me)
		sc_info("%d PEs on %d node%s started by %s, %s back end%s, %zu-byte heap per PE, bootstrap %s (%s)",
			sc.npes, sc.node.nodes, sc.node.nodes == 1 ? "" : "s", sc.launch.launcher,
			sc_mem_name(kind), sc.net.active ? " and RDMA" : "", sc.heap_size,
			sc.boot.kind, sc.boot.where);
	if (!sc.me)
		sc_info("the last-level cache for the collectives' streaming rule: %s",
			sc.coll.cache_note);
	say_what_was_asked();
	return 0;

teardown_net:
	if (sc.net.active)
		sc_net_teardown(&sc.net);
teardown_pool:
	sc_pool_teardown();
	sc_heap_destroy(&sc.heap);
teardown_mem:
	sc_mem_teardown(&sc.mem);
free_node:
	sc_node_free(&sc.node);
close_boot:
	sc_boot_close(&sc.boot);
failed:
	sc.init_failed = 1;
	return -1;
}

static void init_or_exit(const shmemx_init_attr_t *attr)
{
	if (init(attr))
		exit(1);
}

int shmemx_try_init_attr(const shmemx_init_attr_t *attr, char *why, size_t len)
{
	int err = init(attr);

	if (err && why && len)
		snprintf(why, len, "%s", sc_log_last_error());
	return err;
}

void shmem_init(void)
{
	init_or_exit(NULL);
}

void shmemx_init_attr(const shmemx_init_attr_t *attr)
{
	init_or_exit(attr);
}

int shmem_init_thread(int requested, int *provided)
{
	init_or_exit(NULL);
	(void)requested;
	/* the library keeps no per-thread state: any threading level is fine */
	if (provided)
		*provided = SHMEM_THREAD_MULTIPLE;
	return 0;
}

void shmem_query_thread(int *provided)
{
	sc_require_init("shmem_query_thread");
	*provided = SHMEM_THREAD_MULTIPLE;
}

void shmem_finalize(void)
{
	sc_require_init("shmem_finalize");
	shmem_barrier_all();
	/* no PE unmaps while another may still read its heap */
	if (sc_boot_barrier(&sc.boot))
		exit(1);
	sc_heap_destroy(&sc.heap);
	if (sc.net.active)
		sc_net_teardown(&sc.net);
	sc_pool_teardown();
	sc_mem_teardown(&sc.mem);
	sc_node_free(&sc.node);
	sc_boot_close(&sc.boot);
	sc.initialized = 0;
	sc.finalized = 1;
}

int shmem_my_pe(void)
{
	sc_require_init("shmem_my_pe");
	return sc.me;
}

int shmem_n_pes(void)
{
	sc_require_init("shmem_n_pes");
	return sc.npes;
}

/* Every PE is: by loads and stores on its node, through the NIC beyond. */
int shmem_pe_accessible(int pe)
{
	sc_require_init("shmem_pe_accessible");
	return pe >= 0 && pe < sc.npes;
}

int shmem_addr_accessible(const void *addr, int pe)
{
	sc_require_init("shmem_addr_accessible");
	return shmem_pe_accessible(pe) && sc_symmetric_contains(addr, 0);
}

/*
 * Profiling control: the standard's levels (0 off, 1 the default, 2 and up
 * the library's own) mean nothing here, as the library has no profiling
 * interface; the call is accepted at any level, before init too.
 */
void shmem_pcontrol(int level, ...)
{
	(void)level;
}

/* NULL for a PE reached through the NIC, as the standard says. */
void *shmem_ptr(const void *dest, int pe)
{
	sc_require_init("shmem_ptr");
	if (!shmem_addr_accessible(dest, pe) || !sc.mem.base[pe])
		return NULL;
	return sc_peer_view(pe, sc_symmetric_offset(dest, 0, pe, "shmem_ptr"));
}

const char *shmemx_transport_name(void)
{
	sc_require_init("shmemx_transport_name");
	if (sc.net.active)
		return sc.mem.kind == SC_MEM_KMOD ? "kmod+rdma" : "memfd+rdma";
	return sc_mem_name(sc.mem.kind);
}

size_t shmemx_heap_size(void)
{
	sc_require_init("shmemx_heap_size");
	return sc.heap_size;
}

size_t shmemx_heap_free(void)
{
	sc_require_init("shmemx_heap_free");
	return sc_heap_free_bytes(&sc.heap);
}

int shmemx_local_pe(void)
{
	sc_require_init("shmemx_local_pe");
	return sc.node.local_rank;
}

int shmemx_n_local_pes(void)
{
	sc_require_init("shmemx_n_local_pes");
	return sc.node.local_size;
}

void shmem_info_get_version(int *major, int *minor)
{
	*major = SHMEM_MAJOR_VERSION;
	*minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
	snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}
