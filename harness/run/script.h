/* The script workload's one line of output: a flat JSON object of non-negative numbers, with ops,
 * seconds and ops_per_s and whatever else the scenario requires (docs/scenario.md). */
#ifndef HX_SCRIPT_H
#define HX_SCRIPT_H

#include <stddef.h>

#include "base/err.h"
#include "results/results.h"

/* The metrics line of a script's stdout: its last non-empty line, into *ret in the order printed. */
int script_parse_metrics(const char *out, const char (*required)[32], size_t nrequired, struct res_script *ret,
			 struct hx_err *err);

#endif
