/* The tables people read (text or Markdown), CSV of the summaries, or the document's JSON. */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/esc.h"
#include "base/util.h"
#include "cgroups/cpus.h"
#include "report/isolation.h"
#include "report/matrix.h"
#include "results/adcost.h"
#include "stats/signif.h"

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

/* Where a mode's client is not where pinned mode put it (or would have: a host too small for pinned mode at this
 * budget), the modes differ in placement as well as in the runtime's CPU limit: said after the mode's line. */
static const char *placement_note(const cJSON *modes, const cJSON *m)
{
	const cJSON *pinned = cJSON_GetObjectItemCaseSensitive(modes, "pinned");
	const cJSON *pc = cJSON_GetObjectItemCaseSensitive(pinned, "client");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "client");

	if (m == pinned)
		return "";
	if (cJSON_IsString(pc) && cJSON_IsString(c) && strcmp(pc->valuestring, c->valuestring) != 0)
		return " (NOT the client's CPUs in pinned mode: the modes differ in placement too)";
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(m, "client_as_pinned")))
		return " (the client is not where pinned mode would put it: this host is too small for pinned mode at "
		       "this budget)";
	return "";
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
		char name[ESC_LEN], on[ESC_LEN], by[ESC_LEN];

		if (!cJSON_IsString(sut) || !cJSON_IsString(client))
			continue;
		if (cg_cpus_parse(sut->valuestring, &a) == 0 && cg_cpus_parse(client->valuestring, &b) == 0) {
			cg_cpus_and(&a, &b);
			overlap = !cg_cpus_empty(&a);
		}
		fprintf(out, "%s%s: runtime on CPUs %s, client on CPUs %s%s%s\n", f == RPT_MD ? "- " : "  ",
			esc_cell(f == RPT_MD, m->string, name, sizeof(name)),
			esc_cell(f == RPT_MD, sut->valuestring, on, sizeof(on)),
			esc_cell(f == RPT_MD, client->valuestring, by, sizeof(by)),
			overlap ? " (OVERLAP: the client shares the runtime's CPUs; its load counts against the "
				  "runtime)"
				: "",
			placement_note(modes, m));
	}
}

/* How a group's trials ended, beyond its summary: interrupted ones apart from failed ones (a signal is not a
 * verdict on the runtime). */
struct group_ends {
	unsigned interrupted, failed;
	const char *adapter; /* the first trial's, when the scenario declares one for the runtime */
};

static struct group_ends group_ends(const struct res_doc *d, const struct res_summary *g)
{
	struct group_ends e = {0};

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];

		if (!res_in_group(t, g))
			continue;
		e.interrupted += t->status == TRIAL_INTERRUPTED;
		e.failed += t->status != TRIAL_OK && t->status != TRIAL_INTERRUPTED && t->status != TRIAL_SKIPPED;
		if (!e.adapter && t->adapter[0])
			e.adapter = t->adapter;
	}
	return e;
}

unsigned report_noisy_count(const struct trial_result *trials, size_t n, const struct res_summary *g,
			    unsigned counts[RES_NR_NOISY])
{
	unsigned noisy = 0;

	memset(counts, 0, RES_NR_NOISY * sizeof(*counts));
	for (size_t i = 0; i < n; i++) {
		unsigned why;

		if ((g && !res_in_group(&trials[i], g)) || trials[i].status == TRIAL_SKIPPED)
			continue;
		why = res_trial_noisy(&trials[i]);
		noisy += why != 0;
		for (int r = 0; r < RES_NR_NOISY; r++)
			counts[r] += (why >> r) & 1;
	}
	return noisy;
}

/* The reason with the largest count not yet taken (ties: the order of enum res_noisy); -1 when none is left. */
static int next_reason(const unsigned counts[RES_NR_NOISY], unsigned *taken)
{
	int best = -1;

	for (int r = 0; r < RES_NR_NOISY; r++)
		if (counts[r] && !(*taken & (1u << r)) && (best < 0 || counts[r] > counts[best]))
			best = r;
	if (best >= 0)
		*taken |= 1u << best;
	return best;
}

void report_noisy_reasons(const unsigned counts[RES_NR_NOISY], char *buf, size_t len)
{
	unsigned taken = 0;
	size_t at = 0;
	int r;

	buf[0] = '\0';
	while ((r = next_reason(counts, &taken)) >= 0 && at < len)
		at += (size_t)snprintf(buf + at, len - at, "%s%s %u", at ? ", " : "", res_noisy_names[r], counts[r]);
}

void report_adcost_text(const struct adc_cost *c, char *buf, size_t len)
{
	if (c->error[0]) {
		snprintf(buf, len, "its cost not measured: %s", c->error);
		return;
	}
	if (isnan(c->us_low))
		snprintf(buf, len, "%+.1f µs/request on a null handler (%zu pair%s, no CI)", c->us, c->pairs,
			 c->pairs == 1 ? "" : "s");
	else
		snprintf(buf, len, "%+.1f µs/request on a null handler (95%% CI %.1f–%.1f, %zu pairs)", c->us,
			 c->us_low, c->us_high, c->pairs);
}

/* The notes column: FAILED, interrupted, client saturated, noisy trials, the adapter and its cost when the run
 * measured it (results/adcost.h), "; "-separated. */
static void row_notes(const struct res_doc *d, const struct res_summary *g, const char *reasons, bool md, char *buf,
		      size_t len)
{
	struct group_ends e = group_ends(d, g);
	struct adc_cost cost;
	size_t at = 0;

	buf[0] = '\0';
	if (e.failed)
		at += (size_t)snprintf(buf + at, len - at, "FAILED");
	if (e.interrupted && at < len)
		at += (size_t)snprintf(buf + at, len - at, "%sinterrupted", at ? "; " : "");
	if (g->client_saturated && at < len)
		at += (size_t)snprintf(buf + at, len - at, "%sclient saturated", at ? "; " : "");
	if (g->noisy_trials && at < len)
		at += (size_t)snprintf(buf + at, len - at, "%s%u noisy trial%s", at ? "; " : "", g->noisy_trials,
				       g->noisy_trials == 1 ? "" : "s");
	if (g->noisy_trials && at < len)
		at += (size_t)snprintf(buf + at, len - at, " %s", reasons);
	if (e.adapter && at < len) { /* the runtime serves the app through code of the scenario's (docs/scenario.md) */
		char a[ESC_LEN], what[64];

		/* its first words (the file: "serve-node.mjs"); the whole statement is the trial's adapter in the JSON */
		snprintf(what, sizeof(what), "%.*s", (int)strcspn(e.adapter, ":;|"), e.adapter);
		at += (size_t)snprintf(buf + at, len - at, "%sthrough an adapter (%s)", at ? "; " : "",
				       esc_cell(md, what, a, sizeof(a)));
	}
	if (e.adapter && at < len && adc_find(d, g->scenario, g->runtime, g->mode, &cost)) {
		char line[384], a[ESC_LEN];

		report_adcost_text(&cost, line, sizeof(line));
		snprintf(buf + at, len - at, ": %s", esc_cell(md, line, a, sizeof(a)));
	}
}

/* The reasons of a table's flagged cells, under the table: "  [1] contended 3, foreign 1". */
struct legend {
	char line[16][256];
	unsigned n, first; /* first: the number of line[0], counted over the whole table */
};

static void legend_flush(struct legend *l, FILE *out)
{
	if (l->n)
		fprintf(out, "\nnoisy trials by reason (docs/statistics.md):\n");
	for (unsigned i = 0; i < l->n; i++)
		fprintf(out, "  [%u] %s\n", l->first + i, l->line[i]);
	l->first += l->n;
	l->n = 0;
}

/* idle → peak: the peak is the larger of the server's VmHWM and its slice's memory peak (the whole process
 * tree: a forked worker, a cluster's processes, and its page cache), marked "tree" when the slice's is. */
static void memory_cell(char *buf, size_t len, const struct res_summary *g, double idle_kb)
{
	double pid = res_median(g, RES_M_PEAK_RSS_KB), tree = res_median(g, RES_M_SUT_SLICE_PEAK_KB);

	if (!isnan(tree) && (isnan(pid) || tree > pid))
		snprintf(buf, len, "%.1f → %.1f tree", idle_kb / 1024, tree / 1024);
	else
		snprintf(buf, len, "%.1f → %.1f", idle_kb / 1024, pid / 1024);
}

static void render_rows(const struct res_doc *doc, const struct res_summary *groups, size_t n, enum report_format f,
			FILE *out)
{
	const char *sep = f == RPT_MD ? " | " : "  ";
	const char *lead = f == RPT_MD ? "| " : "";
	const char *tail = f == RPT_MD ? " |" : "";
	const char *last = "";
	struct legend legend = {.first = 1};

	for (size_t i = 0; i < n; i++) {
		const struct res_summary *g = &groups[i], *base = baseline(groups, n, g);
		char a[32], b[32], c[32], d[48], e[32], r[80], notes[512], ci[48], reasons[160];
		char name[ESC_LEN], rt[ESC_LEN], mode[ESC_LEN];
		bool md = f == RPT_MD;
		double rps = ops_per_s(g);
		/* a chat's round trip or a script's batch p99 fill the p99 column */
		double p99 = first_of(g, RES_M_P99_US, RES_M_RTT_P99_US, RES_M_SCRIPT_P99_MS, 1e3);
		double errs = first_of(g, RES_M_ERRORS, RES_M_LOST, RES_M_SCRIPT_ERRORS, 1);
		double st = res_median(g, RES_M_STARTUP_MEDIAN_MS);
		double idle = res_median(g, RES_M_IDLE_RSS_KB), script_rss = res_median(g, RES_M_SCRIPT_MAX_RSS_KB);

		if (strcmp(g->noise, "none") != 0)
			continue; /* noisy groups are in the isolation table */

		if (strcmp(last, g->scenario) != 0) {
			legend_flush(&legend, out);
			last = g->scenario;
			fprintf(out, "\n%s%s\n\n", md ? "### " : "== ", esc_cell(md, last, name, sizeof(name)));
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
			memory_cell(d, sizeof(d), g, idle);
		cell(e, sizeof(e), 0, "", errs);
		vs_pinned(r, sizeof(r), base ? &g->vs_pinned : NULL);
		/* The flags are a column of the table (inside the last '|'), so a Markdown renderer keeps them; their
		 * reasons are in the cell in Markdown, in a legend under the table in text */
		reasons[0] = '\0';
		if (g->noisy_trials) {
			unsigned counts[RES_NR_NOISY];

			report_noisy_count(doc->trials, doc->ntrials, g, counts);
			if (f == RPT_MD) {
				snprintf(reasons, sizeof(reasons), "(");
				report_noisy_reasons(counts, reasons + 1, sizeof(reasons) - 2);
				strcat(reasons, ")");
			} else if (legend.n < HX_ARRAY_SIZE(legend.line)) {
				char *l = legend.line[legend.n];
				int k = snprintf(l, sizeof(legend.line[0]),
						 "%s %s: ", esc_term(g->runtime, rt, sizeof(rt)),
						 esc_term(g->mode, mode, sizeof(mode)));

				if (k < 0 ||
				    (size_t)k >= sizeof(legend.line[0]) - 1) /* long escaped names: cut there */
					k = (int)strlen(l);
				report_noisy_reasons(counts, l + k, sizeof(legend.line[0]) - (size_t)k);
				snprintf(reasons, sizeof(reasons), "[%u]", legend.first + legend.n++);
			}
		}
		row_notes(doc, g, reasons, md, notes, sizeof(notes));
		if (!notes[0] && f == RPT_MD)
			snprintf(notes, sizeof(notes), " ");
		spread(ci, sizeof(ci), g);
		fprintf(out, "%s%-8s%s%-7s%s%10s%s%10s%s%20s%s%9s%s%17s%s%6s%s%20s%s%s%s\n", lead,
			esc_cell(md, g->runtime, rt, sizeof(rt)), sep, esc_cell(md, g->mode, mode, sizeof(mode)), sep,
			a, sep, b, sep, ci, sep, c, sep, d, sep, e, sep, r, notes[0] ? sep : "", notes, tail);
	}
	legend_flush(&legend, out);
}

/* The passed trials' values of m in group g; how many (at most max). */
static size_t group_values(const struct res_doc *d, const struct res_summary *g, enum res_metric m, double *ret,
			   size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < d->ntrials && n < max; i++)
		if (res_in_group(&d->trials[i], g) && d->trials[i].status == TRIAL_OK &&
		    !isnan(res_metric(&d->trials[i], m)))
			ret[n++] = res_metric(&d->trials[i], m);
	return n;
}

#define RPT_MAX_VERSUS 16
/* The runtimes of one scenario and mode, quiet, by what the row's main figure says: the best first. */
struct versus {
	const struct res_summary *g[RPT_MAX_VERSUS];
	size_t n;
	enum res_metric m;
	bool smaller_better;
};

static int versus_cmp_ctx(const struct versus *v, const struct res_summary *a, const struct res_summary *b)
{
	double x = res_median(a, v->m), y = res_median(b, v->m);

	return v->smaller_better ? (x > y) - (x < y) : (x < y) - (x > y);
}

/* The metric every group of v has, of the ones the table leads with: ops/s (bigger is better), else startup. */
static bool versus_metric(struct versus *v)
{
	static const enum res_metric order[] = {RES_M_RPS, RES_M_DELIVERIES_PER_S, RES_M_OPS_PER_S,
						RES_M_STARTUP_MEDIAN_MS};

	for (size_t k = 0; k < HX_ARRAY_SIZE(order); k++) {
		bool all = true;

		for (size_t i = 0; i < v->n; i++)
			all &= !isnan(res_median(v->g[i], order[k]));
		if (all) {
			v->m = order[k];
			v->smaller_better = order[k] == RES_M_STARTUP_MEDIAN_MS;
			return true;
		}
	}
	return false;
}

/* "2.31x (95% CI 2.20–2.45, significant)": the best against one other, the ratio oriented so that above 1 is
 * faster; significant when Mann-Whitney p < 0.05 and the CI excludes 1; no CI below REPORT_MIN_CI_PAIRS trials. */
static void versus_ratio(const struct res_doc *d, const struct versus *v, const struct res_summary *other, char *buf,
			 size_t len)
{
	/* every trial of both groups, so that the ratio and its CI come from the same samples */
	_cleanup_free_ double *a = calloc(v->g[0]->trials + 1, sizeof(double));
	_cleanup_free_ double *b = calloc(other->trials + 1, sizeof(double));
	size_t na = a ? group_values(d, v->g[0], v->m, a, v->g[0]->trials) : 0;
	size_t nb = b ? group_values(d, other, v->m, b, other->trials) : 0;
	double best = res_median(v->g[0], v->m), them = res_median(other, v->m);
	double ratio = v->smaller_better ? them / best : best / them;
	struct sig_ci ci;
	struct sig_test mw;

	if (na < REPORT_MIN_CI_PAIRS || nb < REPORT_MIN_CI_PAIRS ||
	    (v->smaller_better ? sig_ratio_ci(a, na, b, nb, false, 0.95, SIG_SEED, &ci)
			       : sig_ratio_ci(b, nb, a, na, false, 0.95, SIG_SEED, &ci)) < 0 ||
	    sig_mann_whitney(a, na, b, nb, &mw) < 0 || isnan(ci.low)) {
		snprintf(buf, len, "%.2fx (n=%zu and %zu, no CI)", ratio, na, nb);
		return;
	}
	snprintf(buf, len, "%.2fx (95%% CI %.2f–%.2f, %s)", ratio, ci.low, ci.high,
		 mw.p < 0.05 && (ci.low > 1 || ci.high < 1) ? "significant" : "not significant");
}

/* hyperfine's summary, per scenario and mode that several runtimes ran quietly: "http-hello pinned: bun ran 2.31x
 * (95% CI 2.20–2.45, significant) faster than node24, 3.10x (...) than deno, by ops/s". */
static void render_versus(const struct res_doc *d, const struct res_summary *groups, size_t n, enum report_format f,
			  FILE *out)
{
	bool header = false;

	for (size_t i = 0; i < n; i++) {
		struct versus v = {0};
		char r[96], name[ESC_LEN], mode[ESC_LEN], rt[ESC_LEN];

		if (strcmp(groups[i].noise, "none") != 0)
			continue;
		for (size_t j = 0; j < n && v.n < RPT_MAX_VERSUS; j++) {
			const struct res_summary *h = &groups[j];

			if (strcmp(h->noise, "none") || strcmp(h->scenario, groups[i].scenario) ||
			    strcmp(h->mode, groups[i].mode))
				continue;
			if (j < i)
				break; /* this scenario and mode were summed up at their first group */
			v.g[v.n++] = h;
		}
		if (v.n < 2 || v.g[0] != &groups[i] || !versus_metric(&v))
			continue;
		for (size_t a = 1; a < v.n; a++) /* a few runtimes: insertion sort, best first */
			for (size_t b = a; b > 0 && versus_cmp_ctx(&v, v.g[b], v.g[b - 1]) < 0; b--) {
				const struct res_summary *t = v.g[b];

				v.g[b] = v.g[b - 1];
				v.g[b - 1] = t;
			}
		if (!header)
			fprintf(out, "\n%s\n", f == RPT_MD ? "#### Summary" : "Summary");
		header = true;
		fprintf(out, "%s%s %s: %s ran", f == RPT_MD ? "- " : "  ",
			esc_cell(f == RPT_MD, v.g[0]->scenario, name, sizeof(name)),
			esc_cell(f == RPT_MD, v.g[0]->mode, mode, sizeof(mode)),
			esc_cell(f == RPT_MD, v.g[0]->runtime, rt, sizeof(rt)));
		for (size_t k = 1; k < v.n; k++) {
			versus_ratio(d, &v, v.g[k], r, sizeof(r));
			fprintf(out, "%s %s faster than %s", k > 1 ? "," : "", r,
				esc_cell(f == RPT_MD, v.g[k]->runtime, rt, sizeof(rt)));
		}
		fprintf(out, ", by %s\n", v.smaller_better ? "startup time" : "ops/s");
	}
}

/* The modules each runtime of a scenario loaded (trial.modules): its first trial with a record. */
#define RPT_MAX_LOADERS 16
struct loaders {
	const struct trial_result *t[RPT_MAX_LOADERS];
	size_t n;
};

static bool has_record(const struct trial_result *t)
{
	return (t->have & RES_HAVE_MODULES) && t->modules && !t->modules->not_recorded[0] && t->modules->sha256[0];
}

static bool listed(const struct res_modules *m, const char *path)
{
	for (unsigned i = 0; i < m->npaths; i++)
		if (strcmp(m->paths[i], path) == 0)
			return true;
	return false;
}

/* The paths a lists and b does not, node_modules' first (the scenario's own files differ by its scripts per
 * runtime, by design): "node_modules/react-dom/server.bun.js, ... (+3 more)". */
static void only_in(const struct res_modules *a, const struct res_modules *b, bool md, char *buf, size_t len)
{
	/* a list cut at RES_MODULES_LISTED says nothing of the paths sorted after its last */
	const char *bound = a->npaths < a->files && a->npaths ? a->paths[a->npaths - 1] : NULL;
	unsigned shown = 0, more = 0;
	size_t at = 0;

	if (b->npaths < b->files && b->npaths && (!bound || strcmp(b->paths[b->npaths - 1], bound) < 0))
		bound = b->paths[b->npaths - 1];

	buf[0] = '\0';
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < a->npaths; i++) {
			char e[ESC_LEN];

			if ((strncmp(a->paths[i], "node_modules/", 13) == 0) != (pass == 0) || listed(b, a->paths[i]) ||
			    (bound && strcmp(a->paths[i], bound) > 0))
				continue;
			if (shown == 3 || at >= len) {
				more++;
				continue;
			}
			at += (size_t)snprintf(buf + at, len - at, "%s%s", shown ? ", " : "",
					       esc_cell(md, a->paths[i], e, sizeof(e)));
			shown++;
		}
	if (more && at < len)
		snprintf(buf + at, len - at, " (+%u more)", more);
	if (!shown)
		snprintf(buf, len, "the same paths, other contents");
}

/* The trials with a module record, by scenario and then in file order. */
static int by_scenario(const void *a, const void *b)
{
	const struct trial_result *x = *(const struct trial_result *const *)a;
	const struct trial_result *y = *(const struct trial_result *const *)b;
	int c = strcmp(x->scenario, y->scenario);

	return c ? c : (x > y) - (x < y);
}

/* A scenario's trials in that order: [at, at + n); sorted by their first trial, the scenarios come in file order. */
struct scenario_run {
	size_t at, n;
	const struct trial_result *first;
};

static int by_first(const void *a, const void *b)
{
	const struct scenario_run *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* One line per runtime of a scenario whose loaded modules differ from its first runtime's: "react-ssr: node24 and
 * bun loaded different files (14 and 14): only node24 node_modules/react-dom/server.node.js, ...; only bun ...".
 * A sort, not a scan per trial: scanning took 7.4 of report's 9.5 s for 40,000 trials without records. */
static int render_modules(const struct res_doc *d, enum report_format f, FILE *out, struct hx_err *err)
{
	_cleanup_free_ const struct trial_result **rec = calloc(d->ntrials + 1, sizeof(*rec));
	_cleanup_free_ struct scenario_run *runs = calloc(d->ntrials + 1, sizeof(*runs));
	bool head = false, md = f == RPT_MD;
	size_t n = 0, nruns = 0;

	if (!rec || !runs)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; i < d->ntrials; i++)
		if (has_record(&d->trials[i]))
			rec[n++] = &d->trials[i];
	qsort(rec, n, sizeof(*rec), by_scenario);
	for (size_t i = 0; i < n; i++) {
		if (!nruns || strcmp(rec[i]->scenario, runs[nruns - 1].first->scenario))
			runs[nruns++] = (struct scenario_run){.at = i, .first = rec[i]};
		runs[nruns - 1].n++;
	}
	qsort(runs, nruns, sizeof(*runs), by_first);
	for (size_t r = 0; r < nruns; r++) {
		struct loaders l = {0};
		char name[ESC_LEN], ra[ESC_LEN], rb[ESC_LEN], a[2048], b[2048];

		for (size_t j = runs[r].at; j < runs[r].at + runs[r].n && l.n < RPT_MAX_LOADERS; j++) {
			bool seen = false;

			for (size_t k = 0; k < l.n; k++)
				seen |= strcmp(l.t[k]->runtime, rec[j]->runtime) == 0;
			if (!seen)
				l.t[l.n++] = rec[j];
		}
		for (size_t k = 1; k < l.n; k++) {
			const struct res_modules *x = l.t[0]->modules, *y = l.t[k]->modules;

			if (strcmp(x->sha256, y->sha256) == 0)
				continue;
			if (!head)
				fprintf(out, "\n%s\n\n",
					md ? "### Modules loaded" : "== modules loaded (docs/scenario.md)");
			head = true;
			only_in(x, y, md, a, sizeof(a));
			only_in(y, x, md, b, sizeof(b));
			esc_cell(md, l.t[0]->runtime, ra, sizeof(ra));
			esc_cell(md, l.t[k]->runtime, rb, sizeof(rb));
			fprintf(out, "%s%s: %s and %s loaded different files (%u and %u): only %s %s; only %s %s\n",
				md ? "- " : "", esc_cell(md, l.t[0]->scenario, name, sizeof(name)), ra, rb, x->files,
				y->files, ra, a, rb, b);
		}
	}
	return 0;
}

/* What to do when most trials were noisy, by the dominant reason. */
static const char *const noisy_advice[RES_NR_NOISY] = {
	[RES_NOISY_THROTTLED] = "a pinned runtime was throttled: its budget is misconfigured (harness doctor)",
	[RES_NOISY_CPU_PRESSURE] = "other work competes for the runtime's CPUs: run on a quiet host, or with --isolate "
				   "(harness doctor says whether it can)",
	[RES_NOISY_CLIENT_SATURATED] = "the load client is the bottleneck: give it CPUs (--client-cpus) and threads "
				       "(the scenario's load.threads)",
	[RES_NOISY_STALL] = "requests stalled for seconds: look at the server's log (run --keep) and the host's load",
	[RES_NOISY_STEAL] = "the hypervisor takes CPU time: a dedicated runner, or compare with --fail-on "
			    "quiet-regression",
	[RES_NOISY_FOREIGN] = "other tasks ran on the runtime's CPUs: run on a quiet host, or with --isolate (harness "
			      "doctor says whether it can)",
	[RES_NOISY_SPREAD] = "startup runs varied beyond the scenario's expected CV: more runs (--profile full) or a "
			     "quieter host",
	[RES_NOISY_CONTENDED] = "something outside the trial held the runtime's CPUs: run on a quiet host, or with "
				"--isolate (harness doctor says whether it can)",
	[RES_NOISY_NOT_STEADY] = "the throughput still moved over the measured phase: a longer warm-up (run --warmup "
				 "auto) or a quieter host",
	[RES_NOISY_SHORT] = "measured phases were shorter than the scenario's min_duration_s: give them more requests "
			    "or messages (--requests, --profile standard or full)",
};

/* One line when most trials were flagged: the figures then say more about the host than the runtimes. */
static void render_mostly_noisy(const struct res_doc *d, enum report_format f, FILE *out)
{
	unsigned counts[RES_NR_NOISY], taken = 0, noisy = report_noisy_count(d->trials, d->ntrials, NULL, counts);
	size_t ran = 0;
	int top;

	for (size_t i = 0; i < d->ntrials; i++)
		ran += d->trials[i].status != TRIAL_SKIPPED;
	if (!ran || noisy * 2 <= ran || (top = next_reason(counts, &taken)) < 0)
		return;
	fprintf(out, "\n%sMOST TRIALS WERE NOISY: %u of %zu (%s in %u): %s.%s\n", f == RPT_MD ? "**" : "", noisy, ran,
		res_noisy_names[top], counts[top],
		noisy_advice[top] ? noisy_advice[top] : "docs/statistics.md says why", f == RPT_MD ? "**" : "");
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
		char c[4][ESC_LEN];

		/* the names are the results file's, which anyone may have written: quoted, never a formula */
		fprintf(out, "%s,%s,%s,%s,%u,%d,%d", esc_csv(g->scenario, c[0], sizeof(c[0])),
			esc_csv(g->runtime, c[1], sizeof(c[1])), esc_csv(g->mode, c[2], sizeof(c[2])),
			esc_csv(g->noise, c[3], sizeof(c[3])), g->trials, g->failed, g->client_saturated);
		for (int m = 0; m < RES_NR_METRICS; m++)
			if (g->have & (1u << m) && stats_has_ci(&g->metric[m]))
				fprintf(out, ",%g,%g,%g", g->metric[m].median, g->metric[m].ci95_low,
					g->metric[m].ci95_high);
			else if (g->have & (1u << m)) /* too few trials for a CI: none */
				fprintf(out, ",%g,,", g->metric[m].median);
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

		if (!g->leak && !st->not_steady && !t->warmup_auto.have)
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
			fprintf(out,
				" not steady: throughput %+.0f%% from the first to the last third of the measured "
				"phase "
				"(Mann-Kendall p = %.2g);",
				st->change * 100, st->p);
		if (t->warmup_auto.have)
			fprintf(out, " warm-up (auto): %u round%s, %.1f s, %llu requests, %s;", t->warmup_auto.rounds,
				t->warmup_auto.rounds == 1 ? "" : "s", t->warmup_auto.seconds,
				(unsigned long long)t->warmup_auto.requests,
				t->warmup_auto.steady ? "steady" : "not steady by the cap");
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
	char mem[3][16], rt[ESC_LEN], mode[ESC_LEN], hint[ESC_LEN];
	bool md = f == RPT_MD;
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
		esc_cell(md, t->runtime, rt, sizeof(rt)), esc_cell(md, t->mode, mode, sizeof(mode)),
		(unsigned long long)t->load.requests, (unsigned long long)t->load.errors_total, t->load.rps, l->mean,
		l->p50, l->p95, l->p99, l->max, mem[0], mem[1], mem[2],
		esc_cell(md, t->server.low_memory_hint[0] ? t->server.low_memory_hint : "none", hint, sizeof(hint)));
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
		char name[ESC_LEN], rt[ESC_LEN], mode[ESC_LEN];
		bool md = f == RPT_MD;
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
				md ? "### " : "== ", esc_cell(md, last, name, sizeof(name)));
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
			fprintf(out, md ? "| %s | %s | failed |\n" : "%-8s %-7s failed\n",
				esc_cell(md, a->runtime, rt, sizeof(rt)), esc_cell(md, a->mode, mode, sizeof(mode)));
	}
	free(ts);
	free(done);
}

static double config_num(const struct res_doc *d, const char *obj, const char *key)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(d->head, "config");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj ? cJSON_GetObjectItemCaseSensitive(c, obj) : c, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

bool report_partial(const struct res_doc *d, char *buf, size_t len)
{
	double planned = config_num(d, NULL, "planned_trials"), count = config_num(d, "shard", "count");
	double plan = config_num(d, "merged", "plan_trials"), merged = config_num(d, "merged", "trials");
	char of[64] = "";
	size_t at = 0;

	buf[0] = '\0';
	if (!isnan(planned))
		snprintf(of, sizeof(of), " of the %.0f planned", planned);
	if (d->interrupted)
		at += (size_t)snprintf(buf, len, "the run was interrupted after %zu trial%s%s", d->ntrials,
				       d->ntrials == 1 ? "" : "s", of);
	else if (!d->finished)
		at += (size_t)snprintf(buf, len, "the run did not finish (killed, or still running): %zu trial%s%s",
				       d->ntrials, d->ntrials == 1 ? "" : "s", of);
	else if (!isnan(planned) && (double)d->ntrials < planned && isnan(plan))
		at += (size_t)snprintf(buf, len, "it holds %zu of the %.0f trials its run planned", d->ntrials,
				       planned);
	if (count > 1 && at < len)
		at += (size_t)snprintf(buf + at, len - at,
				       "%sit is shard %.0f of %.0f, %.0f of the plan's %.0f trials "
				       "(harness merge joins the shards)",
				       at ? "; " : "", config_num(d, "shard", "index"), count,
				       config_num(d, "shard", "trials"), config_num(d, "shard", "plan_trials"));
	if (!isnan(plan) && merged < plan && at < len)
		snprintf(buf + at, len - at, "%sa merge of %.0f of the plan's %.0f trials: a shard is missing",
			 at ? "; " : "", merged, plan);
	return buf[0] != '\0';
}

int report_render(const struct res_doc *d, enum report_format f, FILE *out, struct hx_err *err)
{
	_cleanup_free_ struct res_summary *groups = NULL;
	const cJSON *cpus =
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "cpus");
	char version[ESC_LEN], profile[ESC_LEN];
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
		esc_cell(f == RPT_MD, head_str(d, "harness", "version"), version, sizeof(version)),
		esc_cell(f == RPT_MD, head_str(d, "config", "profile"), profile, sizeof(profile)),
		cJSON_IsNumber(cpus) ? cpus->valuedouble : NAN,
		cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d->head, "config"),
							       "sandbox"))
			? ", out of the sandbox (--no-sandbox: for comparison only)"
			: "");
	render_placement(d, f, out);
	render_rows(d, groups, n, f, out);
	render_versus(d, groups, n, f, out);
	if (render_modules(d, f, out, err) < 0)
		return -err->errnum;
	render_published(d, f, out);
	iso_render(groups, n, f == RPT_MD, out);
	matrix_render(d, f == RPT_MD, out);
	render_inside(d, f, out);
	render_efficiency(d, f, out);
	fprintf(out,
		"\nMedians over trials. ops/s: requests, chat deliveries or a script's operations (queries) per "
		"second; p99: of requests, chat round trips or a script's batches; startup: each trial's median "
		"of its runs; 95%% CI of the median: of ops/s, else startup, none below 6 trials (n= says how many); "
		"memory: the server's RSS idle and its peak under load (the larger of its VmHWM and its slice's memory "
		"peak, "
		"its whole process tree: 'tree' when that is the larger), or a script's peak. vs pinned: "
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
	render_mostly_noisy(d, f, out);
	return 0;
}
