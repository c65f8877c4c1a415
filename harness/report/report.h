/* Rendering a results document: the table people read (text or Markdown), CSV, or the JSON itself. */
#ifndef HX_REPORT_H
#define HX_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "results/adcost.h"
#include "results/results.h"

/* html, gab and hyperfine are rendered by report/html.c and report/export.c (the report verb picks). */
enum report_format { RPT_TABLE, RPT_MD, RPT_JSON, RPT_CSV, RPT_HTML, RPT_GAB, RPT_HYPERFINE, RPT_NR_FORMATS };
extern const char *const report_format_names[RPT_NR_FORMATS];

/* Fewer trial pairs than this: the vs pinned ratio is shown without a CI. */
#define REPORT_MIN_CI_PAIRS 6
int report_format_parse(const char *s, enum report_format *ret);
/* The document as a table (a row per scenario × runtime × mode, summaries recomputed from the trials),
 * as CSV of the summaries, or as its JSON. */
/* Why d holds less than a whole run (interrupted, unfinished, a shard, an incomplete merge), in words for a
 * warning; false when it is whole. */
bool report_partial(const struct res_doc *d, char *buf, size_t len);
/* Of the trials (of group g; all when g is NULL), how many are noisy, and in counts how many for each reason. */
unsigned report_noisy_count(const struct trial_result *trials, size_t n, const struct res_summary *g,
			    unsigned counts[RES_NR_NOISY]);
/* The reasons of counts, the dominant first: "contended 3, foreign 1". */
void report_noisy_reasons(const unsigned counts[RES_NR_NOISY], char *buf, size_t len);
int report_render(const struct res_doc *d, enum report_format f, FILE *out, struct hx_err *err);
/* An adapter's cost, the line beside its row: "+33.1 µs/request on a null handler (95% CI 30.2–36.0, 7 pairs)"; a
 * failed one "its cost not measured: <why>". */
void report_adcost_text(const struct adc_cost *c, char *buf, size_t len);

#endif
