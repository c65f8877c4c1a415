/* Shards: a deterministic part of a run's trial plan, the same on every machine that is given the same
 * plan, balanced by each trial's expected duration (docs/shards.md). */
#ifndef HX_SHARD_H
#define HX_SHARD_H

#include <stddef.h>

#include "base/err.h"

#define SHARD_MAX 64

/* "I/N" with 1 <= I <= N <= SHARD_MAX; exit 2 naming the form otherwise. */
int shard_parse(const char *s, unsigned *ret_index, unsigned *ret_count, struct hx_err *err);
/* Assign n trials, given in the plan's order with their expected costs, to count shards (0-based into
 * ret): the longest first, each to the least loaded shard, ties to the earlier trial and the lower shard
 * (longest-processing-time first: within 4/3 of the best balance). Depends only on the costs' order. */
void shard_assign(const double *cost, size_t n, unsigned count, unsigned *ret);

#endif
