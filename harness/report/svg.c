/* A tiny SVG plotting layer: scales, nice ticks, axes and marks, written straight to a stream. */
#include "report/svg.h"

#include <math.h>
#include <string.h>

const char *svg_colour(size_t i)
{
	/* Okabe & Ito (2008), ordered so neighbours contrast; yellow late, it is faint on white */
	static const char *const okabe_ito[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
						"#CC79A7", "#56B4E9", "#F0E442", "#000000"};

	return okabe_ito[i % (sizeof(okabe_ito) / sizeof(okabe_ito[0]))];
}

/* The entity for c, or NULL when c stands for itself. Controls are not allowed in XML 1.0. */
static const char *entity(unsigned char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	case '\t':
	case '\n':
	case '\r':
		return NULL;
	default:
		return c < 0x20 || c == 0x7f ? "?" : NULL;
	}
}

void svg_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		const char *e = entity((unsigned char)*s);

		if (e)
			fputs(e, out);
		else
			fputc(*s, out);
	}
}

size_t svg_escape_buf(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	for (; s && *s; s++) {
		const char *e = entity((unsigned char)*s);
		char one[2] = {*s, 0};

		for (const char *p = e ? e : one; *p; p++, n++)
			if (n + 1 < len)
				buf[n] = *p;
	}
	if (len)
		buf[n < len ? n : len - 1] = 0;
	return n;
}

/* Drop trailing zeros of a decimal fraction: "29.30" -> "29.3", "2.00" -> "2". */
static void trim_zeros(char *s)
{
	char *dot = strchr(s, '.'), *end;

	if (!dot)
		return;
	end = s + strlen(s);
	while (end > dot + 1 && end[-1] == '0')
		*--end = 0;
	if (end == dot + 1)
		*dot = 0;
}

static const char *const si[] = {"", "k", "M", "G", "T"};
#define NR_SI (sizeof(si) / sizeof(si[0]))

void svg_fmt(char *buf, size_t len, double v)
{
	double a = fabs(v);
	size_t i = 0;

	if (isnan(v)) {
		snprintf(buf, len, "–");
		return;
	}
	if (isinf(v) || a == 0 || a < 1) {
		snprintf(buf, len, isinf(v) ? (v > 0 ? "∞" : "-∞") : "%.3g", v == 0 ? 0.0 : v);
		return;
	}
	/* 999.5 rounds to 1000 at three digits: it is written 1k */
	while (a >= 999.5 && i + 1 < NR_SI) {
		a /= 1000;
		i++;
	}
	snprintf(buf, len, "%.*f", a < 9.995 ? 2 : a < 99.95 ? 1 : 0, v < 0 ? -a : a);
	trim_zeros(buf);
	snprintf(buf + strlen(buf), len - strlen(buf), "%s", si[i]);
}

void svg_fmt_tick(char *buf, size_t len, double v, double step)
{
	double d = 1;
	size_t i = 0;
	int decimals;

	if (fabs(v) < fabs(step) * 1e-9 || v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	while (fabs(v) / d >= 1000 && i + 1 < NR_SI) {
		d *= 1000;
		i++;
	}
	/* the fewest decimals that write the step exactly: 0.05 needs two, 2.5 one */
	for (decimals = 0; decimals < 9; decimals++) {
		double x = fabs(step / d) * pow(10, decimals);

		if (fabs(x - round(x)) < 1e-6 * (x > 1 ? x : 1))
			break;
	}
	snprintf(buf, len, "%.*f", decimals, v / d);
	trim_zeros(buf);
	snprintf(buf + strlen(buf), len - strlen(buf), "%s", si[i]);
}

double svg_nice_step(double span, int target)
{
	double raw, mag, f;

	if (!(span > 0) || !isfinite(span) || target < 1)
		return 1;
	raw = span / target;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

size_t svg_ticks_linear(double *lo, double *hi, int target, struct svg_tick *ret, size_t max)
{
	double step, first, last;
	size_t n;

	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
	}
	if (!(*hi > *lo)) {
		double d = *lo != 0 ? fabs(*lo) / 2 : 1;

		*lo -= d;
		*hi += d;
	}
	step = svg_nice_step(*hi - *lo, target);
	for (;;) {
		first = floor(*lo / step + 1e-9) * step;
		last = ceil(*hi / step - 1e-9) * step;
		n = (size_t)llround((last - first) / step) + 1;
		if (n <= max || max < 2)
			break;
		step = svg_nice_step(step * 2.2, 1); /* the next nice step up: 1 -> 2 -> 5 -> 10 */
	}
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++) {
		ret[i].v = first + (double)i * step;
		svg_fmt_tick(ret[i].label, sizeof(ret[i].label), ret[i].v, step);
	}
	*lo = first;
	*hi = last;
	return n;
}

size_t svg_ticks_log(double *lo, double *hi, struct svg_tick *ret, size_t max)
{
	int d0, d1, every;
	size_t n = 0;

	if (!(*lo > 0) || !isfinite(*lo))
		*lo = 1;
	if (!(*hi > *lo) || !isfinite(*hi))
		*hi = *lo * 10;
	d0 = (int)floor(log10(*lo) + 1e-9);
	d1 = (int)ceil(log10(*hi) - 1e-9);
	if (d1 <= d0)
		d1 = d0 + 1;
	every = (d1 - d0 + 7) / 8; /* no more than about eight decade labels */
	for (int e = d0; e <= d1 && n < max; e += every) {
		static const double mult[] = {1, 2, 5};

		for (size_t k = 0; k < (d1 - d0 <= 2 && e < d1 ? 3u : 1u) && n < max; k++) {
			ret[n].v = mult[k] * pow(10, e);
			svg_fmt(ret[n].label, sizeof(ret[n].label), ret[n].v);
			n++;
		}
	}
	*lo = pow(10, d0);
	*hi = pow(10, d1);
	return n;
}

size_t svg_ticks_percentile(double hi, struct svg_tick *ret, size_t max)
{
	size_t n = 0;

	if (n < max) {
		ret[n].v = 0;
		snprintf(ret[n++].label, sizeof(ret[0].label), "0%%");
	}
	if (n < max) {
		ret[n].v = 0.5;
		snprintf(ret[n++].label, sizeof(ret[0].label), "50%%");
	}
	for (int k = 1; n < max && k <= 9; k++) {
		double q = 1 - pow(10, -k);

		ret[n].v = q;
		snprintf(ret[n++].label, sizeof(ret[0].label), "%.*f%%", k > 2 ? k - 2 : 0, 100 * q);
		if (q >= hi - 1e-12)
			break;
	}
	return n;
}

/* Where v lies along the scale's own axis: itself, its logarithm, or the nines of a quantile. */
static double along(enum svg_scale_kind k, double v)
{
	switch (k) {
	case SVG_LOG:
		return log10(v);
	case SVG_PERCENTILE:
		return -log10(1 - v);
	case SVG_LINEAR:
	default:
		return v;
	}
}

double svg_map(const struct svg_scale *s, double v)
{
	double a = along(s->kind, s->d0), b = along(s->kind, s->d1);

	if (!(b != a) || !isfinite(a) || !isfinite(b))
		return s->r0;
	return s->r0 + (along(s->kind, v) - a) / (b - a) * (s->r1 - s->r0);
}

void svg_begin(struct svg_plot *p, FILE *out, double width, double height, const char *id, const char *title)
{
	p->out = out;
	p->width = width;
	p->height = height;
	if (!p->left && !p->right && !p->top && !p->bottom) {
		p->left = 64;
		p->right = 16;
		p->top = 30;
		p->bottom = 48;
	}
	p->x.r0 = p->left;
	p->x.r1 = width - p->right;
	p->y.r0 = height - p->bottom;
	p->y.r1 = p->top;
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\" viewBox=\"0 0 %.0f %.0f\" "
		"width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-labelledby=\"%s-t\"><title id=\"%s-t\">",
		id, width, height, width, height, id, id);
	svg_escape(out, title);
	fputs("</title>\n", out);
}

void svg_end(const struct svg_plot *p)
{
	fputs("</svg>\n", p->out);
}

void svg_axis_y(const struct svg_plot *p, const struct svg_tick *t, size_t n, const char *label)
{
	for (size_t i = 0; i < n; i++) {
		double y = svg_map(&p->y, t[i].v);

		fprintf(p->out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", p->x.r0,
			p->x.r1, y, y);
		svg_text(p, p->x.r0 - 6, y + 4, "end", "tick", t[i].label);
	}
	if (label) {
		double cy = (p->y.r0 + p->y.r1) / 2;

		fprintf(p->out,
			"<text class=\"axislabel\" text-anchor=\"middle\" transform=\"translate(14 %.1f) "
			"rotate(-90)\">",
			cy);
		svg_escape(p->out, label);
		fputs("</text>\n", p->out);
	}
}

void svg_axis_x(const struct svg_plot *p, const struct svg_tick *t, size_t n, const char *label)
{
	for (size_t i = 0; t && i < n; i++) {
		double x = svg_map(&p->x, t[i].v);

		fprintf(p->out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x, p->y.r1,
			p->y.r0);
		svg_text(p, x, p->y.r0 + 16, "middle", "tick", t[i].label);
	}
	fprintf(p->out, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", p->x.r0, p->x.r1,
		p->y.r0, p->y.r0);
	if (label)
		svg_text(p, (p->x.r0 + p->x.r1) / 2, p->height - 6, "middle", "axislabel", label);
}

void svg_bar(const struct svg_plot *p, double x0, double x1, double y, const char *colour, const char *label)
{
	double a = svg_map(&p->x, x0), b = svg_map(&p->x, x1);
	double top = svg_map(&p->y, y), base = p->y.r0;

	if (!isfinite(top) || top > base)
		top = base;
	fprintf(p->out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
		a < b ? a : b, top, fabs(b - a), base - top, colour);
	fputs("<title>", p->out);
	svg_escape(p->out, label);
	fputs("</title></rect>", p->out);
	/* inside the bar when it is tall enough; a white halo keeps the text legible on any colour */
	svg_text(p, (a + b) / 2, base - top > 20 ? base - 6 : top - 4, "middle", "barlabel", label);
}

void svg_whisker(const struct svg_plot *p, double x, double lo, double hi)
{
	double px = svg_map(&p->x, x), a = svg_map(&p->y, lo), b = svg_map(&p->y, hi);

	if (!isfinite(a) || !isfinite(b))
		return;
	fprintf(p->out, "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\"/>", px, a, b,
		px - 5, a, px + 5, px - 5, b, px + 5);
}

void svg_whisker_h(const struct svg_plot *p, double y, double lo, double hi)
{
	double py = svg_map(&p->y, y), a = svg_map(&p->x, lo), b = svg_map(&p->x, hi);

	if (!isfinite(a) || !isfinite(b))
		return;
	fprintf(p->out, "<path class=\"whisker\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\"/>", a, py, b, a,
		py - 4, py + 4, b, py - 4, py + 4);
}

void svg_dot(const struct svg_plot *p, double x, double y, const char *colour, const char *cls, const char *tip)
{
	double px = svg_map(&p->x, x), py = svg_map(&p->y, y);

	if (!isfinite(px) || !isfinite(py))
		return;
	fprintf(p->out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", cls, px, py,
		colour);
	svg_escape(p->out, tip);
	fputs("</title></circle>", p->out);
}

void svg_line(const struct svg_plot *p, const double *x, const double *y, size_t n, const char *colour, bool dashed)
{
	fprintf(p->out, "<polyline class=\"curve\" fill=\"none\" stroke=\"%s\"%s points=\"", colour,
		dashed ? " stroke-dasharray=\"6 3\"" : "");
	for (size_t i = 0; i < n; i++) {
		double px = svg_map(&p->x, x[i]), py = svg_map(&p->y, y[i]);

		if (isfinite(px) && isfinite(py))
			fprintf(p->out, "%.1f,%.1f ", px, py);
	}
	fputs("\"/>\n", p->out);
}

void svg_span(const struct svg_plot *p, double x0, double x1, const char *cls, const char *fill, const char *label,
	      unsigned row)
{
	double a = svg_map(&p->x, x0), b = svg_map(&p->x, x1);
	double lo = fmin(p->x.r0, p->x.r1), hi = fmax(p->x.r0, p->x.r1);

	if (!isfinite(a) || !isfinite(b))
		return;
	a = fmin(fmax(a, lo), hi);
	b = fmin(fmax(b, lo), hi);
	if (b < a) {
		double t = a;

		a = b;
		b = t;
	}
	fprintf(p->out,
		"<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		"fill-opacity=\"0.14\">",
		cls, a, p->y.r1, b - a, p->y.r0 - p->y.r1, fill);
	if (label) {
		fputs("<title>", p->out);
		svg_escape(p->out, label);
		fputs("</title></rect>", p->out);
		svg_text(p, a + 2, p->y.r1 + 10 + 11 * row, "start", "sub", label);
	} else {
		fputs("</rect>", p->out);
	}
	fputc('\n', p->out);
}

void svg_text(const struct svg_plot *p, double px, double py, const char *anchor, const char *cls, const char *s)
{
	fprintf(p->out, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls, px, py, anchor);
	svg_escape(p->out, s);
	fputs("</text>", p->out);
}

void svg_legend(const struct svg_plot *p, const char *const *names, const char *const *colours, size_t n)
{
	double x = p->x.r0, y = p->top - 18;

	for (size_t i = 0; i < n; i++) {
		fprintf(p->out, "<rect class=\"swatch\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>",
			x, y, colours[i]);
		svg_text(p, x + 14, y + 9, "start", "legend", names[i]);
		x += 14 + 7 * (double)strlen(names[i]) + 16;
	}
	fputc('\n', p->out);
}
