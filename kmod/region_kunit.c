// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: accounting arithmetic, create arguments, region lifecycle.
 */
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/mm.h>

#include "shmemcomm.h"

static void charge_within_limit(struct kunit *test)
{
	atomic_long_t counter = ATOMIC_LONG_INIT(0);

	KUNIT_EXPECT_TRUE(test, shmemcomm_charge(&counter, 10, 10));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&counter), 10L);
	KUNIT_EXPECT_TRUE(test, shmemcomm_charge(&counter, 0, 10));
	KUNIT_EXPECT_FALSE(test, shmemcomm_charge(&counter, 1, 10));
	/* a refusal leaves the counter untouched */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&counter), 10L);
}

static void charge_overflow(struct kunit *test)
{
	atomic_long_t counter = ATOMIC_LONG_INIT(5);

	/* 5 + ULONG_MAX wraps; it must not slip under the limit */
	KUNIT_EXPECT_FALSE(test, shmemcomm_charge(&counter, ULONG_MAX, ULONG_MAX));
	KUNIT_EXPECT_FALSE(test, shmemcomm_charge(&counter, ULONG_MAX - 4, ULONG_MAX));
	KUNIT_EXPECT_TRUE(test, shmemcomm_charge(&counter, 100, ULONG_MAX));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&counter), 105L);
	/* a zero limit refuses everything but nothing */
	atomic_long_set(&counter, 0);
	KUNIT_EXPECT_FALSE(test, shmemcomm_charge(&counter, 1, 0));
	KUNIT_EXPECT_TRUE(test, shmemcomm_charge(&counter, 0, 0));
}

static void create_args(struct kunit *test)
{
	struct shmemcomm_create args = {
		.size = PAGE_SIZE, .numa_node = SHMEMCOMM_NUMA_ANY,
	};

	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create(&args), 0);
	args.numa_node = first_online_node;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create(&args), 0);
	args.size = SHMEMCOMM_MAX_REGION_SIZE;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create(&args), 0);

	args.size = SHMEMCOMM_MAX_REGION_SIZE + 1;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create(&args), -EINVAL);
	args.size = 0;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create(&args), -EINVAL);
	args.size = 1;
	args.numa_node = MAX_NUMNODES;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create(&args), -EINVAL);
	args.numa_node = -2;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create(&args), -EINVAL);
	args.numa_node = SHMEMCOMM_NUMA_ANY;
	args.flags = 1;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create(&args), -EINVAL);
	args.flags = 0;
	args.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create(&args), -EINVAL);
}

static void create_user_args(struct kunit *test)
{
	struct shmemcomm_create_user args = { .addr = 0x10000, .size = 1 };

	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), 0);
	args.addr = 0x10001;		/* unaligned: rounded, not refused */
	args.size = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), 0);
	/* UML's user address space is smaller than the largest region */
	if (TASK_SIZE > 2 * SHMEMCOMM_MAX_REGION_SIZE) {
		args.size = SHMEMCOMM_MAX_REGION_SIZE - PAGE_SIZE;
		KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), 0);
		/* the same size unaligned covers one page more than the largest */
		args.size = SHMEMCOMM_MAX_REGION_SIZE;
		KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), -EINVAL);
	}
	args.addr = 0x10000;
	args.size = 0;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), -EINVAL);
	args.size = U64_MAX - 100;	/* addr + size overflows */
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), -EINVAL);
	args.addr = TASK_SIZE;		/* beyond user addresses */
	args.size = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), -EINVAL);
	args.addr = 0x10000;
	args.flags = SHMEMCOMM_USER_RDONLY;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), 0);
	args.flags = 0x2;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), -EINVAL);
	args.flags = 0;
	args.stale_word = 0x20002;	/* not aligned to its 4 bytes */
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), -EINVAL);
	args.stale_word = 0x20004;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), 0);
	args.stale_word = TASK_SIZE;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), -EINVAL);
	args.stale_word = 0;
	args.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_user(&args), -EINVAL);
}

/* CREATE_DMABUF's flags, and a dma-buf's size as a region's */
static void create_dmabuf_args(struct kunit *test)
{
	struct shmemcomm_create_dmabuf args = { .dmabuf_fd = 3 };

	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_dmabuf(&args), 0);
	args.flags = SHMEMCOMM_DMABUF_RDONLY;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_dmabuf(&args), 0);
	args.flags = 0x2;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_dmabuf(&args), -EINVAL);
	args.flags = 0;
	args.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_create_dmabuf(&args), -EINVAL);

	KUNIT_EXPECT_EQ(test, shmemcomm_validate_dmabuf_size(PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_dmabuf_size(SHMEMCOMM_MAX_REGION_SIZE), 0);
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_dmabuf_size(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_dmabuf_size(PAGE_SIZE + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, shmemcomm_validate_dmabuf_size(PAGE_SIZE - 512), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			shmemcomm_validate_dmabuf_size(SHMEMCOMM_MAX_REGION_SIZE + PAGE_SIZE),
			-EINVAL);
}

static void region_counts(struct kunit *test)
{
	long pinned = atomic_long_read(&shmemcomm_pinned_pages);
	long live = atomic_long_read(&shmemcomm_live_regions);
	struct shmemcomm_region *region;
	unsigned long i;

	region = shmemcomm_region_create(3 * PAGE_SIZE, NUMA_NO_NODE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(region));
	KUNIT_EXPECT_EQ(test, region->nr_pages, 3UL);
	KUNIT_EXPECT_EQ(test, kref_read(&region->kref), 1U);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&shmemcomm_pinned_pages), pinned + 3);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&shmemcomm_live_regions), live + 1);
	for (i = 0; i < region->nr_pages; i++)
		KUNIT_EXPECT_EQ(test, page_ref_count(region->pages[i]), 1);

	shmemcomm_region_put(region);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&shmemcomm_pinned_pages), pinned);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&shmemcomm_live_regions), live);
}

static void region_chunks(struct kunit *test)
{
	struct shmemcomm_region *region;
	unsigned long i;

	region = shmemcomm_region_create(2 * SHMEMCOMM_CHUNK_PAGES * PAGE_SIZE +
					 PAGE_SIZE, NUMA_NO_NODE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(region));
	KUNIT_EXPECT_LE(test, region->nr_chunks, 2U);
	/* each chunk is physically contiguous */
	for (i = 1; i < region->nr_chunks * SHMEMCOMM_CHUNK_PAGES; i++)
		if (i % SHMEMCOMM_CHUNK_PAGES)
			KUNIT_EXPECT_EQ(test, page_to_pfn(region->pages[i]),
					page_to_pfn(region->pages[i - 1]) + 1);
	for (i = 0; i < region->nr_pages; i++)
		KUNIT_EXPECT_NOT_NULL(test, region->pages[i]);
	shmemcomm_region_put(region);
}

static void region_chunk_fallback(struct kunit *test)
{
	long pinned = atomic_long_read(&shmemcomm_pinned_pages);
	struct shmemcomm_region *region;
	unsigned int saved;
	unsigned long i;

	/* the second chunk "fails": the rest must come as single pages */
	saved = shmemcomm_test_set_chunk_budget(1);
	region = shmemcomm_region_create(3 * SHMEMCOMM_CHUNK_PAGES * PAGE_SIZE,
					 NUMA_NO_NODE);
	shmemcomm_test_set_chunk_budget(saved);
	KUNIT_ASSERT_FALSE(test, IS_ERR(region));
	KUNIT_EXPECT_EQ(test, region->nr_chunks, 1U);
	KUNIT_EXPECT_EQ(test, region->nr_pages, 3 * SHMEMCOMM_CHUNK_PAGES);
	for (i = 0; i < region->nr_pages; i++) {
		KUNIT_ASSERT_NOT_NULL(test, region->pages[i]);
		KUNIT_EXPECT_EQ(test, page_ref_count(region->pages[i]), 1);
	}
	shmemcomm_region_put(region);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&shmemcomm_pinned_pages), pinned);

	/* no chunk at all */
	saved = shmemcomm_test_set_chunk_budget(0);
	region = shmemcomm_region_create(SHMEMCOMM_CHUNK_PAGES * PAGE_SIZE,
					 NUMA_NO_NODE);
	shmemcomm_test_set_chunk_budget(saved);
	KUNIT_ASSERT_FALSE(test, IS_ERR(region));
	KUNIT_EXPECT_EQ(test, region->nr_chunks, 0U);
	shmemcomm_region_put(region);
}

static void region_module_cap(struct kunit *test)
{
	long pinned = atomic_long_read(&shmemcomm_pinned_pages);
	struct shmemcomm_region *region;
	unsigned long saved;

	saved = shmemcomm_test_set_max_pinned_mb(0);
	region = shmemcomm_region_create(PAGE_SIZE, NUMA_NO_NODE);
	shmemcomm_test_set_max_pinned_mb(saved);

	KUNIT_EXPECT_EQ(test, PTR_ERR(region), (long)-EPERM);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&shmemcomm_pinned_pages), pinned);
}

static void region_file_refs(struct kunit *test)
{
	long live = atomic_long_read(&shmemcomm_live_regions);
	struct shmemcomm_region *region;
	struct file *owner, *importer;

	region = shmemcomm_region_create(PAGE_SIZE, NUMA_NO_NODE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(region));

	owner = shmemcomm_region_file_open(region, true, true);
	KUNIT_ASSERT_FALSE(test, IS_ERR(owner));
	KUNIT_EXPECT_TRUE(test, shmemcomm_is_region_file(owner));
	KUNIT_EXPECT_TRUE(test, owner->f_mode & FMODE_WRITE);

	kref_get(&region->kref);
	importer = shmemcomm_region_file_open(region, false, false);
	KUNIT_ASSERT_FALSE(test, IS_ERR(importer));
	KUNIT_EXPECT_FALSE(test, importer->f_mode & FMODE_WRITE);
	KUNIT_EXPECT_EQ(test, kref_read(&region->kref), 2U);
	KUNIT_EXPECT_EQ(test, atomic_read(&region->importers), 1);

	__fput_sync(owner);
	KUNIT_EXPECT_EQ(test, kref_read(&region->kref), 1U);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&shmemcomm_live_regions), live + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&region->importers), 1);
	__fput_sync(importer);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&shmemcomm_live_regions), live);
}

/* The list behind the netlink dump: id order, resumable, freed ones gone. */
static void region_list(struct kunit *test)
{
	s64 created = atomic64_read(&shmemcomm_regions_created);
	s64 freed = atomic64_read(&shmemcomm_regions_freed);
	struct shmemcomm_region *r[3], *next;
	int i;

	for (i = 0; i < 3; i++) {
		r[i] = shmemcomm_region_create(PAGE_SIZE, NUMA_NO_NODE);
		KUNIT_ASSERT_FALSE(test, IS_ERR(r[i]));
	}
	KUNIT_EXPECT_EQ(test, atomic64_read(&shmemcomm_regions_created), created + 3);
	KUNIT_EXPECT_LT(test, r[0]->id, r[1]->id);
	KUNIT_EXPECT_LT(test, r[1]->id, r[2]->id);

	/* resuming from an id gives that region, with a reference */
	next = shmemcomm_region_next(r[1]->id);
	KUNIT_EXPECT_PTR_EQ(test, next, r[1]);
	KUNIT_EXPECT_EQ(test, kref_read(&r[1]->kref), 2U);
	shmemcomm_region_put(next);

	/* a freed region is skipped; the walk goes on to the next one */
	shmemcomm_region_put(r[1]);
	KUNIT_EXPECT_EQ(test, atomic64_read(&shmemcomm_regions_freed), freed + 1);
	next = shmemcomm_region_next(r[0]->id + 1);
	KUNIT_EXPECT_PTR_EQ(test, next, r[2]);
	shmemcomm_region_put(next);
	KUNIT_EXPECT_NULL(test, shmemcomm_region_next(r[2]->id + 1));

	shmemcomm_region_put(r[0]);
	shmemcomm_region_put(r[2]);
	KUNIT_EXPECT_EQ(test, atomic64_read(&shmemcomm_regions_freed), freed + 3);
}

static struct kunit_case shmemcomm_region_cases[] = {
	KUNIT_CASE(charge_within_limit),
	KUNIT_CASE(charge_overflow),
	KUNIT_CASE(create_args),
	KUNIT_CASE(create_user_args),
	KUNIT_CASE(create_dmabuf_args),
	KUNIT_CASE(region_counts),
	KUNIT_CASE(region_chunks),
	KUNIT_CASE(region_chunk_fallback),
	KUNIT_CASE(region_module_cap),
	KUNIT_CASE(region_file_refs),
	KUNIT_CASE(region_list),
	{}
};

static struct kunit_suite shmemcomm_region_suite = {
	.name = "shmemcomm-region",
	.test_cases = shmemcomm_region_cases,
};

kunit_test_suite(shmemcomm_region_suite);
