/* `harness report FILE`: a results file, read back into typed trials, rendered again (summaries
 * recomputed, so a file from an older harness shows every metric this one knows): a table, an HTML page,
 * or the JSON that github-action-benchmark and hyperfine's scripts read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/err.h"
#include "base/opt.h"
#include "base/util.h"
#include "cli/verbs.h"
#include "report/ab_report.h"
#include "report/export.h"
#include "report/html.h"
#include "report/html_ab.h"
#include "report/report.h"
#include "results/results.h"

struct report_opts {
	bool help;
	const char *format, *out, *direction;
};

static const struct hx_opt report_tab[] = {
	{"format", 0, OPT_STR, offsetof(struct report_opts, format), "FMT",
	 .help = "md (default), table, json, csv, html, gab (github-action-benchmark) or hyperfine"},
	{"out", 'o', OPT_STR, offsetof(struct report_opts, out), "FILE",
	 .help = "write FILE (atomically) instead of stdout", .check = OPT_CHECK_OUT_FILE},
	{"direction", 0, OPT_STR, offsetof(struct report_opts, direction), "DIR",
	 .help = "gab: bigger (throughput, default) or smaller (startup and p99 latency)"},
	{"help", 'h', OPT_FLAG, offsetof(struct report_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_report_opts = report_tab;

#define REPORT_USAGE                                                                      \
	"harness report FILE [--format md|table|json|csv|html|gab|hyperfine] [-o FILE]\n" \
	"       harness report A.json B.json --format html [-o FILE]"

/* A JSON export, printed. */
static int report_export(const struct res_doc *d, const struct report_opts *o, enum report_format f, FILE *out,
			 struct hx_err *err)
{
	cJSON *x = f == RPT_GAB ? export_gab(d, !o->direction || strcmp(o->direction, "smaller") != 0, err)
				: export_hyperfine(d, err);
	_cleanup_free_ char *s = x ? cJSON_Print(x) : NULL;

	cJSON_Delete(x);
	if (!x)
		return -err->errnum;
	if (!s)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	fprintf(out, "%s\n", s);
	return 0;
}

/* Text rendered in memory, written to -o atomically or to stdout. */
static int report_write(const struct report_opts *o, const char *text, size_t len, struct hx_err *err)
{
	if (o->out)
		return util_write_atomic(o->out, text, len, err);
	if (fwrite(text, 1, len, stdout) != len)
		return hx_syserr(err, "report: stdout");
	return 0;
}

/* The whole rendering in memory first: nothing is written when a format refuses the file. */
static int report_emit(const struct res_doc *d, const struct report_opts *o, enum report_format f, const char *name,
		       struct hx_err *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int rc;

	if (!m)
		return hx_syserr(err, "report: open_memstream");
	if (f == RPT_HTML)
		rc = html_render(d, name, m, err);
	else if (f == RPT_GAB || f == RPT_HYPERFINE)
		rc = report_export(d, o, f, m, err);
	else
		rc = report_render(d, f, m, err);
	if (fclose(m) != 0 && rc == 0)
		rc = hx_syserr(err, "report: open_memstream");
	if (rc < 0)
		return rc;
	return report_write(o, text, len, err);
}

/* The comparison page of two files: harness compare's rows, drawn. */
static int report_two(const char *pa, const char *pb, const struct report_opts *o)
{
	struct hx_err err = {0};
	struct res_doc a = {0}, b = {0};
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *m;
	int rc = -1;

	if (res_read(pa, &a, &err) < 0 || res_read(pb, &b, &err) < 0) {
		hx_wrap(&err, "report");
		goto out;
	}
	if (!(m = open_memstream(&text, &len))) {
		hx_syserr(&err, "report: open_memstream");
		goto out;
	}
	verb_warn_partial("report", pa, &a);
	verb_warn_partial("report", pb, &b);
	rc = html_compare(&a, basename(pa), &b, basename(pb), m, &err);
	fclose(m);
	if (rc == 0 && o->out)
		rc = util_write_atomic(o->out, text, len, &err);
	else if (rc == 0 && fwrite(text, 1, len, stdout) != len)
		rc = hx_syserr(&err, "report: stdout");
out:
	res_doc_free(&a);
	res_doc_free(&b);
	return rc < 0 ? hx_report(&err) : HX_EXIT_OK;
}

/* A duet's document (harness ab, docs/ab.md): its first line and table, its windows as CSV, its page, or its
 * JSON. */
static int report_ab(const char *path, const struct report_opts *o, enum report_format f, struct hx_err *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	struct ab_doc d;
	FILE *m;
	int rc = 0;

	if (f == RPT_GAB || f == RPT_HYPERFINE)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "report: a harness-ab file renders as table, md, json, csv or html"),
		       hx_report(err);
	if (ab_read(path, &d, err) < 0)
		return hx_report(err);
	if (!(m = open_memstream(&text, &len))) {
		ab_free(&d);
		return hx_syserr(err, "report: open_memstream"), hx_report(err);
	}
	if (f == RPT_HTML)
		rc = html_ab(&d, basename(path), m, err);
	else
		ab_print(m, &d, f);
	ab_free(&d);
	if (fclose(m) != 0 && rc == 0)
		rc = hx_syserr(err, "report: open_memstream");
	if (rc == 0)
		rc = report_write(o, text, len, err);
	return rc < 0 ? hx_report(err) : HX_EXIT_OK;
}

int verb_report(int argc, char **argv)
{
	const char *format = "md";
	struct hx_err err = {0};
	struct report_opts o = {0};
	enum report_format f;
	struct res_doc d;
	int npos, rc;

	if (opt_parse("report", report_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(stdout, REPORT_USAGE,
			       "Re-render a results file: a table, an HTML page with charts, or the JSON that "
			       "github-action-benchmark and hyperfine's scripts read.",
			       report_tab);
		return HX_EXIT_OK;
	}
	if (o.format)
		format = o.format;
	if (report_format_parse(format, &f) < 0) {
		char names[128] = "";

		for (int i = 0; i < RPT_NR_FORMATS; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
				 report_format_names[i]);
		hx_fail(&err, HX_EXIT_USAGE, EINVAL, "report: --format takes %s, not '%s'", names, format);
		return hx_report(&err);
	}
	if (npos == 2 && f != RPT_HTML) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL,
			"report: two files make an HTML page (--format html); for a table, 'harness compare A.json "
			"B.json'");
		return hx_report(&err);
	}
	if (npos < 1 || npos > 2) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL,
			"report: give one results file, or two with --format html: " REPORT_USAGE);
		return hx_report(&err);
	}
	if (o.direction && strcmp(o.direction, "bigger") != 0 && strcmp(o.direction, "smaller") != 0) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL, "report: --direction takes bigger or smaller");
		return hx_report(&err);
	}
	if (npos == 2)
		return report_two(argv[1], argv[2], &o);
	if (ab_is_file(argv[1]))
		return report_ab(argv[1], &o, f, &err);
	if (res_read(argv[1], &d, &err) < 0) {
		hx_wrap(&err, "report");
		return hx_report(&err);
	}
	verb_warn_partial("report", argv[1], &d);
	/* summaries from the trials, so that a file written by an older harness shows every metric this one
	 * knows */
	rc = report_emit(&d, &o, f, basename(argv[1]), &err);
	res_doc_free(&d);
	return rc < 0 ? hx_report(&err) : HX_EXIT_OK;
}
