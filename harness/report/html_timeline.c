/* Timelines in the HTML report (html_timeline.h): four small charts sharing the time axis, one line per
 * trial in its runtime's colour; a trial flagged not_steady or leak is dashed and named in the caption. A
 * route matrix's trials keep a timeline per cell (route x connections) instead, drawn as small multiples. */
#include "report/html_timeline.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/svg.h"

enum tl_series { TS_RPS, TS_P99, TS_RSS, TS_CPU, TS_NR };

static const struct {
	const char *title, *unit;
} series[TS_NR] = {
	{"throughput", "req/s"},
	{"p99 latency", "ms"},
	{"server RSS", "MiB"},
	{"server CPU", "% of a CPU"},
};

/* Series k of trial t as x (s from the load's start) and y; the count. */
static size_t trial_series(const struct res_timeline *tl, enum tl_series k, double *x, double *y)
{
	size_t n = 0;
	double iv = tl->interval_ms;

	if (k == TS_RPS || k == TS_P99) {
		for (unsigned i = 0; i + 1 < tl->n; i++) { /* the last interval is partial */
			x[n] = (i + 0.5) * iv / 1e3;
			y[n++] = k == TS_RPS ? (double)tl->requests[i] * 1e3 / iv : tl->p99_us[i] / 1e3;
		}
		return n;
	}
	for (unsigned i = 0; i < tl->ns; i++) {
		double v = k == TS_RSS ? tl->rss_kb[i] / 1024
				       : tl->cpu_ms[i] * 100 / (tl->sample_ms > 0 ? tl->sample_ms : 100);

		x[n] = tl->t_ms[i] / 1e3;
		y[n++] = v;
	}
	return n;
}

static const char *colour_for(const char *runtime, const char *const *runtimes, const char *const *colours,
			      size_t nruntimes)
{
	for (size_t i = 0; i < nruntimes; i++)
		if (!strcmp(runtimes[i], runtime))
			return colours[i];
	return svg_colour(nruntimes);
}

static bool tl_flagged(const struct res_timeline *tl)
{
	return tl->steady.not_steady || tl->growth.leak;
}

static bool flagged(const struct trial_result *t)
{
	return tl_flagged(&t->timeline);
}

/* The end of a trial's timeline, s: its last interval's, or its last sample's when a memory run went on. */
static double tl_end_s(const struct res_timeline *tl)
{
	double end = tl->n * tl->interval_ms / 1e3;

	return tl->ns ? fmax(end, tl->t_ms[tl->ns - 1] / 1e3) : end;
}

static const struct {
	const char *label, *fill; /* fill NULL: not shaded, only named */
} phase_look[RES_TL_NR_PHASES] = {
	[RES_TL_LOAD] = {"load", NULL},
	[RES_TL_IDLE] = {"idle", "#999999"},
	[RES_TL_IDLE_HINT] = {"idle after hint", "#56B4E9"},
	[RES_TL_RESTART] = {"restart", "#D55E00"},
	[RES_TL_AFTER_RESTART] = {"after restart", "#009E73"},
};

/* The memory run's phases of tl as labelled bands, each to the next one's start or the timeline's end. */
static void phase_bands(const struct svg_plot *p, const struct res_timeline *tl)
{
	for (unsigned i = 0; tl && i < tl->nphases; i++) {
		const struct res_tl_mark *ph = &tl->phases[i];
		double end = i + 1 < tl->nphases ? tl->phases[i + 1].t_ms / 1e3 : tl_end_s(tl);

		svg_span(p, ph->t_ms / 1e3, end, "phase",
			 phase_look[ph->phase].fill ? phase_look[ph->phase].fill : "none", phase_look[ph->phase].label,
			 i % 2);
	}
}

/* The first of the trials for which pick says yes that has phases: whose bands a chart draws. */
static const struct trial_result *phased(const struct res_doc *d, const char *scn, const void *cell,
					 bool (*pick)(const struct trial_result *, const char *, const void *))
{
	for (size_t i = 0; i < d->ntrials; i++)
		if (d->trials[i].timeline.nphases && pick(&d->trials[i], scn, cell))
			return &d->trials[i];
	return NULL;
}

static bool in_scenario(const struct trial_result *t, const char *scn, const void *unused)
{
	(void)unused;
	return t->timeline.n && !strcmp(t->scenario, scn);
}

static void phases_caption(FILE *out, const char *lead, const struct trial_result *t)
{
	char buf[192];

	if (!t)
		return;
	snprintf(buf, sizeof(buf), "%sbands: the memory run's phases of %s trial %u (its samples go on through them)",
		 lead, t->runtime, t->trial);
	svg_escape(out, buf);
}

static void chart(FILE *out, const struct res_doc *d, const char *scn, enum tl_series k, double t_max,
		  const char *const *runtimes, const char *const *colours, size_t nruntimes, unsigned *nchart)
{
	struct svg_plot p = {0};
	struct svg_tick xt[SVG_MAX_TICKS], yt[SVG_MAX_TICKS];
	double lo = 0, hi = 0, x0 = 0, x1 = t_max, *x, *y;
	size_t cap = 0, nx, ny;
	char id[32], title[160];

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct res_timeline *tl = &d->trials[i].timeline;

		if (!strcmp(d->trials[i].scenario, scn)) {
			cap = tl->n > cap ? tl->n : cap;
			cap = tl->ns > cap ? tl->ns : cap;
		}
	}
	x = malloc((cap + 1) * sizeof(*x));
	y = malloc((cap + 1) * sizeof(*y));
	for (size_t i = 0; x && y && i < d->ntrials; i++)
		if (!strcmp(d->trials[i].scenario, scn) && d->trials[i].timeline.n)
			for (size_t j = 0, n = trial_series(&d->trials[i].timeline, k, x, y); j < n; j++)
				if (isfinite(y[j]))
					hi = fmax(hi, y[j]);
	if (!x || !y || !(hi > 0)) {
		free(x);
		free(y);
		return;
	}
	nx = svg_ticks_linear(&x0, &x1, 6, xt, SVG_MAX_TICKS);
	ny = svg_ticks_linear(&lo, &hi, 4, yt, SVG_MAX_TICKS);
	p.x = (struct svg_scale){SVG_LINEAR, x0, x1, 0, 0};
	p.y = (struct svg_scale){SVG_LINEAR, lo, hi, 0, 0};
	snprintf(id, sizeof(id), "chart-%u", ++*nchart);
	snprintf(title, sizeof(title), "%s: %s over the measured load", scn, series[k].title);
	svg_begin(&p, out, 640, 200, id, title);
	svg_axis_y(&p, yt, ny, series[k].unit);
	svg_axis_x(&p, xt, nx, k == TS_CPU ? "s (CPU: per sample)" : "s");
	{
		const struct trial_result *ph = phased(d, scn, NULL, in_scenario);

		phase_bands(&p, ph ? &ph->timeline : NULL);
	}
	for (size_t i = 0; i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];

		if (strcmp(t->scenario, scn) || !t->timeline.n)
			continue;
		svg_line(&p, x, y, trial_series(&t->timeline, k, x, y),
			 colour_for(t->runtime, runtimes, colours, nruntimes), flagged(t));
	}
	svg_end(&p);
	free(x);
	free(y);
}

/* ---- small multiples: a cell's trials on their own ---- */

/* A cell: one runtime, mode and neighbour of the scenario, the trials of it that kept a timeline; in a route
 * matrix also one route at one connection count (route NULL: a plain http trial's own timeline). */
struct tl_cell {
	const char *runtime, *mode, *noise, *route;
	unsigned connections;
	size_t rank; /* the runtime's place in the page's order */
};

#define TL_MAX_CELLS 256       /* a matrix's 5 routes x 3 connection counts x 4 runtimes x 2 modes fit */
#define TL_SECOND    "#777777" /* the right axis' series, beside any runtime's colour */

/* Trial t's timeline of cell c: its own, or its matrix cell's of c's route and connections; NULL when t is not
 * of the cell or kept none. */
static const struct res_timeline *cell_tl(const struct trial_result *t, const char *scn, const struct tl_cell *c)
{
	if (strcmp(t->scenario, scn) || strcmp(t->runtime, c->runtime) || strcmp(t->mode, c->mode) ||
	    strcmp(t->noise, c->noise))
		return NULL;
	if (!c->route)
		return t->timeline.n ? &t->timeline : NULL;
	for (unsigned j = 0; j < t->ncells; j++)
		if (t->cells[j].timeline.n && t->cells[j].connections == c->connections &&
		    !strcmp(t->cells[j].route, c->route))
			return &t->cells[j].timeline;
	return NULL;
}

static bool in_cell(const struct trial_result *t, const char *scn, const struct tl_cell *c)
{
	return cell_tl(t, scn, c) != NULL;
}

static bool in_cell_of(const struct trial_result *t, const char *scn, const void *c)
{
	return in_cell(t, scn, c);
}

static size_t rank_of(const char *runtime, const char *const *runtimes, size_t nruntimes)
{
	for (size_t i = 0; i < nruntimes; i++)
		if (!strcmp(runtimes[i], runtime))
			return i;
	return nruntimes;
}

/* c into the n cells of ret unless there already, after the cells of runtimes earlier in the page's order;
 * the new count. */
static size_t cell_put(struct tl_cell *ret, size_t n, const struct tl_cell *c)
{
	size_t at = n;

	for (size_t k = 0; k < n; k++)
		if (!strcmp(ret[k].runtime, c->runtime) && !strcmp(ret[k].mode, c->mode) &&
		    !strcmp(ret[k].noise, c->noise) && !ret[k].route == !c->route &&
		    (!c->route || (!strcmp(ret[k].route, c->route) && ret[k].connections == c->connections)))
			return n;
	if (n == TL_MAX_CELLS)
		return n;
	while (at > 0 && ret[at - 1].rank > c->rank) {
		ret[at] = ret[at - 1];
		at--;
	}
	ret[at] = *c;
	return n + 1;
}

/* The scenario's cells in the page's runtime order, each runtime's modes (and a matrix's routes and
 * connection counts) as the file first has them. */
static size_t cells_of(const struct res_doc *d, const char *scn, const char *const *runtimes, size_t nruntimes,
		       struct tl_cell *ret)
{
	size_t n = 0;

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];
		struct tl_cell c = {t->runtime, t->mode, t->noise, NULL, 0, rank_of(t->runtime, runtimes, nruntimes)};

		if (strcmp(t->scenario, scn))
			continue;
		if (t->timeline.n)
			n = cell_put(ret, n, &c);
		for (unsigned j = 0; j < t->ncells; j++)
			if (t->cells[j].timeline.n) {
				c.route = t->cells[j].route;
				c.connections = t->cells[j].connections;
				n = cell_put(ret, n, &c);
			}
	}
	return n;
}

/* The largest finite value of series k over the cell's trials; x and y are scratch of cap points. */
static double cell_max(const struct res_doc *d, const char *scn, const struct tl_cell *c, enum tl_series k, double *x,
		       double *y)
{
	double hi = 0;

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct res_timeline *tl = cell_tl(&d->trials[i], scn, c);

		for (size_t j = 0, n = tl ? trial_series(tl, k, x, y) : 0; j < n; j++)
			if (isfinite(y[j]))
				hi = fmax(hi, y[j]);
	}
	return hi;
}

/* Tick labels on the right edge for the second series' scale (no gridlines: the left axis has them). */
static void axis_right(const struct svg_plot *p, const struct svg_tick *t, size_t n, const char *label)
{
	for (size_t i = 0; i < n; i++)
		svg_text(p, p->x.r1 + 5, svg_map(&p->y, t[i].v) + 4, "start", "tick", t[i].label);
	fprintf(p->out,
		"<text class=\"axislabel\" text-anchor=\"middle\" transform=\"translate(%.1f %.1f) rotate(90)\">",
		p->width - 10, (p->y.r0 + p->y.r1) / 2);
	svg_escape(p->out, label);
	fputs("</text>\n", p->out);
}

struct tl_pair {
	enum tl_series left, right;
	const char *what; /* for the title */
};

static const struct tl_pair pairs[] = {
	{TS_RPS, TS_P99, "throughput and p99"},
	{TS_RSS, TS_CPU, "server RSS and CPU"},
};

/* One small chart of the cell: pr's left series in the runtime's colour on the left axis, its right one in
 * grey on the right axis, a line per trial (dashed: flagged). */
static void cell_chart(FILE *out, const struct res_doc *d, const char *scn, const struct tl_cell *c,
		       const struct tl_pair *pr, double t_max, const char *colour, double *x, double *y,
		       unsigned *nchart)
{
	struct svg_plot p = {.left = 50, .right = 46, .top = 24, .bottom = 40}, q;
	struct svg_tick xt[SVG_MAX_TICKS], yt[SVG_MAX_TICKS], rt[SVG_MAX_TICKS];
	double x0 = 0, x1 = t_max, lo = 0, hi = cell_max(d, scn, c, pr->left, x, y), rlo = 0,
	       rhi = cell_max(d, scn, c, pr->right, x, y);
	const char *names[2] = {series[pr->left].unit, series[pr->right].unit}, *cols[2] = {colour, TL_SECOND};
	char id[32], title[256], at[64] = "";
	size_t nx, ny, nr;

	if (!(hi > 0) && !(rhi > 0))
		return;
	hi = hi > 0 ? hi : 1;
	rhi = rhi > 0 ? rhi : 1;
	nx = svg_ticks_linear(&x0, &x1, 4, xt, SVG_MAX_TICKS);
	ny = svg_ticks_linear(&lo, &hi, 3, yt, SVG_MAX_TICKS);
	nr = svg_ticks_linear(&rlo, &rhi, 3, rt, SVG_MAX_TICKS);
	p.x = (struct svg_scale){SVG_LINEAR, x0, x1, 0, 0};
	p.y = (struct svg_scale){SVG_LINEAR, lo, hi, 0, 0};
	snprintf(id, sizeof(id), "chart-%u", ++*nchart);
	if (c->route)
		snprintf(at, sizeof(at), ", route %s at %u connections", c->route, c->connections);
	snprintf(title, sizeof(title), "%s, %s %s%s%s%s: %s over the measured %s", scn, c->runtime, c->mode,
		 strcmp(c->noise, "none") ? " " : "", strcmp(c->noise, "none") ? c->noise : "", at, pr->what,
		 c->route ? "cell" : "load");
	svg_begin(&p, out, 360, 160, id, title);
	q = p;
	q.y = (struct svg_scale){SVG_LINEAR, rlo, rhi, p.y.r0, p.y.r1};
	svg_axis_y(&p, yt, ny, NULL);
	axis_right(&q, rt, nr, series[pr->right].unit);
	svg_axis_x(&p, xt, nx, "s");
	{
		const struct trial_result *ph = phased(d, scn, c, in_cell_of);

		phase_bands(&p, ph ? &ph->timeline : NULL);
	}
	svg_legend(&p, names, cols, 2);
	for (size_t i = 0; i < d->ntrials; i++) {
		const struct res_timeline *tl = cell_tl(&d->trials[i], scn, c);

		if (!tl)
			continue;
		svg_line(&q, x, y, trial_series(tl, pr->right, x, y), TL_SECOND, tl_flagged(tl));
		svg_line(&p, x, y, trial_series(tl, pr->left, x, y), colour, tl_flagged(tl));
	}
	svg_end(&p);
}

static void cell_caption(FILE *out, const struct res_doc *d, const char *scn, const struct tl_cell *c)
{
	unsigned n = 0, nflag = 0;
	char buf[192], at[64] = "";

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct res_timeline *tl = cell_tl(&d->trials[i], scn, c);

		n += tl != NULL;
		nflag += tl && tl_flagged(tl);
	}
	if (c->route)
		snprintf(at, sizeof(at), " · %s × %u", c->route, c->connections);
	snprintf(buf, sizeof(buf), "%s · %s%s%s%s: %u trial%s", c->runtime, c->mode,
		 strcmp(c->noise, "none") ? " · " : "", strcmp(c->noise, "none") ? c->noise : "", at, n,
		 n == 1 ? "" : "s");
	fputs("<figcaption><strong>", out);
	svg_escape(out, buf);
	fputs("</strong>", out);
	for (size_t i = 0, k = 0; nflag && i < d->ntrials; i++) {
		const struct res_timeline *tl = cell_tl(&d->trials[i], scn, c);

		if (!tl || !tl_flagged(tl))
			continue;
		snprintf(buf, sizeof(buf), "%strial %u (%s%s%s)", k++ ? ", " : "; dashed: ", d->trials[i].trial,
			 tl->steady.not_steady ? "not_steady" : "",
			 tl->steady.not_steady && tl->growth.leak ? ", " : "", tl->growth.leak ? "leak" : "");
		svg_escape(out, buf);
	}
	phases_caption(out, "; ", phased(d, scn, c, in_cell_of));
	fputs("</figcaption>\n", out);
}

/* A figure per cell, its trials overlaid on a time axis of their own. */
static void cells(FILE *out, const struct res_doc *d, const char *scn, const char *const *runtimes,
		  const char *const *colours, size_t nruntimes, unsigned *nchart)
{
	struct tl_cell c[TL_MAX_CELLS];
	size_t n = cells_of(d, scn, runtimes, nruntimes, c), cap = 0;
	double *x, *y;

	for (size_t i = 0; i < d->ntrials; i++)
		for (unsigned j = 0; j <= d->trials[i].ncells; j++) {
			const struct res_timeline *tl =
				j < d->trials[i].ncells ? &d->trials[i].cells[j].timeline : &d->trials[i].timeline;

			cap = tl->n > cap ? tl->n : cap;
			cap = tl->ns > cap ? tl->ns : cap;
		}
	x = malloc((cap + 1) * sizeof(*x));
	y = malloc((cap + 1) * sizeof(*y));
	if (!n || !x || !y) {
		free(x);
		free(y);
		return;
	}
	fputs("<h3>Each cell's trials</h3>\n<div class=\"cells\">\n", out);
	for (size_t k = 0; k < n; k++) {
		const char *colour = colour_for(c[k].runtime, runtimes, colours, nruntimes);
		double t_max = 0;

		for (size_t i = 0; i < d->ntrials; i++) {
			const struct res_timeline *tl = cell_tl(&d->trials[i], scn, &c[k]);

			t_max = tl ? fmax(t_max, tl_end_s(tl)) : t_max;
		}
		fputs("<figure data-chart=\"timeline-cell\" data-runtime=\"", out);
		svg_escape(out, c[k].runtime);
		fputs("\" data-mode=\"", out);
		svg_escape(out, c[k].mode);
		fputs("\" data-scenario=\"", out);
		svg_escape(out, scn);
		if (c[k].route) {
			fputs("\" data-route=\"", out);
			svg_escape(out, c[k].route);
			fprintf(out, "\" data-connections=\"%u", c[k].connections);
		}
		fputs("\">", out);
		cell_caption(out, d, scn, &c[k]);
		for (size_t j = 0; j < HX_ARRAY_SIZE(pairs); j++)
			cell_chart(out, d, scn, &c[k], &pairs[j], t_max, colour, x, y, nchart);
		fputs("</figure>\n", out);
	}
	fputs("</div>\n", out);
	free(x);
	free(y);
}

void html_timelines(FILE *out, const struct res_doc *d, const char *scn, const char *const *runtimes,
		    const char *const *colours, size_t nruntimes, unsigned *nchart)
{
	double t_max = 0;
	bool any_flag = false;

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];

		if (!strcmp(t->scenario, scn) && t->timeline.n) {
			t_max = fmax(t_max, tl_end_s(&t->timeline));
			any_flag |= flagged(t);
		}
	}
	if (!(t_max > 0)) {
		cells(out, d, scn, runtimes, colours, nruntimes, nchart); /* a route matrix's, if any */
		return;
	}
	fputs("<figure data-chart=\"timeline\" data-scenario=\"", out);
	svg_escape(out, scn);
	fputs("\"><h3>Inside the trials: the measured load over time</h3>\n", out);
	for (int k = 0; k < TS_NR; k++)
		chart(out, d, scn, (enum tl_series)k, t_max, runtimes, colours, nruntimes, nchart);
	fputs("<figcaption>One line per trial in its runtime's colour, from the load client's intervals "
	      "(throughput, p99) and harness's samples of the server (RSS, CPU) at the same cadence; the warm-up "
	      "ran before. ",
	      out);
	phases_caption(out, "The ", phased(d, scn, NULL, in_scenario));
	if (phased(d, scn, NULL, in_scenario))
		fputs(". ", out);
	if (any_flag) {
		fputs("Dashed: flagged ", out);
		for (size_t i = 0, first = 1; i < d->ntrials; i++) {
			const struct trial_result *t = &d->trials[i];
			char buf[160];

			if (strcmp(t->scenario, scn) || !flagged(t))
				continue;
			snprintf(buf, sizeof(buf), "%s%s trial %u (%s%s%s)", first ? "" : ", ", t->runtime, t->trial,
				 t->timeline.steady.not_steady ? "not_steady" : "",
				 t->timeline.steady.not_steady && t->timeline.growth.leak ? ", " : "",
				 t->timeline.growth.leak ? "leak" : "");
			svg_escape(out, buf);
			first = 0;
		}
		fputs(".", out);
	}
	fputs("</figcaption></figure>\n", out);
	cells(out, d, scn, runtimes, colours, nruntimes, nchart);
}
