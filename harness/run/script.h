/* The script workload's one line of output: a flat JSON object of non-negative numbers, with ops,
 * seconds and ops_per_s and whatever else the scenario requires (docs/scenario.md). */
#ifndef HX_SCRIPT_H
#define HX_SCRIPT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/err.h"

#define SCRIPT_MAX_METRICS 64

/* The metrics line of a script's stdout: its last non-empty line. *ret is the object (caller frees). */
int script_parse_metrics(const char *out, const char (*required)[32], size_t nrequired, cJSON **ret,
			 struct hx_err *err);

#endif
