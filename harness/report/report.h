/* Rendering a results document: the table people read (text or Markdown), CSV, or the JSON itself. */
#ifndef HX_REPORT_H
#define HX_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

enum report_format { RPT_TABLE, RPT_MD, RPT_JSON, RPT_CSV };

int report_format_parse(const char *s, enum report_format *ret);
/* Per (scenario, runtime, mode): medians over trials and the other statistics (docs/results.md). */
cJSON *report_summaries(const cJSON *trials);
void report_render(const cJSON *results, enum report_format f, FILE *out);

#endif
