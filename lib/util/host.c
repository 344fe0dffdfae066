#include "util/host.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void sc_host_key(char *key, size_t len)
{
	char host[64] = "", boot_id[40] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	gethostname(host, sizeof(host) - 1);
	if (f) {
		if (!fgets(boot_id, sizeof(boot_id), f))
			boot_id[0] = '\0';
		fclose(f);
	}
	boot_id[strcspn(boot_id, "\n")] = '\0';
	snprintf(key, len, "%s/%s", host, boot_id);
}
