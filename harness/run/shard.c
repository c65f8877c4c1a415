/* Deterministic, balanced shards of a trial plan. */
#include "run/shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int shard_parse(const char *s, unsigned *ret_index, unsigned *ret_count, struct hx_err *err)
{
	unsigned i = 0, n = 0;
	int end = 0;

	if (sscanf(s, "%u/%u%n", &i, &n, &end) != 2 || s[end] || i < 1 || n < 1 || i > n || n > SHARD_MAX)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "run: --shard takes I/N with 1 <= I <= N <= %d (e.g. 2/4), not '%s'", SHARD_MAX, s);
	*ret_index = i;
	*ret_count = n;
	return 0;
}

/* Positions sorted by cost, longest first, then by position: qsort is not stable, so the key is whole. */
static const double *sort_cost;

static int by_cost(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_cost[x] != sort_cost[y])
		return sort_cost[x] > sort_cost[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

void shard_assign(const double *cost, size_t n, unsigned count, unsigned *ret)
{
	double load[SHARD_MAX] = {0};
	size_t *idx = malloc(n * sizeof(*idx));

	if (count < 1 || count > SHARD_MAX)
		count = 1;
	if (!idx) { /* no memory for the balance: round robin is still deterministic */
		for (size_t k = 0; k < n; k++)
			ret[k] = (unsigned)(k % count);
		return;
	}
	for (size_t k = 0; k < n; k++)
		idx[k] = k;
	sort_cost = cost;
	qsort(idx, n, sizeof(*idx), by_cost);
	for (size_t k = 0; k < n; k++) {
		unsigned best = 0;

		for (unsigned s = 1; s < count; s++)
			if (load[s] < load[best])
				best = s;
		ret[idx[k]] = best;
		load[best] += cost[idx[k]];
	}
	free(idx);
}
