/* The HTML report: one self-contained page (inline SVG and CSS, a few lines of inline JS to sort tables)
 * with the host, the slices, a chart and a table per scenario, and the cgroup evidence of every trial. */
#ifndef HX_HTML_H
#define HX_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "results/results.h"

/* The page of a results document (summaries computed from its trials); name: what to call it. */
int html_render(const struct res_doc *d, const char *name, FILE *out, struct hx_err *err);
/* Two runs: harness compare's rows (docs/statistics.md) per scenario as a chart of B / A with its CI,
 * coloured by verdict, a table under it, and what differs between the hosts. */
int html_compare(const struct res_doc *a, const char *na, const struct res_doc *b, const char *nb, FILE *out,
		 struct hx_err *err);

/* The page frame every HTML page of harness shares (html_ab.c's too): the head with its style and its
 * Content-Security-Policy up to an <h1> of kind and name; then the sorting script and the end. */
void html_page_open(FILE *out, const char *kind, const char *name);
void html_page_close(FILE *out);
/* A sortable table: its caption (or NULL) and headers, cells of text (escaped) or of numbers (for people, the
 * exact value kept for sorting), its end. */
void html_table_open(FILE *out, const char *caption, const char *const *heads, size_t n);
void html_td(FILE *out, const char *s);
void html_tdn(FILE *out, double v);
void html_table_close(FILE *out);

#endif
