/* `harness compare A.json B.json`: a verdict per scenario x runtime x mode x metric, and the regression gate. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/esc.h"
#include "base/opt.h"
#include "base/util.h"
#include "cli/verbs.h"
#include "report/compare_report.h"
#include "results/results.h"

struct compare_opts {
	bool help, allow_different_host, allow_different_images;
	const char *format, *fail_on;
	double threshold, alpha;
};

static const struct hx_opt compare_tab[] = {
	{"threshold", 0, OPT_PERCENT, offsetof(struct compare_opts, threshold), "P%",
	 .help = "smallest change that counts, in percent (default 5%)", .min = 0.01, .max = 99},
	{"alpha", 0, OPT_NUMBER, offsetof(struct compare_opts, alpha), "A",
	 .help = "significance level; the CI is 1-A (default 0.05)"},
	{"format", 0, OPT_STR, offsetof(struct compare_opts, format), "FMT",
	 .help = "table, md or json (default table)"},
	{"fail-on", 0, OPT_STR, offsetof(struct compare_opts, fail_on), "WHAT",
	 .help = "regression: exit 1 on a significant regression beyond the threshold (default); quiet-regression: "
		 "only on one with no noisy trial on either side; none: never"},
	{"allow-different-host", 0, OPT_FLAG, offsetof(struct compare_opts, allow_different_host), NULL,
	 .help = "compare files from different hosts, CPU plans or runtime images (the differences are still printed)"},
	{"allow-different-images", 0, OPT_FLAG, offsetof(struct compare_opts, allow_different_images), NULL,
	 .help = "compare runtimes of one name whose images differ (two builds, two versions) on the same host and "
		 "plan"},
	{"help", 'h', OPT_FLAG, offsetof(struct compare_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_compare_opts = compare_tab;

/* A results file, typed, and its cells. */
struct loaded {
	struct res_doc doc;
	struct cmp_side side;
};

static int load(const char *path, struct loaded *l, struct hx_err *err)
{
	memset(l, 0, sizeof(*l));
	if (res_read(path, &l->doc, err) < 0)
		return hx_wrap(err, "compare");
	verb_warn_partial("compare", path, &l->doc);
	l->side.path = path;
	l->side.head = l->doc.head;
	return cmp_cells_from(&l->doc, &l->side.cells, &l->side.ncells, err);
}

static void unload(struct loaded *l)
{
	cmp_cells_free(l->side.cells, l->side.ncells);
	res_doc_free(&l->doc);
}

static int parse_opts(const struct compare_opts *co, struct cmp_opts *o, enum cmp_format *f, struct hx_err *err)
{
	static const char *const formats[] = {"table", "md", "json"};
	const char *fmt = co->format ? co->format : "table";

	*o = (struct cmp_opts){.threshold = 0.05, .alpha = 0.05, .fail_on = CMP_FAIL_REGRESSION};
	if (co->threshold)
		o->threshold = co->threshold;
	if (co->alpha) {
		if (!(co->alpha > 0 && co->alpha <= 0.5))
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "compare: --alpha: expected a level in (0, 0.5] such as 0.05, not %g",
				       co->alpha);
		o->alpha = co->alpha;
	}
	for (size_t i = 0; co->fail_on && i < HX_ARRAY_SIZE(cmp_fail_on_names); i++)
		if (!strcmp(co->fail_on, cmp_fail_on_names[i]))
			o->fail_on = (enum cmp_fail_on)i;
	if (co->fail_on && strcmp(co->fail_on, cmp_fail_on_names[o->fail_on]) != 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "compare: --fail-on: expected regression, quiet-regression or none, not '%s'",
			       co->fail_on);
	o->allow_different_host = co->allow_different_host;
	o->allow_different_images = co->allow_different_images;
	for (int i = 0; i < 3; i++)
		if (!strcmp(fmt, formats[i])) {
			*f = (enum cmp_format)i;
			return 0;
		}
	return hx_fail(err, HX_EXIT_USAGE, EINVAL, "compare: --format: expected table, md or json, not '%s'", fmt);
}

/* The first field that makes the files incomparable, printed with every difference; 0 when none. */
static int refuse(const struct cmp_result *r, const struct cmp_opts *o, const char *a, const char *b,
		  struct hx_err *err)
{
	if (o->allow_different_host)
		return 0;
	for (size_t i = 0; i < r->ndiffs; i++)
		if (r->diffs[i].refuse && !(r->diffs[i].image && o->allow_different_images)) {
			fprintf(stderr, "harness: compare: %s and %s differ:\n", a, b);
			for (size_t j = 0; j < r->ndiffs; j++) {
				char sa[ESC_LEN], sb[ESC_LEN];

				fprintf(stderr, "  %s: %s → %s\n", r->diffs[j].field,
					esc_term(r->diffs[j].a, sa, sizeof(sa)),
					esc_term(r->diffs[j].b, sb, sizeof(sb)));
			}
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "compare: %s differs (%.60s vs %.60s): these runs measured different things; "
				       "%s compares them anyway",
				       r->diffs[i].field, r->diffs[i].a, r->diffs[i].b,
				       r->diffs[i].image ? "--allow-different-images" : "--allow-different-host");
		}
	return 0;
}

/* Two files that are a duet's sides run apart (cmp_duet_sides): said once, on stderr, before anything else. */
static void duet_note(const struct loaded *a, const struct loaded *b, const struct cmp_result *r)
{
	char cmd[600], ea[ESC_LEN], eb[ESC_LEN], ec[ESC_LEN];

	if (cmp_duet_sides(&a->side, &b->side, r, cmd, sizeof(cmd)))
		fprintf(stderr,
			"harness: compare: note: %s and %s each ran one runtime on the same host and plan, as a duet's "
			"two sides run apart; for a paired verdict on B against A, prefer a duet, both measured at "
			"once "
			"(docs/ab.md): %s\n",
			esc_term(a->side.path, ea, sizeof(ea)), esc_term(b->side.path, eb, sizeof(eb)),
			esc_term(cmd, ec, sizeof(ec)));
}

static int judge(const struct loaded *a, const struct loaded *b, const struct cmp_opts *o, enum cmp_format f,
		 const struct cmp_result *r, struct hx_err *err)
{
	duet_note(a, b, r);
	if (refuse(r, o, a->side.path, b->side.path, err) < 0)
		return -1;
	if (!r->nrows)
		return hx_fail(err, HX_EXIT_USAGE, ENOENT,
			       "compare: no scenario x runtime x mode x metric with passed trials in both files");
	cmp_render(&a->side, &b->side, o, r, f, stdout);
	return r->gate == CMP_GATE_FAILED     ? HX_EXIT_VERDICT
	       : r->gate == CMP_GATE_UNJUDGED ? CMP_EXIT_UNJUDGED
					      : HX_EXIT_OK;
}

static int compare(const char *pa, const char *pb, const struct cmp_opts *o, enum cmp_format f, struct hx_err *err)
{
	struct loaded a, b;
	struct cmp_result r = {0};
	int rc;

	if (load(pa, &a, err) < 0) {
		unload(&a);
		return -1;
	}
	if (load(pb, &b, err) < 0 || cmp_run(&a.side, &b.side, o, &r, err) < 0)
		rc = -1;
	else
		rc = judge(&a, &b, o, f, &r, err);
	cmp_result_free(&r);
	unload(&a);
	unload(&b);
	return rc;
}

int verb_compare(int argc, char **argv)
{
	struct compare_opts co = {0};
	struct hx_err err = {0};
	struct cmp_opts o;
	enum cmp_format f = CMP_TABLE;
	int npos, rc;

	if (opt_parse("compare", compare_tab, &co, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (co.help) {
		opt_print_help(
			stdout,
			"harness compare A.json B.json [--threshold 5%] [--alpha 0.05] [--format table|md|json]\n"
			"                [--fail-on regression|quiet-regression|none] [--allow-different-host]\n"
			"                [--allow-different-images]",
			"Compare two results files: per scenario, runtime, mode and metric in both, the medians,\n"
			"their ratio B/A with a bootstrap CI, a Mann-Whitney p (Holm-adjusted over the rows) and a\n"
			"verdict: better, worse, below threshold, equivalent, inconclusive (with the trials that\n"
			"would settle it) or too few trials.\n"
			"Exit 1 when a row is a significant regression beyond the threshold; exit 5 when no gated\n"
			"row had the trials for any verdict (not a pass); exit 2 when the files come from\n"
			"different hosts, CPU plans or runtime images.",
			compare_tab);
		return HX_EXIT_OK;
	}
	if (npos != 2) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL,
			"compare: expected two results files: harness compare A.json B.json");
		return hx_report(&err);
	}
	if (parse_opts(&co, &o, &f, &err) < 0)
		return hx_report(&err);
	rc = compare(argv[1], argv[2], &o, f, &err);
	return rc < 0 ? hx_report(&err) : rc;
}
