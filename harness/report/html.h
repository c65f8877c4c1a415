/* The HTML report: one self-contained page (inline SVG and CSS, a few lines of inline JS to sort tables)
 * with the host, the slices, a chart and a table per scenario, and the cgroup evidence of every trial. */
#ifndef HX_HTML_H
#define HX_HTML_H

#include <stdio.h>

#include "base/err.h"
#include "report/results.h"

/* The page of a results document (summaries computed from its trials); name: what to call it. */
int html_render(const struct res_doc *d, const char *name, FILE *out, struct hx_err *err);
/* Two runs: harness compare's rows (docs/statistics.md) per scenario as a chart of B / A with its CI,
 * coloured by verdict, a table under it, and what differs between the hosts. */
int html_compare(const struct res_doc *a, const char *na, const struct res_doc *b, const char *nb, FILE *out,
		 struct hx_err *err);

#endif
