/* Timelines in the HTML report (html_timeline.h): four small charts sharing the time axis, one line per
 * trial in its runtime's colour; a trial flagged not_steady or leak is dashed and named in the caption. */
#include "report/html_timeline.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

static bool flagged(const struct trial_result *t)
{
	return t->timeline.steady.not_steady || t->timeline.growth.leak;
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

void html_timelines(FILE *out, const struct res_doc *d, const char *scn, const char *const *runtimes,
		    const char *const *colours, size_t nruntimes, unsigned *nchart)
{
	double t_max = 0;
	bool any_flag = false;

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];

		if (!strcmp(t->scenario, scn) && t->timeline.n) {
			t_max = fmax(t_max, t->timeline.n * t->timeline.interval_ms / 1e3);
			any_flag |= flagged(t);
		}
	}
	if (!(t_max > 0))
		return;
	fputs("<figure data-chart=\"timeline\" data-scenario=\"", out);
	svg_escape(out, scn);
	fputs("\"><h3>Inside the trials: the measured load over time</h3>\n", out);
	for (int k = 0; k < TS_NR; k++)
		chart(out, d, scn, (enum tl_series)k, t_max, runtimes, colours, nruntimes, nchart);
	fputs("<figcaption>One line per trial in its runtime's colour, from the load client's intervals "
	      "(throughput, p99) and harness's samples of the server (RSS, CPU) at the same cadence; the warm-up "
	      "ran before. ",
	      out);
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
}
