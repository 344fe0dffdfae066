/* The ABI's structs have the fixed layout of abi_layout.h (checked when
 * this builds), and every command is _IOWR on its own struct. */
#include <sys/ioctl.h>

#include "abi_layout.h"
#include "check.h"

#define CHECK_IOWR(cmd, type)                                  \
	do {                                                   \
		CHECK_EQ(_IOC_DIR(cmd), _IOC_READ | _IOC_WRITE); \
		CHECK_EQ(_IOC_TYPE(cmd), SHMEMCOMM_IOC_MAGIC);   \
		CHECK_EQ(_IOC_SIZE(cmd), sizeof(struct type));   \
	} while (0)

int main(void)
{
	CHECK_IOWR(SHMEMCOMM_IOC_GET_INFO, shmemcomm_info);
	CHECK_IOWR(SHMEMCOMM_IOC_CREATE, shmemcomm_create);
	CHECK_IOWR(SHMEMCOMM_IOC_IMPORT, shmemcomm_import);
	CHECK_IOWR(SHMEMCOMM_IOC_REGION_INFO, shmemcomm_region_info);
	CHECK_IOWR(SHMEMCOMM_IOC_EXPORT, shmemcomm_export);
	CHECK_IOWR(SHMEMCOMM_IOC_REVOKE, shmemcomm_revoke);
	CHECK_IOWR(SHMEMCOMM_IOC_EXPORT_DMABUF, shmemcomm_dmabuf);
	/* flags that must never overlap */
	CHECK_EQ(SHMEMCOMM_EXPORT_SCOPE_MASK & SHMEMCOMM_EXPORT_RDONLY, 0);
	return 0;
}
