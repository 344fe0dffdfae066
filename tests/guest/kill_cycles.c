/* kill -9 in the middle of use releases everything: after 1,000 cycles of
 * create/export/import/map on driver pages (and, every tenth cycle, an RDMA
 * MR on the imported mapping) and 1,000 on user memory (the owner's buffer
 * pinned by CREATE_USER, touched and, every tenth cycle, registered as an
 * MR by the owner too), ended by SIGKILL at varying points, the module's
 * counters and the kernel's FOLL_PIN counters are back at baseline
 * (tests/guest/cycles.c; device memory is kill_cycles_device's). */
#include "cycles.h"

int main(void)
{
	kill_cycles(DRIVER_PAGES, 1000);
	kill_cycles(USER_MEMORY, 1000);
	return 0;
}
