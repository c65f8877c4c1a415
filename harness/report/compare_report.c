/* harness compare's rows as people and programs read them: the head (the two files, what differs), a row per
 * scenario x runtime x mode x metric with its verdict, the gate's line; as a table, Markdown or JSON. */
#include "report/compare_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/esc.h"
#include "stats/stats.h"

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
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
	const char *w = cmp_verdict_word(r);

	if (r->verdict == CMP_WORSE && !cmp_metric_of(r->a->metric)->gated)
		snprintf(buf, len, "%s (not gated)", w);
	else if (r->excused)
		snprintf(buf, len, "%s (excused, --fail-on quiet-regression: outside noise in B's trials %s)", w,
			 r->excused_by);
	else if (r->verdict == CMP_WORSE && !r->regression)
		snprintf(buf, len, "%s (the CI reaches within the threshold: not gated)", w);
	else if (r->verdict == CMP_TOO_FEW && r->trials_needed)
		snprintf(buf, len, "too few trials: %zu per side needed for any verdict", r->trials_needed);
	else if (r->verdict == CMP_TOO_FEW)
		snprintf(buf, len, "too few trials: more than %d per side needed for any verdict", CMP_TRIALS_CAP);
	else if (r->verdict != CMP_INCONCLUSIVE)
		snprintf(buf, len, "%s", w);
	else if (r->trials_needed)
		snprintf(buf, len, "inconclusive: ~%zu trials per side would settle it", r->trials_needed);
	else if (isfinite(r->ratio.estimate) && r->ratio.estimate > 0)
		snprintf(buf, len, "inconclusive: more than %d trials per side would settle it", CMP_TRIALS_CAP);
	else
		snprintf(buf, len, "inconclusive");
}

static void render_head(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_opts *o,
			const struct cmp_result *r, enum cmp_format f, FILE *out)
{
	char ha[128], hb[128], sa[ESC_LEN], sb[ESC_LEN];
	bool md = f == CMP_MD;

	fprintf(out, "%sharness compare: threshold %g%%, alpha %g\n\n", f == CMP_MD ? "## " : "", o->threshold * 100,
		o->alpha);
	fprintf(out, "%sA: %s (%s)\n", md ? "- " : "", esc_cell(md, a->path, sa, sizeof(sa)),
		esc_cell(md, harness_of(a->head, ha, sizeof(ha)), sb, sizeof(sb)));
	fprintf(out, "%sB: %s (%s)\n", md ? "- " : "", esc_cell(md, b->path, sa, sizeof(sa)),
		esc_cell(md, harness_of(b->head, hb, sizeof(hb)), sb, sizeof(sb)));
	if (!r->ndiffs)
		fprintf(out, "\nSame CPU model and count, cgroup mode, kernel, profile, CPU plan, budget, sandbox and "
			     "image digests.\n");
	else
		fprintf(out, "\nWhat differs:\n");
	for (size_t i = 0; i < r->ndiffs; i++)
		fprintf(out, "%s%s: %.40s → %.40s%s\n", md ? "- " : "  ", r->diffs[i].field,
			esc_cell(md, r->diffs[i].a, sa, sizeof(sa)), esc_cell(md, r->diffs[i].b, sb, sizeof(sb)),
			r->diffs[i].image
				? " (another image under this name: compared only with --allow-different-images)"
			: r->diffs[i].refuse ? " (not comparable without --allow-different-host)"
			: r->diffs[i].arm    ? " (the runtime in and out of the sandbox: run --no-sandbox)"
					     : "");
}

/* The ratio, or what stands for it when a side's median is zero. */
static void fmt_ratio(char *buf, size_t len, const struct cmp_row *r)
{
	if (r->a_median == 0 && r->b_median == 0)
		snprintf(buf, len, "0 = 0");
	else if (r->a_median == 0)
		snprintf(buf, len, "from 0");
	else if (r->b_median == 0)
		snprintf(buf, len, "to 0");
	else
		snprintf(buf, len, "%.3fx", r->ratio.estimate);
}

static void render_row(const struct cmp_row *r, enum cmp_format f, FILE *out)
{
	const struct cmp_metric *m = cmp_metric_of(r->a->metric);
	const char *sep = f == CMP_MD ? " | " : "  ";
	char va[32], vb[32], ratio[16], ci[32], p[16], noisy[48], v[288], rt[ESC_LEN], mode[ESC_LEN];

	fmt_value(va, sizeof(va), m, r->a_median);
	fmt_value(vb, sizeof(vb), m, r->b_median);
	fmt_ratio(ratio, sizeof(ratio), r);
	if (r->verdict == CMP_TOO_FEW || isnan(r->ratio.low))
		snprintf(ci, sizeof(ci), "–"); /* none: too few trials, or a zero median */
	else
		snprintf(ci, sizeof(ci), "%.3f–%.3f", r->ratio.low, r->ratio.high);
	fmt_p(p, sizeof(p), r->mwu.p);
	snprintf(noisy, sizeof(noisy), "%zu / %zu", r->a->noisy, r->b->noisy);
	fmt_verdict(v, sizeof(v), r);
	fprintf(out, "%s%-8s%s%-7s%s%-16s%s%10s%s%10s%s%7s%s%13s%s%6s%s%9s%s%s%s\n", f == CMP_MD ? "| " : "",
		esc_cell(f == CMP_MD, r->a->runtime, rt, sizeof(rt)), sep,
		esc_cell(f == CMP_MD, r->a->mode, mode, sizeof(mode)), sep, m->label, sep, va, sep, vb, sep, ratio, sep,
		ci, sep, p, sep, noisy, sep, v, f == CMP_MD ? " |" : "");
}

static void render_rows(const struct cmp_result *r, enum cmp_format f, FILE *out)
{
	const char *sep = f == CMP_MD ? " | " : "  ";
	const char *last = "";
	char name[ESC_LEN];

	for (size_t i = 0; i < r->nrows; i++) {
		if (strcmp(last, r->rows[i].a->scenario) != 0) {
			last = r->rows[i].a->scenario;
			fprintf(out, "\n%s%s\n\n",
				f == CMP_MD ? "### " : "== ", esc_cell(f == CMP_MD, last, name, sizeof(name)));
			fprintf(out, "%s%-8s%s%-7s%s%-16s%s%10s%s%10s%s%7s%s%13s%s%6s%s%9s%s%s%s\n",
				f == CMP_MD ? "| " : "", "runtime", sep, "mode", sep, "metric", sep, "A", sep, "B", sep,
				"B/A", sep, "CI", sep, "p", sep, "noisy A/B", sep, "verdict", f == CMP_MD ? " |" : "");
			if (f == CMP_MD)
				fprintf(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
		}
		render_row(&r->rows[i], f, out);
	}
}

static void render_gate(const struct cmp_opts *o, const struct cmp_result *r, FILE *out)
{
	const char *quiet = o->fail_on == CMP_FAIL_QUIET_REGRESSION ? " not excused by outside noise" : "";
	char holm[96], unj[128];

	snprintf(holm, sizeof(holm), "Holm-adjusted over %zu row%s", r->family, r->family == 1 ? "" : "s");
	snprintf(unj, sizeof(unj), "; %zu of %zu gated rows could not be judged (too few trials)", r->unjudged,
		 r->gated);
	switch (r->gate) {
	case CMP_GATE_OFF:
		fprintf(out, "Gate: off (--fail-on none).\n");
		break;
	case CMP_GATE_FAILED:
		fprintf(out, "Gate: FAILED: %zu significant regression(s) beyond %g%%%s (%s)%s.\n", r->failing,
			o->threshold * 100, quiet, holm, unj);
		break;
	case CMP_GATE_UNJUDGED:
		fprintf(out,
			"Gate: NOT JUDGED: none of the %zu gated rows had the trials for a verdict (exit %d, not a "
			"pass): add trials (--repeat) to both runs.\n",
			r->gated, CMP_EXIT_UNJUDGED);
		break;
	default:
		fprintf(out, "Gate: passed: no significant regression beyond %g%%%s (%s)%s.\n", o->threshold * 100,
			quiet, holm, unj);
	}
}

static void render_tail(const struct cmp_opts *o, const struct cmp_result *r, FILE *out)
{
	size_t count[CMP_NR_VERDICTS] = {0}, excused = 0, noisy_regressions = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		count[r->rows[i].verdict]++;
		excused += r->rows[i].excused;
		noisy_regressions +=
			r->rows[i].regression && !r->rows[i].excused && (r->rows[i].a->noisy || r->rows[i].b->noisy);
	}
	fprintf(out,
		"\n%zu rows: %zu better, %zu worse, %zu below threshold, %zu equivalent, %zu inconclusive, %zu too "
		"few trials.\n",
		r->nrows, count[CMP_BETTER], count[CMP_WORSE], count[CMP_BELOW_THRESHOLD], count[CMP_EQUIVALENT],
		count[CMP_INCONCLUSIVE], count[CMP_TOO_FEW]);
	render_gate(o, r, out);
	if (excused)
		fprintf(out,
			"%zu significant regression(s) excused (--fail-on quiet-regression): B's trials named on "
			"the row had outside noise (steal, foreign tasks, contention) and without them the row does "
			"not fail; run them again on a quieter host to know.\n",
			excused);
	if (o->fail_on != CMP_FAIL_NONE && noisy_regressions)
		fprintf(out,
			"%zu of them with noisy trials on a side: the host may have moved them (each trial's "
			"noisy_reasons in its results file says why; docs/statistics.md).\n",
			noisy_regressions);
	fprintf(out,
		"\nA and B: medians over the trials that passed. B/A: the ratio of medians; CI: its %g%% "
		"percentile bootstrap (%d resamples, seed %#llx); p: Mann-Whitney U, two-sided, before Holm's "
		"adjustment over the rows. Faster or slower needs the adjusted p < %g, a CI that excludes 1 and a "
		"change of at least %g%%; below threshold: significant but smaller; equivalent: the CI inside "
		"±%g%%; inconclusive: neither, with the trials per side that would settle it with 80%% chance; too "
		"few trials: no p below the level is reachable with these trials. noisy A/B: each side's trials "
		"flagged noisy, kept in every figure. docs/statistics.md says more.\n",
		(1 - o->alpha) * 100, SIG_BOOTSTRAP, (unsigned long long)SIG_SEED, o->alpha, o->threshold * 100,
		o->threshold * 100);
}

static cJSON *side_json(const struct cmp_cell *c, double median_v)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "n", (double)c->n);
	cJSON_AddNumberToObject(o, "median", median_v);
	cJSON_AddNumberToObject(o, "cv", stats_cv(c->v, c->n));
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
	if (isfinite(r->ratio.estimate))
		cJSON_AddNumberToObject(o, "ratio", r->ratio.estimate);
	else
		cJSON_AddNullToObject(o, "ratio");
	if (r->a_median == 0 || r->b_median == 0) /* no ratio to bootstrap (compare.c) */
		cJSON_AddStringToObject(o, "ratio_note",
					r->a_median == 0 && r->b_median == 0 ? "both medians are 0"
					: r->a_median == 0		     ? "A's median is 0"
									     : "B's median is 0");
	if (r->verdict != CMP_TOO_FEW && !isnan(r->ratio.low)) {
		cJSON_AddNumberToObject(o, "ci_low", r->ratio.low);
		cJSON_AddNumberToObject(o, "ci_high", r->ratio.high);
	}
	cJSON_AddNumberToObject(o, "p", r->mwu.p);
	if (!isnan(r->p_adj))
		cJSON_AddNumberToObject(o, "p_adjusted", r->p_adj);
	cJSON_AddBoolToObject(o, "p_exact", r->mwu.exact);
	cJSON_AddNumberToObject(o, "u", r->mwu.stat);
	if (!isnan(r->welch.p)) {
		cJSON_AddNumberToObject(o, "welch_t", isinf(r->welch.stat) ? 0 : r->welch.stat);
		cJSON_AddNumberToObject(o, "welch_df", r->welch.df);
		cJSON_AddNumberToObject(o, "welch_p", r->welch.p);
	}
	cJSON_AddNumberToObject(o, "hodges_lehmann", r->shift);
	cJSON_AddStringToObject(o, "verdict",
				r->verdict <= CMP_WORSE ? cmp_verdict_word(r) : cmp_verdict_names[r->verdict]);
	cJSON_AddBoolToObject(o, "regression", r->regression);
	if (r->excused) {
		cJSON_AddBoolToObject(o, "excused", true);
		cJSON_AddStringToObject(o, "excused_by", r->excused_by);
	}
	if (r->verdict == CMP_INCONCLUSIVE || r->verdict == CMP_TOO_FEW)
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
	cJSON_AddStringToObject(opts, "multiple_comparisons", "holm");
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
	cJSON_AddNumberToObject(doc, "family", (double)r->family);
	cJSON_AddNumberToObject(doc, "unjudged", (double)r->unjudged);
	cJSON_AddStringToObject(doc, "gate", cmp_gate_names[r->gate]);
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
