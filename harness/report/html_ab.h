/* The HTML page of a duet's harness-ab/1 document (harness report X.json --format html, docs/ab.md): the first
 * line, the sides and the settings, the table per metric, and per metric each pair's cost ratio B/A over the run
 * with the CI of its geometric mean as a band and the threshold as lines. */
#ifndef HX_HTML_AB_H
#define HX_HTML_AB_H

#include <stdio.h>

#include "base/err.h"
#include "results/ab.h"

/* The page of d (analyzed: ab_read does it); name: what to call it. */
int html_ab(const struct ab_doc *d, const char *name, FILE *out, struct hx_err *err);

#endif
