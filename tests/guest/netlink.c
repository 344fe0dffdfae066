/* The generic netlink family: info matches GET_INFO, the stats count every
 * create, free and refusal exactly, the region dump shows each region's
 * owner, access, importers and mappings as they change, other users'
 * regions stay hidden without CAP_SYS_ADMIN, a dump of many regions spans
 * several messages without loss, and requests with attributes a command does
 * not take are refused. */
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/shmemcomm_netlink.h>

#include "guest.h"
#include "shmemctl/genl.h"

struct stats {
	uint64_t pinned, max_pinned, live, created, freed;
	uint64_t refusals[SHMEMCOMM_REFUSAL_MAX + 1];
};

struct row {
	uint64_t id, handle, size, pinned;
	uint32_t pid, uid, gid, export_flags, state, importers, mappings, chunks;
	int32_t node;
	char comm[16];
};

struct rows {
	struct row *row;
	int n, cap;
};

static uint64_t attr_u64(const struct nlattr *a)
{
	if (!a)
		FAIL("a reply lacks an attribute");
	if (mnl_attr_get_payload_len(a) == 8)
		return mnl_attr_get_u64(a);
	CHECK(mnl_attr_get_payload_len(a) == 4);
	return mnl_attr_get_u32(a);
}

static int on_stats(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a[SHMEMCOMM_ATTR_MAX + 1], *r[SHMEMCOMM_REFUSAL_MAX + 1];
	struct stats *s = data;

	CHECK_OK(sc_genl_parse(nlh, a, SHMEMCOMM_ATTR_MAX));
	s->pinned = attr_u64(a[SHMEMCOMM_ATTR_PINNED]);
	s->max_pinned = attr_u64(a[SHMEMCOMM_ATTR_MAX_PINNED]);
	s->live = attr_u64(a[SHMEMCOMM_ATTR_LIVE_REGIONS]);
	s->created = attr_u64(a[SHMEMCOMM_ATTR_REGIONS_CREATED]);
	s->freed = attr_u64(a[SHMEMCOMM_ATTR_REGIONS_FREED]);
	CHECK(a[SHMEMCOMM_ATTR_REFUSALS]);
	CHECK_OK(sc_genl_parse_nested(a[SHMEMCOMM_ATTR_REFUSALS], r, SHMEMCOMM_REFUSAL_MAX));
	for (int i = 1; i <= SHMEMCOMM_REFUSAL_MAX; i++)
		s->refusals[i] = attr_u64(r[i]);
	return MNL_CB_OK;
}

static void get_stats(struct sc_genl *g, struct stats *s)
{
	memset(s, 0, sizeof(*s));
	CHECK_OK(sc_genl_call(g, SHMEMCOMM_CMD_GET_STATS, false, NULL, 0, on_stats, s));
}

static int on_region(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a[SHMEMCOMM_ATTR_MAX + 1];
	struct rows *rows = data;
	struct row *r;

	CHECK_OK(sc_genl_parse(nlh, a, SHMEMCOMM_ATTR_MAX));
	if (rows->n == rows->cap) {
		rows->cap = rows->cap ? 2 * rows->cap : 64;
		rows->row = realloc(rows->row, sizeof(*rows->row) * (size_t)rows->cap);
		CHECK(rows->row);
	}
	r = &rows->row[rows->n++];
	r->id = attr_u64(a[SHMEMCOMM_ATTR_REGION_ID]);
	r->handle = attr_u64(a[SHMEMCOMM_ATTR_REGION_HANDLE]);
	r->size = attr_u64(a[SHMEMCOMM_ATTR_REGION_SIZE]);
	r->pinned = attr_u64(a[SHMEMCOMM_ATTR_REGION_PINNED]);
	r->pid = (uint32_t)attr_u64(a[SHMEMCOMM_ATTR_REGION_OWNER_PID]);
	r->uid = (uint32_t)attr_u64(a[SHMEMCOMM_ATTR_REGION_OWNER_UID]);
	r->gid = (uint32_t)attr_u64(a[SHMEMCOMM_ATTR_REGION_OWNER_GID]);
	r->export_flags = (uint32_t)attr_u64(a[SHMEMCOMM_ATTR_REGION_EXPORT_FLAGS]);
	r->state = (uint32_t)attr_u64(a[SHMEMCOMM_ATTR_REGION_STATE]);
	r->importers = (uint32_t)attr_u64(a[SHMEMCOMM_ATTR_REGION_IMPORTERS]);
	r->mappings = (uint32_t)attr_u64(a[SHMEMCOMM_ATTR_REGION_MAPPINGS]);
	r->node = (int32_t)attr_u64(a[SHMEMCOMM_ATTR_REGION_NUMA_NODE]);
	r->chunks = (uint32_t)attr_u64(a[SHMEMCOMM_ATTR_REGION_CHUNKS]);
	CHECK(a[SHMEMCOMM_ATTR_REGION_OWNER_COMM]);
	CHECK(mnl_attr_validate(a[SHMEMCOMM_ATTR_REGION_OWNER_COMM], MNL_TYPE_NUL_STRING) == 0);
	snprintf(r->comm, sizeof(r->comm), "%s",
		 mnl_attr_get_str(a[SHMEMCOMM_ATTR_REGION_OWNER_COMM]));
	return MNL_CB_OK;
}

/* Every region this process may see (of @pid only, if not 0). */
static void dump(struct sc_genl *g, uint32_t pid, struct rows *rows)
{
	struct sc_genl_u32 filter = { SHMEMCOMM_ATTR_REGION_OWNER_PID, pid };

	rows->n = 0;
	CHECK_OK(sc_genl_call(g, SHMEMCOMM_CMD_GET_REGION, true, &filter, pid ? 1 : 0,
			      on_region, rows));
	for (int i = 1; i < rows->n; i++)
		if (rows->row[i].id <= rows->row[i - 1].id)
			FAIL("region ids out of order: %llu after %llu",
			     (unsigned long long)rows->row[i].id,
			     (unsigned long long)rows->row[i - 1].id);
}

static const struct row *find_size(const struct rows *rows, uint64_t size)
{
	const struct row *found = NULL;

	for (int i = 0; i < rows->n; i++) {
		if (rows->row[i].size != size)
			continue;
		if (found)
			FAIL("two regions of %llu bytes", (unsigned long long)size);
		found = &rows->row[i];
	}
	return found;
}

static void open_genl(struct sc_genl *g)
{
	CHECK_OK(sc_genl_open(g, SHMEMCOMM_GENL_NAME));
	CHECK_EQ(g->version, SHMEMCOMM_GENL_VERSION);
}

/* ---- info ---- */

static int on_info(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a[SHMEMCOMM_ATTR_MAX + 1];
	const struct shmemcomm_info *want = data;

	CHECK_OK(sc_genl_parse(nlh, a, SHMEMCOMM_ATTR_MAX));
	CHECK_EQ(attr_u64(a[SHMEMCOMM_ATTR_ABI_MAJOR]), want->abi_major);
	CHECK_EQ(attr_u64(a[SHMEMCOMM_ATTR_ABI_MINOR]), want->abi_minor);
	CHECK_EQ(attr_u64(a[SHMEMCOMM_ATTR_FEATURES]), want->features);
	CHECK_EQ(attr_u64(a[SHMEMCOMM_ATTR_MAX_REGION_SIZE]), want->max_region_size);
	CHECK_EQ(attr_u64(a[SHMEMCOMM_ATTR_PAGE_SIZE]), want->page_size);
	CHECK_EQ(attr_u64(a[SHMEMCOMM_ATTR_CHUNK_SIZE]), want->chunk_size);
	CHECK_EQ(attr_u64(a[SHMEMCOMM_ATTR_DEV_MODE]), read_number(PARAM_DIR "dev_mode"));
	CHECK_EQ(attr_u64(a[SHMEMCOMM_ATTR_DEV_GID]), read_number(PARAM_DIR "dev_gid"));
	return MNL_CB_OK;
}

static void check_info(struct sc_genl *g, struct sc_kmod *dev)
{
	struct stats s;

	CHECK_OK(sc_kmod_refresh_info(dev));
	CHECK_OK(sc_genl_call(g, SHMEMCOMM_CMD_GET_INFO, false, NULL, 0, on_info, &dev->info));
	get_stats(g, &s);
	CHECK_EQ(s.pinned, read_number(SYSFS_DIR "pinned_pages") * 4096);
	CHECK_EQ(s.live, read_number(SYSFS_DIR "live_regions"));
	CHECK_EQ(s.max_pinned, read_number(SYSFS_DIR "max_pinned_pages") * 4096);
	CHECK_EQ(s.created - s.freed, s.live);
}

/* ---- strict policy ---- */

static void check_strict(struct sc_genl *g)
{
	struct sc_genl_u32 stray = { SHMEMCOMM_ATTR_ABI_MAJOR, 1 };
	struct sc_genl_u32 unknown = { 200, 1 };
	struct sc_genl_u32 pid0 = { SHMEMCOMM_ATTR_REGION_OWNER_PID, 0 };
	struct rows rows = { 0 };

	/* commands that take nothing refuse any attribute */
	CHECK_ERR(sc_genl_call(g, SHMEMCOMM_CMD_GET_INFO, false, &stray, 1, NULL, NULL), EINVAL);
	CHECK(g->error[0]);
	CHECK_ERR(sc_genl_call(g, SHMEMCOMM_CMD_GET_STATS, false, &unknown, 1, NULL, NULL),
		  EINVAL);
	/* the dump takes its filter only, and not pid 0 */
	CHECK_ERR(sc_genl_call(g, SHMEMCOMM_CMD_GET_REGION, true, &stray, 1, on_region, &rows),
		  EINVAL);
	CHECK_ERR(sc_genl_call(g, SHMEMCOMM_CMD_GET_REGION, true, &unknown, 1, on_region, &rows),
		  EINVAL);
	CHECK_ERR(sc_genl_call(g, SHMEMCOMM_CMD_GET_REGION, true, &pid0, 1, on_region, &rows),
		  ERANGE);
	CHECK(g->error[0]);
	CHECK_EQ(rows.n, 0);
	/* GET_REGION is a dump only; a command the family lacks is refused */
	CHECK_ERR(sc_genl_call(g, SHMEMCOMM_CMD_GET_REGION, false, NULL, 0, NULL, NULL),
		  EOPNOTSUPP);
	CHECK_ERR(sc_genl_call(g, SHMEMCOMM_CMD_MAX + 1, false, NULL, 0, NULL, NULL),
		  EOPNOTSUPP);
	free(rows.row);
}

/* ---- a region's life as the dump shows it ---- */

static int hold_mapping(void *arg)
{
	(void)arg;
	pause();
	return 0;
}

static void check_region_life(struct sc_genl *g, struct sc_kmod *dev)
{
	const uint64_t size = 3 * 4096 + 1, rounded = 4 * 4096;
	struct sc_kmod_region owner, importer;
	struct stats before, after;
	struct rows rows = { 0 };
	const struct row *r;
	pid_t child;

	get_stats(g, &before);
	CHECK_OK(sc_kmod_create(dev, size, SHMEMCOMM_NUMA_ANY, &owner));
	dump(g, (uint32_t)getpid(), &rows);
	CHECK_EQ(rows.n, 1);
	r = &rows.row[0];
	CHECK_EQ(r->size, rounded);
	CHECK_EQ(r->pinned, rounded);
	CHECK_EQ(r->pid, getpid());
	CHECK_EQ(r->uid, geteuid());
	CHECK_EQ(r->gid, getegid());
	CHECK(!strcmp(r->comm, "netlink"));
	CHECK_EQ(r->handle, 0);
	CHECK_EQ(r->state, 0);
	CHECK_EQ(r->importers, 0);
	CHECK_EQ(r->mappings, 0);
	CHECK_EQ(r->node, -1);
	get_stats(g, &after);
	CHECK_EQ(after.created, before.created + 1);
	CHECK_EQ(after.live, before.live + 1);
	CHECK_EQ(after.pinned, before.pinned + rounded);

	CHECK_OK(sc_kmod_map(&owner, 1));
	CHECK_OK(sc_kmod_export(&owner, SHMEMCOMM_EXPORT_SCOPE_GROUP | SHMEMCOMM_EXPORT_RDONLY));
	CHECK_OK(sc_kmod_import(dev, owner.handle, SHMEMCOMM_IMPORT_RDONLY, &importer));
	dump(g, (uint32_t)getpid(), &rows);
	r = find_size(&rows, rounded);
	CHECK(r);
	CHECK_EQ(r->handle, owner.handle);
	CHECK_EQ(r->export_flags, SHMEMCOMM_EXPORT_SCOPE_GROUP | SHMEMCOMM_EXPORT_RDONLY);
	CHECK_EQ(r->state, SHMEMCOMM_STATE_EXPORTED);
	CHECK_EQ(r->importers, 1);
	CHECK_EQ(r->mappings, 1);

	/* the importer maps; a forked child inherits both mappings */
	CHECK_OK(sc_kmod_map(&importer, 0));
	child = fork();
	CHECK(child >= 0);
	if (!child)
		_exit(hold_mapping(NULL));
	dump(g, (uint32_t)getpid(), &rows);
	r = find_size(&rows, rounded);
	CHECK_EQ(r->mappings, 4);
	/* the child inherited the region files too: both are importers' or owner's */
	CHECK_EQ(r->importers, 1);
	kill(child, SIGKILL);
	CHECK(waitpid(child, NULL, 0) == child);
	dump(g, (uint32_t)getpid(), &rows);
	CHECK_EQ(find_size(&rows, rounded)->mappings, 2);

	CHECK_OK(sc_kmod_revoke(&owner));
	dump(g, (uint32_t)getpid(), &rows);
	r = find_size(&rows, rounded);
	CHECK_EQ(r->state, SHMEMCOMM_STATE_EXPORTED | SHMEMCOMM_STATE_REVOKED);
	/* revoke zapped the importer's pages, not its mapping */
	CHECK_EQ(r->mappings, 2);

	sc_kmod_release(&importer);
	dump(g, (uint32_t)getpid(), &rows);
	r = find_size(&rows, rounded);
	CHECK_EQ(r->importers, 0);
	CHECK_EQ(r->mappings, 1);
	sc_kmod_release(&owner);
	dump(g, (uint32_t)getpid(), &rows);
	CHECK_EQ(rows.n, 0);
	get_stats(g, &after);
	CHECK_EQ(after.freed, before.freed + 1);
	CHECK_EQ(after.live, before.live);
	CHECK_EQ(after.pinned, before.pinned);
	free(rows.row);
}

/* ---- refusals ---- */

static int over_memlock(void *arg)
{
	struct rlimit lim = { 1 << 20, 1 << 20 };
	struct sc_kmod_region region;
	struct sc_kmod *dev = arg;

	CHECK(setrlimit(RLIMIT_MEMLOCK, &lim) == 0);
	become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
	CHECK_ERR_LOGGED(sc_kmod_create(dev, 2 << 20, SHMEMCOMM_NUMA_ANY, &region), ENOMEM,
			 "over RLIMIT_MEMLOCK");
	return 0;
}

struct import_try {
	struct sc_kmod *dev;
	uint64_t handle;
};

static int import_as_other(void *arg)
{
	struct import_try *t = arg;
	struct sc_kmod_region region;

	become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
	CHECK_ERR(sc_kmod_import(t->dev, t->handle, 0, &region), EACCES);
	return 0;
}

/* @provoke must be refused exactly once for @reason and nothing else. */
#define EXPECT_REFUSAL(g, reason, provoke)                                       \
	do {                                                                     \
		struct stats before_, after_;                                    \
		get_stats(g, &before_);                                          \
		provoke;                                                         \
		get_stats(g, &after_);                                           \
		for (int i_ = 1; i_ <= SHMEMCOMM_REFUSAL_MAX; i_++)              \
			if (after_.refusals[i_] != before_.refusals[i_] + (i_ == (reason))) \
				FAIL("%s: refusal %d went from %llu to %llu",    \
				     #provoke, i_,                               \
				     (unsigned long long)before_.refusals[i_],   \
				     (unsigned long long)after_.refusals[i_]);   \
	} while (0)

static void check_refusals(struct sc_genl *g, struct sc_kmod *dev)
{
	struct sc_kmod_region a, imported, refused;
	struct import_try t = { dev, 0 };
	char old_cap[32];
	FILE *f;

	EXPECT_REFUSAL(g, SHMEMCOMM_REFUSAL_INVALID,
		       CHECK_ERR_LOGGED(sc_kmod_create(dev, 0, SHMEMCOMM_NUMA_ANY, &a), EINVAL,
					"the size must be 1.."));
	EXPECT_REFUSAL(g, SHMEMCOMM_REFUSAL_MEMLOCK,
		       expect_child_ok(run_child(over_memlock, dev), "over RLIMIT_MEMLOCK"));

	f = fopen(PARAM_DIR "max_pinned_mb", "r");
	CHECK(f && fgets(old_cap, sizeof(old_cap), f));
	fclose(f);
	old_cap[strcspn(old_cap, "\n")] = 0;
	write_string(PARAM_DIR "max_pinned_mb", "0");
	EXPECT_REFUSAL(g, SHMEMCOMM_REFUSAL_PINNED_CAP,
		       CHECK_ERR_LOGGED(sc_kmod_create(dev, 4096, SHMEMCOMM_NUMA_ANY, &a), EPERM,
					"the module-wide cap is reached"));
	write_string(PARAM_DIR "max_pinned_mb", old_cap);

	/* handles are random and never 1 in practice; an unexported one */
	EXPECT_REFUSAL(g, SHMEMCOMM_REFUSAL_NO_HANDLE,
		       CHECK_ERR(sc_kmod_import(dev, 0x5eed5eed5eedULL, 0, &refused), ENOENT));

	CHECK_OK(sc_kmod_create(dev, 4096, SHMEMCOMM_NUMA_ANY, &a));
	CHECK_OK(sc_kmod_export(&a, SHMEMCOMM_EXPORT_SCOPE_OWNER));
	EXPECT_REFUSAL(g, SHMEMCOMM_REFUSAL_EXPORTED,
		       CHECK_ERR_LOGGED(sc_kmod_export(&a, SHMEMCOMM_EXPORT_SCOPE_OWNER), EBUSY,
					"Device or resource busy"));
	t.handle = a.handle;
	EXPECT_REFUSAL(g, SHMEMCOMM_REFUSAL_ACCESS,
		       expect_child_ok(run_child(import_as_other, &t), "import as another uid"));
	CHECK_OK(sc_kmod_import(dev, a.handle, 0, &imported));
	EXPECT_REFUSAL(g, SHMEMCOMM_REFUSAL_NOT_OWNER,
		       CHECK_ERR(sc_kmod_revoke(&imported), EPERM));
	CHECK_OK(sc_kmod_revoke(&a));
	EXPECT_REFUSAL(g, SHMEMCOMM_REFUSAL_REVOKED,
		       CHECK_ERR(sc_kmod_import(dev, a.handle, 0, &refused), EKEYREVOKED));
	sc_kmod_release(&imported);
	sc_kmod_release(&a);
	/* NO_MEMORY needs the page allocator to fail, which this guest cannot arrange */
}

/* ---- who sees what ---- */

struct visibility {
	int ready[2], done[2];
};

/* Another uid's process: creates a region, checks what it sees, waits. */
static int other_user(void *arg)
{
	struct visibility *v = arg;
	struct sc_kmod_region mine;
	struct rows rows = { 0 };
	struct sc_genl g;
	struct sc_kmod dev;
	char c = 0;

	become(UNPRIVILEGED_UID, UNPRIVILEGED_GID);
	open_device(&dev);
	CHECK_OK(sc_kmod_create(&dev, 5 * 4096, SHMEMCOMM_NUMA_ANY, &mine));
	open_genl(&g);
	dump(&g, 0, &rows);
	/* its own region only, though root's is alive */
	CHECK_EQ(rows.n, 1);
	CHECK_EQ(rows.row[0].size, 5 * 4096);
	CHECK_EQ(rows.row[0].uid, UNPRIVILEGED_UID);
	/* filtering by root's pid does not reveal root's regions */
	dump(&g, (uint32_t)getppid(), &rows);
	CHECK_EQ(rows.n, 0);
	CHECK(write(v->ready[1], &c, 1) == 1);
	CHECK(read(v->done[0], &c, 1) == 1);
	sc_genl_close(&g);
	free(rows.row);
	return 0;
}

static void check_visibility(struct sc_genl *g, struct sc_kmod *dev)
{
	struct sc_kmod_region root_region;
	struct visibility v;
	struct rows rows = { 0 };
	pid_t child;
	char c = 0;
	int status;

	CHECK_OK(sc_kmod_create(dev, 7 * 4096, SHMEMCOMM_NUMA_ANY, &root_region));
	CHECK(pipe(v.ready) == 0 && pipe(v.done) == 0);
	child = fork();
	CHECK(child >= 0);
	if (!child)
		_exit(other_user(&v));
	/* so that the child's failure reads as end of file, not a hang */
	close(v.ready[1]);
	close(v.done[0]);
	if (read(v.ready[0], &c, 1) != 1) {
		CHECK(waitpid(child, &status, 0) == child);
		expect_child_ok(status, "another user's view");
	}
	/* root (CAP_SYS_ADMIN) sees both */
	dump(g, 0, &rows);
	CHECK(find_size(&rows, 7 * 4096));
	CHECK(find_size(&rows, 5 * 4096));
	CHECK_EQ(find_size(&rows, 5 * 4096)->uid, UNPRIVILEGED_UID);
	dump(g, (uint32_t)child, &rows);
	CHECK_EQ(rows.n, 1);
	CHECK_EQ(rows.row[0].pid, child);
	CHECK(write(v.done[1], &c, 1) == 1);
	CHECK(waitpid(child, &status, 0) == child);
	expect_child_ok(status, "another user's view");
	sc_kmod_release(&root_region);
	free(rows.row);
}

/* ---- many regions: the dump spans several messages ---- */

#define MANY 600

static void check_many(struct sc_genl *g, struct sc_kmod *dev)
{
	static struct sc_kmod_region many[MANY];
	struct rows rows = { 0 };

	for (int i = 0; i < MANY; i++)
		CHECK_OK(sc_kmod_create(dev, 4096 * (uint64_t)(i + 1), SHMEMCOMM_NUMA_ANY,
					&many[i]));
	dump(g, (uint32_t)getpid(), &rows);
	CHECK_EQ(rows.n, MANY);
	for (int i = 0; i < MANY; i++)
		CHECK_EQ(rows.row[i].size, 4096 * (uint64_t)(i + 1));
	for (int i = 0; i < MANY; i++)
		sc_kmod_release(&many[i]);
	dump(g, (uint32_t)getpid(), &rows);
	CHECK_EQ(rows.n, 0);
	free(rows.row);
}

int main(void)
{
	struct counters baseline;
	struct sc_kmod dev;
	struct sc_genl g;

	/* a dump that never ends fails the test rather than hanging it */
	alarm(120);
	read_baseline(&baseline);
	open_device(&dev);
	open_genl(&g);
	check_info(&g, &dev);
	check_strict(&g);
	check_region_life(&g, &dev);
	check_refusals(&g, &dev);
	check_visibility(&g, &dev);
	check_many(&g, &dev);
	sc_genl_close(&g);
	sc_kmod_close(&dev);
	expect_counters(&baseline);
	return 0;
}
