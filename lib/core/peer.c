#include "core/peer.h"

#include <string.h>

#include "core/state.h"

void *sc_peer_view(int pe, uint64_t offset)
{
	char *base = sc.mem.base[pe];

	return base ? base + offset : NULL;
}

void sc_peer_quiet(void)
{
	if (sc.net.active)
		sc_net_quiet(&sc.net);
}

void sc_peer_name_lost(const int *pes, int n, char *did, unsigned long len)
{
	sc_net_name_lost(&sc.net, pes, n, did, len);
}

void sc_peer_put(int pe, uint64_t offset, const void *source, size_t len, int nbi)
{
	char *base = sc.mem.base[pe];

	if (base)
		memcpy(base + offset, source, len);
	else
		sc_net_put(&sc.net, pe, offset, source, len, nbi);
}

void sc_peer_get(void *dest, int pe, uint64_t offset, size_t len, int nbi)
{
	const char *base = sc.mem.base[pe];

	if (base)
		memcpy(dest, base + offset, len);
	else
		sc_net_get(&sc.net, dest, pe, offset, len, nbi);
}

uint64_t sc_peer_load(int pe, uint64_t offset)
{
	char *base = sc.mem.base[pe];
	uint64_t value;

	if (base)
		return __atomic_load_n((uint64_t *)(base + offset), __ATOMIC_ACQUIRE);
	sc_net_get(&sc.net, &value, pe, offset, sizeof(value), 0);
	return value;
}

int sc_peer_probe(int pe, uint64_t offset, uint64_t *value)
{
	if (sc.mem.base[pe]) {
		*value = sc_peer_load(pe, offset);
		return 0;
	}
	return sc_net_probe(&sc.net, value, pe, offset, 1.0);
}

void sc_peer_store(int pe, uint64_t offset, uint64_t value)
{
	char *base = sc.mem.base[pe];

	if (base)
		__atomic_store_n((uint64_t *)(base + offset), value, __ATOMIC_RELEASE);
	else
		sc_net_put(&sc.net, pe, offset, &value, sizeof(value), 0);
}

int sc_peer_atomic_by_cpu(int pe)
{
	return !sc.net.active || (sc.net.amo_by_message && sc.mem.base[pe]);
}

uint64_t sc_symmetric_offset(const void *addr, size_t len, int pe, const char *function)
{
	sc_check_pe(pe, function);
	return SC_INTERNAL_SIZE + sc_heap_offset(addr, len, function);
}
