/* The scenario parser's private header, shared by its files: the route x concurrency matrix of an http
 * scenario (scenario_routes.c): its keys (routes, skip, load.sweep, load.duration_s, load.warmup_s), parsed
 * strictly like the rest of scenario.json (docs/scenario.md). cJSON stays in the parser's .c files: here it is
 * only named. */
#ifndef HX_SCENARIO_INTERNAL_H
#define HX_SCENARIO_INTERNAL_H

#include "base/err.h"
#include "run/scenario.h"

struct cJSON;

/* root: the scenario object; load: its load object (may be NULL). */
int routes_parse(const char *file, const struct cJSON *root, const struct cJSON *load, struct scenario *s,
		 struct hx_err *err);
/* "skip": {"runtime": "why", ...} */
int routes_parse_skips(const char *file, const struct cJSON *root, struct scenario *s, struct hx_err *err);

/* "wire": {"inherent": {"keep-alive": "why", ...}} and "adapter": {"node24": "what", ...} (scenario_wire.c) */
int scn_wire_parse(const char *file, const struct cJSON *root, struct scenario *s, struct hx_err *err);

#endif
