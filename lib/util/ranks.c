#include "util/ranks.h"

#include <stdio.h>

void sc_format_ranks(const int *ranks, int n, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		int j = i;

		while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
			j++;
		used += (size_t)snprintf(out + used, len - used, "%s%d", i ? "," : "", ranks[i]);
		if (j > i && used < len)
			used += (size_t)snprintf(out + used, len - used, "-%d", ranks[j]);
		i = j;
	}
}
