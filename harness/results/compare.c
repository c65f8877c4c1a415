/* Two results files side by side: rows, verdicts and the host differences behind `harness compare`
 * (report/compare_report.c renders them). */
#include "results/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/esc.h"
#include "stats/stats.h"

#define CMP_POWER 0.8
/* Outside noise: evidence of work that was not the runtime's (a hypervisor, foreign tasks on its CPUs, a slice
 * held off its CPUs). The other reasons (stall, spread, throttled, cpu_pressure, client_saturated) a slower
 * runtime can cause itself: they never excuse its regression. */
#define CMP_OUTSIDE_NOISE ((1u << RES_NOISY_STEAL) | (1u << RES_NOISY_FOREIGN) | (1u << RES_NOISY_CONTENDED))

/* What each compared metric is: bigger or smaller is better, whether it gates, how people read it. The failure
 * counts (errors, lost, script_errors) are not compared: the run's verdict judges them. The load client's CPU per
 * request is shown but does not gate: it measures the instrument, and rises whenever the server slows down. */
static const struct cmp_metric metrics[] = {
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

const struct cmp_metric *cmp_metric_of(const char *name)
{
	for (size_t k = 0; k < NMETRICS; k++)
		if (!strcmp(res_metric_names[metrics[k].id], name))
			return &metrics[k];
	return NULL;
}

int cmp_metric_direction(const char *metric)
{
	const struct cmp_metric *m = cmp_metric_of(metric);

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

static int cell_add(struct cmp_cell *c, double v, const struct trial_result *t)
{
	double *nv = realloc(c->v, (c->n + 1) * sizeof(*nv));
	unsigned *nt, *nw;

	if (nv)
		c->v = nv;
	nt = nv ? realloc(c->trial, (c->n + 1) * sizeof(*nt)) : NULL;
	if (nt)
		c->trial = nt;
	nw = nt ? realloc(c->why, (c->n + 1) * sizeof(*nw)) : NULL;
	if (!nw)
		return -1;
	c->why = nw;
	c->trial[c->n] = t->trial;
	c->why[c->n] = res_trial_noisy(t);
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
			if (cell_add(c, v, t) < 0) {
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
	for (size_t i = 0; cells && i < n; i++) {
		free(cells[i].v);
		free(cells[i].trial);
		free(cells[i].why);
	}
	free(cells);
}

const char *const cmp_verdict_names[CMP_NR_VERDICTS] = {"better",     "worse",	      "below_threshold",
							"equivalent", "inconclusive", "too_few_trials"};
const char *const cmp_gate_names[] = {"off", "passed", "failed", "unjudged"};

/* Significant: the rank test and the CI agree that the medians differ. Better or worse needs the estimate at
 * least the threshold away from 1; a smaller significant change is said as such (below threshold), however
 * certain. Equivalent needs the whole CI inside the threshold; else the data cannot rule out a change people
 * would care about. A ratio with a zero median on a side (NAN or infinite) is judged by the rank test alone: a
 * change from or to nothing is beyond any threshold. */
enum cmp_verdict cmp_decide(double p, const struct sig_ci *ci, double threshold, double alpha, bool higher_better)
{
	double est = ci->estimate;
	bool finite = isfinite(est) && est > 0;
	bool sig = p < alpha && (!finite || ci->low > 1 || ci->high < 1);

	if (!finite) /* a change from or to nothing */
		return !sig ? CMP_INCONCLUSIVE : isinf(est) == higher_better ? CMP_BETTER : CMP_WORSE;
	switch (sig_against(est, ci->low, ci->high, sig, threshold)) {
	case SIG_ABOVE:
		return higher_better ? CMP_BETTER : CMP_WORSE;
	case SIG_BELOW:
		return higher_better ? CMP_WORSE : CMP_BETTER;
	case SIG_WITHIN:
		return CMP_BELOW_THRESHOLD;
	case SIG_EQUIVALENT:
		return CMP_EQUIVALENT;
	default:
		return CMP_INCONCLUSIVE;
	}
}

/* A zero median on a side: the ratio is 0, infinite or (both zero) undefined, and the bootstrap of it says
 * nothing; both zero is the same, and says so. */
static bool zero_ratio(const struct cmp_row *r)
{
	return r->a_median == 0 || r->b_median == 0;
}

static void zero_ci(struct cmp_row *r)
{
	r->ratio.estimate = r->a_median == 0 && r->b_median == 0 ? 1 : r->b_median / r->a_median;
	r->ratio.low = r->ratio.high = NAN;
}

static int row_of(const struct cmp_cell *a, const struct cmp_cell *b, const struct cmp_opts *o, struct cmp_row *r)
{
	memset(r, 0, sizeof(*r));
	r->a = a;
	r->b = b;
	r->higher_better = cmp_metric_of(a->metric)->higher_better;
	r->cv = fmax(stats_cv(a->v, a->n), stats_cv(b->v, b->n));
	r->a_median = stats_median_of(a->v, a->n);
	r->b_median = stats_median_of(b->v, b->n);
	if (sig_mann_whitney(a->v, a->n, b->v, b->n, &r->mwu) < 0)
		return -1;
	if (zero_ratio(r))
		zero_ci(r);
	else if (sig_ratio_ci(a->v, a->n, b->v, b->n, false, 1 - o->alpha, SIG_SEED, &r->ratio) < 0)
		return -1;
	if (sig_welch(a->v, a->n, b->v, b->n, &r->welch) < 0)
		r->welch.p = NAN;
	r->shift = sig_hodges_lehmann(a->v, a->n, b->v, b->n);
	r->p_adj = NAN;
	return 0;
}

/* The gate: worse, and the whole CI beyond the threshold, in a metric that measures the runtime. */
static bool is_regression(const struct cmp_row *r, const struct cmp_opts *o)
{
	if (r->verdict != CMP_WORSE || !cmp_metric_of(r->a->metric)->gated)
		return false;
	if (isnan(r->ratio.low))
		return true; /* from or to zero */
	return r->higher_better ? r->ratio.high < 1 - o->threshold : r->ratio.low > 1 + o->threshold;
}

/* Holm's adjustment over the rows whose trials can reach p < alpha at all (which rows those are depends on
 * their counts only, never on their values: the family is fixed before the data speak); a row whose smallest
 * reachable p is not below alpha / family can never be called: too few trials. */
static void judge_rows(struct cmp_result *ret, const struct cmp_opts *o)
{
	_cleanup_free_ double *p = calloc(ret->nrows + 1, sizeof(double));
	_cleanup_free_ double *adj = calloc(ret->nrows + 1, sizeof(double));
	size_t need = sig_mwu_trials_for(o->alpha / (double)(ret->nrows ? ret->nrows : 1), CMP_TRIALS_CAP);

	ret->family = 0;
	for (size_t i = 0; i < ret->nrows; i++) {
		struct cmp_row *r = &ret->rows[i];
		bool in = sig_mwu_min_p(r->a->n, r->b->n) < o->alpha;

		if (p)
			p[i] = in ? r->mwu.p : NAN;
		ret->family += in;
	}
	if (p && adj)
		sig_holm(p, ret->nrows, adj);
	for (size_t i = 0; i < ret->nrows; i++) {
		struct cmp_row *r = &ret->rows[i];
		double level = o->alpha / (double)(ret->family ? ret->family : 1);

		r->p_adj = p && adj ? adj[i] : NAN; /* out of memory: no row judged, never all significant */
		if (isnan(r->p_adj) || sig_mwu_min_p(r->a->n, r->b->n) >= level) {
			r->verdict = CMP_TOO_FEW;
			r->trials_needed = need;
			continue;
		}
		r->verdict = cmp_decide(r->p_adj, &r->ratio, o->threshold, o->alpha, r->higher_better);
		r->regression = is_regression(r, o);
		if (r->verdict == CMP_INCONCLUSIVE && isfinite(r->ratio.estimate) && r->ratio.estimate > 0) {
			size_t nmin = (r->a->n < r->b->n ? r->a->n : r->b->n) + 1,
			       floor_n = sig_mwu_trials_for(level, CMP_TRIALS_CAP);

			r->trials_needed =
				sig_trials_to_settle(r->cv, r->ratio.estimate, o->threshold, level, 1 - o->alpha,
						     CMP_POWER, nmin > floor_n ? nmin : floor_n, CMP_TRIALS_CAP);
		}
	}
}

/* B's trials with outside-noise evidence, in words ("3 (steal), 7 (foreign, contended)"), and their count. */
static size_t outside_trials(const struct cmp_cell *b, char *buf, size_t len)
{
	size_t k = 0, at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < b->n; i++) {
		bool first = true;

		if (!(b->why[i] & CMP_OUTSIDE_NOISE))
			continue;
		k++;
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%u (", k > 1 ? ", " : "", b->trial[i]);
		for (int w = 0; w < RES_NR_NOISY && at < len; w++)
			if (b->why[i] & CMP_OUTSIDE_NOISE & (1u << w)) {
				at += (size_t)snprintf(buf + at, len - at, "%s%s", first ? "" : ", ",
						       res_noisy_names[w]);
				first = false;
			}
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, ")");
	}
	return k;
}

/* Whether the regression stands without B's trials that outside noise touched: their row, with the same Holm
 * factor, recomputed on the rest. Too few left to judge: it does not stand. */
static int stands_without(const struct cmp_row *r, const struct cmp_opts *o, size_t family, bool *ret)
{
	struct cmp_cell clean = *r->b;
	struct cmp_row x;
	double factor = r->mwu.p > 0 ? r->p_adj / r->mwu.p : (double)family;
	size_t k = 0;
	_cleanup_free_ double *v = malloc((r->b->n + 1) * sizeof(double));

	if (!v)
		return -1;
	for (size_t i = 0; i < r->b->n; i++)
		if (!(r->b->why[i] & CMP_OUTSIDE_NOISE))
			v[k++] = r->b->v[i];
	clean.v = v;
	clean.n = k;
	*ret = false;
	if (!k || sig_mwu_min_p(r->a->n, k) * factor >= o->alpha)
		return 0;
	if (row_of(r->a, &clean, o, &x) < 0)
		return -1;
	x.verdict = cmp_decide(fmin(1, x.mwu.p * factor), &x.ratio, o->threshold, o->alpha, x.higher_better);
	*ret = is_regression(&x, o);
	return 0;
}

static int excuse(struct cmp_row *r, const struct cmp_opts *o, size_t family)
{
	char who[sizeof(r->excused_by)];
	bool stands;

	if (!r->regression || o->fail_on != CMP_FAIL_QUIET_REGRESSION || !outside_trials(r->b, who, sizeof(who)))
		return 0;
	if (stands_without(r, o, family, &stands) < 0)
		return -1;
	r->excused = !stands;
	if (r->excused)
		snprintf(r->excused_by, sizeof(r->excused_by), "%s", who);
	return 0;
}

static void gate_of(struct cmp_result *ret, const struct cmp_opts *o)
{
	size_t judged = 0;

	for (size_t i = 0; i < ret->nrows; i++) {
		const struct cmp_row *r = &ret->rows[i];

		if (!cmp_metric_of(r->a->metric)->gated)
			continue;
		ret->gated++;
		judged += r->verdict != CMP_TOO_FEW;
		ret->regressions += r->regression;
		ret->failing += r->regression && !r->excused && o->fail_on != CMP_FAIL_NONE;
	}
	ret->unjudged = ret->gated - judged;
	ret->gate = o->fail_on == CMP_FAIL_NONE ? CMP_GATE_OFF
		    : ret->failing		? CMP_GATE_FAILED
		    : !judged			? CMP_GATE_UNJUDGED
						: CMP_GATE_PASSED;
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

		if (!cb)
			continue;
		if (row_of(ca, cb, o, &ret->rows[ret->nrows]) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		ret->nrows++;
	}
	judge_rows(ret, o);
	for (size_t i = 0; i < ret->nrows; i++)
		if (excuse(&ret->rows[i], o, ret->family) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	gate_of(ret, o);
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
	const struct cmp_metric *m = cmp_metric_of(r->a->metric);

	switch (r->verdict) {
	case CMP_BETTER:
		return m->better;
	case CMP_WORSE:
		return m->worse;
	case CMP_BELOW_THRESHOLD:
		return "below threshold";
	case CMP_EQUIVALENT:
		return "equivalent";
	case CMP_TOO_FEW:
		return "too few trials";
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

/* ---- one duet's sides, run apart ---- */

/* The one runtime all of a side's cells name, or NULL (none, or several). */
static const char *one_runtime(const struct cmp_side *s)
{
	for (size_t i = 1; i < s->ncells; i++)
		if (strcmp(s->cells[i].runtime, s->cells[0].runtime) != 0)
			return NULL;
	return s->ncells ? s->cells[0].runtime : NULL;
}

/* Whether every scenario of x's cells is one of y's. */
static bool scenarios_in(const struct cmp_side *x, const struct cmp_side *y)
{
	for (size_t i = 0; i < x->ncells; i++) {
		bool found = false;

		for (size_t j = 0; j < y->ncells && !found; j++)
			found = !strcmp(x->cells[i].scenario, y->cells[j].scenario);
		if (!found)
			return false;
	}
	return true;
}

/* What --runtimes named for the image `name` in a file (an npm spec, a build's path), else its name. */
static const char *spec_of(const cJSON *head, const char *name)
{
	const cJSON *im;

	cJSON_ArrayForEach (im, cJSON_GetObjectItemCaseSensitive(head, "images"))
		if (!strcmp(str(im, "name"), name) && str(im, "spec")[0])
			return str(im, "spec");
	return name;
}

/* A word a shell reads as itself: the hint is a command to paste, and the file's text is anyone's. */
static bool shell_word(const char *w)
{
	return w[0] && w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@._/:+=-")] == '\0';
}

bool cmp_duet_sides(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_result *r, char *buf,
		    size_t len)
{
	const char *ra = one_runtime(a), *rb = one_runtime(b);
	bool other_image = false;
	char field[96];

	if (!ra || !rb || !scenarios_in(a, b) || !scenarios_in(b, a))
		return false;
	snprintf(field, sizeof(field), "images.%s.digest", ra);
	for (size_t i = 0; i < r->ndiffs; i++) {
		if (r->diffs[i].refuse && !r->diffs[i].image)
			return false; /* another host or plan: not one machine's two sides */
		other_image |= r->diffs[i].image && !strcmp(r->diffs[i].field, field);
	}
	if (!strcmp(ra, rb) && !other_image)
		return false; /* the same runtime twice: run to run, not A against B */
	if (!shell_word(spec_of(a->head, ra)) || !shell_word(spec_of(b->head, rb)) || !shell_word(a->cells[0].scenario))
		return false; /* no command with words a shell would take apart */
	snprintf(buf, len, "harness ab %s %s %s", spec_of(a->head, ra), spec_of(b->head, rb), a->cells[0].scenario);
	return true;
}
