/*
 * The ABI's layout, fixed: built into a 64-bit and a 32-bit test, so that a
 * change that gives the structs a different shape on either fails to build.
 */
#ifndef SHMEMCOMM_TESTS_ABI_LAYOUT_H
#define SHMEMCOMM_TESTS_ABI_LAYOUT_H

#include <stddef.h>

#include <linux/shmemcomm.h>

#define ABI_OFFSET(type, field, offset) \
	_Static_assert(offsetof(struct type, field) == (offset), #type "." #field)
#define ABI_SIZE(type, size) _Static_assert(sizeof(struct type) == (size), #type)

ABI_SIZE(shmemcomm_info, 88);
ABI_OFFSET(shmemcomm_info, features, 8);
ABI_OFFSET(shmemcomm_info, live_regions, 40);
ABI_OFFSET(shmemcomm_info, page_size, 48);
/* minor 2 took device from reserved[4], which sat at 56 */
ABI_OFFSET(shmemcomm_info, device, 56);
ABI_OFFSET(shmemcomm_info, reserved, 64);

ABI_SIZE(shmemcomm_create, 40);
ABI_OFFSET(shmemcomm_create, numa_node, 8);
ABI_OFFSET(shmemcomm_create, fd, 16);
ABI_OFFSET(shmemcomm_create, reserved, 24);

ABI_SIZE(shmemcomm_export, 32);
ABI_OFFSET(shmemcomm_export, handle, 8);
ABI_OFFSET(shmemcomm_export, reserved, 16);

ABI_SIZE(shmemcomm_import, 40);
ABI_OFFSET(shmemcomm_import, flags, 8);
ABI_OFFSET(shmemcomm_import, size, 16);
ABI_OFFSET(shmemcomm_import, reserved, 24);

ABI_SIZE(shmemcomm_create_user, 64);
ABI_OFFSET(shmemcomm_create_user, stale_word, 16);
ABI_OFFSET(shmemcomm_create_user, flags, 24);
ABI_OFFSET(shmemcomm_create_user, fd, 28);
ABI_OFFSET(shmemcomm_create_user, start, 32);
ABI_OFFSET(shmemcomm_create_user, reserved, 48);

ABI_SIZE(shmemcomm_create_dmabuf, 40);
ABI_OFFSET(shmemcomm_create_dmabuf, flags, 4);
ABI_OFFSET(shmemcomm_create_dmabuf, fd, 8);
ABI_OFFSET(shmemcomm_create_dmabuf, mappable, 12);
ABI_OFFSET(shmemcomm_create_dmabuf, size, 16);
ABI_OFFSET(shmemcomm_create_dmabuf, reserved, 24);

ABI_SIZE(shmemcomm_region_info, 48);
ABI_OFFSET(shmemcomm_region_info, export_flags, 16);
ABI_OFFSET(shmemcomm_region_info, numa_node, 24);
/* minor 1 took these from reserved[2], which sat at 32 */
ABI_OFFSET(shmemcomm_region_info, kind, 32);
ABI_OFFSET(shmemcomm_region_info, user_start, 40);

ABI_SIZE(shmemcomm_revoke, 24);
ABI_SIZE(shmemcomm_dmabuf, 24);
ABI_OFFSET(shmemcomm_dmabuf, fd, 4);

#endif
