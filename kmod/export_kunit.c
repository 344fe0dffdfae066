// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: export arguments, import permissions and the handle table.
 */
#include <kunit/test.h>

#include "shmemcomm.h"

static void export_args_valid(struct kunit *test)
{
	struct shmemcomm_export args = { .flags = SHMEMCOMM_EXPORT_SCOPE_ANY |
					 SHMEMCOMM_EXPORT_RDONLY };

	KUNIT_EXPECT_EQ(test, shmemcomm_validate_export(&args), 0);
	args.flags = SHMEMCOMM_EXPORT_SCOPE_GROUP;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_export(&args), 0);
}

static void export_args_invalid(struct kunit *test)
{
	struct shmemcomm_export args = {};

	args.flags = SHMEMCOMM_EXPORT_SCOPE_MASK;	/* scope 3 does not exist */
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_export(&args), -EINVAL);
	args.flags = 0x8;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_export(&args), -EINVAL);
	args.flags = 0;
	args.pad = 1;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_export(&args), -EINVAL);
	args.pad = 0;
	args.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_export(&args), -EINVAL);
}

static void import_args(struct kunit *test)
{
	struct shmemcomm_import args = { .handle = 42 };

	KUNIT_EXPECT_EQ(test, shmemcomm_validate_import(&args), 0);
	args.flags = SHMEMCOMM_IMPORT_RDONLY;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_import(&args), 0);
	args.flags = 0x2;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_import(&args), -EINVAL);
	args.flags = 0;
	args.reserved[0] = 7;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_import(&args), -EINVAL);
	args.reserved[0] = 0;
	args.handle = 0;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_import(&args), -ENOENT);
}

static void import_access_scopes(struct kunit *test)
{
	const u32 owner = SHMEMCOMM_EXPORT_SCOPE_OWNER;
	const u32 group = SHMEMCOMM_EXPORT_SCOPE_GROUP;
	const u32 any = SHMEMCOMM_EXPORT_SCOPE_ANY;

	/* owner scope: uid decides, group membership does not help */
	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(owner, 0, true, false), 0);
	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(owner, 0, false, true), -EACCES);
	/* group scope: either */
	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(group, 0, false, true), 0);
	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(group, 0, true, false), 0);
	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(group, 0, false, false), -EACCES);
	/* any scope: anyone */
	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(any, 0, false, false), 0);
}

static void import_access_rdonly(struct kunit *test)
{
	const u32 ro_any = SHMEMCOMM_EXPORT_SCOPE_ANY | SHMEMCOMM_EXPORT_RDONLY;

	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(ro_any, 0, true, true), -EACCES);
	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(ro_any, SHMEMCOMM_IMPORT_RDONLY,
						      false, false), 0);
	/* read-only import of a writable export is always fine */
	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(SHMEMCOMM_EXPORT_SCOPE_OWNER,
						      SHMEMCOMM_IMPORT_RDONLY,
						      true, false), 0);
	/* a read-only export does not widen the scope */
	KUNIT_EXPECT_EQ(test, shmemcomm_import_access(SHMEMCOMM_EXPORT_RDONLY,
						      SHMEMCOMM_IMPORT_RDONLY,
						      false, true), -EACCES);
}

static struct shmemcomm_region *kunit_region(struct kunit *test)
{
	struct shmemcomm_region *region;

	region = shmemcomm_region_create(PAGE_SIZE, NUMA_NO_NODE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(region));
	return region;
}

static void export_once(struct shmemcomm_region *region, u32 flags)
{
	mutex_lock(&region->lock);
	shmemcomm_handle_publish(region, flags);
	mutex_unlock(&region->lock);
}

static void handle_table_lookup(struct kunit *test)
{
	struct shmemcomm_region *a = kunit_region(test);
	struct shmemcomm_region *b = kunit_region(test);
	struct shmemcomm_region *found;

	export_once(a, SHMEMCOMM_EXPORT_SCOPE_ANY);
	export_once(b, 0);
	KUNIT_EXPECT_NE(test, a->handle, 0ULL);
	KUNIT_EXPECT_NE(test, a->handle, b->handle);
	KUNIT_EXPECT_EQ(test, a->export_flags, SHMEMCOMM_EXPORT_SCOPE_ANY);

	found = shmemcomm_handle_get(a->handle);
	KUNIT_ASSERT_PTR_EQ(test, found, a);
	KUNIT_EXPECT_EQ(test, kref_read(&a->kref), 2U);
	shmemcomm_region_put(found);

	found = shmemcomm_handle_get(b->handle);
	KUNIT_EXPECT_PTR_EQ(test, found, b);
	shmemcomm_region_put(found);

	KUNIT_EXPECT_EQ(test, PTR_ERR(shmemcomm_handle_get(a->handle ^ 1)),
			(long)-ENOENT);
	shmemcomm_region_put(a);
	shmemcomm_region_put(b);
}

static void handle_gone_with_region(struct kunit *test)
{
	struct shmemcomm_region *region = kunit_region(test);
	u64 handle;

	export_once(region, 0);
	handle = region->handle;
	shmemcomm_region_put(region);
	/* the table held no reference, and the last put unpublished it */
	KUNIT_EXPECT_EQ(test, PTR_ERR(shmemcomm_handle_get(handle)), (long)-ENOENT);
}

static void handle_revoked(struct kunit *test)
{
	struct shmemcomm_region *region = kunit_region(test);
	struct shmemcomm_region_file owner = { .region = region, .owner = true };
	struct shmemcomm_region_file importer = { .region = region };
	u64 handle;

	KUNIT_EXPECT_EQ(test, shmemcomm_region_revoke(&owner), -EINVAL);
	export_once(region, SHMEMCOMM_EXPORT_SCOPE_ANY);
	handle = region->handle;
	KUNIT_EXPECT_EQ(test, shmemcomm_region_revoke(&importer), -EPERM);
	KUNIT_EXPECT_EQ(test, shmemcomm_region_revoke(&owner), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(shmemcomm_handle_get(handle)),
			(long)-EKEYREVOKED);
	/* the refused lookup left the count as it was */
	KUNIT_EXPECT_EQ(test, kref_read(&region->kref), 1U);
	shmemcomm_region_put(region);
	KUNIT_EXPECT_EQ(test, PTR_ERR(shmemcomm_handle_get(handle)), (long)-ENOENT);
}

static struct kunit_case shmemcomm_export_cases[] = {
	KUNIT_CASE(export_args_valid),
	KUNIT_CASE(export_args_invalid),
	KUNIT_CASE(import_args),
	KUNIT_CASE(import_access_scopes),
	KUNIT_CASE(import_access_rdonly),
	KUNIT_CASE(handle_table_lookup),
	KUNIT_CASE(handle_gone_with_region),
	KUNIT_CASE(handle_revoked),
	{}
};

static struct kunit_suite shmemcomm_export_suite = {
	.name = "shmemcomm-export",
	.test_cases = shmemcomm_export_cases,
};

kunit_test_suite(shmemcomm_export_suite);
