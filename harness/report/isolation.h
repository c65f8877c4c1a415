/* The isolation table: each noisy (scenario, runtime, mode, noise) group against the quiet group of the
 * same scenario, runtime and mode, as the shift of its main metric with a bootstrap CI and a rank test. */
#ifndef HX_ISOLATION_H
#define HX_ISOLATION_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "report/results.h"

/* The shift of group g from its quiet twin, from the trials; ret->have is false for a quiet group, or
 * when either side has no trial that passed. -ENOMEM when out of memory. */
int iso_shift(const struct trial_result *trials, size_t n, const struct res_summary *g, struct res_shift *ret);
/* Every group's shift (res_summarize leaves them for this: isolation builds on results, not the reverse). */
int iso_shifts(const struct trial_result *trials, size_t n, struct res_summary *groups, size_t ngroups,
	       struct hx_err *err);
cJSON *iso_shift_json(const struct res_shift *s);
/* The isolation table, after the main one, when any group is noisy. */
void iso_render(const struct res_summary *groups, size_t n, bool md, FILE *out);

#endif
