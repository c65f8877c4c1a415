/* The tables people read (text or Markdown), CSV of the summaries, or the document's JSON. */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "cgroups/cpus.h"
#include "report/isolation.h"
#include "report/matrix.h"

/* Indexed by enum report_format. */
const char *const report_format_names[RPT_NR_FORMATS] = {"table", "md", "json", "csv", "html", "gab", "hyperfine"};

int report_format_parse(const char *s, enum report_format *ret)
{
	for (int i = 0; i < RPT_NR_FORMATS; i++)
		if (strcmp(s, report_format_names[i]) == 0) {
			*ret = (enum report_format)i;
			return 0;
		}
	return -1;
}

/* A number with `decimals` digits and a suffix, or a dash when there is none. */
static void cell(char *buf, size_t len, int decimals, const char *suffix, double v)
{
	if (isnan(v))
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%.*f%s", decimals, v, suffix);
}

/* The pinned group of the same scenario and runtime, to show other modes as a ratio to it. */
static const struct res_summary *baseline(const struct res_summary *groups, size_t n, const struct res_summary *g)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(groups[i].scenario, g->scenario) && !strcmp(groups[i].runtime, g->runtime) &&
		    &groups[i] != g && !strcmp(groups[i].mode, "pinned") && !strcmp(groups[i].noise, "none"))
			return &groups[i];
	return NULL;
}

/* The first of metrics a..c the group has (c scaled); NAN when none. */
static double first_of(const struct res_summary *g, enum res_metric a, enum res_metric b, enum res_metric c,
		       double c_scale)
{
	return !isnan(res_median(g, a))	  ? res_median(g, a)
	       : !isnan(res_median(g, b)) ? res_median(g, b)
					  : res_median(g, c) * c_scale;
}

/* Throughput, whatever the workload counts: requests, chat deliveries or a script's operations. */
static double ops_per_s(const struct res_summary *g)
{
	return first_of(g, RES_M_RPS, RES_M_DELIVERIES_PER_S, RES_M_OPS_PER_S, 1);
}

/* The spread of the row's main figure (ops/s, else startup): the 95% bootstrap CI of its median, or, below
 * REPORT_MIN_CI_PAIRS trials, the trial count and no CI (a CI of so few trials only restates min and max). */
static void spread(char *buf, size_t len, const struct res_summary *g)
{
	static const enum res_metric order[] = {RES_M_RPS, RES_M_DELIVERIES_PER_S, RES_M_OPS_PER_S,
						RES_M_STARTUP_MEDIAN_MS};

	buf[0] = '\0';
	for (size_t i = 0; i < HX_ARRAY_SIZE(order); i++) {
		const struct stats_summary *s = &g->metric[order[i]];
		int dec = order[i] == RES_M_STARTUP_MEDIAN_MS ? 2 : 0;

		if (!(g->have & (1u << order[i])))
			continue;
		if (s->n < REPORT_MIN_CI_PAIRS || isnan(s->ci95_low))
			snprintf(buf, len, "n=%zu, no CI", s->n);
		else
			snprintf(buf, len, "%.*f–%.*f", dec, s->ci95_low, dec, s->ci95_high);
		return;
	}
	snprintf(buf, len, "–");
}

/* The ratio to pinned with its CI and a star when the difference is significant; empty without a twin. */
static void vs_pinned(char *buf, size_t len, const struct res_twin *t)
{
	/* The ratio names its metric; below 6 pairs a "95% CI" would only restate the extremes: none is shown. */
	if (!t || !t->have)
		snprintf(buf, len, "%s", "");
	else if (isnan(t->ci95_low) || t->pairs < REPORT_MIN_CI_PAIRS)
		snprintf(buf, len, "%.2fx %s (n=%u, no CI)", t->ratio, res_metric_names[t->metric], t->pairs);
	else
		snprintf(buf, len, "%.2fx %s (%.2f–%.2f)%s", t->ratio, res_metric_names[t->metric], t->ci95_low,
			 t->ci95_high, t->significant ? "*" : " ");
}

/* Where each slice ran, per mode, from the results' CPU plan, and where the client shares the runtime's
 * CPUs (quota mode on a small host): the runtime's numbers then include the client's interference. */
static void render_placement(const struct res_doc *d, enum report_format f, FILE *out)
{
	const cJSON *modes =
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "modes");
	const cJSON *m;

	cJSON_ArrayForEach (m, modes) {
		const cJSON *sut = cJSON_GetObjectItemCaseSensitive(m, "sut");
		const cJSON *client = cJSON_GetObjectItemCaseSensitive(m, "client");
		struct cg_cpus a, b;
		bool overlap = false;

		if (!cJSON_IsString(sut) || !cJSON_IsString(client))
			continue;
		if (cg_cpus_parse(sut->valuestring, &a) == 0 && cg_cpus_parse(client->valuestring, &b) == 0) {
			cg_cpus_and(&a, &b);
			overlap = !cg_cpus_empty(&a);
		}
		fprintf(out, "%s%s: runtime on CPUs %s, client on CPUs %s%s\n", f == RPT_MD ? "- " : "  ", m->string,
			sut->valuestring, client->valuestring,
			overlap ? " (OVERLAP: the client shares the runtime's CPUs; its load counts against the "
				  "runtime)"
				: "");
	}
}

static void render_rows(const struct res_summary *groups, size_t n, enum report_format f, FILE *out)
{
	const char *sep = f == RPT_MD ? " | " : "  ";
	const char *lead = f == RPT_MD ? "| " : "";
	const char *tail = f == RPT_MD ? " |" : "";
	const char *last = "";

	for (size_t i = 0; i < n; i++) {
		const struct res_summary *g = &groups[i], *base = baseline(groups, n, g);
		char a[32], b[32], c[32], d[48], e[32], r[80], noisy[32], notes[96], ci[48];
		double rps = ops_per_s(g);
		/* a chat's round trip or a script's batch p99 fill the p99 column */
		double p99 = first_of(g, RES_M_P99_US, RES_M_RTT_P99_US, RES_M_SCRIPT_P99_MS, 1e3);
		double errs = first_of(g, RES_M_ERRORS, RES_M_LOST, RES_M_SCRIPT_ERRORS, 1);
		double st = res_median(g, RES_M_STARTUP_MEDIAN_MS);
		double idle = res_median(g, RES_M_IDLE_RSS_KB), script_rss = res_median(g, RES_M_SCRIPT_MAX_RSS_KB);

		if (strcmp(g->noise, "none") != 0)
			continue; /* noisy groups are in the isolation table */

		if (strcmp(last, g->scenario) != 0) {
			last = g->scenario;
			fprintf(out, "\n%s%s\n\n", f == RPT_MD ? "### " : "== ", last);
			fprintf(out, "%s%-8s%s%-7s%s%10s%s%10s%s%20s%s%9s%s%17s%s%6s%s%20s%s%s%s\n", lead, "runtime",
				sep, "mode", sep, "startup ms", sep, "ops/s", sep, "95% CI of the median", sep,
				"p99 ms", sep, "idle → peak MiB", sep, "errors", sep, "vs pinned (95% CI)", sep,
				"notes", tail);
			if (f == RPT_MD)
				fprintf(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
		}
		cell(a, sizeof(a), 2, "", st);
		cell(b, sizeof(b), 0, "", rps);
		cell(c, sizeof(c), 2, "", p99 / 1e3);
		if (isnan(idle) && !isnan(script_rss))
			snprintf(d, sizeof(d), "peak %.1f", script_rss / 1024);
		else if (isnan(idle))
			snprintf(d, sizeof(d), "–");
		else
			snprintf(d, sizeof(d), "%.1f → %.1f", idle / 1024, res_median(g, RES_M_PEAK_RSS_KB) / 1024);
		cell(e, sizeof(e), 0, "", errs);
		vs_pinned(r, sizeof(r), base ? &g->vs_pinned : NULL);
		if (g->noisy_trials)
			snprintf(noisy, sizeof(noisy), "%u noisy trial%s", g->noisy_trials,
				 g->noisy_trials == 1 ? "" : "s");
		else
			noisy[0] = '\0';
		/* The flags are a column of the table (inside the last '|'), so a Markdown renderer keeps them. */
		snprintf(notes, sizeof(notes), "%s%s%s%s%s", g->failed ? "FAILED" : "",
			 g->failed && g->client_saturated ? "; " : "", g->client_saturated ? "client saturated" : "",
			 (g->failed || g->client_saturated) && noisy[0] ? "; " : "", noisy);
		if (!notes[0] && f == RPT_MD)
			snprintf(notes, sizeof(notes), " ");
		spread(ci, sizeof(ci), g);
		fprintf(out, "%s%-8s%s%-7s%s%10s%s%10s%s%20s%s%9s%s%17s%s%6s%s%20s%s%s%s\n", lead, g->runtime, sep,
			g->mode, sep, a, sep, b, sep, ci, sep, c, sep, d, sep, e, sep, r, notes[0] ? sep : "", notes,
			tail);
	}
}

static void render_csv(const struct res_summary *groups, size_t n, FILE *out)
{
	fprintf(out, "scenario,runtime,mode,noise,trials,failed,client_saturated");
	for (int m = 0; m < RES_NR_METRICS; m++)
		fprintf(out, ",%s_median,%s_ci95_low,%s_ci95_high", res_metric_names[m], res_metric_names[m],
			res_metric_names[m]);
	fprintf(out, "\n");
	for (size_t i = 0; i < n; i++) {
		const struct res_summary *g = &groups[i];

		fprintf(out, "%s,%s,%s,%s,%u,%d,%d", g->scenario, g->runtime, g->mode, g->noise, g->trials, g->failed,
			g->client_saturated);
		for (int m = 0; m < RES_NR_METRICS; m++)
			if (g->have & (1u << m))
				fprintf(out, ",%g,%g,%g", g->metric[m].median, g->metric[m].ci95_low,
					g->metric[m].ci95_high);
			else
				fprintf(out, ",,,");
		fprintf(out, "\n");
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The run's efficiency: the share of its wall time spent measuring, and the median fixed cost of a trial
 * (docs/results.md: overhead_ms). Nothing for a file from before either was recorded. */
/* Inside the trials (their timelines): a leak, a throughput still moving, what an automatic warm-up took. */
static void render_inside(const struct res_doc *d, enum report_format f, FILE *out)
{
	bool head = false;

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];
		const struct res_growth *g = &t->timeline.growth;
		const struct res_steady *st = &t->timeline.steady;

		if (!g->leak && !st->not_steady && !t->warmup.have)
			continue;
		if (!head)
			fprintf(out, "\n%s\n\n", f == RPT_MD ? "### Inside the trials" : "== inside the trials");
		head = true;
		fprintf(out, "%s%s %s %s trial %u:", f == RPT_MD ? "- " : "", t->scenario, t->runtime, t->mode,
			t->trial);
		if (g->leak)
			fprintf(out, " leak: RSS %+.0f KB per 1,000 requests (95%% CI %.0f to %.0f);", g->rss / 1024,
				g->rss_low / 1024, g->rss_high / 1024);
		if (st->not_steady)
			fprintf(out, " not steady: throughput %+.0f%% over the measured phase (Mann-Kendall p = %.2g);",
				st->change * 100, st->p);
		if (t->warmup.have)
			fprintf(out, " warm-up (auto): %u round%s, %.1f s, %llu requests, %s;", t->warmup.rounds,
				t->warmup.rounds == 1 ? "" : "s", t->warmup.seconds,
				(unsigned long long)t->warmup.requests,
				t->warmup.steady ? "steady" : "not steady by the cap");
		fprintf(out, "\n");
	}
}

static void render_efficiency(const struct res_doc *d, enum report_format f, FILE *out)
{
	_cleanup_free_ double *oh = calloc(d->ntrials + 1, sizeof(*oh));
	double measuring_s, share = res_doc_measuring_share(d, &measuring_s);
	size_t n = 0;

	for (size_t i = 0; oh && i < d->ntrials; i++)
		if (d->trials[i].overhead.have)
			oh[n++] = res_overhead_total(&d->trials[i].overhead);
	if (isnan(share) && !n)
		return;
	fprintf(out, "\n%s", f == RPT_MD ? "- " : "");
	if (!isnan(share))
		fprintf(out, "measuring: %.0f%% of the run's %.1f s (%.1f s of measured phases)%s", share * 100,
			d->wall_s, measuring_s, n ? "; " : "");
	if (n) {
		qsort(oh, n, sizeof(*oh), cmp_double);
		fprintf(out,
			"fixed cost per trial: median %.1f ms over %zu trials (sandboxes, readiness, slices, stop, "
			"teardown)",
			n % 2 ? oh[n / 2] : (oh[n / 2 - 1] + oh[n / 2]) / 2, n);
	}
	fprintf(out, "\n");
}

static const char *head_str(const struct res_doc *d, const char *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d->head, obj), key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

/* The median of a server memory field over the passed trials of a group, in MiB; NAN when none has it. */
static double published_mib(const struct trial_result **ts, size_t n, size_t off)
{
	double v[64];
	size_t k = 0;

	for (size_t i = 0; i < n && k < HX_ARRAY_SIZE(v); i++) {
		double x = *(const double *)((const char *)&ts[i]->server + off);

		if (!isnan(x))
			v[k++] = x / 1024;
	}
	if (!k)
		return NAN;
	qsort(v, k, sizeof(v[0]), stats_cmp_double);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static int cmp_rps(const void *a, const void *b)
{
	double x = (*(const struct trial_result *const *)a)->load.rps,
	       y = (*(const struct trial_result *const *)b)->load.rps;

	return (x > y) - (x < y);
}

/* One row of the published table: the trial with the median ops/s, and the memory medians. */
static void published_row(const struct trial_result **ts, size_t n, enum report_format f, FILE *out)
{
	const struct trial_result *t;
	const struct res_latency *l;
	char mem[3][16];
	const size_t offs[3] = {offsetof(struct res_server, post_load_rss_kb),
				offsetof(struct res_server, after_idle_rss_kb),
				offsetof(struct res_server, after_restart_rss_kb)};

	qsort(ts, n, sizeof(ts[0]), cmp_rps);
	t = ts[n / 2];
	l = &t->load.latency_us;
	for (int i = 0; i < 3; i++)
		cell(mem[i], sizeof(mem[i]), 1, "", published_mib(ts, n, offs[i]));
	fprintf(out,
		f == RPT_MD
			? "| %s | %s | %llu | %llu | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %s |\n"
			: "%-8s %-7s %9llu %5llu %9.0f %8.0f %8.0f %8.0f %8.0f %8.0f %9s %9s %9s  %s\n",
		t->runtime, t->mode, (unsigned long long)t->load.requests, (unsigned long long)t->load.errors_total,
		t->load.rps, l->mean, l->p50, l->p95, l->p99, l->max, mem[0], mem[1], mem[2],
		t->server.low_memory_hint[0] ? t->server.low_memory_hint : "none");
}

/* The document store's table for the ws-rpc scenarios (docs/load.md), in its columns, with the memory run:
 * one row per runtime and mode of the quiet trials that passed. */
static void render_published(const struct res_doc *d, enum report_format f, FILE *out)
{
	const struct trial_result **ts = calloc(d->ntrials + 1, sizeof(*ts));
	bool *done = calloc(d->ntrials + 1, sizeof(*done));
	const char *last = "";

	for (size_t i = 0; ts && done && i < d->ntrials; i++) {
		const struct trial_result *a = &d->trials[i];
		size_t n = 0;

		if (done[i] || strcmp(a->workload, "ws-rpc") != 0 || strcmp(a->noise, "none") != 0)
			continue;
		for (size_t j = i; j < d->ntrials; j++) {
			const struct trial_result *b = &d->trials[j];

			if (strcmp(a->scenario, b->scenario) || strcmp(a->runtime, b->runtime) ||
			    strcmp(a->mode, b->mode) || strcmp(b->noise, "none"))
				continue;
			done[j] = true;
			if (b->status == TRIAL_OK && (b->have & RES_HAVE_LOAD))
				ts[n++] = b;
		}
		if (strcmp(last, a->scenario) != 0) {
			last = a->scenario;
			fprintf(out,
				"\n%s%s, in the published columns (the median trial by ops/s; RSS MiB: medians)\n\n",
				f == RPT_MD ? "### " : "== ", last);
			fprintf(out,
				f == RPT_MD ? "| runtime | mode | ops | err | ops/s | avgµs | p50µs | p95µs | p99µs | "
					      "maxµs | "
					      "after load | after idle | after restart | hint "
					      "|\n|---|---|---:|---:|---:|---:|---:|"
					      "---:|---:|---:|---:|---:|---:|---|\n"
					    : "%-8s %-7s %9s %5s %9s %8s %8s %8s %8s %8s %9s %9s %9s  %s\n",
				"runtime", "mode", "ops", "err", "ops/s", "avgµs", "p50µs", "p95µs", "p99µs", "maxµs",
				"load MiB", "idle MiB", "restart", "hint");
		}
		if (n)
			published_row(ts, n, f, out);
		else
			fprintf(out, f == RPT_MD ? "| %s | %s | failed |\n" : "%-8s %-7s failed\n", a->runtime,
				a->mode);
	}
	free(ts);
	free(done);
}

int report_render(const struct res_doc *d, enum report_format f, FILE *out, struct hx_err *err)
{
	_cleanup_free_ struct res_summary *groups = NULL;
	const cJSON *cpus =
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "cpus");
	size_t n = 0;

	if (f == RPT_JSON) {
		cJSON *o = res_doc_json(d, err);
		_cleanup_free_ char *s = o ? cJSON_Print(o) : NULL;

		cJSON_Delete(o);
		if (!s)
			return err->msg[0] ? -err->errnum : hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		fprintf(out, "%s\n", s);
		return 0;
	}
	if (res_summarize(d->trials, d->ntrials, &groups, &n, err) < 0)
		return -err->errnum;
	if (f == RPT_CSV) {
		render_csv(groups, n, out);
		return 0;
	}
	fprintf(out, "%sharness %s: profile %s, %.0f CPU(s) for the runtime%s\n", f == RPT_MD ? "## " : "",
		head_str(d, "harness", "version"), head_str(d, "config", "profile"),
		cJSON_IsNumber(cpus) ? cpus->valuedouble : NAN,
		cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d->head, "config"),
							       "sandbox"))
			? ", out of the sandbox (--no-sandbox: for comparison only)"
			: "");
	render_placement(d, f, out);
	render_rows(groups, n, f, out);
	render_published(d, f, out);
	iso_render(groups, n, f == RPT_MD, out);
	matrix_render(d, f == RPT_MD, out);
	render_inside(d, f, out);
	render_efficiency(d, f, out);
	fprintf(out,
		"\nMedians over trials. ops/s: requests, chat deliveries or a script's operations (queries) per "
		"second; p99: of requests, chat round trips or a script's batches; startup: each trial's median "
		"of its runs; 95%% CI of the median: of ops/s, else startup, none below 6 trials (n= says how many); "
		"memory: the server's RSS idle and its peak under load, or a script's peak. vs pinned: "
		"the ratio of the named metric (ops/s, else startup) to the pinned row's, with the 95%% bootstrap CI "
		"over the trial "
		"pairs that ran side by side (none below 6 pairs: n= says how many); *: significant (Wilcoxon "
		"signed-rank p < 0.05 and the CI excludes "
		"1; docs/statistics.md). noisy trials: the runtime's slice was throttled in pinned mode, under CPU "
		"pressure "
		"for more than half the trial, the load client saturated, a request stalled (waited at least 1 s "
		"and a quarter of the load), steal above 5%%, other tasks on the runtime's CPUs, a startup "
		"trial's runs spread beyond the scenario's expected CV, or the runtime held off its CPUs by "
		"something else for over 3%% of the trial (contended), or the throughput still moved over the measured "
		"phase "
		"(not_steady); counted, never dropped.\n");
	return 0;
}
