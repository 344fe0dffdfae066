/*
 * shmemctl: what shmemcomm.ko holds, through its generic netlink family.
 *
 *   shmemctl [-j] info | stats | regions [pid PID]
 *
 * -j prints JSON (one object, or an array of regions), as iproute2's -j.
 * Exit status: 0 done, 1 the request failed (the module is not loaded, the
 * kernel refused), 2 bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/shmemcomm.h>
#include <linux/shmemcomm_netlink.h>

#include "genl.h"

#ifndef SHMEMCOMM_VERSION
#define SHMEMCOMM_VERSION "unknown"
#endif

static bool json;

static const char *const refusal_names[] = {
	[SHMEMCOMM_REFUSAL_INVALID] = "invalid",
	[SHMEMCOMM_REFUSAL_MEMLOCK] = "memlock",
	[SHMEMCOMM_REFUSAL_PINNED_CAP] = "pinned_cap",
	[SHMEMCOMM_REFUSAL_NO_MEMORY] = "no_memory",
	[SHMEMCOMM_REFUSAL_NO_HANDLE] = "no_handle",
	[SHMEMCOMM_REFUSAL_REVOKED] = "revoked",
	[SHMEMCOMM_REFUSAL_ACCESS] = "access",
	[SHMEMCOMM_REFUSAL_NOT_OWNER] = "not_owner",
	[SHMEMCOMM_REFUSAL_EXPORTED] = "exported",
	[SHMEMCOMM_REFUSAL_STALE] = "stale",
	[SHMEMCOMM_REFUSAL_NOT_DMABUF] = "not_dmabuf",
	[SHMEMCOMM_REFUSAL_ATTACH] = "attach",
	[SHMEMCOMM_REFUSAL_UNMAPPABLE] = "unmappable",
	[SHMEMCOMM_REFUSAL_UNPINNABLE] = "unpinnable",
};

static const struct {
	uint64_t bit;
	const char *name;
} feature_names[] = {
	{ SHMEMCOMM_FEATURE_NUMA, "numa" },
	{ SHMEMCOMM_FEATURE_HUGE_CHUNKS, "huge_chunks" },
	{ SHMEMCOMM_FEATURE_EXPORT, "export" },
	{ SHMEMCOMM_FEATURE_DMABUF, "dmabuf" },
	{ SHMEMCOMM_FEATURE_USER_MEMORY, "user_memory" },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: shmemctl [-j] info | stats | regions [pid PID]\n"
		"  info     the module's ABI version, features, limits and device settings\n"
		"  stats    bytes pinned against the cap, regions created and freed,\n"
		"           requests refused by reason\n"
		"  regions  the live regions: yours, or everyone's with CAP_SYS_ADMIN;\n"
		"           pid PID: only those created by that process\n"
		"  -j       JSON output\n"
		"  -V       version\n");
}

/* ---- output: one writer for text and JSON ---- */

static bool json_first = true;

static void json_sep(void)
{
	if (!json_first)
		putchar(',');
	json_first = false;
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void open_object(const char *key)
{
	if (!json)
		return;
	json_sep();
	if (key) {
		json_string(key);
		putchar(':');
	}
	putchar('{');
	json_first = true;
}

static void close_object(void)
{
	if (json) {
		putchar('}');
		json_first = false;
	}
}

/* A number: in JSON under @key, as text "@label value". */
static void print_u64(const char *key, const char *label, uint64_t value)
{
	if (json) {
		json_sep();
		json_string(key);
		printf(":%" PRIu64, value);
	} else {
		printf("%s %" PRIu64 "\n", label, value);
	}
}

static void print_string(const char *key, const char *label, const char *value)
{
	if (json) {
		json_sep();
		json_string(key);
		putchar(':');
		json_string(value);
	} else {
		printf("%s %s\n", label, value);
	}
}

/* ---- attributes ---- */

struct reply {
	const struct nlattr *attr[SHMEMCOMM_ATTR_MAX + 1];
};

static int parse_reply(const struct nlmsghdr *nlh, struct reply *r)
{
	if (sc_genl_parse(nlh, r->attr, SHMEMCOMM_ATTR_MAX)) {
		fprintf(stderr, "shmemctl: a malformed reply from the module\n");
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/* An attribute the module must send; a missing one is reported, not guessed. */
static bool get_u64(const struct reply *r, int type, uint64_t *value)
{
	const struct nlattr *a = r->attr[type];

	if (!a) {
		fprintf(stderr, "shmemctl: the module's reply lacks attribute %d\n", type);
		return false;
	}
	switch (mnl_attr_get_payload_len(a)) {
	case sizeof(uint32_t):
		*value = mnl_attr_get_u32(a);
		return true;
	case sizeof(uint64_t):
		*value = mnl_attr_get_u64(a);
		return true;
	}
	fprintf(stderr, "shmemctl: attribute %d of the module's reply has %u bytes\n",
		type, (unsigned)mnl_attr_get_payload_len(a));
	return false;
}

static int put_u64(const struct reply *r, int type, const char *key, const char *label)
{
	uint64_t value;

	if (!get_u64(r, type, &value))
		return -1;
	print_u64(key, label, value);
	return 0;
}

/* ---- info ---- */

static int on_info(const struct nlmsghdr *nlh, void *data)
{
	char features[256] = "", mode[16];
	uint64_t major, minor, bits, value;
	struct reply r;
	size_t len = 0;

	(void)data;
	if (parse_reply(nlh, &r) != MNL_CB_OK)
		return MNL_CB_ERROR;
	if (!get_u64(&r, SHMEMCOMM_ATTR_ABI_MAJOR, &major) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_ABI_MINOR, &minor) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_FEATURES, &bits) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_DEV_MODE, &value))
		return MNL_CB_ERROR;
	for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++) {
		if (!(bits & feature_names[i].bit))
			continue;
		len += (size_t)snprintf(features + len, sizeof(features) - len, "%s%s",
					len ? "," : "", feature_names[i].name);
		bits &= ~feature_names[i].bit;
	}
	if (bits)	/* a newer module's */
		snprintf(features + len, sizeof(features) - len, "%s%#" PRIx64,
			 len ? "," : "", bits);
	snprintf(mode, sizeof(mode), "%04" PRIo64, value);

	open_object(NULL);
	print_u64("abi_major", "abi major", major);
	print_u64("abi_minor", "abi minor", minor);
	print_string("features", "features", features);
	if (put_u64(&r, SHMEMCOMM_ATTR_MAX_REGION_SIZE, "max_region_size", "max region size") ||
	    put_u64(&r, SHMEMCOMM_ATTR_PAGE_SIZE, "page_size", "page size") ||
	    put_u64(&r, SHMEMCOMM_ATTR_CHUNK_SIZE, "chunk_size", "chunk size"))
		return MNL_CB_ERROR;
	print_string("dev_mode", "device mode", mode);
	if (put_u64(&r, SHMEMCOMM_ATTR_DEV_GID, "dev_gid", "device gid"))
		return MNL_CB_ERROR;
	close_object();
	return MNL_CB_OK;
}

/* ---- stats ---- */

static int print_refusals(const struct nlattr *nest)
{
	const struct nlattr *count[SHMEMCOMM_REFUSAL_MAX + 1];

	if (!nest || sc_genl_parse_nested(nest, count, SHMEMCOMM_REFUSAL_MAX)) {
		fprintf(stderr, "shmemctl: the module's stats lack the refusals\n");
		return -1;
	}
	open_object("refusals");
	if (!json)
		printf("refused");
	for (int reason = 1; reason <= SHMEMCOMM_REFUSAL_MAX; reason++) {
		uint64_t n = count[reason] ? mnl_attr_get_u64(count[reason]) : 0;

		if (json)
			print_u64(refusal_names[reason], NULL, n);
		else
			printf(" %s %" PRIu64, refusal_names[reason], n);
	}
	if (!json)
		putchar('\n');
	close_object();
	return 0;
}

static int on_stats(const struct nlmsghdr *nlh, void *data)
{
	struct reply r;

	(void)data;
	if (parse_reply(nlh, &r) != MNL_CB_OK)
		return MNL_CB_ERROR;
	open_object(NULL);
	if (put_u64(&r, SHMEMCOMM_ATTR_PINNED, "pinned", "pinned bytes") ||
	    /* absent from modules before ABI minor 2 */
	    (r.attr[SHMEMCOMM_ATTR_DEVICE] &&
	     put_u64(&r, SHMEMCOMM_ATTR_DEVICE, "device", "device bytes")) ||
	    put_u64(&r, SHMEMCOMM_ATTR_MAX_PINNED, "max_pinned", "max pinned bytes") ||
	    put_u64(&r, SHMEMCOMM_ATTR_LIVE_REGIONS, "live_regions", "live regions") ||
	    put_u64(&r, SHMEMCOMM_ATTR_REGIONS_CREATED, "regions_created", "regions created") ||
	    put_u64(&r, SHMEMCOMM_ATTR_REGIONS_FREED, "regions_freed", "regions freed") ||
	    print_refusals(r.attr[SHMEMCOMM_ATTR_REFUSALS]))
		return MNL_CB_ERROR;
	close_object();
	return MNL_CB_OK;
}

/* ---- regions ---- */

static const char *access_text(uint64_t state, uint64_t flags)
{
	static const char *const scopes[] = { "owner", "group", "any", "?" };
	static char text[32];

	if (!(state & SHMEMCOMM_STATE_EXPORTED))
		return "private";
	snprintf(text, sizeof(text), "%s,%s", scopes[flags & SHMEMCOMM_EXPORT_SCOPE_MASK],
		 flags & SHMEMCOMM_EXPORT_RDONLY ? "ro" : "rw");
	return text;
}

static const char *state_text(uint64_t state)
{
	if (state & SHMEMCOMM_STATE_STALE)
		return "stale";
	if (state & SHMEMCOMM_STATE_REVOKED)
		return "revoked";
	return state & SHMEMCOMM_STATE_EXPORTED ? "exported" : "private";
}

static const char *kind_text(uint64_t kind)
{
	return kind == SHMEMCOMM_KIND_USER ? "user" :
	       kind == SHMEMCOMM_KIND_PAGES ? "pages" :
	       kind == SHMEMCOMM_KIND_DMABUF ? "dmabuf" : "?";
}

static int on_region(const struct nlmsghdr *nlh, void *data)
{
	uint64_t id, handle, size, pinned, pid, uid, gid, flags, state, importers, mappings;
	uint64_t node, chunks, dmabufs, attachments, kind = SHMEMCOMM_KIND_PAGES;
	uint64_t kept_events = 0;
	const char *comm, *exporter;
	int *count = data;
	char handle_text[24];
	struct reply r;

	if (parse_reply(nlh, &r) != MNL_CB_OK)
		return MNL_CB_ERROR;
	if (!get_u64(&r, SHMEMCOMM_ATTR_REGION_ID, &id) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_HANDLE, &handle) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_SIZE, &size) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_PINNED, &pinned) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_OWNER_PID, &pid) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_OWNER_UID, &uid) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_OWNER_GID, &gid) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_EXPORT_FLAGS, &flags) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_STATE, &state) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_IMPORTERS, &importers) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_MAPPINGS, &mappings) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_NUMA_NODE, &node) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_CHUNKS, &chunks) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_DMABUFS, &dmabufs) ||
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_DMABUF_ATTACHMENTS, &attachments))
		return MNL_CB_ERROR;
	/* absent from modules of ABI minor 0, and for driver pages */
	if (r.attr[SHMEMCOMM_ATTR_REGION_KIND] &&
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_KIND, &kind))
		return MNL_CB_ERROR;
	if (r.attr[SHMEMCOMM_ATTR_REGION_KEPT_EVENTS] &&
	    !get_u64(&r, SHMEMCOMM_ATTR_REGION_KEPT_EVENTS, &kept_events))
		return MNL_CB_ERROR;
	comm = r.attr[SHMEMCOMM_ATTR_REGION_OWNER_COMM] &&
	       !mnl_attr_validate(r.attr[SHMEMCOMM_ATTR_REGION_OWNER_COMM], MNL_TYPE_NUL_STRING) ?
	       mnl_attr_get_str(r.attr[SHMEMCOMM_ATTR_REGION_OWNER_COMM]) : "";
	exporter = r.attr[SHMEMCOMM_ATTR_REGION_EXPORTER] &&
		   !mnl_attr_validate(r.attr[SHMEMCOMM_ATTR_REGION_EXPORTER], MNL_TYPE_NUL_STRING) ?
		   mnl_attr_get_str(r.attr[SHMEMCOMM_ATTR_REGION_EXPORTER]) : NULL;
	snprintf(handle_text, sizeof(handle_text), "%#" PRIx64, handle);

	if (json) {
		open_object(NULL);
		print_u64("id", NULL, id);
		if (handle) {
			print_string("handle", NULL, handle_text);
		} else {
			json_sep();
			printf("\"handle\":null");
		}
		print_u64("size", NULL, size);
		print_u64("pinned", NULL, pinned);
		print_u64("owner_pid", NULL, pid);
		print_u64("owner_uid", NULL, uid);
		print_u64("owner_gid", NULL, gid);
		print_string("owner_comm", NULL, comm);
		print_string("access", NULL, access_text(state, flags));
		print_string("state", NULL, state_text(state));
		print_u64("importers", NULL, importers);
		print_u64("mappings", NULL, mappings);
		json_sep();
		printf("\"numa_node\":%d", (int32_t)(uint32_t)node);
		print_u64("chunks", NULL, chunks);
		print_u64("dmabufs", NULL, dmabufs);
		print_u64("dmabuf_attachments", NULL, attachments);
		print_string("kind", NULL, kind_text(kind));
		if (kind == SHMEMCOMM_KIND_USER)
			print_u64("kept_events", NULL, kept_events);
		if (exporter)
			print_string("exporter", NULL, exporter);
		close_object();
	} else {
		if (!*count)
			printf("%-6s %-6s %-18s %14s %14s %8s %6s %-15s %-11s %-8s %9s %8s %4s %6s %7s %8s %s\n",
			       "ID", "KIND", "HANDLE", "SIZE", "PINNED", "PID", "UID", "COMM",
			       "ACCESS", "STATE", "IMPORTERS", "MAPPINGS", "NODE", "CHUNKS",
			       "DMABUFS", "ATTACHED", "EXPORTER");
		printf("%-6" PRIu64 " %-6s %-18s %14" PRIu64 " %14" PRIu64 " %8" PRIu64 " %6" PRIu64
		       " %-15s %-11s %-8s %9" PRIu64 " %8" PRIu64 " %4d %6" PRIu64 " %7" PRIu64
		       " %8" PRIu64 " %s\n",
		       id, kind_text(kind), handle ? handle_text : "-", size, pinned, pid, uid,
		       comm, access_text(state, flags), state_text(state), importers, mappings,
		       (int32_t)(uint32_t)node, chunks, dmabufs, attachments,
		       exporter ? exporter : "-");
	}
	(*count)++;
	return MNL_CB_OK;
}

/* ---- main ---- */

static int fail(struct sc_genl *genl, const char *what, int err)
{
	fprintf(stderr, "shmemctl: %s: %s%s%s%s\n", what, strerror(-err),
		genl->error[0] ? " (" : "", genl->error, genl->error[0] ? ")" : "");
	return 1;
}

int main(int argc, char **argv)
{
	struct sc_genl genl;
	const char *object;
	int arg = 1, err, count = 0;
	struct sc_genl_u32 filter;
	int nfilter = 0;

	for (; arg < argc && argv[arg][0] == '-'; arg++) {
		if (!strcmp(argv[arg], "-j") || !strcmp(argv[arg], "--json")) {
			json = true;
		} else if (!strcmp(argv[arg], "-V") || !strcmp(argv[arg], "--version")) {
			printf("shmemctl %s (netlink family %s, version %d)\n", SHMEMCOMM_VERSION,
			       SHMEMCOMM_GENL_NAME, SHMEMCOMM_GENL_VERSION);
			return 0;
		} else if (!strcmp(argv[arg], "-h") || !strcmp(argv[arg], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "shmemctl: unknown option '%s'\n", argv[arg]);
			usage(stderr);
			return 2;
		}
	}
	if (arg >= argc) {
		usage(stderr);
		return 2;
	}
	object = argv[arg++];
	if (!strcmp(object, "regions") && arg < argc) {
		char *end;
		long pid;

		if (strcmp(argv[arg], "pid") || arg + 2 != argc) {
			fprintf(stderr, "shmemctl: regions takes 'pid PID' only, not '%s'\n", argv[arg]);
			return 2;
		}
		errno = 0;
		pid = strtol(argv[arg + 1], &end, 10);
		if (errno || *end || end == argv[arg + 1] || pid < 1 || pid > INT_MAX) {
			fprintf(stderr, "shmemctl: pid '%s' is not a number from 1 to %d\n",
				argv[arg + 1], INT_MAX);
			return 2;
		}
		filter = (struct sc_genl_u32){ SHMEMCOMM_ATTR_REGION_OWNER_PID, (uint32_t)pid };
		nfilter = 1;
		arg = argc;
	}
	if (arg != argc || (strcmp(object, "info") && strcmp(object, "stats") &&
			    strcmp(object, "regions"))) {
		fprintf(stderr, "shmemctl: '%s' is not info, stats or regions%s\n", object,
			arg != argc ? " (or has arguments it does not take)" : "");
		usage(stderr);
		return 2;
	}

	err = sc_genl_open(&genl, SHMEMCOMM_GENL_NAME);
	if (err == -ENOENT) {
		fprintf(stderr, "shmemctl: the shmemcomm module is not loaded (no generic netlink family \"%s\"); load it with 'modprobe shmemcomm' or 'insmod shmemcomm.ko'\n",
			SHMEMCOMM_GENL_NAME);
		return 1;
	}
	if (err)
		return fail(&genl, "cannot reach generic netlink", err);

	if (!strcmp(object, "info")) {
		err = sc_genl_call(&genl, SHMEMCOMM_CMD_GET_INFO, false, NULL, 0, on_info, NULL);
	} else if (!strcmp(object, "stats")) {
		err = sc_genl_call(&genl, SHMEMCOMM_CMD_GET_STATS, false, NULL, 0, on_stats, NULL);
	} else {
		if (json)
			putchar('[');
		err = sc_genl_call(&genl, SHMEMCOMM_CMD_GET_REGION, true, &filter, nfilter,
				   on_region, &count);
		if (json)
			putchar(']');
		else if (!err && !count)
			printf("no regions%s (without CAP_SYS_ADMIN, only your own are listed)\n",
			       nfilter ? " of that process" : "");
	}
	if (json)
		putchar('\n');
	sc_genl_close(&genl);
	if (err)
		return fail(&genl, object, err);
	return 0;
}
