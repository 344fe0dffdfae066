#include "boot/node.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/env.h"
#include "util/host.h"

struct node_card {
	char key[128];
	int pid;
};

static void node_key(char *key, size_t len, int alone, int rank)
{
	const char *forced = sc_env_string("SHMEMCOMM_NODE_KEY");

	if (forced) {
		snprintf(key, len, "%s", forced);
		return;
	}
	sc_host_key(key, len);
	if (alone)
		snprintf(key + strlen(key), len - strlen(key), "/pe%d", rank);
}

int sc_node_discover(struct sc_node *node, struct sc_boot *boot, int alone)
{
	struct node_card mine = { .pid = (int)getpid() }, *all;
	int err;

	memset(node, 0, sizeof(*node));
	node_key(mine.key, sizeof(mine.key), alone, boot->rank);
	all = calloc((size_t)boot->size, sizeof(*all));
	node->local_pes = calloc((size_t)boot->size, sizeof(int));
	node->local_index = calloc((size_t)boot->size, sizeof(int));
	node->pids = calloc((size_t)boot->size, sizeof(int));
	node->node_of = calloc((size_t)boot->size, sizeof(int));
	if (!all || !node->local_pes || !node->local_index || !node->pids || !node->node_of) {
		err = -ENOMEM;
		goto out;
	}
	err = sc_boot_allgather(boot, &mine, sizeof(mine), all);
	if (err)
		goto out;
	for (int pe = 0; pe < boot->size; pe++) {
		int first = 1;

		node->node_of[pe] = pe;
		for (int before = 0; before < pe && first; before++)
			if (!strcmp(all[before].key, all[pe].key)) {
				first = 0;
				node->node_of[pe] = before;
			}
		node->nodes += first;
		node->pids[pe] = all[pe].pid;
		node->local_index[pe] = -1;
		if (strcmp(all[pe].key, mine.key))
			continue;
		if (pe == boot->rank)
			node->local_rank = node->local_size;
		node->local_index[pe] = node->local_size;
		node->local_pes[node->local_size++] = pe;
	}
out:
	free(all);
	if (err)
		sc_node_free(node);
	return err;
}

void sc_node_free(struct sc_node *node)
{
	free(node->local_pes);
	free(node->local_index);
	free(node->pids);
	free(node->node_of);
	memset(node, 0, sizeof(*node));
}
