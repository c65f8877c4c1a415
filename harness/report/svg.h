/* A tiny SVG plotting layer: scales (linear, log, the HdrHistogram 1/(1-q) percentile axis), ticks on
 * 1-2-5 steps, axes, bars, whiskers, dots, lines, legends and labels, written as inline SVG. */
#ifndef HX_SVG_H
#define HX_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define SVG_MAX_TICKS 32

enum svg_scale_kind {
	SVG_LINEAR,
	SVG_LOG,	/* base 10; the domain must be > 0 */
	SVG_PERCENTILE, /* q in [0, 1): position log10(1 / (1 - q)) */
};

/* Maps a domain [d0, d1] onto pixels [r0, r1] (r1 < r0 for a y axis growing upwards). */
struct svg_scale {
	enum svg_scale_kind kind;
	double d0, d1, r0, r1;
};

struct svg_tick {
	double v;
	char label[24];
};

/* One chart being written: the plotting area is inside the margins. */
struct svg_plot {
	FILE *out;
	double width, height;
	double left, right, top, bottom; /* margins, px */
	struct svg_scale x, y;
};

/* The Okabe-Ito palette, told apart by colour-blind readers; i wraps around. */
const char *svg_colour(size_t i);

/* s with &, <, >, " and ' escaped, for text and attribute values. */
void svg_escape(FILE *out, const char *s);
/* The same into buf; returns the length the escaped text needs (like snprintf). */
size_t svg_escape_buf(char *buf, size_t len, const char *s);

/* A number for people: three significant digits, k/M/G above a thousand ("29.3k", "0.0123", "–" for NaN). */
void svg_fmt(char *buf, size_t len, double v);
/* A tick label: as many decimals as step needs, nothing more ("1.5k" with a step of 500). */
void svg_fmt_tick(char *buf, size_t len, double v, double step);

/* The 1, 2 or 5 times a power of ten closest to span / target. */
double svg_nice_step(double span, int target);
/* Linear ticks covering [lo, hi] at a nice step; *lo and *hi grow to the outer ticks. Returns the count. */
size_t svg_ticks_linear(double *lo, double *hi, int target, struct svg_tick *ret, size_t max);
/* Decades covering [lo, hi] (lo > 0), with 2 and 5 between them when there are few; the domain grows
 * to whole decades. */
size_t svg_ticks_log(double *lo, double *hi, struct svg_tick *ret, size_t max);
/* Percentile ticks 50%, 90%, 99%, ... up to the first at or beyond hi. */
size_t svg_ticks_percentile(double hi, struct svg_tick *ret, size_t max);

double svg_map(const struct svg_scale *s, double v);

/* Open the <svg> of a plot of width x height with an accessible title; set the ranges of x and y. */
void svg_begin(struct svg_plot *p, FILE *out, double width, double height, const char *id, const char *title);
void svg_end(const struct svg_plot *p);
/* Gridlines and labels for the ticks of each axis; x ticks may be NULL (a categorical axis). */
void svg_axis_x(const struct svg_plot *p, const struct svg_tick *t, size_t n, const char *label);
void svg_axis_y(const struct svg_plot *p, const struct svg_tick *t, size_t n, const char *label);
/* A bar from the y domain's base up to y, between x0 and x1 in x's domain, its value written on it. */
void svg_bar(const struct svg_plot *p, double x0, double x1, double y, const char *colour, const char *label);
/* A vertical whisker from lo to hi at x, with caps. */
void svg_whisker(const struct svg_plot *p, double x, double lo, double hi);
/* The same across: from lo to hi on x, at y. */
void svg_whisker_h(const struct svg_plot *p, double y, double lo, double hi);
/* A dot of class cls (tests count them) with a tooltip. */
void svg_dot(const struct svg_plot *p, double x, double y, const char *colour, const char *cls, const char *tip);
/* A polyline through the points with a finite value, no markers. */
void svg_line(const struct svg_plot *p, const double *x, const double *y, size_t n, const char *colour, bool dashed);
/* A band across the plotting area's height from x0 to x1 in x's domain (clipped to it), of class cls, filled
 * faintly; a label (NULL: none) written at its top left, row rows of text down (neighbours' labels apart),
 * and as its tooltip. */
void svg_span(const struct svg_plot *p, double x0, double x1, const char *cls, const char *fill, const char *label,
	      unsigned row);
/* Text at (x, y) in pixels; anchor "start", "middle" or "end". */
void svg_text(const struct svg_plot *p, double px, double py, const char *anchor, const char *cls, const char *s);
/* Swatches and names in a row above the plotting area. */
void svg_legend(const struct svg_plot *p, const char *const *names, const char *const *colours, size_t n);

#endif
