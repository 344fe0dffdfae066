#include "boot/bootstrap.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/env.h"
#include "util/log.h"
#include "util/sha256.h"

static void reset(struct sc_boot *boot, int rank, int size, double timeout, const char *kind)
{
	memset(boot, 0, sizeof(*boot));
	boot->rank = rank;
	boot->size = size;
	boot->timeout = timeout;
	boot->kind = kind;
	boot->tcp.listen_fd = -1;
	boot->tcp.root_fd = -1;
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

static int open_pmix(struct sc_boot *boot, struct sc_launch *launch, double timeout)
{
	const char *asked = sc_env_string("SHMEMCOMM_BOOTSTRAP");
	int insisted = asked && !strcmp(asked, "pmix");
	struct sc_boot_plugin_job job = { 0 };
	char why[1024];
	int err;

	reset(boot, 0, 1, timeout, "pmix");
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
	return 0;
}

int sc_boot_open(struct sc_boot *boot, struct sc_launch *launch, double timeout)
{
	int err;

	if (launch->kind == SC_BOOT_PMIX)
		return open_pmix(boot, launch, timeout);
	reset(boot, launch->rank, launch->size, timeout, "tcp");
	err = sc_tcp_open(&boot->tcp, launch, timeout);
	snprintf(boot->where, sizeof(boot->where), "%s", boot->tcp.where);
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
	if (boot->plugin) {
		err = boot->plugin->allgather(mine, len, all, why, sizeof(why));
		if (err)
			sc_error("rank %d: %s", boot->rank, why);
		return err;
	}
	return sc_tcp_allgather(&boot->tcp, mine, len, all);
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
