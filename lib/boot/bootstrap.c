#include "boot/bootstrap.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/env.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/sha256.h"

static void reset(struct sc_boot *boot, int rank, int size, double timeout, const char *kind)
{
	memset(boot, 0, sizeof(*boot));
	boot->rank = rank;
	boot->size = size;
	boot->timeout = timeout;
	boot->kind = kind;
	sc_tree_init(&boot->tcp.tree, &boot->tcp.self);
}

/* dlopen of @path, with the loader's reason appended to @tried on failure */
static void *try_load(const char *path, char *tried, size_t len)
{
	void *object = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	size_t used = strlen(tried);

	if (!object && used < len)
		snprintf(tried + used, len - used, "%s%s", used ? "; " : "", dlerror());
	return object;
}

static int load_plugin(struct sc_boot *boot, char *tried, size_t len)
{
	const char *forced = sc_env_string("SHMEMCOMM_PMIX_PLUGIN");
	sc_boot_plugin_get get;
	Dl_info self;
	void *object = NULL;

	tried[0] = '\0';
	if (forced) {
		object = try_load(forced, tried, len);
	} else {
		if (dladdr((void *)load_plugin, &self) && self.dli_fname && strchr(self.dli_fname, '/')) {
			char beside[4096];
			const char *slash = strrchr(self.dli_fname, '/');

			snprintf(beside, sizeof(beside), "%.*s/%s", (int)(slash - self.dli_fname),
				 self.dli_fname, SC_PMIX_PLUGIN);
			object = try_load(beside, tried, len);
		}
		if (!object)
			object = try_load(SC_PMIX_PLUGIN, tried, len);
	}
	if (!object)
		return -ENOPKG;
	*(void **)&get = dlsym(object, SC_BOOT_PLUGIN_SYMBOL);
	boot->plugin = get ? get() : NULL;
	if (!boot->plugin || boot->plugin->abi != SC_BOOT_PLUGIN_ABI) {
		snprintf(tried, len, "%s is not a shmemcomm bootstrap plugin of ABI %d",
			 forced ? forced : SC_PMIX_PLUGIN, SC_BOOT_PLUGIN_ABI);
		dlclose(object);
		boot->plugin = NULL;
		return -ENOPKG;
	}
	boot->plugin_object = object;
	return 0;
}

/*
 * "pmix-" and the namespace, or where that is too long for the node's
 * socket names, a digest of it: two jobs on a node never share a name.
 */
static void job_name(struct sc_boot *boot, const char *nspace)
{
	uint8_t digest[SC_SHA256_BYTES];
	struct sc_sha256 s;

	if (strlen(nspace) + 6 <= sizeof(boot->job)) {
		snprintf(boot->job, sizeof(boot->job), "pmix-%s", nspace);
		return;
	}
	sc_sha256_init(&s);
	sc_sha256_update(&s, nspace, strlen(nspace));
	sc_sha256_final(&s, digest);
	snprintf(boot->job, sizeof(boot->job), "pmix-");
	for (int i = 0; i < 16; i++)
		snprintf(boot->job + 5 + 2 * i, 3, "%02x", digest[i]);
}

/* what a rank publishes through PMIx for the ranks it serves in the tree */
struct pmix_card {
	struct sc_tree_addr addr;
	char secret[65];	/* for their handshake: made by this rank, seen only by the job */
};

/*
 * PMIx's part in the tree: each rank that serves others publishes where it
 * listens and a secret of its own; each rank looks up only its parent's
 * (PMIx_Get waits for it), so no fence and no rank's data reaches all.
 */
static int open_pmix_tree(struct sc_boot *boot)
{
	struct sc_tcp *tcp = &boot->tcp;
	struct pmix_card mine = { 0 }, parent;
	int children[SC_TREE_MAX_CHILDREN];
	double deadline = sc_now() + boot->timeout;
	int has_children = sc_tree_children(boot->rank, boot->size, children) > 0;
	struct sc_secret parent_secret;
	struct sc_gate gate;
	char why[1024];
	int err = 0;

	tcp->self = (struct sc_wire_self){ .rank = boot->rank, .size = boot->size,
					   .timeout = boot->timeout };
	snprintf(tcp->self.where, sizeof(tcp->self.where), "%s", boot->where);
	memcpy(tcp->self.job, boot->job, sizeof(tcp->self.job));
	if (has_children) {
		err = sc_secret_make(&tcp->secret, mine.secret, 32, "the PMIx bootstrap's own");
		if (!err)
			err = sc_gate_open(&gate, &tcp->self, &tcp->secret, 0);
		if (err)
			return err;
		sc_tree_my_addr(&mine.addr, gate.port);
		err = boot->plugin->publish("sc.tree", &mine, sizeof(mine), why, sizeof(why));
		if (err)
			sc_error("rank %d: %s", boot->rank, why);
	}
	if (!err && boot->rank) {
		err = boot->plugin->lookup(sc_tree_parent(boot->rank), "sc.tree", &parent,
					   sizeof(parent), why, sizeof(why));
		if (err)
			sc_error("rank %d: %s", boot->rank, why);
		parent.secret[sizeof(parent.secret) - 1] = '\0';
		sc_secret_of_text(&parent_secret, parent.secret, "the parent's, through PMIx");
		if (!err)
			err = sc_tree_dial_parent(&tcp->tree, &parent.addr, &parent_secret, deadline);
	}
	if (!err && has_children)
		err = sc_tree_admit_children(&tcp->tree, &gate, deadline);
	if (has_children)
		sc_gate_close(&gate);
	if (err)
		sc_tree_close(&tcp->tree);
	return err;
}

static int open_pmix(struct sc_boot *boot, struct sc_launch *launch, double timeout)
{
	const char *asked = sc_env_string("SHMEMCOMM_BOOTSTRAP");
	int insisted = asked && !strcmp(asked, "pmix");
	struct sc_boot_plugin_job job = { 0 };
	const char *exchange;
	char why[1024];
	int err;

	reset(boot, 0, 1, timeout, "pmix");
	exchange = sc_env_string("SHMEMCOMM_PMIX_EXCHANGE");
	if (exchange && strcmp(exchange, "tree") && strcmp(exchange, "fence")) {
		sc_error("SHMEMCOMM_PMIX_EXCHANGE=%s is not tree or fence", exchange);
		return -EINVAL;
	}
	boot->pmix_fence = exchange && !strcmp(exchange, "fence");
	err = load_plugin(boot, why, sizeof(why));
	if (err) {
		if (insisted)
			sc_error("SHMEMCOMM_BOOTSTRAP=pmix, but this library cannot load its PMIx plugin (was libpmix-dev there when it was built? SHMEMCOMM_PMIX_PLUGIN names another): %s",
				 why);
		else
			sc_log(SC_LOG_WARN, "a PMIx server started this process, but the PMIx plugin cannot be loaded (%s); the job meets through the TCP rendezvous instead (SHMEMCOMM_BOOTSTRAP=tcp says so and silences this)",
			       why);
		return err;
	}
	err = boot->plugin->init(timeout, &job, why, sizeof(why));
	if (err) {
		sc_error("%s", why);
		dlclose(boot->plugin_object);
		boot->plugin = NULL;
		return err;
	}
	boot->rank = launch->rank = job.rank;
	boot->size = launch->size = job.size;
	boot->local_size = job.local_size;
	snprintf(boot->where, sizeof(boot->where), "%s", job.server);
	job_name(boot, job.job);
	snprintf(launch->job, sizeof(launch->job), "%s", boot->job);
	if (boot->pmix_fence || boot->size == 1)
		return 0;
	err = open_pmix_tree(boot);
	if (err)
		sc_boot_close(boot);
	return err;
}

int sc_boot_open(struct sc_boot *boot, struct sc_launch *launch, double timeout)
{
	int err;

	if (launch->kind == SC_BOOT_PMIX)
		return open_pmix(boot, launch, timeout);
	reset(boot, launch->rank, launch->size, timeout, "tcp");
	err = sc_tcp_open(&boot->tcp, launch, timeout);
	snprintf(boot->where, sizeof(boot->where), "%s", boot->tcp.self.where);
	memcpy(boot->job, launch->job, sizeof(boot->job));
	return err;
}

int sc_boot_open_external(struct sc_boot *boot, const shmemx_bootstrap_t *external,
			  double timeout)
{
	char (*jobs)[sizeof(boot->job)];
	char mine[sizeof(boot->job)] = "";
	struct timespec now;
	int err;

	reset(boot, external->rank, external->size, timeout, "external");
	boot->external = external;
	snprintf(boot->where, sizeof(boot->where), "%s",
		 external->name ? external->name : "the caller's bootstrap");
	/* unique among the jobs of this host: rank 0's pid and clock */
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(mine, sizeof(mine), "ext-%ld-%ld.%09ld", (long)getpid(), (long)now.tv_sec,
		 now.tv_nsec);
	jobs = calloc((size_t)boot->size, sizeof(*jobs));
	if (!jobs)
		return -ENOMEM;
	err = sc_boot_allgather(boot, mine, sizeof(mine), jobs);
	if (!err)
		memcpy(boot->job, jobs[0], sizeof(boot->job));
	free(jobs);
	return err;
}

int sc_boot_allgather(struct sc_boot *boot, const void *mine, size_t len, void *all)
{
	char why[1024];
	int err;

	if (boot->size == 1) {
		memcpy(all, mine, len);
		return 0;
	}
	if (boot->external) {
		err = boot->external->allgather(boot->external->ctx, mine, len, all);
		if (err)
			sc_error("rank %d: the allgather of %s failed (%d)", boot->rank, boot->where,
				 err);
		return err ? -EIO : 0;
	}
	if (boot->plugin && boot->pmix_fence) {
		err = boot->plugin->allgather(mine, len, all, why, sizeof(why));
		if (err)
			sc_error("rank %d: %s", boot->rank, why);
		return err;
	}
	return sc_tree_allgather(&boot->tcp.tree, mine, len, all);
}

int sc_boot_barrier(struct sc_boot *boot)
{
	char none[1] = { 0 };

	return sc_boot_allgather(boot, none, 0, none);
}

void sc_boot_abort(struct sc_boot *boot, int status, const char *message)
{
	if (boot->plugin)
		boot->plugin->abort(status, message);
}

void sc_boot_close(struct sc_boot *boot)
{
	sc_tcp_close(&boot->tcp);
	if (boot->plugin) {
		boot->plugin->finalize();
		/* libpmix keeps threads and handlers: the object stays loaded */
		boot->plugin = NULL;
	}
}
