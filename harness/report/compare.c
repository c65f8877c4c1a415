/* Two results files side by side: rows, verdicts and the host differences behind `harness compare`. */
#include "report/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"

#define CMP_POWER      0.8
#define CMP_TRIALS_CAP 10000

/* What each compared metric is: bigger or smaller is better, whether it gates, how people read it. The failure
 * counts (errors, lost, script_errors) are not compared: the run's verdict judges them. The load client's CPU per
 * request is shown but does not gate: it measures the instrument, and rises whenever the server slows down. */
static const struct cmp_metric {
	enum res_metric id;
	const char *label;
	bool higher_better, gated; /* gated: a significant change beyond the threshold fails the gate */
	double scale;
	int decimals;
	const char *better, *worse;
} metrics[] = {
	{RES_M_STARTUP_MEDIAN_MS, "startup ms", false, true, 1, 2, "faster", "slower"},
	{RES_M_RPS, "req/s", true, true, 1, 0, "faster", "slower"},
	{RES_M_P99_US, "p99 ms", false, true, 1e-3, 2, "faster", "slower"},
	{RES_M_IDLE_RSS_KB, "idle MB", false, true, 1.0 / 1024, 1, "smaller", "larger"},
	{RES_M_PEAK_RSS_KB, "peak MB", false, true, 1.0 / 1024, 1, "smaller", "larger"},
	{RES_M_POST_LOAD_RSS_KB, "post-load MB", false, true, 1.0 / 1024, 1, "smaller", "larger"},
	{RES_M_CLIENT_CPU_US_PER_REQUEST, "client µs/req", false, false, 1, 2, "cheaper", "dearer"},
	{RES_M_DELIVERIES_PER_S, "deliveries/s", true, true, 1, 0, "faster", "slower"},
	{RES_M_RTT_P99_US, "rtt p99 ms", false, true, 1e-3, 2, "faster", "slower"},
	{RES_M_OPS_PER_S, "ops/s", true, true, 1, 1, "faster", "slower"},
	{RES_M_SCRIPT_P50_MS, "script p50 ms", false, true, 1, 2, "faster", "slower"},
	{RES_M_SCRIPT_P99_MS, "script p99 ms", false, true, 1, 2, "faster", "slower"},
	{RES_M_SCRIPT_MAX_RSS_KB, "script peak MB", false, true, 1.0 / 1024, 1, "smaller", "larger"},
	{RES_M_FIXTURE_READY_MS, "fixture ready ms", false, true, 1, 1, "faster", "slower"},
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

static const struct cmp_metric *metric_of(const char *name)
{
	for (size_t k = 0; k < NMETRICS; k++)
		if (!strcmp(res_metric_names[metrics[k].id], name))
			return &metrics[k];
	return NULL;
}

int cmp_metric_direction(const char *metric)
{
	const struct cmp_metric *m = metric_of(metric);

	return m ? m->higher_better : -1;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static struct cmp_cell *cell_of(struct cmp_cell *cells, size_t n, const char *scenario, const char *runtime,
				const char *mode, const char *metric)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(cells[i].scenario, scenario) && !strcmp(cells[i].runtime, runtime) &&
		    !strcmp(cells[i].mode, mode) && !strcmp(cells[i].metric, metric))
			return &cells[i];
	return NULL;
}

static int cell_add(struct cmp_cell *c, double v)
{
	double *nv = realloc(c->v, (c->n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	c->v = nv;
	c->v[c->n++] = v;
	return 0;
}

/* The cell of t's group and metric m, added when new; NULL when out of room or memory. */
/* The cell of t's group and metric, added when new; NULL when out of room. */
static struct cmp_cell *cell_for(struct cmp_cell *cells, size_t *n, const struct trial_result *t, const char *metric)
{
	struct cmp_cell *c = cell_of(cells, *n, t->scenario, t->runtime, t->mode, metric);

	if (c || *n == CMP_MAX_CELLS)
		return c;
	c = &cells[(*n)++];
	memset(c, 0, sizeof(*c));
	snprintf(c->scenario, sizeof(c->scenario), "%s", t->scenario);
	snprintf(c->runtime, sizeof(c->runtime), "%s", t->runtime);
	snprintf(c->mode, sizeof(c->mode), "%s", t->mode);
	c->metric = metric;
	return c;
}

int cmp_cells_from(const struct res_doc *d, struct cmp_cell **ret, size_t *ret_n, struct hx_err *err)
{
	struct cmp_cell *cells = calloc(CMP_MAX_CELLS, sizeof(*cells));
	size_t n = 0;

	if (!cells)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];

		/* quiet trials only: a noisy one measures its neighbour too (the isolation table compares those) */
		if (strcmp(t->noise, "none") != 0)
			continue;
		for (size_t k = 0; k < NMETRICS && t->status == TRIAL_OK; k++) {
			double v = res_metric(t, metrics[k].id);
			struct cmp_cell *c;

			if (isnan(v))
				continue;
			c = cell_for(cells, &n, t, res_metric_names[metrics[k].id]);
			if (!c) {
				cmp_cells_free(cells, n);
				return hx_fail(err, HX_EXIT_USAGE, E2BIG,
					       "more than %d scenario x runtime x mode x metric cells", CMP_MAX_CELLS);
			}
			if (cell_add(c, v) < 0) {
				cmp_cells_free(cells, n);
				return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
			}
			c->noisy += res_trial_noisy(t) != 0;
		}
	}
	*ret = cells;
	*ret_n = n;
	return 0;
}

void cmp_cells_free(struct cmp_cell *cells, size_t n)
{
	for (size_t i = 0; cells && i < n; i++)
		free(cells[i].v);
	free(cells);
}

static double cv_of(const double *v, size_t n)
{
	double m = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - m) * (v[i] - m);
	return n > 1 && m != 0 ? sqrt(q / (double)(n - 1)) / fabs(m) : 0;
}

/* Significant: the rank test and the CI agree that the medians differ. A verdict of better or worse needs the
 * estimate beyond the threshold too; a CI that reaches past the threshold on either side without that is
 * inconclusive: the data cannot rule out a change people would care about. The gate is stricter than the
 * verdict: the CI must lie wholly beyond the threshold, so a dozen rows of an A/A comparison at alpha 0.05 do
 * not add up to a false alarm in one run of twenty (bench/compare-aa.sh measures it). */
static void verdict(struct cmp_row *r, const struct cmp_opts *o)
{
	double est = r->ratio.estimate, lo = r->ratio.low, hi = r->ratio.high;
	bool sig = r->mwu.p < o->alpha && (lo > 1 || hi < 1);
	bool up = est > 1;

	if (sig && fabs(est - 1) >= o->threshold)
		r->verdict = up == r->higher_better ? CMP_BETTER : CMP_WORSE;
	else if (lo >= 1 - o->threshold && hi <= 1 + o->threshold)
		r->verdict = CMP_SAME;
	else {
		r->verdict = CMP_INCONCLUSIVE;
		r->trials_needed = sig_trials_for(r->cv, o->threshold, o->alpha, CMP_POWER, CMP_TRIALS_CAP);
	}
	/* the gate: worse, and the whole CI beyond the threshold, in a metric that measures the runtime */
	r->regression = r->verdict == CMP_WORSE && metric_of(r->a->metric)->gated &&
			(r->higher_better ? hi < 1 - o->threshold : lo > 1 + o->threshold);
}

static int row_of(const struct cmp_cell *a, const struct cmp_cell *b, const struct cmp_opts *o, struct cmp_row *r)
{
	memset(r, 0, sizeof(*r));
	r->a = a;
	r->b = b;
	r->higher_better = metric_of(a->metric)->higher_better;
	r->cv = fmax(cv_of(a->v, a->n), cv_of(b->v, b->n));
	if (sig_ratio_ci(a->v, a->n, b->v, b->n, false, 1 - o->alpha, SIG_SEED, &r->ratio) < 0 ||
	    sig_mann_whitney(a->v, a->n, b->v, b->n, &r->mwu) < 0)
		return -1;
	if (sig_welch(a->v, a->n, b->v, b->n, &r->welch) < 0)
		r->welch.p = NAN;
	r->shift = sig_hodges_lehmann(a->v, a->n, b->v, b->n);
	r->a_median = stats_median_of(a->v, a->n);
	r->b_median = stats_median_of(b->v, b->n);
	verdict(r, o);
	return 0;
}

int cmp_run(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_opts *o, struct cmp_result *ret,
	    struct hx_err *err)
{
	memset(ret, 0, sizeof(*ret));
	cmp_host_diffs(a->head, b->head, ret);
	ret->rows = calloc(a->ncells + 1, sizeof(*ret->rows));
	if (!ret->rows)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; i < a->ncells; i++) {
		const struct cmp_cell *ca = &a->cells[i];
		const struct cmp_cell *cb =
			cell_of(b->cells, b->ncells, ca->scenario, ca->runtime, ca->mode, ca->metric);
		struct cmp_row *r = &ret->rows[ret->nrows];

		if (!cb)
			continue;
		if (row_of(ca, cb, o, r) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		r->excused = r->regression && o->fail_on == CMP_FAIL_QUIET_REGRESSION && (ca->noisy || cb->noisy);
		ret->regressions += r->regression;
		ret->failing += r->regression && !r->excused && o->fail_on != CMP_FAIL_NONE;
		ret->nrows++;
	}
	return 0;
}

void cmp_result_free(struct cmp_result *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}

const char *const cmp_fail_on_names[] = {"regression", "quiet-regression", "none"};

const char *cmp_verdict_word(const struct cmp_row *r)
{
	const struct cmp_metric *m = metric_of(r->a->metric);

	switch (r->verdict) {
	case CMP_BETTER:
		return m->better;
	case CMP_WORSE:
		return m->worse;
	case CMP_SAME:
		return "no significant change";
	default:
		return "inconclusive";
	}
}

/* The fields that make two runs a different experiment (refuse) or only worth a mention. */
static const struct {
	const char *path;
	bool refuse;
	const char *absent; /* a file without the field: what it meant */
} head_fields[] = {
	{"host.cpus.model", true, NULL},
	{"host.cpus.usable_count", true, NULL},
	{"host.cpus.threads_per_core", true, NULL},
	{"host.cgroup.mode", true, NULL},
	{"host.kernel.machine", true, NULL},
	{"host.kernel.release", false, NULL},
	{"host.cpus.governor", false, NULL},
	{"host.cpus.boost", false, NULL},
	{"host.memory.total_bytes", false, NULL},
	{"config.profile", true, NULL},
	{"config.cpus", true, NULL},
	{"config.client_cpus", true, NULL},
	{"config.memory_max_bytes", true, NULL},
	{"config.modes", true, NULL},
	/* the load client's: the same figures are expected from either (docs/load.md) */
	{"config.engine", false, "auto"},
};

/* A value as one short line: strings bare, anything else as compact JSON; when missing, what a file without
 * the field meant (dflt: the load client's engine was chosen as `auto` does before run --engine), else
 * "(absent)". */
static void text_of(const cJSON *v, const char *dflt, char *buf, size_t len)
{
	char *s;

	if (!v) {
		snprintf(buf, len, "%s", dflt ? dflt : "(absent)");
		return;
	}
	if (cJSON_IsString(v)) {
		snprintf(buf, len, "%s", v->valuestring);
		return;
	}
	s = cJSON_PrintUnformatted(v);
	snprintf(buf, len, "%s", s ? s : "?");
	free(s);
}

static struct cmp_diff *add_diff(struct cmp_result *res, const char *field, const char *a, const char *b, bool refuse)
{
	struct cmp_diff *d;

	if (!strcmp(a, b) || res->ndiffs == sizeof(res->diffs) / sizeof(res->diffs[0]))
		return NULL;
	d = &res->diffs[res->ndiffs++];
	snprintf(d->field, sizeof(d->field), "%s", field);
	snprintf(d->a, sizeof(d->a), "%s", a);
	snprintf(d->b, sizeof(d->b), "%s", b);
	d->refuse = refuse;
	return d;
}

/* In or out of the sandbox (run --no-sandbox; a file without the field was in): another arm of an experiment,
 * which comparing is for and merging is not. */
static void sandbox_diff(const cJSON *a, const cJSON *b, struct cmp_result *res)
{
	bool in_a = !cJSON_IsFalse(res_json_at(a, "config.sandbox")),
	     in_b = !cJSON_IsFalse(res_json_at(b, "config.sandbox"));
	struct cmp_diff *d = add_diff(res, "config.sandbox", in_a ? "true" : "false", in_b ? "true" : "false", false);

	if (d)
		d->arm = true;
}

/* Images by name: a runtime in both files with another digest is another runtime. */
static void image_diffs(const cJSON *a, const cJSON *b, struct cmp_result *res)
{
	const cJSON *ia, *ib;

	cJSON_ArrayForEach (ia, cJSON_GetObjectItemCaseSensitive(a, "images"))
		cJSON_ArrayForEach (ib, cJSON_GetObjectItemCaseSensitive(b, "images")) {
			char field[96];
			struct cmp_diff *d;

			if (strcmp(str(ia, "name"), str(ib, "name")) != 0)
				continue;
			snprintf(field, sizeof(field), "images.%s.version", str(ia, "name"));
			add_diff(res, field, str(ia, "version"), str(ib, "version"), false);
			snprintf(field, sizeof(field), "images.%s.digest", str(ia, "name"));
			d = add_diff(res, field, str(ia, "digest"), str(ib, "digest"), true);
			if (d)
				d->image = true;
		}
}

void cmp_host_diffs(const cJSON *a, const cJSON *b, struct cmp_result *res)
{
	for (size_t i = 0; i < sizeof(head_fields) / sizeof(head_fields[0]); i++) {
		char va[160], vb[160];

		text_of(res_json_at(a, head_fields[i].path), head_fields[i].absent, va, sizeof(va));
		text_of(res_json_at(b, head_fields[i].path), head_fields[i].absent, vb, sizeof(vb));
		add_diff(res, head_fields[i].path, va, vb, head_fields[i].refuse);
	}
	sandbox_diff(a, b, res);
	image_diffs(a, b, res);
}

static const char *harness_of(const cJSON *head, char *buf, size_t len)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(head, "harness");

	snprintf(buf, len, "harness %s %s", str(h, "version"), str(h, "commit"));
	return buf;
}

static void fmt_value(char *buf, size_t len, const struct cmp_metric *m, double v)
{
	snprintf(buf, len, "%.*f", m->decimals, v * m->scale);
}

static void fmt_p(char *buf, size_t len, double p)
{
	if (p < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3f", p);
}

static void fmt_verdict(char *buf, size_t len, const struct cmp_row *r)
{
	if (r->verdict == CMP_WORSE && !metric_of(r->a->metric)->gated)
		snprintf(buf, len, "%s (not gated)", cmp_verdict_word(r));
	else if (r->excused)
		snprintf(buf, len, "%s (noisy trials on a side: not gated, --fail-on quiet-regression)",
			 cmp_verdict_word(r));
	else if (r->verdict == CMP_WORSE && !r->regression)
		snprintf(buf, len, "%s (the CI reaches within the threshold: not gated)", cmp_verdict_word(r));
	else if (r->verdict != CMP_INCONCLUSIVE)
		snprintf(buf, len, "%s", cmp_verdict_word(r));
	else if (r->trials_needed)
		snprintf(buf, len, "inconclusive: ~%zu trials per side would settle it", r->trials_needed);
	else
		snprintf(buf, len, "inconclusive: more than %d trials per side would settle it", CMP_TRIALS_CAP);
}

static void render_head(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_opts *o,
			const struct cmp_result *r, enum cmp_format f, FILE *out)
{
	char ha[128], hb[128];

	fprintf(out, "%sharness compare: threshold %g%%, alpha %g\n\n", f == CMP_MD ? "## " : "", o->threshold * 100,
		o->alpha);
	fprintf(out, "%sA: %s (%s)\n", f == CMP_MD ? "- " : "", a->path, harness_of(a->head, ha, sizeof(ha)));
	fprintf(out, "%sB: %s (%s)\n", f == CMP_MD ? "- " : "", b->path, harness_of(b->head, hb, sizeof(hb)));
	if (!r->ndiffs)
		fprintf(out, "\nSame CPU model and count, cgroup mode, kernel, profile, CPU plan, budget, sandbox and "
			     "image digests.\n");
	else
		fprintf(out, "\nWhat differs:\n");
	for (size_t i = 0; i < r->ndiffs; i++)
		fprintf(out, "%s%s: %.40s → %.40s%s\n", f == CMP_MD ? "- " : "  ", r->diffs[i].field, r->diffs[i].a,
			r->diffs[i].b,
			r->diffs[i].image
				? " (another image under this name: compared only with --allow-different-images)"
			: r->diffs[i].refuse ? " (not comparable without --allow-different-host)"
			: r->diffs[i].arm    ? " (the runtime in and out of the sandbox: run --no-sandbox)"
					     : "");
}

static void render_row(const struct cmp_row *r, enum cmp_format f, FILE *out)
{
	const struct cmp_metric *m = metric_of(r->a->metric);
	const char *sep = f == CMP_MD ? " | " : "  ";
	char va[32], vb[32], ratio[16], ci[32], p[16], noisy[48], v[96];

	fmt_value(va, sizeof(va), m, r->a_median);
	fmt_value(vb, sizeof(vb), m, r->b_median);
	snprintf(ratio, sizeof(ratio), "%.3fx", r->ratio.estimate);
	snprintf(ci, sizeof(ci), "%.3f–%.3f", r->ratio.low, r->ratio.high);
	fmt_p(p, sizeof(p), r->mwu.p);
	snprintf(noisy, sizeof(noisy), "%zu / %zu", r->a->noisy, r->b->noisy);
	fmt_verdict(v, sizeof(v), r);
	fprintf(out, "%s%-8s%s%-7s%s%-16s%s%10s%s%10s%s%7s%s%13s%s%6s%s%9s%s%s%s\n", f == CMP_MD ? "| " : "",
		r->a->runtime, sep, r->a->mode, sep, m->label, sep, va, sep, vb, sep, ratio, sep, ci, sep, p, sep,
		noisy, sep, v, f == CMP_MD ? " |" : "");
}

static void render_rows(const struct cmp_result *r, enum cmp_format f, FILE *out)
{
	const char *sep = f == CMP_MD ? " | " : "  ";
	const char *last = "";

	for (size_t i = 0; i < r->nrows; i++) {
		if (strcmp(last, r->rows[i].a->scenario) != 0) {
			last = r->rows[i].a->scenario;
			fprintf(out, "\n%s%s\n\n", f == CMP_MD ? "### " : "== ", last);
			fprintf(out, "%s%-8s%s%-7s%s%-16s%s%10s%s%10s%s%7s%s%13s%s%6s%s%9s%s%s%s\n",
				f == CMP_MD ? "| " : "", "runtime", sep, "mode", sep, "metric", sep, "A", sep, "B", sep,
				"B/A", sep, "CI", sep, "p", sep, "noisy A/B", sep, "verdict", f == CMP_MD ? " |" : "");
			if (f == CMP_MD)
				fprintf(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
		}
		render_row(&r->rows[i], f, out);
	}
}

static void render_tail(const struct cmp_opts *o, const struct cmp_result *r, FILE *out)
{
	size_t count[4] = {0}, noisy_regressions = 0, excused = 0;
	bool quiet = o->fail_on == CMP_FAIL_QUIET_REGRESSION;

	for (size_t i = 0; i < r->nrows; i++) {
		count[r->rows[i].verdict]++;
		noisy_regressions +=
			r->rows[i].regression && !r->rows[i].excused && (r->rows[i].a->noisy || r->rows[i].b->noisy);
		excused += r->rows[i].excused;
	}
	fprintf(out, "\n%zu rows: %zu better, %zu worse, %zu no significant change, %zu inconclusive.\n", r->nrows,
		count[CMP_BETTER], count[CMP_WORSE], count[CMP_SAME], count[CMP_INCONCLUSIVE]);
	if (o->fail_on == CMP_FAIL_NONE)
		fprintf(out, "Gate: off (--fail-on none).\n");
	else if (r->failing)
		fprintf(out, "Gate: FAILED: %zu significant regression(s) beyond %g%%%s.\n", r->failing,
			o->threshold * 100, quiet ? " with no noisy trial on either side" : "");
	else
		fprintf(out, "Gate: passed: no significant regression beyond %g%%%s.\n", o->threshold * 100,
			quiet ? " with no noisy trial on either side" : "");
	if (excused)
		fprintf(out,
			"%zu significant regression(s) not gated: noisy trials on a side (--fail-on "
			"quiet-regression); run them again on a quieter host to know.\n",
			excused);
	if (o->fail_on != CMP_FAIL_NONE && noisy_regressions)
		fprintf(out,
			"%zu of them with noisy trials on a side: the host may have moved them (each trial's "
			"noisy_reasons in its results file says why; docs/statistics.md).\n",
			noisy_regressions);
	fprintf(out,
		"\nA and B: medians over the trials that passed. B/A: the ratio of medians; CI: its %g%% "
		"percentile bootstrap (%d resamples, seed %#llx); p: Mann-Whitney U, two-sided. A verdict other "
		"than no change needs p < %g, a CI that excludes 1 and a change of at least %g%%; inconclusive: "
		"the CI reaches past ±%g%%, and the trials shown would detect %g%% with 80%% power. noisy A/B: "
		"each side's trials flagged noisy, kept in every figure. docs/statistics.md says more.\n",
		(1 - o->alpha) * 100, SIG_BOOTSTRAP, (unsigned long long)SIG_SEED, o->alpha, o->threshold * 100,
		o->threshold * 100, o->threshold * 100);
}

static cJSON *side_json(const struct cmp_cell *c, double median_v)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "n", (double)c->n);
	cJSON_AddNumberToObject(o, "median", median_v);
	cJSON_AddNumberToObject(o, "cv", cv_of(c->v, c->n));
	cJSON_AddNumberToObject(o, "noisy", (double)c->noisy);
	return o;
}

static cJSON *row_json(const struct cmp_row *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "scenario", r->a->scenario);
	cJSON_AddStringToObject(o, "runtime", r->a->runtime);
	cJSON_AddStringToObject(o, "mode", r->a->mode);
	cJSON_AddStringToObject(o, "metric", r->a->metric);
	cJSON_AddBoolToObject(o, "higher_is_better", r->higher_better);
	cJSON_AddItemToObject(o, "a", side_json(r->a, r->a_median));
	cJSON_AddItemToObject(o, "b", side_json(r->b, r->b_median));
	cJSON_AddNumberToObject(o, "ratio", r->ratio.estimate);
	cJSON_AddNumberToObject(o, "ci_low", r->ratio.low);
	cJSON_AddNumberToObject(o, "ci_high", r->ratio.high);
	cJSON_AddNumberToObject(o, "p", r->mwu.p);
	cJSON_AddBoolToObject(o, "p_exact", r->mwu.exact);
	cJSON_AddNumberToObject(o, "u", r->mwu.stat);
	if (!isnan(r->welch.p)) {
		cJSON_AddNumberToObject(o, "welch_t", isinf(r->welch.stat) ? 0 : r->welch.stat);
		cJSON_AddNumberToObject(o, "welch_df", r->welch.df);
		cJSON_AddNumberToObject(o, "welch_p", r->welch.p);
	}
	cJSON_AddNumberToObject(o, "hodges_lehmann", r->shift);
	cJSON_AddStringToObject(o, "verdict", r->verdict == CMP_SAME ? "no significant change" : cmp_verdict_word(r));
	cJSON_AddBoolToObject(o, "regression", r->regression);
	if (r->excused)
		cJSON_AddBoolToObject(o, "excused", true);
	if (r->verdict == CMP_INCONCLUSIVE)
		cJSON_AddNumberToObject(o, "trials_needed", (double)r->trials_needed);
	return o;
}

static cJSON *file_json(const struct cmp_side *s)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(s->head, "harness");

	cJSON_AddStringToObject(o, "path", s->path);
	cJSON_AddStringToObject(o, "harness_version", str(h, "version"));
	cJSON_AddStringToObject(o, "harness_commit", str(h, "commit"));
	return o;
}

static cJSON *result_json(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_opts *o,
			  const struct cmp_result *r)
{
	cJSON *doc = cJSON_CreateObject(), *opts, *arr;

	cJSON_AddStringToObject(doc, "schema", "harness-compare/1");
	cJSON_AddItemToObject(doc, "a", file_json(a));
	cJSON_AddItemToObject(doc, "b", file_json(b));
	opts = cJSON_AddObjectToObject(doc, "options");
	cJSON_AddNumberToObject(opts, "threshold", o->threshold);
	cJSON_AddNumberToObject(opts, "alpha", o->alpha);
	cJSON_AddStringToObject(opts, "test", "mann-whitney-u");
	cJSON_AddNumberToObject(opts, "bootstrap_resamples", SIG_BOOTSTRAP);
	cJSON_AddNumberToObject(opts, "seed", (double)SIG_SEED);
	cJSON_AddStringToObject(opts, "fail_on", cmp_fail_on_names[o->fail_on]);
	arr = cJSON_AddArrayToObject(doc, "differences");
	for (size_t i = 0; i < r->ndiffs; i++) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddStringToObject(d, "field", r->diffs[i].field);
		cJSON_AddStringToObject(d, "a", r->diffs[i].a);
		cJSON_AddStringToObject(d, "b", r->diffs[i].b);
		cJSON_AddBoolToObject(d, "refused", r->diffs[i].refuse);
		cJSON_AddItemToArray(arr, d);
	}
	arr = cJSON_AddArrayToObject(doc, "rows");
	for (size_t i = 0; i < r->nrows; i++)
		cJSON_AddItemToArray(arr, row_json(&r->rows[i]));
	cJSON_AddNumberToObject(doc, "regressions", (double)r->regressions);
	cJSON_AddNumberToObject(doc, "failing", (double)r->failing);
	cJSON_AddStringToObject(doc, "gate", o->fail_on == CMP_FAIL_NONE ? "off" : r->failing ? "failed" : "passed");
	return doc;
}

void cmp_render(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_opts *o,
		const struct cmp_result *r, enum cmp_format f, FILE *out)
{
	if (f == CMP_JSON) {
		cJSON *doc = result_json(a, b, o, r);
		char *s = doc ? cJSON_Print(doc) : NULL;

		fprintf(out, "%s\n", s ? s : "{}");
		free(s);
		cJSON_Delete(doc);
		return;
	}
	render_head(a, b, o, r, f, out);
	render_rows(r, f, out);
	render_tail(o, r, out);
}
