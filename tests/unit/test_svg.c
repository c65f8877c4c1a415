/* The plotting layer: number formatting, tick choice on 1-2-5 steps, log and percentile axes, escaping. */
#include "testutil.h"

#include <math.h>

#include "report/svg.h"

static const char *fmt(double v)
{
	static char buf[32];

	svg_fmt(buf, sizeof(buf), v);
	return buf;
}

static const char *fmt_tick(double v, double step)
{
	static char buf[32];

	svg_fmt_tick(buf, sizeof(buf), v, step);
	return buf;
}

static void test_fmt(void **state)
{
	(void)state;
	assert_string_equal(fmt(0), "0");
	assert_string_equal(fmt(34.392096), "34.4");
	assert_string_equal(fmt(2), "2");
	assert_string_equal(fmt(29312.31), "29.3k");
	assert_string_equal(fmt(1500000), "1.5M");
	assert_string_equal(fmt(0.0123), "0.0123");
	assert_string_equal(fmt(-4200), "-4.2k");
	/* rounding to three digits carries into the next unit */
	assert_string_equal(fmt(999.7), "1k");
	assert_string_equal(fmt(99.97), "100");
	assert_string_equal(fmt(999999), "1M");
	assert_string_equal(fmt(NAN), "–");
}

static void test_fmt_tick(void **state)
{
	(void)state;
	assert_string_equal(fmt_tick(1500, 500), "1.5k");
	assert_string_equal(fmt_tick(2000, 500), "2k");
	assert_string_equal(fmt_tick(0.30000000000000004, 0.1), "0.3");
	assert_string_equal(fmt_tick(1e-17, 0.1), "0"); /* float dust at zero */
	assert_string_equal(fmt_tick(25, 5), "25");
	assert_string_equal(fmt_tick(12500, 2500), "12.5k");
	assert_string_equal(fmt_tick(0.05, 0.05), "0.05");
}

static void test_nice_step(void **state)
{
	(void)state;
	assert_true(svg_nice_step(10, 5) == 2);
	assert_true(svg_nice_step(100, 4) == 20); /* 25 -> 20 */
	assert_true(svg_nice_step(100, 3) == 20); /* 33 is nearer 20 than 50 */
	assert_true(svg_nice_step(100, 2) == 50);
	assert_true(svg_nice_step(29312, 5) == 5000);
	assert_true(fabs(svg_nice_step(0.7, 5) - 0.1) < 1e-15);
	assert_true(svg_nice_step(0, 5) == 1); /* no span: a harmless step, not a NaN */
}

static void test_ticks_linear(void **state)
{
	struct svg_tick t[SVG_MAX_TICKS];
	double lo = 0, hi = 29312.31;
	size_t n;

	(void)state;
	n = svg_ticks_linear(&lo, &hi, 5, t, SVG_MAX_TICKS);
	assert_int_equal(n, 7);
	assert_true(lo == 0 && hi == 30000);
	assert_string_equal(t[0].label, "0");
	assert_string_equal(t[1].label, "5k");
	assert_string_equal(t[6].label, "30k");
	for (size_t i = 1; i < n; i++)
		assert_true(fabs(t[i].v - t[i - 1].v - 5000) < 1e-9);

	lo = 3.2, hi = 3.9;
	n = svg_ticks_linear(&lo, &hi, 5, t, SVG_MAX_TICKS);
	assert_true(fabs(lo - 3.2) < 1e-9 && fabs(hi - 3.9) < 1e-9);
	assert_int_equal(n, 8);
	assert_string_equal(t[7].label, "3.9");

	/* one value: the domain widens around it rather than dividing by zero */
	lo = hi = 40;
	n = svg_ticks_linear(&lo, &hi, 5, t, SVG_MAX_TICKS);
	assert_true(lo <= 20 && hi >= 60 && n >= 2);

	/* a cap on the count moves to the next nice step rather than cutting the axis short */
	lo = 0, hi = 100;
	n = svg_ticks_linear(&lo, &hi, 50, t, 6);
	assert_true(n <= 6 && hi >= 100);
	assert_true(t[n - 1].v >= 100);
}

static void test_ticks_log(void **state)
{
	struct svg_tick t[SVG_MAX_TICKS];
	double lo = 8241.253, hi = 790283.857;
	size_t n;

	(void)state;
	n = svg_ticks_log(&lo, &hi, t, SVG_MAX_TICKS);
	assert_true(lo == 1000 && hi == 1e6);
	assert_int_equal(n, 4);
	assert_string_equal(t[0].label, "1k");
	assert_string_equal(t[3].label, "1M");

	/* within two decades: 1, 2, 5 in each */
	lo = 12, hi = 900;
	n = svg_ticks_log(&lo, &hi, t, SVG_MAX_TICKS);
	assert_int_equal(n, 7);
	assert_string_equal(t[1].label, "20");
	assert_string_equal(t[2].label, "50");
	assert_string_equal(t[6].label, "1k");

	/* twenty decades: labels thinned to about eight */
	lo = 1e-10, hi = 1e10;
	n = svg_ticks_log(&lo, &hi, t, SVG_MAX_TICKS);
	assert_true(n <= 11 && n >= 5);
}

static void test_percentile_axis(void **state)
{
	struct svg_tick t[SVG_MAX_TICKS];
	struct svg_scale s = {SVG_PERCENTILE, 0, 0.999, 0, 300};
	size_t n;

	(void)state;
	n = svg_ticks_percentile(0.999, t, SVG_MAX_TICKS);
	assert_int_equal(n, 5);
	assert_string_equal(t[0].label, "0%");
	assert_string_equal(t[1].label, "50%");
	assert_string_equal(t[2].label, "90%");
	assert_string_equal(t[3].label, "99%");
	assert_string_equal(t[4].label, "99.9%");
	/* each nine is the same width: 90% at a third, 99% at two thirds */
	assert_true(fabs(svg_map(&s, 0.9) - 100) < 1e-9);
	assert_true(fabs(svg_map(&s, 0.99) - 200) < 1e-9);
	assert_true(fabs(svg_map(&s, 0) - 0) < 1e-9);
	n = svg_ticks_percentile(0.99995, t, SVG_MAX_TICKS);
	assert_string_equal(t[n - 1].label, "99.999%");
}

static void test_map(void **state)
{
	struct svg_scale lin = {SVG_LINEAR, 0, 100, 300, 20};
	struct svg_scale lg = {SVG_LOG, 10, 1000, 0, 200};

	(void)state;
	assert_true(svg_map(&lin, 0) == 300 && svg_map(&lin, 100) == 20); /* y grows upwards */
	assert_true(fabs(svg_map(&lin, 50) - 160) < 1e-9);
	assert_true(fabs(svg_map(&lg, 100) - 100) < 1e-9);
}

static void test_escape(void **state)
{
	char buf[128];
	size_t n;

	(void)state;
	n = svg_escape_buf(buf, sizeof(buf), "a<b>&\"c\"'d'");
	assert_string_equal(buf, "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
	assert_int_equal(n, strlen(buf));
	/* a runtime named like markup stays text */
	svg_escape_buf(buf, sizeof(buf), "<script>alert(1)</script>");
	assert_null(strchr(buf, '<'));
	/* controls are not XML; they become '?' */
	svg_escape_buf(buf, sizeof(buf), "a\001b\tc");
	assert_string_equal(buf, "a?b\tc");
	/* short buffer: cut, terminated, the full length returned */
	n = svg_escape_buf(buf, 6, "&&&");
	assert_int_equal(n, 15);
	assert_string_equal(buf, "&amp;");
}

/* A bar's label is escaped in the SVG stream too, and the marks carry the classes tests count. */
static void test_stream(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct svg_plot p = {0};

	(void)state;
	p.x = (struct svg_scale){SVG_LINEAR, 0, 2, 0, 0};
	p.y = (struct svg_scale){SVG_LINEAR, 0, 100, 0, 0};
	svg_begin(&p, f, 400, 200, "c1", "rps & <things>");
	svg_bar(&p, 0.1, 0.9, 50, svg_colour(0), "a\"b");
	svg_dot(&p, 0.5, 40, svg_colour(0), "trial", "t<1>");
	svg_end(&p);
	fclose(f);
	assert_non_null(strstr(text, "<title id=\"c1-t\">rps &amp; &lt;things&gt;</title>"));
	assert_non_null(strstr(text, "class=\"bar\""));
	assert_non_null(strstr(text, "a&quot;b"));
	assert_non_null(strstr(text, "class=\"trial\""));
	assert_non_null(strstr(text, "t&lt;1&gt;"));
	assert_null(strstr(text, "a\"b"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt),	  cmocka_unit_test(test_fmt_tick),
		cmocka_unit_test(test_nice_step), cmocka_unit_test(test_ticks_linear),
		cmocka_unit_test(test_ticks_log), cmocka_unit_test(test_percentile_axis),
		cmocka_unit_test(test_map),	  cmocka_unit_test(test_escape),
		cmocka_unit_test(test_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
