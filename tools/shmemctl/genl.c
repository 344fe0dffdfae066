#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "genl.h"

struct attr_table {
	const struct nlattr **table;
	int max;
};

static int keep_attr(const struct nlattr *attr, void *data)
{
	struct attr_table *t = data;
	int type = mnl_attr_get_type(attr);

	if (type <= t->max)
		t->table[type] = attr;
	return MNL_CB_OK;
}

int sc_genl_parse(const struct nlmsghdr *nlh, const struct nlattr **table, int max)
{
	struct attr_table t = { table, max };

	memset(table, 0, sizeof(*table) * (size_t)(max + 1));
	if (mnl_attr_parse(nlh, GENL_HDRLEN, keep_attr, &t) < 0)
		return -EINVAL;
	return 0;
}

int sc_genl_parse_nested(const struct nlattr *nest, const struct nlattr **table, int max)
{
	struct attr_table t = { table, max };

	memset(table, 0, sizeof(*table) * (size_t)(max + 1));
	if (mnl_attr_parse_nested(nest, keep_attr, &t) < 0)
		return -EINVAL;
	return 0;
}

/* What every callback of one exchange gets: mnl passes one pointer to all. */
struct call {
	struct sc_genl *genl;
	mnl_cb_t cb;
	void *data;
};

static int on_reply(const struct nlmsghdr *nlh, void *data)
{
	struct call *call = data;

	return call->cb ? call->cb(nlh, call->data) : MNL_CB_OK;
}

/* An error or an ack; keeps the kernel's message (extended ack) for the caller. */
static int on_error(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct call *call = data;
	const struct nlattr *attr;
	size_t offset;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!err->error)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		/* the request comes back too, unless the kernel capped it */
		offset = sizeof(*err);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			offset += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
		mnl_attr_for_each(attr, nlh, offset)
			if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
			    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
				snprintf(call->genl->error, sizeof(call->genl->error), "%s",
					 mnl_attr_get_str(attr));
	}
	errno = -err->error;
	return MNL_CB_ERROR;
}

static int on_done(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_STOP;
}

static struct nlmsghdr *put_request(struct sc_genl *genl, char *buf, uint16_t type,
				    uint8_t cmd, uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *hdr;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++genl->seq;
	hdr = mnl_nlmsg_put_extra_header(nlh, sizeof(*hdr));
	hdr->cmd = cmd;
	hdr->version = version;
	return nlh;
}

static int exchange(struct sc_genl *genl, char *buf, mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	mnl_cb_t control[NLMSG_MIN_TYPE] = { 0 };
	struct call call = { genl, cb, data };
	ssize_t len;
	int ret;

	control[NLMSG_ERROR] = on_error;
	control[NLMSG_DONE] = on_done;
	genl->error[0] = 0;
	if (mnl_socket_sendto(genl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		len = mnl_socket_recvfrom(genl->sock, buf, MNL_SOCKET_BUFFER_SIZE);
		if (len < 0)
			return -errno;
		ret = mnl_cb_run2(buf, (size_t)len, genl->seq, genl->portid, on_reply,
				  &call, control, NLMSG_MIN_TYPE);
	} while (ret > MNL_CB_STOP);
	if (ret < 0)
		return errno ? -errno : -EIO;
	return 0;
}

static int on_family(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *table[CTRL_ATTR_MAX + 1];
	struct sc_genl *genl = data;

	if (sc_genl_parse(nlh, table, CTRL_ATTR_MAX) ||
	    !table[CTRL_ATTR_FAMILY_ID] || !table[CTRL_ATTR_VERSION] ||
	    mnl_attr_validate(table[CTRL_ATTR_FAMILY_ID], MNL_TYPE_U16) ||
	    mnl_attr_validate(table[CTRL_ATTR_VERSION], MNL_TYPE_U32)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	genl->family = mnl_attr_get_u16(table[CTRL_ATTR_FAMILY_ID]);
	genl->version = mnl_attr_get_u32(table[CTRL_ATTR_VERSION]);
	return MNL_CB_OK;
}

int sc_genl_open(struct sc_genl *genl, const char *family)
{
	char *buf = malloc(MNL_SOCKET_BUFFER_SIZE);
	struct nlmsghdr *nlh;
	int one = 1, err;

	memset(genl, 0, sizeof(*genl));
	if (!buf)
		return -ENOMEM;
	genl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!genl->sock || mnl_socket_bind(genl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto fail;
	}
	/* the kernel's reasons (extended acks), without the request echoed back */
	mnl_socket_setsockopt(genl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(genl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	genl->portid = mnl_socket_get_portid(genl->sock);
	genl->seq = (uint32_t)time(NULL);

	nlh = put_request(genl, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	err = exchange(genl, buf, on_family, genl);
	if (!err && !genl->family)
		err = -ENOENT;
	if (err)
		goto fail;
	free(buf);
	return 0;

fail:
	if (genl->sock)
		mnl_socket_close(genl->sock);
	genl->sock = NULL;
	free(buf);
	return err;
}

void sc_genl_close(struct sc_genl *genl)
{
	if (genl->sock)
		mnl_socket_close(genl->sock);
	genl->sock = NULL;
}

int sc_genl_call(struct sc_genl *genl, uint8_t cmd, bool dump,
		 const struct sc_genl_u32 *attrs, int nattrs,
		 mnl_cb_t cb, void *data)
{
	char *buf = malloc(MNL_SOCKET_BUFFER_SIZE);
	struct nlmsghdr *nlh;
	int err;

	if (!buf)
		return -ENOMEM;
	nlh = put_request(genl, buf, genl->family, cmd, (uint8_t)genl->version,
			  dump ? NLM_F_DUMP : NLM_F_ACK);
	for (int i = 0; i < nattrs; i++)
		mnl_attr_put_u32(nlh, attrs[i].type, attrs[i].value);
	err = exchange(genl, buf, cb, data);
	free(buf);
	return err;
}
