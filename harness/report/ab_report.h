/* A duet's harness-ab/1 document as people read it (docs/ab.md, "Output"): the first line, the sides, the pairs
 * and the time, the flags, a table per metric; its JSON; a CSV row per window. */
#ifndef HX_AB_REPORT_H
#define HX_AB_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"
#include "results/ab.h"

/* The first line, the line of the sides, the pairs and the time, and the flags (warnings, notes), one a line; the
 * file's names escaped for a terminal or (md) Markdown. */
void ab_print_head(FILE *f, const struct ab_doc *d, bool md);
/* The first line ("B ran 1.021x [1.012-1.030] slower than A: slower beyond 2%"), then the table per metric;
 * json: the document; csv: a row per window (docs/ab.md). */
void ab_print(FILE *f, const struct ab_doc *d, enum report_format fmt);

#endif
