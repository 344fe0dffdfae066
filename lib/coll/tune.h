/*
 * The tuning of the collectives in one place: every SHMEMCOMM_ variable of
 * the collectives is read in tune.c, and every rule that picks an algorithm
 * is there, one table of kind x algorithm, each with its "fits" rule.
 */
#ifndef SHMEMCOMM_COLL_TUNE_H
#define SHMEMCOMM_COLL_TUNE_H

#include "coll/types.h"

/* Reads the SHMEMCOMM_ALLREDUCE_ and SHMEMCOMM_COLL_ variables: 0, or -1 after a message. */
int sc_coll_tune(struct sc_coll_tuning *tuning);
const char *sc_coll_algo_name(int algo);
/* "allreduce", ...: the name of @kind, or "?" */
const char *sc_coll_kind_name(int kind);
/* "allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall": the kind, or -1. */
int sc_coll_kind_parse(const char *name);
/* The variable that forces @kind's algorithm, for messages. */
const char *sc_coll_algo_variable(enum sc_coll_kind kind);

/* The allreduce algorithm for @bytes on @team. */
int sc_coll_pick_algo(size_t bytes, const struct sc_team *team);
/* The algorithm of a @kind (not allreduce) moving @bytes in all on @team; -1: the pipeline. */
int sc_coll_pick_kind_algo(enum sc_coll_kind kind, size_t bytes, const struct sc_team *team);
/* Whether the smallest allreduce, of @bytes (up to SC_TINY_MAX), runs on the tiny lines. */
int sc_coll_tiny_lines_win(size_t bytes, const struct sc_team *team);
/* Whether @team lies on its nodes evenly enough for the hierarchical scheme. */
int sc_coll_hier_fits(const struct sc_team *team);
/* The hierarchical scheme's algorithm across nodes, for @bytes in all. */
int sc_coll_rail_algo(size_t bytes, const struct sc_team *team);
/* How results of @dst_bytes a member, on a team of @members, are stored. */
enum sc_coll_store sc_coll_streams(size_t dst_bytes, int members);

#endif
