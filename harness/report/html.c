/* The HTML report: a results document drawn as charts with a table under each, from the file alone. */
#include "report/html.h"
#include "report/html_timeline.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "report/report.h"
#include "report/svg.h"
#include "results/adcost.h"
#include "results/compare.h"
#include "stats/signif.h"
#include "stats/stats.h"

#define MAX_GROUPS   64 /* (runtime, mode) pairs of one scenario */
#define MAX_RUNTIMES 16

struct page {
	FILE *out;
	const cJSON *head; /* what describes the run: host, config, images */
	const struct res_doc *d;
	const struct res_summary *groups;
	size_t ngroups;
	const char *runtimes[MAX_RUNTIMES]; /* in order of first appearance: a runtime keeps its colour */
	size_t nruntimes;
	unsigned nchart;
};

/* The figure a scenario is ranked by: the first its summaries have. */
static const struct primary {
	enum res_metric m;
	const char *label, *unit;
	bool bigger_is_better;
} primaries[] = {
	{RES_M_RPS, "requests per second", "req/s", true},
	{RES_M_DELIVERIES_PER_S, "chat deliveries per second", "deliveries/s", true},
	{RES_M_OPS_PER_S, "script operations per second", "ops/s", true},
	{RES_M_STARTUP_MEDIAN_MS, "startup time, median of each trial's runs", "ms", false},
};

static const struct primary *primary_of(const struct res_summary *g)
{
	for (size_t i = 0; i < sizeof(primaries) / sizeof(primaries[0]); i++)
		if (g->have & (1u << primaries[i].m))
			return &primaries[i];
	return NULL;
}

/* A number or a string of the head by a dotted path ("memory.total_bytes"): NAN or "" when absent. */
static double jnum(const cJSON *o, const char *path)
{
	const cJSON *v = res_json_at(o, path);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *jstr(const cJSON *o, const char *path)
{
	const cJSON *v = res_json_at(o, path);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static const char *colour_of(const struct page *pg, const char *runtime)
{
	for (size_t i = 0; i < pg->nruntimes; i++)
		if (!strcmp(pg->runtimes[i], runtime))
			return svg_colour(i);
	return svg_colour(pg->nruntimes);
}

static void esc(const struct page *pg, const char *s)
{
	svg_escape(pg->out, s);
}

static bool quiet(const char *noise)
{
	return !*noise || !strcmp(noise, "none");
}

/* The mode, and the neighbour of a noisy group: "quota", "pinned + cpu:2". */
static const char *mode_label(const struct res_summary *g, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", g->mode, quiet(g->noise) ? "" : " + ", quiet(g->noise) ? "" : g->noise);
	return buf;
}

/* The metric in the group's trials that passed; returns how many (at most max). */
static size_t trial_values(const struct page *pg, const struct res_summary *g, enum res_metric m, double *ret,
			   size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < pg->d->ntrials && n < max; i++) {
		const struct trial_result *t = &pg->d->trials[i];

		if (res_in_group(t, g) && t->status == TRIAL_OK && !isnan(res_metric(t, m)))
			ret[n++] = res_metric(t, m);
	}
	return n;
}

/* A group's statistics of m, all NAN when no trial of it has the metric. */
static struct stats_summary gm(const struct res_summary *g, enum res_metric m)
{
	static const struct stats_summary none = {.mean = NAN,
						  .stddev = NAN,
						  .median = NAN,
						  .cv = NAN,
						  .min = NAN,
						  .max = NAN,
						  .mad = NAN,
						  .ci95_low = NAN,
						  .ci95_high = NAN};

	struct stats_summary s = g->have & (1u << m) ? g->metric[m] : none;

	if (!stats_has_ci(&s)) /* too few trials for a CI: no whisker, no figures */
		s.ci95_low = s.ci95_high = NAN;
	return s;
}

/* ---- tables ---- */

void html_table_open(FILE *out, const char *caption, const char *const *heads, size_t n)
{
	fputs("<table class=\"sortable\">", out);
	if (caption) {
		fputs("<caption>", out);
		svg_escape(out, caption);
		fputs("</caption>", out);
	}
	fputs("<thead><tr>", out);
	for (size_t i = 0; i < n; i++) {
		fputs("<th>", out);
		svg_escape(out, heads[i]);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
}

void html_table_close(FILE *out)
{
	fputs("</tbody></table>\n", out);
}

void html_td(FILE *out, const char *s)
{
	fputs("<td>", out);
	svg_escape(out, s);
	fputs("</td>", out);
}

void html_tdn(FILE *out, double v)
{
	char b[32];

	svg_fmt(b, sizeof(b), v);
	if (isnan(v))
		fprintf(out, "<td class=\"n\">%s</td>", b);
	else
		fprintf(out, "<td class=\"n\" data-v=\"%.17g\">%s</td>", v, b);
}

static void table_open(const struct page *pg, const char *caption, const char *const *heads, size_t n)
{
	html_table_open(pg->out, caption, heads, n);
}

static void table_close(const struct page *pg)
{
	html_table_close(pg->out);
}

static void td(const struct page *pg, const char *s)
{
	html_td(pg->out, s);
}

/* A number, written for people, its exact value kept for sorting. */
static void tdn(const struct page *pg, double v)
{
	html_tdn(pg->out, v);
}

/* ---- the host and the slices ---- */

static void kv(const struct page *pg, const char *k, const char *v)
{
	fputs("<tr><th scope=\"row\">", pg->out);
	esc(pg, k);
	fputs("</th>", pg->out);
	td(pg, v && *v ? v : "–");
	fputs("</tr>", pg->out);
}

static void kvn(const struct page *pg, const char *k, double v, const char *unit)
{
	char b[64];

	if (isnan(v))
		snprintf(b, sizeof(b), "–");
	else
		snprintf(b, sizeof(b), "%.0f%s", v, unit);
	kv(pg, k, b);
}

static void section_host(const struct page *pg)
{
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(pg->head, "host");
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(pg->head, "config");
	const cJSON *modes = cJSON_GetObjectItemCaseSensitive(cfg, "modes"), *m, *img;
	const cJSON *kern = cJSON_GetObjectItemCaseSensitive(host, "kernel");
	const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(host, "cpus");
	const cJSON *cg = cJSON_GetObjectItemCaseSensitive(host, "cgroup");
	static const char *const mode_heads[] = {"mode", "runtime (sut) CPUs", "client CPUs", "fixture CPUs",
						 "runtime CPU quota"};
	static const char *const img_heads[] = {"image", "version", "source", "digest", "size MB"};
	char b[160];

	fputs("<section id=\"host\"><h2>Host and slices</h2><table class=\"kv\"><tbody>", pg->out);
	snprintf(b, sizeof(b), "%s %s", jstr(kern, "release"), jstr(kern, "machine"));
	kv(pg, "kernel", b);
	kv(pg, "CPU model", jstr(cpus, "model"));
	snprintf(b, sizeof(b), "%s (%.0f usable), %.0f core(s) × %.0f thread(s)", jstr(cpus, "usable"),
		 jnum(cpus, "usable_count"), jnum(cpus, "cores"), jnum(cpus, "threads_per_core"));
	kv(pg, "CPUs", b);
	snprintf(b, sizeof(b), "%s (backend %s)", jstr(cg, "mode"), jstr(cg, "backend"));
	kv(pg, "cgroup mode", b);
	kvn(pg, "memory", jnum(host, "memory.total_bytes") / (1 << 20), " MB");
	kv(pg, "profile", jstr(cfg, "profile"));
	kvn(pg, "runtime CPU budget", jnum(cfg, "cpus"), " CPU(s)");
	kvn(pg, "runtime memory limit", jnum(cfg, "memory_max_bytes") / (1 << 20), " MB");
	kv(pg, "client CPUs", jstr(cfg, "client_cpus"));
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cfg, "sandbox")))
		kv(pg, "sandbox", "none for the runtime (--no-sandbox: for comparison only)");
	fputs("</tbody></table>\n", pg->out);

	table_open(pg, "What each slice was given, per mode", mode_heads, 5);
	cJSON_ArrayForEach (m, modes) {
		fputs("<tr>", pg->out);
		td(pg, m->string);
		td(pg, jstr(m, "sut"));
		td(pg, jstr(m, "client"));
		td(pg, jstr(m, "fixture"));
		snprintf(b, sizeof(b), "%s", "–");
		if (!isnan(jnum(m, "sut_cpu_quota_us")))
			snprintf(b, sizeof(b), "%.0f µs per period", jnum(m, "sut_cpu_quota_us"));
		td(pg, b);
		fputs("</tr>\n", pg->out);
	}
	table_close(pg);

	table_open(pg, "Runtime images", img_heads, 5);
	cJSON_ArrayForEach (img, cJSON_GetObjectItemCaseSensitive(pg->head, "images")) {
		fputs("<tr>", pg->out);
		td(pg, jstr(img, "name"));
		td(pg, jstr(img, "version"));
		td(pg, jstr(img, "source"));
		fputs("<td class=\"digest\">", pg->out);
		esc(pg, jstr(img, "digest"));
		fputs("</td>", pg->out);
		tdn(pg, jnum(img, "size_bytes") / 1e6);
		fputs("</tr>\n", pg->out);
	}
	table_close(pg);
	fputs("</section>\n", pg->out);
}

/* ---- charts ---- */

static void figure_open(struct page *pg, const char *kind, const char *scenario, struct svg_plot *p, double w, double h,
			const char *title)
{
	char id[32];

	snprintf(id, sizeof(id), "chart-%u", ++pg->nchart);
	fprintf(pg->out, "<figure data-chart=\"%s\" data-scenario=\"", kind);
	esc(pg, scenario);
	fputs("\"><h3>", pg->out);
	esc(pg, title);
	fputs("</h3>", pg->out);
	svg_begin(p, pg->out, w, h, id, title);
}

static void figure_close(const struct page *pg, const struct svg_plot *p, const char *caption)
{
	svg_end(p);
	fputs("<figcaption>", pg->out);
	esc(pg, caption);
	fputs("</figcaption></figure>\n", pg->out);
}

/* Runtime and mode under each category of a categorical x axis. */
static void category_labels(const struct svg_plot *p, const struct res_summary *const *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double x = svg_map(&p->x, (double)i + 0.5);

		svg_text(p, x, p->y.r0 + 15, "middle", "tick", g[i]->runtime);
		char ml[64];

		svg_text(p, x, p->y.r0 + 29, "middle", "tick sub", mode_label(g[i], ml, sizeof(ml)));
	}
}

/* The runtimes among the groups, for a legend. */
static size_t legend_runtimes(const struct page *pg, const struct res_summary *const *g, size_t n, const char **names,
			      const char **colours)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < k; j++)
			seen |= !strcmp(names[j], g[i]->runtime);
		if (!seen && k < MAX_RUNTIMES) {
			names[k] = g[i]->runtime;
			colours[k] = colour_of(pg, names[k]);
			k++;
		}
	}
	return k;
}

/* Median per runtime × mode as a bar, its 95% CI as a whisker, each trial as a dot. */
/* "3 of 6: contended 3, foreign 1", the dominant reason first; empty when no trial was flagged. */
static void noisy_cell(const struct page *pg, const struct res_summary *g)
{
	unsigned counts[RES_NR_NOISY], n = report_noisy_count(pg->d->trials, pg->d->ntrials, g, counts);
	char why[256], b[300];

	if (!n) {
		td(pg, "");
		return;
	}
	report_noisy_reasons(counts, why, sizeof(why));
	snprintf(b, sizeof(b), "%u of %u: %s", n, g->trials, why);
	fputs("<td class=\"v-warn\">", pg->out);
	esc(pg, b);
	fputs("</td>", pg->out);
}

static void chart_bars(struct page *pg, const char *scn, const struct res_summary *const *g, size_t n,
		       const struct primary *pm)
{
	char ml[64];
	struct svg_plot p = {0};
	struct svg_tick t[SVG_MAX_TICKS];
	const char *names[MAX_RUNTIMES], *colours[MAX_RUNTIMES];
	double lo = 0, hi = 0, v[1024];
	size_t nt, nl;
	char title[256], b[64];
	static const char *const heads[] = {"runtime",
					    "mode",
					    "trials",
					    "median",
					    "95% CI low",
					    "95% CI high",
					    "min",
					    "max",
					    "CV %",
					    "flags",
					    "noisy trials (by reason)"};

	for (size_t i = 0; i < n; i++) {
		size_t nv = trial_values(pg, g[i], pm->m, v, 1024);

		hi = fmax(hi, gm(g[i], pm->m).ci95_high);
		for (size_t k = 0; k < nv; k++)
			hi = fmax(hi, v[k]);
	}
	hi *= 1.05;
	nt = svg_ticks_linear(&lo, &hi, 5, t, SVG_MAX_TICKS);
	p.x = (struct svg_scale){SVG_LINEAR, 0, (double)n, 0, 0};
	p.y = (struct svg_scale){SVG_LINEAR, lo, hi, 0, 0};
	snprintf(title, sizeof(title), "%s: %s (%s is better)", scn, pm->label,
		 pm->bigger_is_better ? "higher" : "lower");
	figure_open(pg, "bars", scn, &p, fmax(420, 96.0 * (double)n + 110), 320, title);
	svg_axis_y(&p, t, nt, pm->unit);
	svg_axis_x(&p, NULL, 0, NULL);
	for (size_t i = 0; i < n; i++) {
		const char *col = colour_of(pg, g[i]->runtime);
		size_t nv = trial_values(pg, g[i], pm->m, v, 1024);

		svg_fmt(b, sizeof(b), gm(g[i], pm->m).median);
		if (!isnan(gm(g[i], pm->m).median))
			svg_bar(&p, (double)i + 0.15, (double)i + 0.85, gm(g[i], pm->m).median, col, b);
		svg_whisker(&p, (double)i + 0.5, gm(g[i], pm->m).ci95_low, gm(g[i], pm->m).ci95_high);
		for (size_t k = 0; k < nv; k++) {
			char tip[96];

			snprintf(tip, sizeof(tip), "trial %zu: %.6g %s", k + 1, v[k], pm->unit);
			/* spread the dots across the bar so equal values stay visible */
			svg_dot(&p, (double)i + 0.5 + (double)((int)(k % 7) - 3) * 0.07, v[k], "#ffffff", "trial", tip);
		}
	}
	category_labels(&p, g, n);
	nl = legend_runtimes(pg, g, n, names, colours);
	svg_legend(&p, names, colours, nl);
	figure_close(pg, &p,
		     "Bars: median over trials; whiskers: bootstrap 95% CI of the median (from 6 trials); dots: each "
		     "trial.");

	snprintf(title, sizeof(title), "%s, %s", pm->label, pm->unit);
	table_open(pg, title, heads, 11);
	for (size_t i = 0; i < n; i++) {
		fputs("<tr>", pg->out);
		td(pg, g[i]->runtime);
		td(pg, mode_label(g[i], ml, sizeof(ml)));
		tdn(pg, (double)g[i]->trials);
		tdn(pg, gm(g[i], pm->m).median);
		tdn(pg, gm(g[i], pm->m).ci95_low);
		tdn(pg, gm(g[i], pm->m).ci95_high);
		tdn(pg, gm(g[i], pm->m).min);
		tdn(pg, gm(g[i], pm->m).max);
		tdn(pg, gm(g[i], pm->m).cv * 100);
		snprintf(b, sizeof(b), "%s%s", g[i]->failed ? "FAILED " : "",
			 g[i]->client_saturated ? "client saturated" : "");
		td(pg, b);
		noisy_cell(pg, g[i]);
		fputs("</tr>\n", pg->out);
	}
	table_close(pg);
}

/* The percentiles a load result keeps, as quantiles for the 1/(1-q) axis. */
static const struct {
	size_t off; /* in struct res_latency */
	const char *label;
	double q;
} pcts[] = {
	{offsetof(struct res_latency, p50), "p50", 0.5},  {offsetof(struct res_latency, p75), "p75", 0.75},
	{offsetof(struct res_latency, p90), "p90", 0.9},  {offsetof(struct res_latency, p95), "p95", 0.95},
	{offsetof(struct res_latency, p99), "p99", 0.99}, {offsetof(struct res_latency, p999), "p99.9", 0.999},
};
#define NR_PCTS (sizeof(pcts) / sizeof(pcts[0]))

/* Each percentile's median over the group's trials, in ms; false when no trial has a latency. */
static bool latency_curve(const struct page *pg, const struct res_summary *g, double *ret)
{
	double v[1024];
	bool any = false;

	for (size_t k = 0; k < NR_PCTS; k++) {
		size_t n = 0;

		for (size_t i = 0; i < pg->d->ntrials && n < 1024; i++) {
			const struct trial_result *t = &pg->d->trials[i];

			if (res_in_group(t, g) && t->status == TRIAL_OK && (t->have & RES_HAVE_LOAD))
				v[n++] = *(const double *)((const char *)&t->load.latency_us + pcts[k].off);
		}
		qsort(v, n, sizeof(v[0]), stats_cmp_double);
		ret[k] = n ? stats_median_sorted(v, n) / 1e3 : NAN;
		any |= n > 0;
	}
	return any;
}

/* HdrHistogram's plot: latency by percentile, each nine the same width; a line per runtime × mode. */
static void chart_latency(struct page *pg, const char *scn, const struct res_summary *const *g, size_t n)
{
	char ml[64];
	struct svg_plot p = {0};
	struct svg_tick xt[SVG_MAX_TICKS], yt[SVG_MAX_TICKS];
	double curves[MAX_GROUPS][NR_PCTS], q[NR_PCTS], lo = INFINITY, hi = 0;
	const char *names[MAX_GROUPS], *colours[MAX_GROUPS];
	char labels[MAX_GROUPS][96], title[200];
	size_t nx, ny, nc = 0, idx[MAX_GROUPS];
	const char *heads[2 + NR_PCTS] = {"runtime", "mode"};

	for (size_t i = 0; i < n; i++)
		if (latency_curve(pg, g[i], curves[nc])) {
			for (size_t k = 0; k < NR_PCTS; k++)
				if (curves[nc][k] > 0) {
					lo = fmin(lo, curves[nc][k]);
					hi = fmax(hi, curves[nc][k]);
				}
			idx[nc++] = i;
		}
	if (!nc)
		return;
	for (size_t k = 0; k < NR_PCTS; k++)
		q[k] = pcts[k].q;
	nx = svg_ticks_percentile(pcts[NR_PCTS - 1].q, xt, SVG_MAX_TICKS);
	ny = svg_ticks_log(&lo, &hi, yt, SVG_MAX_TICKS);
	p.x = (struct svg_scale){SVG_PERCENTILE, 0, xt[nx - 1].v, 0, 0};
	p.y = (struct svg_scale){SVG_LOG, lo, hi, 0, 0};
	p.left = 64, p.right = 24, p.bottom = 48;
	p.top = 30 + 16 * (double)((nc + 2) / 3);
	snprintf(title, sizeof(title), "%s: latency by percentile (log scales)", scn);
	figure_open(pg, "latency", scn, &p, 640, 320 + p.top - 30, title);
	svg_axis_y(&p, yt, ny, "ms");
	svg_axis_x(&p, xt, nx, "percentile");
	for (size_t c = 0; c < nc; c++) {
		const struct res_summary *gi = g[idx[c]];
		bool dashed = strcmp(gi->mode, "pinned") != 0 || !quiet(gi->noise);

		colours[c] = colour_of(pg, gi->runtime);
		snprintf(labels[c], sizeof(labels[c]), "%s %s%s", gi->runtime, mode_label(gi, ml, sizeof(ml)),
			 dashed ? " (dashed)" : "");
		names[c] = labels[c];
		svg_line(&p, q, curves[c], NR_PCTS, colours[c], dashed);
		for (size_t k = 0; k < NR_PCTS; k++) {
			char tip[160];

			snprintf(tip, sizeof(tip), "%s %s %s: %.3f ms", gi->runtime, ml, pcts[k].label, curves[c][k]);
			if (curves[c][k] > 0)
				svg_dot(&p, q[k], curves[c][k], colours[c], "pt", tip);
		}
	}
	/* the legend in rows of three: names are long */
	for (size_t c = 0; c < nc; c += 3) {
		struct svg_plot row = p;

		row.top = 30 + 16 * (double)(c / 3);
		svg_legend(&row, names + c, colours + c, nc - c < 3 ? nc - c : 3);
	}
	figure_close(pg, &p,
		     "Each percentile's median over trials (coordinated-omission corrected in open loop). "
		     "x: 1/(1-q), so p90, p99 and p99.9 are evenly spaced.");

	for (size_t k = 0; k < NR_PCTS; k++)
		heads[2 + k] = pcts[k].label;
	table_open(pg, "Latency percentiles, ms", heads, 2 + NR_PCTS);
	for (size_t c = 0; c < nc; c++) {
		fputs("<tr>", pg->out);
		td(pg, g[idx[c]]->runtime);
		td(pg, mode_label(g[idx[c]], ml, sizeof(ml)));
		for (size_t k = 0; k < NR_PCTS; k++)
			tdn(pg, curves[c][k]);
		fputs("</tr>\n", pg->out);
	}
	table_close(pg);
}

/* Every startup run of the group's passing trials (each trial's median when the file keeps no runs), sorted;
 * *ret is malloc'd. */
static size_t startup_runs(const struct page *pg, const struct res_summary *g, double **ret, bool *per_run)
{
	double *v = NULL;
	size_t n = 0, cap = 0;

	*per_run = true;
	for (size_t i = 0; i < pg->d->ntrials; i++) {
		const struct trial_result *t = &pg->d->trials[i];
		const struct res_startup *st = &t->startup;
		unsigned nr = st->nruns ? st->nruns : 1;

		if (!res_in_group(t, g) || t->status != TRIAL_OK || !(t->have & RES_HAVE_STARTUP))
			continue;
		*per_run &= st->nruns > 0;
		if (n + nr > cap) {
			double *nv = realloc(v, (cap = 2 * (n + nr)) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		for (unsigned k = 0; k < nr; k++)
			v[n++] = st->nruns ? st->runs_ms[k] : st->wall_ms.median;
	}
	if (n)
		qsort(v, n, sizeof(v[0]), stats_cmp_double);
	*ret = v;
	return n;
}

/* A strip of more dots than this is drawn as this many evenly spaced quantiles of the runs. */
#define MAX_DOTS 1000

/* Startup distributions: every run as a dot, a runtime × mode per column, the median as a line. */
static void chart_strip(struct page *pg, const char *scn, const struct res_summary *const *g, size_t n)
{
	char ml[64];
	struct svg_plot p = {0};
	struct svg_tick t[SVG_MAX_TICKS];
	double lo = INFINITY, hi = 0;
	bool per_run = true, pr, thinned = false;
	size_t nt;
	char title[200];
	static const char *const heads[] = {"runtime", "mode", "runs", "median", "min", "p90", "max"};

	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ double *v = NULL;
		size_t nv = startup_runs(pg, g[i], &v, &pr);

		per_run &= pr;
		thinned |= nv > MAX_DOTS;
		if (nv) {
			lo = fmin(lo, v[0]);
			hi = fmax(hi, v[nv - 1]);
		}
	}
	if (!(hi > 0))
		return;
	lo = fmax(0, lo - (hi - lo) * 0.1);
	hi += (hi - lo) * 0.1;
	nt = svg_ticks_linear(&lo, &hi, 5, t, SVG_MAX_TICKS);
	p.x = (struct svg_scale){SVG_LINEAR, 0, (double)n, 0, 0};
	p.y = (struct svg_scale){SVG_LINEAR, lo, hi, 0, 0};
	snprintf(title, sizeof(title), "%s: startup time of every %s", scn, per_run ? "run" : "trial (median)");
	figure_open(pg, "strip", scn, &p, fmax(420, 96.0 * (double)n + 110), 320, title);
	svg_axis_y(&p, t, nt, "ms");
	svg_axis_x(&p, NULL, 0, NULL);
	for (size_t i = 0; i < n; i++) {
		const char *col = colour_of(pg, g[i]->runtime);
		_cleanup_free_ double *v = NULL;
		size_t nv = startup_runs(pg, g[i], &v, &pr), nd = nv > MAX_DOTS ? MAX_DOTS : nv;
		double y;

		for (size_t k = 0; k < nd; k++) {
			double x = nd > 1 ? v[(size_t)llround((double)k * (double)(nv - 1) / (double)(nd - 1))] : v[0];
			char tip[64];

			snprintf(tip, sizeof(tip), "%.3f ms", x);
			/* a fixed jitter (golden-ratio sequence): the same file draws the same picture */
			svg_dot(&p, (double)i + 0.2 + 0.6 * fmod((double)k * 0.6180339887, 1.0), x, col, "run", tip);
		}
		if (!nv)
			continue;
		y = svg_map(&p.y, stats_median_sorted(v, nv));
		fprintf(pg->out, "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
			svg_map(&p.x, (double)i + 0.1), svg_map(&p.x, (double)i + 0.9), y, y);
	}
	category_labels(&p, g, n);
	figure_close(pg, &p,
		     !per_run  ? "This file keeps no per-run times: dots are each trial's median."
		     : thinned ? "Dots: the runs (after warm-up), drawn as 1000 evenly spaced quantiles where there "
				 "are more; line: the median."
			       : "Dots: each measured run (after warm-up); line: the median.");

	table_open(pg, "Startup, ms", heads, 7);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ double *v = NULL;
		size_t nv = startup_runs(pg, g[i], &v, &pr);

		fputs("<tr>", pg->out);
		td(pg, g[i]->runtime);
		td(pg, mode_label(g[i], ml, sizeof(ml)));
		tdn(pg, (double)nv);
		tdn(pg, nv ? stats_median_sorted(v, nv) : NAN);
		tdn(pg, nv ? v[0] : NAN);
		tdn(pg, nv ? v[(size_t)floor(0.9 * (double)(nv - 1))] : NAN);
		tdn(pg, nv ? v[nv - 1] : NAN);
		fputs("</tr>\n", pg->out);
	}
	table_close(pg);
}

/* Other modes against pinned, per runtime: the ratio of medians, its bootstrap CI and a rank test. */
static void shift_table(const struct page *pg, const struct res_summary *const *g, size_t n, const struct primary *pm)
{
	char ml[64];
	static const char *const heads[] = {"runtime", "mode", "vs pinned", "95% CI", "Mann-Whitney p", "verdict"};
	double a[1024], b[1024];
	bool open = false;

	for (size_t i = 0; i < n; i++) {
		const struct res_summary *base = NULL;
		struct sig_ci ci = {.estimate = NAN, .low = NAN, .high = NAN};
		struct sig_test mw = {.p = NAN};
		size_t na, nb;
		char txt[96];
		const char *verdict;

		for (size_t j = 0; j < n; j++)
			if (j != i && !strcmp(g[j]->runtime, g[i]->runtime) && !strcmp(g[j]->mode, "pinned") &&
			    !strcmp(g[j]->noise, g[i]->noise))
				base = g[j];
		if (!base || !strcmp(g[i]->mode, "pinned"))
			continue;
		if (!open)
			table_open(pg, "Shift from pinned (ratio of medians; above 1: larger figure)", heads, 6);
		open = true;
		na = trial_values(pg, base, pm->m, a, 1024);
		nb = trial_values(pg, g[i], pm->m, b, 1024);
		if (na && nb && sig_ratio_ci(a, na, b, nb, na == nb, 0.95, SIG_SEED, &ci) < 0)
			ci.estimate = NAN;
		if (na >= 2 && nb >= 2)
			sig_mann_whitney(a, na, b, nb, &mw);
		if (isnan(ci.estimate) && gm(base, pm->m).median > 0)
			ci.estimate = gm(g[i], pm->m).median / gm(base, pm->m).median;
		verdict = na < 2 || nb < 2			 ? "too few trials to tell"
			  : !(ci.low > 1 || ci.high < 1)	 ? "no clear shift"
			  : (ci.low > 1) == pm->bigger_is_better ? "better than pinned"
								 : "worse than pinned";
		fputs("<tr>", pg->out);
		td(pg, g[i]->runtime);
		td(pg, mode_label(g[i], ml, sizeof(ml)));
		tdn(pg, ci.estimate);
		snprintf(txt, sizeof(txt), "–");
		if (!isnan(ci.low) && na >= 2 && nb >= 2)
			snprintf(txt, sizeof(txt), "%.3f – %.3f", ci.low, ci.high);
		td(pg, txt);
		tdn(pg, mw.p);
		fprintf(pg->out, "<td class=\"v-%s\">",
			verdict[0] == 'b'   ? "good"
			: verdict[0] == 'w' ? "bad"
					    : "none");
		esc(pg, verdict);
		fputs("</td></tr>\n", pg->out);
	}
	if (open)
		table_close(pg);
}

/* Noisy groups against their quiet twin (results/results_shift.c computed the shift). */
static void noise_table(const struct page *pg, const struct res_summary *const *g, size_t n)
{
	static const char *const heads[] = {"runtime",	"mode",	  "noise",	    "noise placement", "metric",
					    "vs quiet", "95% CI", "Mann-Whitney p", "verdict"};
	bool open = false;

	for (size_t i = 0; i < n; i++) {
		const struct res_shift *sh = &g[i]->shift;
		bool known = !isnan(sh->ci95_low) && !isnan(sh->ci95_high);
		bool clear = known && (sh->ci95_low > 1 || sh->ci95_high < 1);
		bool worse = clear && (sh->ci95_low > 1) == sh->lower_is_better;
		char txt[64];

		if (!sh->have)
			continue;
		if (!open)
			table_open(pg, "Shift from the quiet twin (ratio of medians, noisy / quiet)", heads, 9);
		open = true;
		fputs("<tr>", pg->out);
		td(pg, g[i]->runtime);
		td(pg, g[i]->mode);
		td(pg, g[i]->noise);
		td(pg, sh->placement);
		td(pg, res_metric_names[sh->metric]);
		tdn(pg, sh->ratio);
		snprintf(txt, sizeof(txt), "–");
		if (known)
			snprintf(txt, sizeof(txt), "%.3f – %.3f", sh->ci95_low, sh->ci95_high);
		td(pg, txt);
		tdn(pg, sh->p);
		fprintf(pg->out, "<td class=\"v-%s\">%s</td></tr>\n",
			!clear	? "none"
			: worse ? "bad"
				: "good",
			!known	 ? "too few trials to tell"
			: !clear ? "no clear shift"
			: worse	 ? "hurt by the noise"
				 : "better");
	}
	if (open)
		table_close(pg);
}

/* ---- cgroup evidence ---- */

/* A slice statistic, NAN when the host could not tell. */
static double stat(const struct trial_result *t, enum cg_slice sl, enum cg_stat k)
{
	return t->slices_have & (1u << sl) && t->slices[sl].have[k] ? (double)t->slices[sl].v[k] : NAN;
}

/* Each reason a trial was flagged noisy, with its evidence ("contended: ..."), one per line. */
static void noisy_reasons_cell(const struct page *pg, const struct trial_result *t)
{
	unsigned why = res_trial_noisy(t);
	char b[256];

	fputs(why ? "<td class=\"v-warn\">" : "<td>", pg->out);
	for (int r = 0; r < RES_NR_NOISY; r++)
		if (why & (1u << r)) {
			res_noisy_reason(t, (enum res_noisy)r, b, sizeof(b));
			esc(pg, b);
			fputs("<br>", pg->out);
		}
	fputs("</td>", pg->out);
}

static void evidence_row(const struct page *pg, const struct trial_result *t)
{
	const struct cg_psi *psi = &t->slices[CG_SLICE_SUT].psi[CG_PSI_CPU];
	bool load = t->have & RES_HAVE_LOAD, sat = load && t->load.client.saturated;
	const char *real = t->have & RES_HAVE_SERVER	? t->server.cpus
			   : t->have & RES_HAVE_PROCESS ? t->process.cpus
							: "";
	char b[160];

	fputs("<tr>", pg->out);
	td(pg, t->runtime);
	td(pg, t->mode);
	td(pg, quiet(t->noise) ? "" : t->noise);
	tdn(pg, t->trial);
	fprintf(pg->out, "<td class=\"v-%s\">", t->status == TRIAL_OK ? "good" : "bad");
	esc(pg, res_status_names[t->status]);
	fputs("</td>", pg->out);
	td(pg, t->cpus_have & (1u << CG_SLICE_SUT) ? t->cpus[CG_SLICE_SUT] : "");
	td(pg, real);
	td(pg, load ? t->load.client.cpus : "");
	tdn(pg, stat(t, CG_SLICE_SUT, CG_STAT_NR_THROTTLED));
	tdn(pg, stat(t, CG_SLICE_SUT, CG_STAT_THROTTLED_USEC) / 1e3);
	tdn(pg, stat(t, CG_SLICE_SUT, CG_STAT_MEMORY_PEAK) / (1 << 20));
	tdn(pg, stat(t, CG_SLICE_SUT, CG_STAT_OOM_KILL));
	tdn(pg, t->slices_have & (1u << CG_SLICE_SUT) && psi->have ? (double)psi->some_total_usec / 1e3 : NAN);
	tdn(pg, load ? t->load.client.max_thread_busy * 100 : NAN);
	snprintf(b, sizeof(b), "%s%s", sat ? "client saturated " : "",
		 stat(t, CG_SLICE_SUT, CG_STAT_OOM_KILL) > 0 ? "OOM " : "");
	td(pg, b);
	noisy_reasons_cell(pg, t);
	td(pg, res_trial_error(t));
	fputs("</tr>\n", pg->out);
}

static void evidence(const struct page *pg, const char *scn)
{
	static const char *const heads[] = {"runtime",
					    "mode",
					    "noise",
					    "trial",
					    "status",
					    "CPUs planned",
					    "CPUs the runtime had",
					    "client CPUs",
					    "throttled periods",
					    "throttled ms",
					    "peak memory MB",
					    "OOM kills",
					    "CPU pressure ms (some)",
					    "client busiest thread %",
					    "flags",
					    "noisy: why",
					    "error"};
	fputs("<details><summary>cgroup evidence of each trial</summary>", pg->out);
	table_open(pg, NULL, heads, sizeof(heads) / sizeof(heads[0]));
	for (size_t i = 0; i < pg->d->ntrials; i++)
		if (!strcmp(pg->d->trials[i].scenario, scn))
			evidence_row(pg, &pg->d->trials[i]);
	table_close(pg);
	fputs("</details>\n", pg->out);
}

static void html_timeline_section(struct page *pg, const char *scn)
{
	const char *colours[MAX_RUNTIMES];

	for (size_t i = 0; i < pg->nruntimes; i++)
		colours[i] = colour_of(pg, pg->runtimes[i]);
	html_timelines(pg->out, pg->d, scn, pg->runtimes, colours, pg->nruntimes, &pg->nchart);
}

/* The scenario's adapters and what each costs a request on a null handler (results/adcost.h), beside the rows. */
static void adapter_table(const struct page *pg, const char *scn)
{
	static const char *const heads[] = {"runtime",	   "mode",	   "its null-handler server", "cost", "pairs",
					    "plain req/s", "adapter req/s"};
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(pg->head, "adapter_costs"), *it;
	bool open = false;

	if (!cJSON_IsArray(all))
		return;
	cJSON_ArrayForEach (it, all) {
		struct adc_cost c;
		char line[384];

		if (adc_parse(it, &c) < 0 || strcmp(c.scenario, scn) != 0)
			continue;
		if (!open)
			table_open(pg, "Adapters: the cost per request of the code between the runtime and the app",
				   heads, sizeof(heads) / sizeof(heads[0]));
		open = true;
		report_adcost_text(&c, line, sizeof(line));
		fputs("<tr>", pg->out);
		td(pg, c.runtime);
		td(pg, c.mode);
		td(pg, c.adapter);
		td(pg, line);
		tdn(pg, c.error[0] ? NAN : (double)c.pairs);
		tdn(pg, c.error[0] ? NAN : c.plain_rps);
		tdn(pg, c.error[0] ? NAN : c.adapter_rps);
		fputs("</tr>\n", pg->out);
	}
	if (open)
		table_close(pg);
}

static void section_scenario(struct page *pg, const char *scn)
{
	const struct res_summary *gs[MAX_GROUPS];
	const struct primary *pm = NULL;
	size_t n = 0;

	for (size_t i = 0; i < pg->ngroups; i++)
		if (!strcmp(pg->groups[i].scenario, scn) && n < MAX_GROUPS) {
			gs[n++] = &pg->groups[i];
			if (!pm)
				pm = primary_of(&pg->groups[i]);
		}
	fputs("<section class=\"scenario\"><h2>", pg->out);
	esc(pg, scn);
	fputs("</h2>\n", pg->out);
	if (pm) {
		chart_bars(pg, scn, gs, n, pm);
		shift_table(pg, gs, n, pm);
		noise_table(pg, gs, n);
	} else {
		fputs("<p>No trial of this scenario passed: nothing to chart.</p>", pg->out);
	}
	adapter_table(pg, scn);
	chart_latency(pg, scn, gs, n);
	if (pm && pm->m == RES_M_STARTUP_MEDIAN_MS)
		chart_strip(pg, scn, gs, n);
	html_timeline_section(pg, scn);
	evidence(pg, scn);
	fputs("</section>\n", pg->out);
}

static const char style[] =
	"body{font:14px/1.45 system-ui,sans-serif;color:#111;margin:1.5em auto;max-width:1100px;padding:0 1em}"
	"h1{font-size:1.5em}h3{font-size:1em;margin:.2em 0}h2{border-bottom:1px solid "
	"#ccc;padding-bottom:.2em;margin-top:2em}"
	"table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:13px}"
	"caption{text-align:left;font-weight:600;padding:.3em 0}"
	"th,td{border:1px solid #ddd;padding:.25em .55em;text-align:left;vertical-align:top}"
	"thead th{background:#f3f3f3;cursor:pointer}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"td.digest{font-family:monospace;font-size:11px;word-break:break-all;max-width:28em}"
	".v-good{color:#006d4f}.v-bad{color:#a33a00;font-weight:600}.v-none{color:#555}.v-warn{color:#8a5a00}"
	".cmp td:not(:last-child){white-space:nowrap}"
	"figure{margin:1em 0}figcaption{color:#444;font-size:12px}"
	".cells{display:flex;flex-wrap:wrap;gap:.4em 1em}.cells figure{margin:.3em 0;flex:0 1 360px}"
	"svg.chart{max-width:100%;height:auto;background:#fff}"
	"svg .grid{stroke:#e3e3e3}svg .axis{stroke:#333}svg text{font:11px system-ui,sans-serif;fill:#222}"
	"svg .sub{fill:#555}svg .axislabel{font-size:12px}"
	"svg .barlabel{font-size:11px;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px}"
	"svg .whisker{stroke:#000;stroke-width:1.5;fill:none}svg .trial{stroke:#000;stroke-width:1}"
	"svg .pt,svg .run{stroke:#fff;stroke-width:.6}svg .curve{stroke-width:2}"
	"svg .median{stroke:#000;stroke-width:2}svg .swatch{stroke:#333;stroke-width:.5}"
	"svg .pair{stroke:#fff;stroke-width:.6}svg .pair-noisy,svg .pair-warmup{stroke:#000;stroke-width:1}"
	"details{margin:.5em 0 1.5em}summary{cursor:pointer;color:#0b5394}";

/* Sorting by a column header: numbers by their exact value, the rest as text. */
static const char script[] =
	"document.querySelectorAll('table.sortable thead th').forEach(function(th){"
	"th.addEventListener('click',function(){var tb=th.closest('table').tBodies[0],i=th.cellIndex,"
	"up=th.getAttribute('data-up')!=='1';th.setAttribute('data-up',up?'1':'0');"
	"Array.prototype.slice.call(tb.rows).sort(function(a,b){"
	"var x=a.cells[i],y=b.cells[i],p=parseFloat(x.getAttribute('data-v')),q=parseFloat(y.getAttribute('data-v'));"
	"var c=!isNaN(p)&&!isNaN(q)?p-q:x.textContent.localeCompare(y.textContent);return up?c:-c;})"
	".forEach(function(r){tb.appendChild(r);});});});";

void html_page_open(FILE *out, const char *kind, const char *name)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      /* nothing leaves the file: no script, style, font or image from anywhere */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>",
	      out);
	fprintf(out, "%s: ", kind);
	svg_escape(out, name);
	fprintf(out, "</title><style>%s</style></head><body>\n<h1>%s: ", style, kind);
	svg_escape(out, name);
	fputs("</h1>\n", out);
}

void html_page_close(FILE *out)
{
	fprintf(out, "<script>%s</script>\n</body></html>\n", script);
}

/* The warning report prints on stderr, on the page too: a partial file's figures cover only its trials. */
static void partial_note(FILE *out, const char *name, const struct res_doc *d)
{
	char why[512];

	if (!report_partial(d, why, sizeof(why)))
		return;
	fputs("<p class=\"v-bad\">", out);
	svg_escape(out, name);
	fputs(" is partial: ", out);
	svg_escape(out, why);
	fputs("; the figures cover only those trials.</p>\n", out);
}

static void page_head(const struct page *pg, const char *name)
{
	html_page_open(pg->out, "harness report", name);
	fputs("<p>harness ", pg->out);
	esc(pg, jstr(pg->head, "harness.version"));
	fputs(" (", pg->out);
	esc(pg, jstr(pg->head, "harness.commit"));
	fputs("), verdict <strong>", pg->out);
	esc(pg, !pg->d->finished     ? "unfinished"
		: pg->d->interrupted ? "interrupted"
		: pg->d->verdict_ok  ? "ok"
				     : "failed");
	fputs("</strong>. Tables sort by a click on a column's header.</p>\n", pg->out);
	partial_note(pg->out, name, pg->d);
}

int html_render(const struct res_doc *d, const char *name, FILE *out, struct hx_err *err)
{
	_cleanup_free_ struct res_summary *groups = NULL;
	struct page pg = {.out = out, .head = d->head, .d = d};
	const char *scenarios[256];
	size_t ns = 0;

	if (res_summarize(d->trials, d->ntrials, &groups, &pg.ngroups, err) < 0)
		return -err->errnum;
	pg.groups = groups;
	for (size_t k = 0; k < d->ntrials; k++) {
		const struct trial_result *t = &d->trials[k];
		bool seen = false;

		for (size_t i = 0; i < pg.nruntimes; i++)
			seen |= !strcmp(pg.runtimes[i], t->runtime);
		if (!seen && pg.nruntimes < MAX_RUNTIMES)
			pg.runtimes[pg.nruntimes++] = t->runtime;
		seen = false;
		for (size_t i = 0; i < ns; i++)
			seen |= !strcmp(scenarios[i], t->scenario);
		if (!seen && ns < 256)
			scenarios[ns++] = t->scenario;
	}
	page_head(&pg, name);
	section_host(&pg);
	for (size_t i = 0; i < ns; i++)
		section_scenario(&pg, scenarios[i]);
	html_page_close(out);
	return 0;
}

/* ---- two files: harness compare's rows, drawn ---- */

static const char *verdict_colour(const struct cmp_row *r)
{
	return r->verdict == CMP_BETTER ? "#009E73" : r->verdict == CMP_WORSE ? "#D55E00" : "#777777";
}

static const char *verdict_class(const struct cmp_row *r)
{
	return r->verdict == CMP_BETTER ? "good" : r->verdict == CMP_WORSE ? "bad" : "none";
}

/* How the terminal shows each metric (harness compare's table): its label, the scale to that unit, the decimals,
 * and the family whose chart it is drawn in (B / A of a throughput and of a memory size are not one axis). */
static const struct cmp_display {
	const char *metric, *label;
	double scale;
	int decimals;
	const char *family;
} cmp_displays[] = {
	{"rps", "req/s", 1, 0, "throughput"},
	{"deliveries_per_s", "deliveries/s", 1, 0, "throughput"},
	{"ops_per_s", "ops/s", 1, 1, "throughput"},
	{"startup_median_ms", "startup ms", 1, 2, "time and latency"},
	{"p99_us", "p99 ms", 1e-3, 2, "time and latency"},
	{"rtt_p99_us", "rtt p99 ms", 1e-3, 2, "time and latency"},
	{"script_p50_ms", "script p50 ms", 1, 2, "time and latency"},
	{"script_p99_ms", "script p99 ms", 1, 2, "time and latency"},
	{"fixture_ready_ms", "fixture ready ms", 1, 1, "time and latency"},
	{"idle_rss_kb", "idle MB", 1.0 / 1024, 1, "memory"},
	{"peak_rss_kb", "peak MB", 1.0 / 1024, 1, "memory"},
	{"post_load_rss_kb", "post-load MB", 1.0 / 1024, 1, "memory"},
	{"script_max_rss_kb", "script peak MB", 1.0 / 1024, 1, "memory"},
	{"client_cpu_us_per_request", "client µs/req", 1, 2, "the load client's cost"},
};

static const struct cmp_display *display_of(const char *metric)
{
	static const struct cmp_display other = {"", "", 1, 3, "other"};

	for (size_t i = 0; i < sizeof(cmp_displays) / sizeof(cmp_displays[0]); i++)
		if (!strcmp(cmp_displays[i].metric, metric))
			return &cmp_displays[i];
	return &other;
}

#define CMP_ROW_PX 22

/* "bun · quota · req/s": a row's label, left of its dot. */
static void row_label(const struct cmp_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s · %s · %s", r->a->runtime, r->a->mode, display_of(r->a->metric)->label);
}

/* The x axis around 1, linear, sized to the rows' CIs and at least 0.9 to 1.1: a 5% change stays visible. */
static size_t ratio_axis(const struct cmp_row *const *rows, size_t n, double *lo, double *hi, struct svg_tick *t)
{
	*lo = 0.9, *hi = 1.1;
	for (size_t i = 0; i < n; i++) {
		const struct sig_ci *c = &rows[i]->ratio;

		if (!isfinite(c->estimate) || c->estimate <= 0) /* from or to 0: no ratio to place (the row says so) */
			continue;
		*lo = fmin(*lo, fmin(c->estimate, isfinite(c->low) ? c->low : c->estimate));
		*hi = fmax(*hi, fmax(c->estimate, isfinite(c->high) ? c->high : c->estimate));
	}
	*lo = fmax(0, *lo - 0.02 * (*hi - *lo));
	*hi += 0.02 * (*hi - *lo);
	return svg_ticks_linear(lo, hi, 6, t, SVG_MAX_TICKS);
}

/* One chart of a family's rows: a row per runtime, mode and metric (a forest plot: the labels run across, one
 * line each, so they stay readable at any count), B / A as a dot with its CI on a linear axis around 1. */
static void compare_chart(FILE *out, unsigned id, const char *scn, const char *family,
			  const struct cmp_row *const *rows, size_t n)
{
	struct svg_plot p = {0};
	struct svg_tick t[SVG_MAX_TICKS];
	double lo, hi, label_px = 60;
	size_t nt = ratio_axis(rows, n, &lo, &hi, t);
	char cid[48], title[200], lab[160];

	for (size_t i = 0; i < n; i++) {
		row_label(rows[i], lab, sizeof(lab));
		label_px = fmax(label_px, 6.6 * (double)strlen(lab) + 16);
	}
	p.x = (struct svg_scale){SVG_LINEAR, lo, hi, 0, 0};
	p.y = (struct svg_scale){SVG_LINEAR, (double)n, 0, 0, 0};
	p.left = label_px, p.right = 24, p.top = 12, p.bottom = 44;
	snprintf(cid, sizeof(cid), "chart-c%u", id);
	snprintf(title, sizeof(title), "%s, %s: B / A per runtime, mode and metric (1: no change)", scn, family);
	fputs("<figure data-chart=\"compare\" data-scenario=\"", out);
	svg_escape(out, scn);
	fputs("\" data-family=\"", out);
	svg_escape(out, family);
	fputs("\"><h3>", out);
	svg_escape(out, title);
	fputs("</h3>", out);
	svg_begin(&p, out, fmax(640, label_px + 520), (double)n * CMP_ROW_PX + p.top + p.bottom, cid, title);
	svg_axis_x(&p, t, nt, "B / A (median of B over median of A)");
	fprintf(out, "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", svg_map(&p.x, 1),
		svg_map(&p.x, 1), p.y.r1, p.y.r0);
	for (size_t i = 0; i < n; i++) {
		const struct cmp_row *r = rows[i];
		double y = (double)i + 0.5;
		char tip[240];

		row_label(r, lab, sizeof(lab));
		svg_text(&p, p.x.r0 - 8, svg_map(&p.y, y) + 4, "end", "tick", lab);
		if (!isfinite(r->ratio.estimate) || r->ratio.estimate <= 0)
			continue; /* a median of 0 on a side: the label and the table say "from 0" or "to 0" */
		if (r->verdict != CMP_TOO_FEW && isfinite(r->ratio.low) && isfinite(r->ratio.high))
			svg_whisker_h(&p, y, r->ratio.low, r->ratio.high); /* too few trials: no CI worth drawing */
		snprintf(tip, sizeof(tip), "%s: B/A %.3f (95%% CI %.3f–%.3f), %s", lab, r->ratio.estimate, r->ratio.low,
			 r->ratio.high, cmp_verdict_word(r));
		svg_dot(&p, r->ratio.estimate, y, verdict_colour(r), "ratio", tip);
	}
	svg_end(&p);
	fputs("<figcaption>Dots: median(B) / median(A); whiskers: bootstrap 95% CI; green: better, vermillion: worse, "
	      "grey: below threshold, equivalent, inconclusive or too few trials (no whisker) (harness compare's "
	      "verdicts). Right of 1 is a larger value, better for throughput, worse for times and memory."
	      "</figcaption></figure>\n",
	      out);
}

/* "2 of 6": a side's noisy trials, empty when none. */
static void noisy_text(const struct cmp_cell *c, char *buf, size_t len)
{
	if (c->noisy)
		snprintf(buf, len, "%zu of %zu", c->noisy, c->n);
	else
		snprintf(buf, len, "0");
}

static void compare_table(FILE *out, const struct cmp_row *const *rows, size_t n)
{
	static const char *const heads[] = {"runtime", "mode",		 "metric",  "A median", "B median", "B / A",
					    "95% CI",  "Mann-Whitney p", "noisy A", "noisy B",	"verdict"};
	struct page pg = {.out = out};

	fputs("<div class=\"cmp\">", out);
	table_open(&pg, NULL, heads, sizeof(heads) / sizeof(heads[0]));
	for (size_t i = 0; i < n; i++) {
		const struct cmp_row *r = rows[i];
		const struct cmp_display *m = display_of(r->a->metric);
		char txt[96];

		fputs("<tr>", out);
		td(&pg, r->a->runtime);
		td(&pg, r->a->mode);
		td(&pg, m->label[0] ? m->label : r->a->metric);
		snprintf(txt, sizeof(txt), "%.*f", m->decimals, r->a_median * m->scale);
		fputs("<td class=\"n\">", out);
		svg_escape(out, txt);
		snprintf(txt, sizeof(txt), "%.*f", m->decimals, r->b_median * m->scale);
		fputs("</td><td class=\"n\">", out);
		svg_escape(out, txt);
		fputs("</td>", out);
		tdn(&pg, r->ratio.estimate);
		snprintf(txt, sizeof(txt), "–");
		if (!isnan(r->ratio.low) && r->verdict != CMP_TOO_FEW)
			snprintf(txt, sizeof(txt), "%.3f – %.3f", r->ratio.low, r->ratio.high);
		td(&pg, txt);
		tdn(&pg, r->mwu.p);
		noisy_text(r->a, txt, sizeof(txt));
		fprintf(out, "<td class=\"%s\">", r->a->noisy ? "v-warn" : "n");
		svg_escape(out, txt);
		noisy_text(r->b, txt, sizeof(txt));
		fprintf(out, "</td><td class=\"%s\">", r->b->noisy ? "v-warn" : "n");
		svg_escape(out, txt);
		fputs("</td>", out);
		snprintf(txt, sizeof(txt), "%s%s", cmp_verdict_word(r), r->regression ? " (regression)" : "");
		if (r->verdict == CMP_INCONCLUSIVE && r->trials_needed)
			snprintf(txt, sizeof(txt), "inconclusive: %zu trials a side would tell", r->trials_needed);
		if (r->verdict == CMP_TOO_FEW)
			snprintf(txt, sizeof(txt), "too few trials: %zu per side needed for any verdict",
				 r->trials_needed);
		fprintf(out, "<td class=\"v-%s\">", verdict_class(r));
		svg_escape(out, txt);
		fputs("</td></tr>\n", out);
	}
	table_close(&pg);
	fputs("</div>", out);
}

/* A scenario's rows, a chart per metric family in the order the families first appear; rows keep compare's
 * order within a family, and the table under the charts keeps compare's order. */
static void compare_charts(FILE *out, unsigned *nchart, const char *scn, const struct cmp_row *const *rows, size_t n)
{
	const char *done[16];
	size_t ndone = 0;
	_cleanup_free_ const struct cmp_row **fam = calloc(n + 1, sizeof(*fam));

	for (size_t i = 0; fam && i < n; i++) {
		const char *f = display_of(rows[i]->a->metric)->family;
		size_t k = 0, m = 0;

		while (k < ndone && strcmp(done[k], f) != 0)
			k++;
		if (k < ndone || ndone == sizeof(done) / sizeof(done[0]))
			continue;
		done[ndone++] = f;
		for (size_t j = i; j < n; j++)
			if (!strcmp(display_of(rows[j]->a->metric)->family, f))
				fam[m++] = rows[j];
		compare_chart(out, ++*nchart, scn, f, fam, m);
	}
}

static void compare_diffs(FILE *out, const struct cmp_result *r)
{
	static const char *const heads[] = {"field", "A", "B", "harness compare"};
	struct page pg = {.out = out};

	if (!r->ndiffs) {
		fputs("<p>Same host, CPU plan and runtime images.</p>\n", out);
		return;
	}
	table_open(&pg, "What differs between the two runs", heads, 4);
	for (size_t i = 0; i < r->ndiffs; i++) {
		fputs("<tr>", out);
		td(&pg, r->diffs[i].field);
		td(&pg, r->diffs[i].a);
		td(&pg, r->diffs[i].b);
		td(&pg, r->diffs[i].refuse ? "refuses without --allow-different-host" : "notes it");
		fputs("</tr>\n", out);
	}
	table_close(&pg);
}

static void compare_page(FILE *out, const char *na, const char *nb, const struct res_doc *const docs[2],
			 const struct cmp_opts *o, const struct cmp_result *r, const struct cmp_row **rows)
{
	char title[512];
	unsigned nchart = 0;

	snprintf(title, sizeof(title), "%s → %s", na, nb);
	html_page_open(out, "harness comparison", title);
	fprintf(out, "<p>A: <strong>");
	svg_escape(out, na);
	fputs("</strong>, B: <strong>", out);
	svg_escape(out, nb);
	fprintf(out,
		"</strong>. %zu rows, <strong>%zu significant regression(s)</strong> beyond %.0f%% (alpha %.2f); "
		"tables sort by a click on a column's header.</p>\n",
		r->nrows, r->regressions, o->threshold * 100, o->alpha);
	compare_diffs(out, r);
	partial_note(out, na, docs[0]);
	partial_note(out, nb, docs[1]);
	for (size_t i = 0; i < r->nrows;) {
		const char *scn = r->rows[i].a->scenario;
		size_t n = 0;

		/* rows come grouped as compare ran them: by scenario in A's order */
		while (i + n < r->nrows && !strcmp(r->rows[i + n].a->scenario, scn))
			rows[n] = &r->rows[i + n], n++;
		fputs("<section class=\"scenario\"><h2>", out);
		svg_escape(out, scn);
		fputs("</h2>\n", out);
		compare_charts(out, &nchart, scn, rows, n);
		compare_table(out, rows, n);
		fputs("</section>\n", out);
		i += n;
	}
	html_page_close(out);
}

int html_compare(const struct res_doc *a, const char *na, const struct res_doc *b, const char *nb, FILE *out,
		 struct hx_err *err)
{
	struct cmp_side sa = {.path = na, .head = a->head}, sb = {.path = nb, .head = b->head};
	/* compare's defaults; a page shows what differs between hosts instead of refusing */
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.05, .allow_different_host = true};
	struct cmp_result r = {0};
	_cleanup_free_ const struct cmp_row **rows = NULL;
	int rc = -1;

	if (cmp_cells_from(a, &sa.cells, &sa.ncells, err) < 0 || cmp_cells_from(b, &sb.cells, &sb.ncells, err) < 0 ||
	    cmp_run(&sa, &sb, &o, &r, err) < 0)
		goto out;
	if (!r.nrows) {
		hx_fail(err, HX_EXIT_USAGE, EINVAL, "report: %s and %s share no scenario, runtime and mode to compare",
			na, nb);
		goto out;
	}
	rows = calloc(r.nrows, sizeof(*rows));
	if (!rows) {
		hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		goto out;
	}
	compare_page(out, na, nb, (const struct res_doc *const[2]){a, b}, &o, &r, rows);
	rc = 0;
out:
	cmp_result_free(&r);
	cmp_cells_free(sa.cells, sa.ncells);
	cmp_cells_free(sb.cells, sb.ncells);
	return rc < 0 ? -err->errnum : 0;
}
