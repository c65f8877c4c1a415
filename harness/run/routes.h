/* The route x concurrency matrix of an http scenario: its keys (routes, skip, load.sweep,
 * load.duration_s, load.warmup_s), parsed strictly like the rest of scenario.json (docs/scenario.md). */
#ifndef HX_ROUTES_H
#define HX_ROUTES_H

#include <cjson/cJSON.h>

#include "base/err.h"
#include "run/scenario.h"

/* root: the scenario object; load: its load object (may be NULL). */
int routes_parse(const char *file, const cJSON *root, const cJSON *load, struct scenario *s, struct hx_err *err);
/* "skip": {"runtime": "why", ...} */
int routes_parse_skips(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err);

#endif
