/* The isolation table: each noisy (scenario, runtime, mode, noise) group against the quiet group of the
 * same scenario, runtime and mode, as the shift of its main metric with a bootstrap CI and a rank test. */
#ifndef HX_ISOLATION_H
#define HX_ISOLATION_H

#include <stdbool.h>
#include <stdio.h>

#include "results/results.h"

/* The isolation table, after the main one, when any group is noisy. */
void iso_render(const struct res_summary *groups, size_t n, bool md, FILE *out);

#endif
