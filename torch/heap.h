/*
 * Tensors on the symmetric heap (shmemcomm_torch.empty), in C and free of
 * torch. A collective reads such a tensor in place, because every PE's
 * block lies at the same offset of its heap: the blocks come from
 * shmem_align, which is collective, in the same order on every PE.
 *
 * The catch is the free. shmem_free is collective too, but a tensor dies
 * when Python lets go of it, at different times on different PEs, and on
 * any thread. So a dying tensor only marks its block released here; the
 * next allocation first AND-reduces every PE's released marks (with the
 * size asked for, so that PEs asking for different sizes are caught) and
 * frees, in block order, exactly the blocks that every PE has released.
 * The table of blocks therefore changes only at those agreed points and
 * is the same on every PE, so the same block index is picked everywhere.
 */
#ifndef SHMEMCOMM_TORCH_HEAP_H
#define SHMEMCOMM_TORCH_HEAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Heap tensors alive at once, per job; the released marks are a bitmap of this many bits. */
#define SCT_HEAP_BLOCKS 1024
/* The words AND-reduced over the world before an allocation: the marks, then size and ~size. */
#define SCT_HEAP_AGREEMENT_WORDS (SCT_HEAP_BLOCKS / 64 + 2)

/* Any thread: what this PE brings to the allocation of @bytes. */
void sct_heap_propose(uint64_t agreement[SCT_HEAP_AGREEMENT_WORDS], size_t bytes);
/*
 * The engine's thread, after @agreed is the world's AND of every PE's
 * proposal: frees the blocks every PE released, then allocates @bytes
 * (collective). Returns the block's index with *ptr set, or -1 with @error
 * filled and the same outcome on every PE.
 */
int sct_heap_commit(const uint64_t agreed[SCT_HEAP_AGREEMENT_WORDS], size_t bytes, void **ptr,
		    char *error, size_t len);
/* Any thread, never blocking: this PE is done with block @index. */
void sct_heap_release(int index);
/* Whether [p, p + len) lies in one live block. */
int sct_heap_contains(const void *p, size_t len);
/* The blocks this PE has not released, and their bytes. */
void sct_heap_usage(unsigned *blocks, size_t *bytes);
/* Block @index and its bytes, if it is live (allocated, not released here); else NULL. */
void *sct_heap_block(int index, size_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
