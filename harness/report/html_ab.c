/* The HTML page of a duet (html_ab.h): report/html.c's page frame and tables, report/svg.c's charts. Every text of
 * the file is escaped; the work is bounded by the document's own bound (AB_MAX_WINDOWS windows). */
#include "report/html_ab.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "report/ab_report.h"
#include "report/html.h"
#include "report/svg.h"
#include "stats/paired.h"
#include "stats/stats.h"

#define COL_A	    "#0072B2"
#define COL_B	    "#E69F00"
#define COL_COUNTED "#0072B2"
#define COL_NOISY   "#D55E00"
#define COL_WARMUP  "#ffffff"
#define COL_LIMIT   "#D55E00"
#define COL_ROUND   "#222222" /* a round's mean: dark on the band and the dots */

static const struct {
	const char *ratio; /* the y axis of the ratio chart */
	const char *side;  /* the y axis of the sides' chart */
	double scale;	   /* from the window's unit to the side's */
} texts[AB_NR_METRICS] = {
	{"B / A time per request (1 / throughput)", "req/s", 1},
	{"B / A p50 latency", "p50 ms", 1e-3},
	{"B / A p99 latency", "p99 ms", 1e-3},
	{"B / A startup time", "startup ms", 1},
	{"B / A the script's metric", "the script's metric", 1}, /* named, and inverted for a rate: axis_labels */
	{"B / A server memory (RSS)", "RSS MB", 1.0 / 1024},
};

/* A throughput's unit: a chat duet's windows count deliveries (messages), the others requests. */
static const char *rate_unit(const struct ab_doc *d)
{
	return strcmp(d->workload, "ws-chat") == 0 ? "msg/s" : "req/s";
}

/* The ratio's and the sides' axis labels of metric m: a script's metric by its name (primary_metric), its
 * ratio inverted (a cost) only when higher is better (primary_better), as points_of computes it. */
static void axis_labels(const struct ab_doc *d, enum ab_metric m, char *ratio, size_t rlen, char *side, size_t slen)
{
	const char *name = d->metric_name[0] ? d->metric_name : texts[m].side;

	if (m == AB_RPS) {
		snprintf(ratio, rlen, "B / A time per %s (1 / throughput)",
			 strcmp(d->workload, "ws-chat") == 0 ? "delivery" : "request");
		snprintf(side, slen, "%s", rate_unit(d));
		return;
	}
	if (m != AB_SCRIPT) {
		snprintf(ratio, rlen, "%s", texts[m].ratio);
		snprintf(side, slen, "%s", texts[m].side);
		return;
	}
	if (ab_higher_better(d, m))
		snprintf(ratio, rlen, "B / A cost: 1 / %s (higher is better)", name);
	else
		snprintf(ratio, rlen, "B / A %s (lower is better)", name);
	snprintf(side, slen, "%s", name);
}

/* A complete pair with a value of the metric on both sides. */
struct point {
	double x, cost, a, b;
	const struct ab_window *wa, *wb;
	enum ab_pair_use use;
};

/* Every such pair of metric m, in the order run; *ret malloc'd. */
static int points_of(const struct ab_doc *d, enum ab_metric m, struct point **ret, size_t *ret_n)
{
	bool inv = ab_higher_better(d, m);
	struct point *pt = calloc(d->nw / 2 + 1, sizeof(*pt));
	size_t n = 0;

	if (!pt)
		return -1;
	for (size_t i = 0; i + 1 < d->nw; i += 2) {
		struct point *p = &pt[n];

		if (!ab_pair_at(d, i, &p->wa, &p->wb, &p->use))
			continue;
		p->a = ab_value(p->wa, m);
		p->b = ab_value(p->wb, m);
		if (!(p->a > 0 && p->b > 0 && isfinite(p->a) && isfinite(p->b)))
			continue;
		p->x = p->wa->pair;
		p->cost = inv ? p->a / p->b : p->b / p->a; /* above 1: B slower (larger) */
		n++;
	}
	*ret = pt;
	*ret_n = n;
	return 0;
}

static void hline(const struct svg_plot *p, double v, const char *cls, const char *attrs)
{
	double y = svg_map(&p->y, v);

	fprintf(p->out, "<line class=\"%s\" data-v=\"%.6g\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.2f\" y2=\"%.2f\" %s/>", cls,
		v, p->x.r0, p->x.r1, y, y, attrs);
}

/* The CI of the geometric mean across the whole run, under the points. */
static void band(const struct svg_plot *p, double lo, double hi)
{
	double top = svg_map(&p->y, hi), bottom = svg_map(&p->y, lo);

	if (!isfinite(top) || !isfinite(bottom))
		return;
	fprintf(p->out,
		"<rect class=\"ci-band\" data-low=\"%.6g\" data-high=\"%.6g\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" "
		"height=\"%.2f\" fill=\"" COL_A "\" fill-opacity=\"0.18\"><title>95%% CI of the geometric mean: "
		"%.4f to %.4f</title></rect>",
		lo, hi, p->x.r0, top, p->x.r1 - p->x.r0, bottom - top, lo, hi);
}

static void point_tip(const struct point *pt, enum ab_metric m, const char *side, char *buf, size_t len)
{
	static const char *const why[AB_NR_PAIR_USES] = {"", "; the warm-up pair: left out",
							 "; noisy (foreign CPU time differed): left out"};

	snprintf(buf, len, "pair %.0f (%s) at %.1f s: B/A %.4f; A %.6g, B %.6g %s; foreign CPU A %.0f ms, B %.0f ms%s",
		 pt->x, pt->wa < pt->wb ? "AB" : "BA", fmin(pt->wa->start_s, pt->wb->start_s), pt->cost,
		 pt->a * texts[m].scale, pt->b * texts[m].scale, side, pt->wa->foreign_ms, pt->wb->foreign_ms,
		 why[pt->use]);
}

/* The y domain: the points within 5 robust SDs (1.4826 MAD) of their median, the CI and the threshold lines, with a
 * margin, never below 0. A few wild pairs (a noisy one at 3x) would squash the band and the threshold into a line:
 * a point beyond is drawn on the axis's edge. */
static size_t ratio_axis(const struct point *pt, size_t n, double clo, double chi, double t, double *lo, double *hi,
			 struct svg_tick *ticks)
{
	_cleanup_free_ double *v = calloc(n + 1, sizeof(double)), *dev = calloc(n + 1, sizeof(double));

	*lo = 1 - t, *hi = 1 + t;
	if (v && dev && n) {
		double med, mad;

		for (size_t i = 0; i < n; i++)
			v[i] = pt[i].cost;
		qsort(v, n, sizeof(double), stats_cmp_double);
		med = stats_median_sorted(v, n);
		for (size_t i = 0; i < n; i++)
			dev[i] = fabs(v[i] - med);
		qsort(dev, n, sizeof(double), stats_cmp_double);
		mad = stats_median_sorted(dev, n) * 1.4826;
		for (size_t i = 0; i < n; i++)
			if (!(mad > 0) || fabs(v[i] - med) <= 5 * mad)
				*lo = fmin(*lo, v[i]), *hi = fmax(*hi, v[i]);
	}
	if (isfinite(clo) && isfinite(chi))
		*lo = fmin(*lo, clo), *hi = fmax(*hi, chi);
	*lo = fmax(0, *lo - 0.1 * (*hi - *lo));
	*hi += 0.1 * (*hi - *lo);
	return svg_ticks_linear(lo, hi, 6, ticks, SVG_MAX_TICKS);
}

static size_t pair_axis(const struct point *pt, size_t n, double *lo, double *hi, struct svg_tick *ticks)
{
	*lo = n ? pt[0].x : 0;
	*hi = n ? pt[n - 1].x : 1;
	return svg_ticks_linear(lo, hi, 8, ticks, SVG_MAX_TICKS);
}

static void figure_open(FILE *out, const char *kind, enum ab_metric m, const char *title)
{
	fprintf(out, "<figure data-chart=\"%s\" data-metric=\"%s\"><h3>", kind, ab_metric_names[m]);
	svg_escape(out, title);
	fputs("</h3>", out);
}

/* The caption, and more words after it ("": none). */
static void figure_close(const struct svg_plot *p, const char *caption, const char *more)
{
	svg_end(p);
	fputs("<figcaption>", p->out);
	svg_escape(p->out, caption);
	svg_escape(p->out, more);
	fputs("</figcaption></figure>\n", p->out);
}

static void ratio_legend(const struct svg_plot *p, double t, bool rounds)
{
	char th[48];
	const char *row1[] = {"pair counted", "noisy pair (left out)", "warm-up pair (left out)"};
	const char *col1[] = {COL_COUNTED, COL_NOISY, COL_WARMUP};
	const char *row2[] = {"geometric mean and its 95% CI", th, "a round's mean (bar)"};
	const char *col2[] = {COL_A, COL_LIMIT, COL_ROUND};
	struct svg_plot r = *p;

	snprintf(th, sizeof(th), "threshold: 1 ± %g%% (dashed)", t * 100);
	r.top = 30;
	svg_legend(&r, row1, col1, 3);
	r.top = 48;
	svg_legend(&r, row2, col2, rounds ? 3 : 2);
}

/* At most this many rounds marked on a chart (a line where each starts, a bar of its mean): a duet of more rounds
 * (1 s rounds for an hour) has every k-th marked, the k said by the caption (round_marks). */
#define HTML_AB_MAX_ROUNDS 256

static unsigned round_stride(const struct ab_doc *d)
{
	unsigned last = d->nw ? d->w[d->nw - 1].round : 0; /* the windows are in round order (ab_read) */

	return last >= HTML_AB_MAX_ROUNDS ? last / HTML_AB_MAX_ROUNDS + 1 : 1;
}

/* A caption's words on the rounds marked when they are every k-th only ("" otherwise). */
static void round_marks(char *buf, size_t len, const struct ab_doc *d)
{
	unsigned k = round_stride(d);

	if (k > 1)
		snprintf(buf, len, " Of the %u rounds, those whose number is a multiple of %u are marked.",
			 d->w[d->nw - 1].round + 1, k);
	else
		buf[0] = '\0';
}

/* A server duet's rounds (docs/ab.md, "Rounds"): a dotted line where each round after the first starts, half
 * a pair before its first pair (by_pair) or at its first window's start on the run's clock. */
static void round_lines(const struct svg_plot *p, const struct ab_doc *d, bool by_pair)
{
	double lo = fmin(p->x.r0, p->x.r1), hi = fmax(p->x.r0, p->x.r1);
	unsigned k = round_stride(d);

	for (size_t i = 1; i < d->nw; i++) {
		const struct ab_window *w = &d->w[i];
		double x = by_pair ? w->pair - 0.5 : w->start_s, px = svg_map(&p->x, x);

		if (w->round == d->w[i - 1].round || w->round % k || !(px >= lo && px <= hi))
			continue;
		fprintf(p->out,
			"<line class=\"round\" data-round=\"%u\" data-x=\"%.6g\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#777777\" stroke-dasharray=\"2 3\" stroke-width=\"1\"><title>round %u "
			"starts "
			"(pair %u, %.1f s): both servers started afresh</title></line>",
			w->round, x, px, px, p->y.r1, p->y.r0, w->round + 1, w->pair, w->start_s);
	}
}

/* Each round's mean ratio of metric m, as the analysis takes it (its carry-over adjusted): a bar over the round's
 * pairs, on the axis ylo..yhi. The estimate, the line across, is their mean. Nothing for a duet of one round. */
static void round_bars(const struct svg_plot *p, const struct ab_doc *d, enum ab_metric m, double ylo, double yhi)
{
	const struct paired_result *r = &d->metric[m];
	bool inv = ab_higher_better(d, m);
	struct ab_pairset ps;
	_cleanup_free_ double *mean = NULL;
	size_t i = 0, w = 0;
	unsigned stride = round_stride(d);
	int n;

	if (r->rounds < 2 || ab_pairs(d, m, &ps) < 0)
		return;
	mean = calloc(ps.n + 1, sizeof(double));
	n = mean ? paired_round_means(&(struct paired_input){ps.a, ps.b, ps.carry, ps.round, ps.n}, r->carry, mean)
		 : -1;
	for (int k = 0; k < n; k++) {
		unsigned rd = ps.round[i];
		double x0 = INFINITY, x1 = -INFINITY, c = inv ? exp(-mean[k]) : exp(mean[k]), y;
		size_t np = 0;

		for (; i < ps.n && ps.round[i] == rd; i++)
			np++;
		for (; w < d->nw && d->w[w].round <= rd; w++) /* the windows are in round order (ab_read) */
			if (d->w[w].round == rd)
				x0 = fmin(x0, d->w[w].pair), x1 = fmax(x1, d->w[w].pair);
		if (rd % stride)
			continue;
		y = svg_map(&p->y, fmin(fmax(c, ylo), yhi));
		fprintf(p->out,
			"<line class=\"round-gm\" data-round=\"%u\" data-v=\"%.6g\" x1=\"%.1f\" x2=\"%.1f\" "
			"y1=\"%.2f\" y2=\"%.2f\" stroke=\"" COL_ROUND "\" stroke-width=\"3\" stroke-opacity=\"0.8\">"
			"<title>round %u: B/A %.4f, the mean of its %zu pairs counted</title></line>",
			rd, c, svg_map(&p->x, x0 - 0.4), svg_map(&p->x, x1 + 0.4), y, y, rd + 1, c, np);
	}
	ab_pairset_free(&ps);
}

/* At most this many dots or points a series: a long duet's pairs drawn every k-th, so the page stays a few MB. */
#define HTML_AB_MAX_POINTS 2048

static size_t stride_of(size_t n)
{
	return n > HTML_AB_MAX_POINTS ? (n + HTML_AB_MAX_POINTS - 1) / HTML_AB_MAX_POINTS : 1;
}

/* A chart's caption's last words when it drew every k-th pair only. */
static void thinned(char *buf, size_t len, size_t n, const char *what)
{
	size_t k = stride_of(n);

	if (k > 1)
		snprintf(buf, len, " Of the %zu %s, every %zu%s is drawn (at most %d).", n, what, k,
			 k % 10 == 1 && k % 100 != 11	? "st"
			 : k % 10 == 2 && k % 100 != 12 ? "nd"
			 : k % 10 == 3 && k % 100 != 13 ? "rd"
							: "th",
			 HTML_AB_MAX_POINTS);
	else
		buf[0] = '\0';
}

/* Each pair's cost ratio B/A in the order the pairs ran: the band, the lines, a dot per pair. */
static void chart_ratio(FILE *out, const struct ab_doc *d, enum ab_metric m, const struct point *pt, size_t n,
			unsigned id)
{
	struct svg_plot p = {.left = 64, .right = 16, .top = 56, .bottom = 48};
	struct svg_tick yt[SVG_MAX_TICKS], xt[SVG_MAX_TICKS];
	double t = d->threshold, c, clo, chi, ylo, yhi, xlo, xhi;
	size_t ny, nx;
	char cid[32], title[160], tip[320], ratio[160], side[96], note[224], more[448];

	axis_labels(d, m, ratio, sizeof(ratio), side, sizeof(side));
	thinned(note, sizeof(note), n, "pairs");
	round_marks(note + strlen(note), sizeof(note) - strlen(note), d);
	ab_cost(d, m, &c, &clo, &chi);
	ny = ratio_axis(pt, n, clo, chi, t, &ylo, &yhi, yt);
	nx = pair_axis(pt, n, &xlo, &xhi, xt);
	p.x = (struct svg_scale){SVG_LINEAR, xlo, xhi, 0, 0};
	p.y = (struct svg_scale){SVG_LINEAR, ylo, yhi, 0, 0};
	snprintf(cid, sizeof(cid), "chart-ab%u", id);
	snprintf(title, sizeof(title), "%s: each pair's B / A over the run (above 1: B %s)", ab_metric_label(d, m),
		 m == AB_MEMORY ? "larger" : "slower");
	figure_open(out, "ab-ratio", m, title);
	svg_begin(&p, out, 760, 360, cid, title);
	svg_axis_y(&p, yt, ny, ratio);
	svg_axis_x(&p, xt, nx, "pair, in the order run");
	if (isfinite(c)) {
		band(&p, clo, chi);
		hline(&p, c, "gm", "stroke=\"" COL_A "\" stroke-width=\"2\"");
	}
	hline(&p, 1, "unity", "stroke=\"#333\" stroke-width=\"1\"");
	hline(&p, 1 + t, "threshold", "stroke=\"" COL_LIMIT "\" stroke-dasharray=\"6 3\" stroke-width=\"1.5\"");
	hline(&p, 1 - t, "threshold", "stroke=\"" COL_LIMIT "\" stroke-dasharray=\"6 3\" stroke-width=\"1.5\"");
	round_lines(&p, d, true);
	round_bars(&p, d, m, ylo, yhi);
	for (size_t i = 0; i < n; i += stride_of(n)) {
		static const char *const cls[AB_NR_PAIR_USES] = {"pair", "pair-warmup", "pair-noisy"};
		static const char *const col[AB_NR_PAIR_USES] = {COL_COUNTED, COL_WARMUP, COL_NOISY};

		double y = fmin(fmax(pt[i].cost, ylo), yhi);

		point_tip(&pt[i], m, side, tip, sizeof(tip));
		if (y != pt[i].cost)
			snprintf(tip + strlen(tip), sizeof(tip) - strlen(tip), " (off the scale: drawn on its edge)");
		svg_dot(&p, pt[i].x, y, col[pt[i].use], cls[pt[i].use], tip);
	}
	ratio_legend(&p, t, d->metric[m].rounds > 1);
	snprintf(more, sizeof(more), "%s%s",
		 d->metric[m].rounds > 1
			 ? " In rounds: both servers were started afresh for each round (dotted lines between), the "
			   "bars are the rounds' mean ratios (the carry-over taken out), the line their geometric mean "
			   "and "
			   "the band its t interval over the rounds."
			 : "",
		 note);
	figure_close(
		&p,
		"Dots: each pair's cost ratio B/A (a time as it is, a throughput inverted: above 1 is B "
		"slower), in the order the pairs ran; the line and the band: the geometric mean of the counted "
		"pairs and its bootstrap 95% CI, the first line's figures; dashed: the threshold either side of "
		"1. Vermillion: a noisy pair, white: the warm-up pair, both left out of the verdict. The axis spans "
		"the pairs within 5 robust SDs of their median: a pair beyond is drawn on its edge.",
		more);
}

/* The headline metric of each side per pair: the shared noise the ratio cancels. */
static void chart_sides(FILE *out, const struct ab_doc *d, enum ab_metric m, const struct point *pt, size_t n,
			unsigned id)
{
	struct svg_plot p = {.left = 64, .right = 16, .top = 30, .bottom = 48};
	struct svg_tick yt[SVG_MAX_TICKS], xt[SVG_MAX_TICKS];
	_cleanup_free_ double *x = calloc(n + 1, sizeof(double)), *a = calloc(n + 1, sizeof(double)),
			      *b = calloc(n + 1, sizeof(double));
	const char *names[] = {"A", "B (dashed)"}, *colours[] = {COL_A, COL_B};
	double ylo = INFINITY, yhi = 0, xlo, xhi;
	size_t ny, nx, k = 0;
	char cid[32], title[160], ratio[160], side[96], note[96];

	if (!x || !a || !b)
		return;
	axis_labels(d, m, ratio, sizeof(ratio), side, sizeof(side));
	thinned(note, sizeof(note), n, "pairs");
	for (size_t i = 0; i < n; i += stride_of(n), k++) {
		x[k] = pt[i].x;
		a[k] = pt[i].a * texts[m].scale;
		b[k] = pt[i].b * texts[m].scale;
		ylo = fmin(ylo, fmin(a[k], b[k]));
		yhi = fmax(yhi, fmax(a[k], b[k]));
	}
	ylo -= 0.05 * (yhi - ylo);
	yhi += 0.05 * (yhi - ylo);
	ny = svg_ticks_linear(&ylo, &yhi, 5, yt, SVG_MAX_TICKS);
	nx = pair_axis(pt, n, &xlo, &xhi, xt);
	p.x = (struct svg_scale){SVG_LINEAR, xlo, xhi, 0, 0};
	p.y = (struct svg_scale){SVG_LINEAR, ylo, yhi, 0, 0};
	snprintf(cid, sizeof(cid), "chart-ab%u", id);
	snprintf(title, sizeof(title), "%s of each side per pair", ab_metric_label(d, m));
	figure_open(out, "ab-sides", m, title);
	svg_begin(&p, out, 760, 300, cid, title);
	svg_axis_y(&p, yt, ny, side);
	svg_axis_x(&p, xt, nx, "pair, in the order run");
	svg_line(&p, x, a, k, COL_A, false);
	svg_line(&p, x, b, k, COL_B, true);
	svg_legend(&p, names, colours, 2);
	figure_close(&p,
		     "Each side's figure in its window of every pair (the warm-up and noisy pairs too): the host's "
		     "noise moves both sides together, and the ratio above cancels it.",
		     note);
}

/* Each side's throughput window by window on the run's clock: A and B as two series, the warm-up pair and the
 * noisy pairs shaded, as a trial's timeline is drawn (report/html_timeline.c). False when the windows have no
 * throughput (a startup duet's are runs). */
static bool chart_windows(FILE *out, const struct ab_doc *d, unsigned id)
{
	struct svg_plot p = {.left = 64, .right = 16, .top = 30, .bottom = 48};
	struct svg_tick yt[SVG_MAX_TICKS], xt[SVG_MAX_TICKS];
	_cleanup_free_ double *x = calloc(2 * d->nw + 2, sizeof(double)), *y = calloc(2 * d->nw + 2, sizeof(double));
	const char *names[] = {"A", "B", "warm-up pair", "noisy pair"},
		   *colours[] = {COL_A, COL_B, "#999999", COL_NOISY};
	double ylo = 0, yhi = 0, xlo = 0, xhi = 0;
	size_t ny, nx, n[2] = {0, 0}, step = stride_of(d->nw / 2);
	char cid[32], note[224];

	if (!x || !y)
		return false;
	thinned(note, sizeof(note), d->nw / 2, "windows of each side");
	round_marks(note + strlen(note), sizeof(note) - strlen(note), d);
	for (size_t i = 0; i < d->nw; i++) { /* A's points in x[0..nw), B's in x[nw..2nw) */
		const struct ab_window *w = &d->w[i];
		int s = w->side == 'B';
		size_t k = (size_t)s * d->nw + n[s];

		if (!(w->duration_s > 0) || (w->pair % step))
			continue;
		x[k] = w->start_s + w->duration_s / 2;
		y[k] = (double)w->requests / w->duration_s;
		xhi = fmax(xhi, w->start_s + w->duration_s);
		yhi = fmax(yhi, y[k]);
		n[s]++;
	}
	if (!n[0] || !n[1] || !(yhi > 0) || !(xhi > 0))
		return false;
	ny = svg_ticks_linear(&ylo, &yhi, 5, yt, SVG_MAX_TICKS);
	nx = svg_ticks_linear(&xlo, &xhi, 8, xt, SVG_MAX_TICKS);
	p.x = (struct svg_scale){SVG_LINEAR, xlo, xhi, 0, 0};
	p.y = (struct svg_scale){SVG_LINEAR, ylo, yhi, 0, 0};
	snprintf(cid, sizeof(cid), "chart-ab%u", id);
	figure_open(out, "ab-windows", AB_RPS, "throughput of each side window by window, over the run");
	svg_begin(&p, out, 760, 300, cid, "throughput of each side window by window, over the run");
	for (size_t i = 0; i + 1 < d->nw; i += 2) {
		const struct ab_window *wa, *wb;
		enum ab_pair_use use;
		char label[48];

		if (!ab_pair_at(d, i, &wa, &wb, &use) || use == AB_PAIR_COUNTED || wa->pair % step)
			continue;
		snprintf(label, sizeof(label), "pair %u: %s", wa->pair, use == AB_PAIR_WARMUP ? "warm-up" : "noisy");
		svg_span(&p, fmin(wa->start_s, wb->start_s),
			 fmax(wa->start_s + wa->duration_s, wb->start_s + wb->duration_s),
			 use == AB_PAIR_WARMUP ? "span-warmup" : "span-noisy",
			 use == AB_PAIR_WARMUP ? "#999999" : COL_NOISY, use == AB_PAIR_WARMUP ? label : NULL, 0);
	}
	svg_axis_y(&p, yt, ny, rate_unit(d));
	svg_axis_x(&p, xt, nx, "s from the first window");
	round_lines(&p, d, false);
	svg_line(&p, x, y, n[0], COL_A, false);
	svg_line(&p, x + d->nw, y + d->nw, n[1], COL_B, false);
	svg_legend(&p, names, colours, 4);
	figure_close(&p,
		     "Each side's requests per second in each of its windows, at the window's middle on the run's "
		     "clock: the host's noise moves both lines together where the ratio above cancels it, and a "
		     "drift or a stall shows where in the run it came. Shaded: the warm-up pair and the noisy pairs, "
		     "left out of the verdict. Dotted: where a round starts, both servers started afresh.",
		     note);
	return true;
}

/* A row of the table per metric the duet has. */
static void verdict_row(FILE *out, const struct ab_doc *d, enum ab_metric m, double ga, double gb, size_t n)
{
	const struct paired_result *r = &d->metric[m];
	double c, clo, chi;
	char b[96];

	ab_cost(d, m, &c, &clo, &chi);
	fputs("<tr>", out);
	html_td(out, ab_metric_label(d, m));
	html_tdn(out, (double)n);
	html_tdn(out, ga * texts[m].scale);
	html_tdn(out, gb * texts[m].scale);
	html_tdn(out, r->ratio);
	html_tdn(out, c);
	snprintf(b, sizeof(b), isfinite(clo) ? "%.4f – %.4f" : "–", clo, chi);
	html_td(out, b);
	html_tdn(out, r->p);
	fprintf(out, "<td class=\"v-%s\">",
		r->verdict == PV_SLOWER	  ? "bad"
		: r->verdict == PV_FASTER ? "good"
					  : "none");
	svg_escape(out, ab_verdict_name(m, r->verdict));
	fputs("</td>", out);
	html_tdn(out, r->verdict == PV_INCONCLUSIVE && r->pairs_needed ? (double)r->pairs_needed : NAN);
	snprintf(b, sizeof(b), "%s%s%s", r->drift ? "drift" : "", r->drift && r->bimodal ? ", " : "",
		 r->bimodal ? "bimodal" : "");
	html_td(out, b);
	fputs("</tr>\n", out);
}

static int verdict_table(FILE *out, const struct ab_doc *d)
{
	static const char *const heads[] = {"metric",
					    "pairs",
					    "A (geometric mean)",
					    "B (geometric mean)",
					    "B / A",
					    "B / A cost",
					    "95% CI of the cost",
					    "Wilcoxon p",
					    "verdict",
					    "pairs that would settle it",
					    "flags"};

	html_table_open(out,
			strcmp(d->workload, "ws-chat") == 0 ? "Paired verdicts (units: msg/s, ms)"
							    : "Paired verdicts (units: req/s, ms)",
			heads, sizeof(heads) / sizeof(heads[0]));
	for (int m = 0; m < AB_NR_METRICS; m++) {
		double ma, mb;
		size_t n;

		if (ab_side_means(d, (enum ab_metric)m, &ma, &mb, &n) < 0)
			return -1;
		if (!n || !ab_has_metric(d, (enum ab_metric)m))
			continue; /* a metric the duet's workload has not */
		verdict_row(out, d, (enum ab_metric)m, ma, mb, n);
	}
	html_table_close(out);
	return 0;
}

static void side_row(FILE *out, const struct ab_doc *d, int s)
{
	const struct ab_side *x = &d->side[s];
	char b[64];

	fputs("<tr>", out);
	html_td(out, s ? "B" : "A");
	html_td(out, x->runtime);
	html_td(out, x->args);
	html_td(out, x->env);
	html_td(out, x->scenario);
	html_td(out, x->slice);
	html_td(out, x->cpus);
	html_tdn(out, x->port);
	if (ab_simultaneous(d)) /* no side is idle: both are loaded in every block */
		snprintf(b, sizeof(b), "– (first block's CPUs; swapped each block)");
	else
		snprintf(b, sizeof(b), "%.1f%%%s", d->idle_share[s] * 100, d->idle_busy[s] ? " (busy)" : "");
	fputs(d->idle_busy[s] ? "<td class=\"v-warn\">" : "<td>", out);
	svg_escape(out, b);
	fputs("</td>", out);
	fputs("</tr>\n", out);
}

static void kv(FILE *out, const char *k, const char *v)
{
	fputs("<tr>", out);
	html_td(out, k);
	html_td(out, v && *v ? v : "–");
	fputs("</tr>", out);
}

static void settings(FILE *out, const struct ab_doc *d)
{
	static const char *const heads[] = {"setting", "value"};
	static const char *const side_heads[] = {"side",	"runtime",  "arguments",
						 "environment", "scenario", "slice",
						 "CPUs",	"port",	    "CPU while the other is measured (max)"};
	char b[256];

	html_table_open(out, "The sides", side_heads, sizeof(side_heads) / sizeof(side_heads[0]));
	side_row(out, d, 0);
	side_row(out, d, 1);
	html_table_close(out);
	html_table_open(out, "The duet", heads, 2);
	snprintf(b, sizeof(b), "%s (%s)", d->version, d->commit);
	kv(out, "harness", b);
	kv(out, "started", d->started);
	kv(out, "CPU model", d->cpu_model);
	snprintf(b, sizeof(b), "%s (%s), mode %s, engine %s", d->scenario, d->workload, d->mode, d->engine);
	kv(out, "scenario", b);
	if (ab_headline(d) == AB_RPS) { /* a startup or script duet's windows are single runs: no client */
		snprintf(b, sizeof(b), "%u connections, %u threads, per side; %.2f s %s", d->connections, d->threads,
			 d->window_s,
			 ab_simultaneous(d)
				 ? "blocks, both sides at once (a client each, the CPU sets swapped each block)"
				 : "windows, one side at a time");
		kv(out, "client", b);
	}
	snprintf(b, sizeof(b), "threshold %g%%, precision %g%%, max time %.0f s, seed %llu", d->threshold * 100,
		 d->precision * 100, d->max_time_s, (unsigned long long)d->seed);
	kv(out, "settings", b);
	if (d->metric[ab_headline(d)].rounds > 1) {
		const struct paired_result *r = &d->metric[ab_headline(d)];

		snprintf(b, sizeof(b),
			 "%zu rounds of %.0f s, both servers started afresh for each; the rounds' mean log ratios "
			 "spread %.4f (the verdict is theirs)",
			 r->rounds, d->round_s, r->sd_round);
		kv(out, "rounds", b);
	}
	snprintf(b, sizeof(b), "%.1f s, stopped by %s; client CPU %.1f s", d->wall_s, d->stopped[0] ? d->stopped : "–",
		 d->client_cpu_s);
	kv(out, "time", b);
	snprintf(b, sizeof(b), "%zu windows, %zu pairs counted, %zu noisy pairs left out; %llu reconnects, %llu errors",
		 d->nw, d->pairs, d->noisy_pairs, (unsigned long long)d->reconnects, (unsigned long long)d->errors);
	kv(out, "windows", b);
	html_table_close(out);
}

/* The first line, strong, then the sides' line and the flags: ab_print_head's text, each line escaped. */
static int head_lines(FILE *out, const struct ab_doc *d)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	char *line, *save = NULL;
	bool first = true;

	if (!m)
		return -1;
	ab_print_head(m, d, false);
	if (fclose(m) != 0)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), first = false) {
		bool warn = !strncmp(line, "warning:", 8);

		fputs(first ? "<p class=\"headline\"><strong>" : warn ? "<p class=\"v-warn\">" : "<p>", out);
		svg_escape(out, line);
		fputs(first ? "</strong></p>\n" : "</p>\n", out);
	}
	return 0;
}

int html_ab(const struct ab_doc *d, const char *name, FILE *out, struct hx_err *err)
{
	unsigned id = 0;
	bool timed = false; /* the windows drawn on the run's clock: the sides per pair would repeat them */

	html_page_open(out, "harness ab", name);
	if (head_lines(out, d) < 0 || verdict_table(out, d) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (int m = 0; m < AB_NR_METRICS; m++) {
		_cleanup_free_ struct point *pt = NULL;
		size_t n;

		if (points_of(d, (enum ab_metric)m, &pt, &n) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		if (!n || !ab_has_metric(d, (enum ab_metric)m))
			continue;
		chart_ratio(out, d, (enum ab_metric)m, pt, n, ++id);
		if ((enum ab_metric)m == AB_RPS)
			timed = chart_windows(out, d, ++id);
		if ((enum ab_metric)m == ab_headline(d) && !timed) /* a startup or script duet's runs, per pair */
			chart_sides(out, d, (enum ab_metric)m, pt, n, ++id);
	}
	settings(out, d);
	html_page_close(out);
	return 0;
}
