/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences between the kernels shmemcomm is built for
 * (tested: Debian 12's 6.1 and bookworm-backports' 6.12). Each difference
 * is one helper here, named after the newer kernel's API, so that the code
 * has no checks of its own. Whether a kernel has an API is found in its
 * headers by kmod/Kbuild (SHMEMCOMM_HAVE_*), not judged from its version:
 * distribution kernels backport.
 */
#ifndef SHMEMCOMM_COMPAT_H
#define SHMEMCOMM_COMPAT_H

#include <linux/mm.h>

#ifndef SHMEMCOMM_HAVE_VM_FLAGS_SET
/* 6.3 made vma->vm_flags read-only; these are its writers */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

#if IS_ENABLED(CONFIG_NET)
#include <net/genetlink.h>

/* A dump's parsed request attributes; 6.6 moved them into a genl_info. */
static inline struct nlattr **shmemcomm_dump_attrs(struct netlink_callback *cb)
{
#ifdef SHMEMCOMM_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}
#endif

#endif /* SHMEMCOMM_COMPAT_H */
