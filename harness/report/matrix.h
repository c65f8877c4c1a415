/* The route matrix table (docs/scenario.md), in the published A/B shape: one row per connection count and
 * runtime (and mode), one column per route, each cell `req/s (p95 ms)`, medians over the quiet trials. */
#ifndef HX_MATRIX_H
#define HX_MATRIX_H

#include <stdbool.h>
#include <stdio.h>

#include "results/results.h"

/* One table per scenario whose trials have cells; nothing when none has. */
void matrix_render(const struct res_doc *d, bool md, FILE *out);

#endif
