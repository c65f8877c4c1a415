/* github-action-benchmark and hyperfine exports, from the summaries and the trials of a results document. */
#include "report/export.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/esc.h"
#include "stats/stats.h"

/* What github-action-benchmark gets of each summary: the first of each direction a group has. */
static const struct {
	enum res_metric m;
	const char *unit;
	double scale; /* from the file's unit to the one shown */
	bool bigger_is_better;
} gab_metrics[] = {
	{RES_M_RPS, "req/s", 1, true},
	{RES_M_DELIVERIES_PER_S, "deliveries/s", 1, true},
	{RES_M_OPS_PER_S, "ops/s", 1, true},
	{RES_M_STARTUP_MEDIAN_MS, "ms", 1, false},
	{RES_M_P99_US, "ms (p99)", 1e-3, false},
	{RES_M_RTT_P99_US, "ms (p99 round trip)", 1e-3, false},
	{RES_M_SCRIPT_P99_MS, "ms (p99 batch)", 1, false},
};

static const char *head_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) && *v->valuestring ? v->valuestring : "?";
}

/* The CPU sets of the group's mode and its flags, for the chart's tooltip. */
static void gab_extra(const struct res_doc *d, const struct res_summary *g, char *buf, size_t len)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "modes"),
		g->mode);
	char on[ESC_LEN], by[ESC_LEN];

	snprintf(buf, len, "runtime CPUs %s, client CPUs %s\ntrials %u%s%s", esc_md(head_str(m, "sut"), on, sizeof(on)),
		 esc_md(head_str(m, "client"), by, sizeof(by)), g->trials, g->failed ? "\nFAILED trials" : "",
		 g->client_saturated ? "\nclient saturated" : "");
}

/* "scenario / runtime / mode", and " / noise" for a noisy group: names must be unique in a file. The action
 * puts names in Markdown (its alert comments): the results file's strings are escaped for it. */
static void group_name(const struct res_summary *g, char *buf, size_t len)
{
	bool quiet = !*g->noise || !strcmp(g->noise, "none");
	char n[4][ESC_LEN];

	snprintf(buf, len, "%s / %s / %s%s%s", esc_md(g->scenario, n[0], ESC_LEN), esc_md(g->runtime, n[1], ESC_LEN),
		 esc_md(g->mode, n[2], ESC_LEN), quiet ? "" : " / ", quiet ? "" : esc_md(g->noise, n[3], ESC_LEN));
}

static cJSON *gab_entry(const struct res_doc *d, const struct res_summary *g, size_t k)
{
	const struct stats_summary *s = &g->metric[gab_metrics[k].m];
	double sc = gab_metrics[k].scale;
	char name[256], range[128], extra[256];
	cJSON *e = cJSON_CreateObject();

	group_name(g, name, sizeof(name));
	snprintf(range, sizeof(range), "%.6g – %.6g (95%% CI of the median)", s->ci95_low * sc, s->ci95_high * sc);
	if (!stats_has_ci(s)) /* too few trials for a CI: say so rather than a range that is min and max */
		snprintf(range, sizeof(range), "n=%zu, no CI", s->n);
	gab_extra(d, g, extra, sizeof(extra));
	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "unit", gab_metrics[k].unit);
	cJSON_AddNumberToObject(e, "value", s->median * sc);
	cJSON_AddStringToObject(e, "range", range);
	cJSON_AddStringToObject(e, "extra", extra);
	return e;
}

cJSON *export_gab(const struct res_doc *d, bool bigger_is_better, struct hx_err *err)
{
	_cleanup_free_ struct res_summary *groups = NULL;
	size_t ng = 0;
	cJSON *out;

	if (res_summarize(d->trials, d->ntrials, &groups, &ng, err) < 0)
		return NULL;
	out = cJSON_CreateArray();
	for (size_t i = 0; i < ng; i++)
		for (size_t k = 0; k < sizeof(gab_metrics) / sizeof(gab_metrics[0]); k++)
			if (gab_metrics[k].bigger_is_better == bigger_is_better &&
			    groups[i].have & (1u << gab_metrics[k].m) &&
			    isfinite(groups[i].metric[gab_metrics[k].m].median)) {
				cJSON_AddItemToArray(out, gab_entry(d, &groups[i], k));
				break; /* one entry per group and direction: the action tells benchmarks apart by name */
			}
	if (cJSON_GetArraySize(out) == 0) {
		hx_fail(err, HX_EXIT_USAGE, EINVAL, "report: no %s figure in this file (--direction %s takes %s)",
			bigger_is_better ? "throughput" : "startup or latency", bigger_is_better ? "bigger" : "smaller",
			bigger_is_better ? "http, ws-chat and script scenarios" : "startup and load scenarios");
		cJSON_Delete(out);
		return NULL;
	}
	return out;
}

/* Every run of the group's passing trials, in seconds, with its exit code; user and system are means. */
static int hyperfine_result(const struct res_doc *d, const struct res_summary *g, cJSON *ret, struct hx_err *err)
{
	cJSON *times = cJSON_AddArrayToObject(ret, "times"), *codes = cJSON_AddArrayToObject(ret, "exit_codes");
	_cleanup_free_ double *v = NULL;
	double user = 0, sys = 0;
	size_t n = 0, nt = 0;
	struct stats_summary s;

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];
		const struct res_startup *st = &t->startup;
		double *nv;

		if (!res_in_group(t, g) || t->status != TRIAL_OK || !(t->have & RES_HAVE_STARTUP))
			continue;
		if (!st->nruns)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "report: this file keeps no per-run startup times (startup.runs_ms); run the "
				       "startup scenario again with this harness");
		if (!(nv = realloc(v, (n + st->nruns) * sizeof(*v))))
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		v = nv;
		for (unsigned k = 0; k < st->nruns; k++) {
			v[n++] = st->runs_ms[k] / 1e3;
			cJSON_AddItemToArray(times, cJSON_CreateNumber(st->runs_ms[k] / 1e3));
			cJSON_AddItemToArray(codes, cJSON_CreateNumber(st->runs_exit[k]));
		}
		user += st->user_ms / 1e3;
		sys += st->system_ms / 1e3;
		nt++;
	}
	stats_summarize(v, n, &s);
	/* hyperfine's order of fields: the arrays (attached first, so a failure frees them with ret) last */
	cJSON_AddItemToObject(ret, "mean", cJSON_CreateNumber(s.mean));
	cJSON_AddItemToObject(ret, "stddev", cJSON_CreateNumber(s.stddev));
	cJSON_AddItemToObject(ret, "median", cJSON_CreateNumber(s.median));
	cJSON_AddItemToObject(ret, "user", cJSON_CreateNumber(nt ? user / (double)nt : 0));
	cJSON_AddItemToObject(ret, "system", cJSON_CreateNumber(nt ? sys / (double)nt : 0));
	cJSON_AddItemToObject(ret, "min", cJSON_CreateNumber(s.min));
	cJSON_AddItemToObject(ret, "max", cJSON_CreateNumber(s.max));
	cJSON_DetachItemViaPointer(ret, times);
	cJSON_DetachItemViaPointer(ret, codes);
	cJSON_AddItemToObject(ret, "times", times);
	cJSON_AddItemToObject(ret, "exit_codes", codes);
	return 0;
}

cJSON *export_hyperfine(const struct res_doc *d, struct hx_err *err)
{
	_cleanup_free_ struct res_summary *groups = NULL;
	size_t ng = 0;
	cJSON *out, *arr;

	if (res_summarize(d->trials, d->ntrials, &groups, &ng, err) < 0)
		return NULL;
	out = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(out, "results");
	for (size_t i = 0; i < ng; i++) {
		char name[256];
		cJSON *e;

		if (!(groups[i].have & (1u << RES_M_STARTUP_MEDIAN_MS)))
			continue;
		group_name(&groups[i], name, sizeof(name));
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "command", name);
		cJSON_AddItemToArray(arr, e);
		if (hyperfine_result(d, &groups[i], e, err) < 0) {
			cJSON_Delete(out);
			return NULL;
		}
	}
	if (cJSON_GetArraySize(arr) == 0) {
		hx_fail(err, HX_EXIT_USAGE, EINVAL,
			"report: --format hyperfine needs a startup scenario with a trial that passed");
		cJSON_Delete(out);
		return NULL;
	}
	return out;
}
