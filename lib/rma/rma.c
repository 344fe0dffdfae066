/*
 * Put and get: copies between this process's mapping of the source and of
 * the target heap on the node, RDMA writes and reads beyond it (core/peer.h).
 * The _nbi forms may leave the NIC's part to quiet.
 */
#include <stdint.h>
#include <string.h>

#include "core/state.h"
#include "core/peer.h"
#include "shmem.h"

/*
 * With nothing to move a call has no effect, whatever its pointers (the
 * standard's zero-length calls, NULL ones included); the PE is still checked.
 */
static int nothing_to_move(size_t bytes, int pe, const char *function)
{
	if (bytes)
		return 0;
	sc_check_pe(pe, function);
	return 1;
}

static void put_bytes(void *dest, const void *source, size_t bytes, int pe, int nbi,
		      const char *function)
{
	sc_require_init(function);
	if (nothing_to_move(bytes, pe, function))
		return;
	sc_peer_put(pe, sc_symmetric_offset(dest, bytes, pe, function), source, bytes, nbi);
}

static void get_bytes(void *dest, const void *source, size_t bytes, int pe, int nbi,
		      const char *function)
{
	sc_require_init(function);
	if (nothing_to_move(bytes, pe, function))
		return;
	sc_peer_get(dest, pe, sc_symmetric_offset(source, bytes, pe, function), bytes, nbi);
}

/* Bytes from the first to the end of the last of @nelems elements @stride apart. */
static size_t strided_span(ptrdiff_t stride, size_t nelems, size_t elem, const char *function)
{
	if (stride < 1)
		sc_fatal(1, "PE %d: %s: stride %td is not positive", sc.me, function, stride);
	if (nelems - 1 > (SIZE_MAX / elem - 1) / (size_t)stride)
		sc_fatal(1, "PE %d: %s: %zu elements %td apart overflow the address space",
			 sc.me, function, nelems, stride);
	return ((size_t)stride * (nelems - 1) + 1) * elem;
}

/* Strided: element i goes from source[i * sst] to dest[i * dst]. */
static void iput_bytes(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
		       size_t nelems, size_t elem, int pe, const char *function)
{
	uint64_t to;

	sc_require_init(function);
	if (nothing_to_move(nelems, pe, function))
		return;
	strided_span(sst, nelems, elem, function);
	/* the whole span must be symmetric: checked once */
	to = sc_symmetric_offset(dest, strided_span(dst, nelems, elem, function), pe, function);
	for (size_t i = 0; i < nelems; i++)
		sc_peer_put(pe, to + i * (size_t)dst * elem,
			    (const char *)source + (ptrdiff_t)i * sst * (ptrdiff_t)elem, elem, 1);
	if (!sc.mem.base[pe])
		sc_net_quiet(&sc.net);
}

static void iget_bytes(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
		       size_t nelems, size_t elem, int pe, const char *function)
{
	uint64_t from;

	sc_require_init(function);
	if (nothing_to_move(nelems, pe, function))
		return;
	strided_span(dst, nelems, elem, function);
	from = sc_symmetric_offset(source, strided_span(sst, nelems, elem, function), pe, function);
	for (size_t i = 0; i < nelems; i++)
		sc_peer_get((char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem, pe,
			    from + i * (size_t)sst * elem, elem, 1);
	if (!sc.mem.base[pe])
		sc_net_quiet(&sc.net);
}

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
	put_bytes(dest, source, nelems, pe, 0, "shmem_putmem");
}

void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
	get_bytes(dest, source, nelems, pe, 0, "shmem_getmem");
}

void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
	put_bytes(dest, source, nelems, pe, 1, "shmem_putmem_nbi");
}

void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
	get_bytes(dest, source, nelems, pe, 1, "shmem_getmem_nbi");
}

#define DEFINE_RMA(NAME, TYPE)                                                           \
	void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe)   \
	{                                                                                \
		put_bytes(dest, source, nelems * sizeof(TYPE), pe, 0, "shmem_" #NAME "_put");  \
	}                                                                                \
	void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe)   \
	{                                                                                \
		get_bytes(dest, source, nelems * sizeof(TYPE), pe, 0, "shmem_" #NAME "_get");  \
	}                                                                                \
	void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe) \
	{                                                                                \
		put_bytes(dest, source, nelems * sizeof(TYPE), pe, 1,                    \
			  "shmem_" #NAME "_put_nbi");                                    \
	}                                                                                \
	void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe) \
	{                                                                                \
		get_bytes(dest, source, nelems * sizeof(TYPE), pe, 1,                    \
			  "shmem_" #NAME "_get_nbi");                                    \
	}                                                                                \
	void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst,          \
				 ptrdiff_t sst, size_t nelems, int pe)                   \
	{                                                                                \
		iput_bytes(dest, source, dst, sst, nelems, sizeof(TYPE), pe,             \
			   "shmem_" #NAME "_iput");                                      \
	}                                                                                \
	void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst,          \
				 ptrdiff_t sst, size_t nelems, int pe)                   \
	{                                                                                \
		iget_bytes(dest, source, dst, sst, nelems, sizeof(TYPE), pe,             \
			   "shmem_" #NAME "_iget");                                      \
	}                                                                                \
	void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe)                            \
	{                                                                                \
		put_bytes(dest, &value, sizeof(TYPE), pe, 0, "shmem_" #NAME "_p");          \
	}                                                                                \
	TYPE shmem_##NAME##_g(const TYPE *source, int pe)                                \
	{                                                                                \
		TYPE value;                                                              \
		get_bytes(&value, source, sizeof(TYPE), pe, 0, "shmem_" #NAME "_g");        \
		return value;                                                            \
	}
SHMEMCOMM_RMA_TYPES(DEFINE_RMA)

#define DEFINE_RMA_SIZE(BITS)                                                            \
	void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)      \
	{                                                                                \
		put_bytes(dest, source, nelems * (BITS / 8), pe, 0, "shmem_put" #BITS);     \
	}                                                                                \
	void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)      \
	{                                                                                \
		get_bytes(dest, source, nelems * (BITS / 8), pe, 0, "shmem_get" #BITS);     \
	}                                                                                \
	void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) \
	{                                                                                \
		put_bytes(dest, source, nelems * (BITS / 8), pe, 1, "shmem_put" #BITS "_nbi"); \
	}                                                                                \
	void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) \
	{                                                                                \
		get_bytes(dest, source, nelems * (BITS / 8), pe, 1, "shmem_get" #BITS "_nbi"); \
	}                                                                                \
	void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
			      size_t nelems, int pe)                                     \
	{                                                                                \
		iput_bytes(dest, source, dst, sst, nelems, BITS / 8, pe, "shmem_iput" #BITS); \
	}                                                                                \
	void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
			      size_t nelems, int pe)                                     \
	{                                                                                \
		iget_bytes(dest, source, dst, sst, nelems, BITS / 8, pe, "shmem_iget" #BITS); \
	}
SHMEMCOMM_RMA_SIZES(DEFINE_RMA_SIZE)
