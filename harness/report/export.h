/* Results in the formats other tools read: github-action-benchmark's custom JSON and hyperfine's
 * --export-json, so their charts and alerts work on harness runs. */
#ifndef HX_EXPORT_H
#define HX_EXPORT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "base/err.h"
#include "results/results.h"

/* customBiggerIsBetter (throughput) or customSmallerIsBetter (startup, p99 latency) entries: an array of
 * {name "scenario / runtime / mode", unit, value (the median), range (its 95% CI), extra (CPUs, flags)}. */
cJSON *export_gab(const struct res_doc *d, bool bigger_is_better, struct hx_err *err);
/* hyperfine's export of the startup scenarios: results[] with command, mean, stddev, median, user, system,
 * min, max (seconds), times[] (every run) and exit_codes[]. */
cJSON *export_hyperfine(const struct res_doc *d, struct hx_err *err);

#endif
