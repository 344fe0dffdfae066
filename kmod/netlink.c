// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "shmemcomm": what the module holds, for
 * shmemctl and monitoring. Read-only; the ABI is
 * uapi/linux/shmemcomm_netlink.h.
 */
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/net.h>
#include <linux/pid_namespace.h>
#include <linux/user_namespace.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "compat.h"
#include "shmemcomm.h"

static struct genl_family shmemcomm_genl_family;

/* The dump takes one filter; every other attribute is refused (strict). */
static const struct nla_policy
shmemcomm_region_dump_policy[SHMEMCOMM_ATTR_REGION_OWNER_PID + 1] = {
	[SHMEMCOMM_ATTR_REGION_OWNER_PID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* A reply to a doit command: a fresh message with @cmd's header, filled by @fill. */
static int shmemcomm_nl_reply(struct genl_info *info, u8 cmd,
			      int (*fill)(struct sk_buff *msg))
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &shmemcomm_genl_family, 0, cmd);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}
	err = fill(msg);
	if (err)
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

static int shmemcomm_nl_fill_info(struct sk_buff *msg)
{
	struct shmemcomm_info info;

	shmemcomm_fill_info(&info);
	if (nla_put_u32(msg, SHMEMCOMM_ATTR_ABI_MAJOR, info.abi_major) ||
	    nla_put_u32(msg, SHMEMCOMM_ATTR_ABI_MINOR, info.abi_minor) ||
	    nla_put_u64_64bit(msg, SHMEMCOMM_ATTR_FEATURES, info.features,
			      SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SHMEMCOMM_ATTR_MAX_REGION_SIZE,
			      info.max_region_size, SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u32(msg, SHMEMCOMM_ATTR_PAGE_SIZE, info.page_size) ||
	    nla_put_u32(msg, SHMEMCOMM_ATTR_CHUNK_SIZE, info.chunk_size) ||
	    nla_put_u32(msg, SHMEMCOMM_ATTR_DEV_MODE, shmemcomm_dev_mode()) ||
	    nla_put_u32(msg, SHMEMCOMM_ATTR_DEV_GID, shmemcomm_dev_gid()))
		return -EMSGSIZE;
	return 0;
}

static int shmemcomm_nl_get_info(struct sk_buff *skb, struct genl_info *info)
{
	return shmemcomm_nl_reply(info, SHMEMCOMM_CMD_GET_INFO,
				  shmemcomm_nl_fill_info);
}

static int shmemcomm_nl_fill_refusals(struct sk_buff *msg)
{
	struct nlattr *nest;
	int reason;

	nest = nla_nest_start(msg, SHMEMCOMM_ATTR_REFUSALS);
	if (!nest)
		return -EMSGSIZE;
	for (reason = SHMEMCOMM_REFUSAL_UNSPEC + 1;
	     reason <= SHMEMCOMM_REFUSAL_MAX; reason++) {
		if (nla_put_u64_64bit(msg, reason, shmemcomm_refusals(reason),
				      SHMEMCOMM_REFUSAL_UNSPEC)) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int shmemcomm_nl_fill_stats(struct sk_buff *msg)
{
	struct shmemcomm_info info;

	shmemcomm_fill_info(&info);
	if (nla_put_u64_64bit(msg, SHMEMCOMM_ATTR_PINNED, info.pinned,
			      SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SHMEMCOMM_ATTR_DEVICE, info.device,
			      SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SHMEMCOMM_ATTR_MAX_PINNED, info.max_pinned,
			      SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SHMEMCOMM_ATTR_LIVE_REGIONS,
			      info.live_regions, SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SHMEMCOMM_ATTR_REGIONS_CREATED,
			      atomic64_read(&shmemcomm_regions_created),
			      SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SHMEMCOMM_ATTR_REGIONS_FREED,
			      atomic64_read(&shmemcomm_regions_freed),
			      SHMEMCOMM_ATTR_PAD))
		return -EMSGSIZE;
	return shmemcomm_nl_fill_refusals(msg);
}

static int shmemcomm_nl_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	return shmemcomm_nl_reply(info, SHMEMCOMM_CMD_GET_STATS,
				  shmemcomm_nl_fill_stats);
}

/**
 * struct shmemcomm_region_dump - a region dump's place, in the callback's ctx
 * @next_id:	where the next message resumes
 * @owner_pid:	the filter, in the reader's pid namespace; 0 for none
 * @viewer:	the euid of the socket's opener
 * @admin:	the opener has CAP_SYS_ADMIN: every region is visible
 */
struct shmemcomm_region_dump {
	u64 next_id;
	u32 owner_pid;
	kuid_t viewer;
	bool admin;
};

static struct shmemcomm_region_dump *
shmemcomm_region_dump_state(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct shmemcomm_region_dump) > sizeof(cb->ctx));
	return (struct shmemcomm_region_dump *)cb->ctx;
}

/*
 * Who is asking is decided by the socket's opener, as netlink_capable()
 * does, so that a socket handed to another process keeps its rights.
 */
static int shmemcomm_nl_region_start(struct netlink_callback *cb)
{
	struct shmemcomm_region_dump *dump = shmemcomm_region_dump_state(cb);
	struct nlattr **attrs = shmemcomm_dump_attrs(cb);
	struct socket *sock = NETLINK_CB(cb->skb).sk->sk_socket;
	struct nlattr *pid = attrs ? attrs[SHMEMCOMM_ATTR_REGION_OWNER_PID] : NULL;

	memset(dump, 0, sizeof(*dump));
	if (!sock || !sock->file)
		return -EPERM;
	dump->viewer = sock->file->f_cred->euid;
	dump->admin = netlink_capable(cb->skb, CAP_SYS_ADMIN);
	dump->next_id = 1;
	if (pid)
		dump->owner_pid = nla_get_u32(pid);
	return 0;
}

static int shmemcomm_nl_put_region(struct sk_buff *skb, u32 portid, u32 seq,
				   struct shmemcomm_region *region, u32 pid)
{
	struct user_namespace *ns = current_user_ns();
	u64 bytes = (u64)region->nr_pages << PAGE_SHIFT;
	u32 export_flags, state;
	void *hdr;
	u64 handle;

	state = shmemcomm_region_export_state(region, &handle, &export_flags);

	hdr = genlmsg_put(skb, portid, seq, &shmemcomm_genl_family,
			  NLM_F_MULTI, SHMEMCOMM_CMD_GET_REGION);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, SHMEMCOMM_ATTR_REGION_ID, region->id,
			      SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, SHMEMCOMM_ATTR_REGION_HANDLE, handle,
			      SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, SHMEMCOMM_ATTR_REGION_SIZE, bytes,
			      SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, SHMEMCOMM_ATTR_REGION_PINNED,
			      region->device ? 0 : bytes, SHMEMCOMM_ATTR_PAD) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_OWNER_PID, pid) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_OWNER_UID,
			from_kuid_munged(ns, region->owner_uid)) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_OWNER_GID,
			from_kgid_munged(ns, region->owner_gid)) ||
	    nla_put_string(skb, SHMEMCOMM_ATTR_REGION_OWNER_COMM,
			   region->owner_comm) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_EXPORT_FLAGS, export_flags) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_STATE, state) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_IMPORTERS,
			atomic_read(&region->importers)) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_MAPPINGS,
			atomic_read(&region->mappings)) ||
	    nla_put_s32(skb, SHMEMCOMM_ATTR_REGION_NUMA_NODE,
			region->numa_node) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_CHUNKS, region->nr_chunks) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_DMABUFS,
			atomic_read(&region->nr_dmabufs)) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_DMABUF_ATTACHMENTS,
			atomic_read(&region->dmabuf_attachments)) ||
	    nla_put_u32(skb, SHMEMCOMM_ATTR_REGION_KIND, region->kind) ||
	    (region->user &&
	     nla_put_u64_64bit(skb, SHMEMCOMM_ATTR_REGION_KEPT_EVENTS,
			       shmemcomm_user_kept_events(region),
			       SHMEMCOMM_ATTR_PAD)) ||
	    (region->device &&
	     nla_put_string(skb, SHMEMCOMM_ATTR_REGION_EXPORTER,
			    shmemcomm_device_exporter(region)))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int shmemcomm_nl_dump_one(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 struct shmemcomm_region *region)
{
	struct shmemcomm_region_dump *dump = shmemcomm_region_dump_state(cb);
	u32 pid;

	if (!dump->admin && !uid_eq(region->owner_uid, dump->viewer))
		return 0;
	/* in the reader's namespace: a dump goes on in the reader's recvmsg */
	pid = pid_nr_ns(region->owner_pid, task_active_pid_ns(current));
	if (dump->owner_pid && pid != dump->owner_pid)
		return 0;
	return shmemcomm_nl_put_region(skb, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, region, pid);
}

static int shmemcomm_nl_region_dump(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct shmemcomm_region_dump *dump = shmemcomm_region_dump_state(cb);
	struct shmemcomm_region *region;
	int err = 0;

	while (!err && (region = shmemcomm_region_next(dump->next_id))) {
		err = shmemcomm_nl_dump_one(skb, cb, region);
		if (!err)
			dump->next_id = region->id + 1;
		shmemcomm_region_put(region);
	}
	/* a full message ends this part of the dump; the next one resumes */
	if (err && err != -EMSGSIZE)
		return err;
	return skb->len;
}

static const struct genl_ops shmemcomm_genl_ops[] = {
	{
		.cmd = SHMEMCOMM_CMD_GET_INFO,
		.doit = shmemcomm_nl_get_info,
	},
	{
		.cmd = SHMEMCOMM_CMD_GET_STATS,
		.doit = shmemcomm_nl_get_stats,
	},
	{
		.cmd = SHMEMCOMM_CMD_GET_REGION,
		.start = shmemcomm_nl_region_start,
		.dumpit = shmemcomm_nl_region_dump,
		.policy = shmemcomm_region_dump_policy,
		.maxattr = SHMEMCOMM_ATTR_REGION_OWNER_PID,
	},
};

/*
 * resv_start_op at the first command: commands without a policy get the
 * core's reject-all policy, and reserved header bytes must be zero.
 */
static struct genl_family shmemcomm_genl_family __ro_after_init = {
	.name = SHMEMCOMM_GENL_NAME,
	.version = SHMEMCOMM_GENL_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = shmemcomm_genl_ops,
	.n_ops = ARRAY_SIZE(shmemcomm_genl_ops),
	.resv_start_op = SHMEMCOMM_CMD_GET_INFO,
};

int shmemcomm_netlink_init(void)
{
	return genl_register_family(&shmemcomm_genl_family);
}

void shmemcomm_netlink_exit(void)
{
	genl_unregister_family(&shmemcomm_genl_family);
}
