/*
 * A small generic netlink client on libmnl: resolve a family, send one
 * command, hand every reply message to a callback. Shared by shmemctl and
 * the guest test of the module's netlink family.
 */
#ifndef SHMEMCOMM_TOOLS_GENL_H
#define SHMEMCOMM_TOOLS_GENL_H

#include <stdbool.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

struct sc_genl {
	struct mnl_socket *sock;
	unsigned int portid;
	uint32_t seq;
	uint16_t family;
	uint32_t version;	/* the family's, as the kernel registered it */
	char error[256];	/* the kernel's extended ack of the last failure, or "" */
};

/* A u32 request attribute. */
struct sc_genl_u32 {
	uint16_t type;
	uint32_t value;
};

/* 0, or -errno: -ENOENT when no family of that name is registered. */
int sc_genl_open(struct sc_genl *genl, const char *family);
void sc_genl_close(struct sc_genl *genl);

/*
 * Sends @cmd (a dump if @dump) with @nattrs u32 attributes and runs
 * @cb(reply, @data) on every reply. 0, or -errno from the kernel (with
 * genl->error set when it said why) or from @cb (MNL_CB_ERROR with errno).
 */
int sc_genl_call(struct sc_genl *genl, uint8_t cmd, bool dump,
		 const struct sc_genl_u32 *attrs, int nattrs,
		 mnl_cb_t cb, void *data);

/*
 * The attributes of a reply after its genl header, by type, into
 * @table[0..@max] (zeroed first; types above @max are skipped, as a newer
 * module's would be). -EINVAL if the message is malformed.
 */
int sc_genl_parse(const struct nlmsghdr *nlh, const struct nlattr **table, int max);
/* The same for the attributes nested in @nest. */
int sc_genl_parse_nested(const struct nlattr *nest, const struct nlattr **table, int max);

#endif
