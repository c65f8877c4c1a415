/* A slice's cgroup stats as JSON, with absent values left out (never a made-up zero). */
#ifndef HX_STATS_JSON_H
#define HX_STATS_JSON_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "cgroups/cg.h"

cJSON *res_stats_json(const struct cg_stats *st);
/* "name value" lines, for people. */
void res_stats_print(FILE *f, const struct cg_stats *st);

#endif
