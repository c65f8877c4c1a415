/* harness compare's rows rendered (docs/statistics.md): the head, a row per scenario x runtime x mode x metric
 * with its verdict, and the gate's line; as a table, Markdown or JSON. */
#ifndef HX_COMPARE_REPORT_H
#define HX_COMPARE_REPORT_H

#include <stdio.h>

#include "results/compare.h"

enum cmp_format { CMP_TABLE, CMP_MD, CMP_JSON };
void cmp_render(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_opts *o,
		const struct cmp_result *r, enum cmp_format f, FILE *out);

#endif
