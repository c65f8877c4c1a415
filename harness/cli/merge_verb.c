/* `harness merge A.json B.json ... -o all.json`: the shards of one plan (run --shard I/N, on as many
 * machines) joined into the results file one run would have written: trials in the plan's order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/err.h"
#include "base/opt.h"
#include "cli/verbs.h"
#include "report/report.h"
#include "results/adcost.h"
#include "results/compare.h"
#include "results/results.h"

#define MERGE_MAX 64

struct merge_opts {
	bool help, allow_different;
	const char *out, *format;
};

static const struct hx_opt merge_tab[] = {
	{"out", 'o', OPT_STR, offsetof(struct merge_opts, out), "FILE", .help = "the merged results file (required)",
	 .check = OPT_CHECK_OUT_FILE},
	{"format", 0, OPT_STR, offsetof(struct merge_opts, format), "FMT",
	 .help = "table, md or json on stdout (default table)"},
	{"allow-different", 0, OPT_FLAG, offsetof(struct merge_opts, allow_different), NULL,
	 .help = "merge files from different host classes, budgets, images or plans (the differences are still "
		 "printed; in and out of the sandbox never)"},
	{"help", 'h', OPT_FLAG, offsetof(struct merge_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_merge_opts = merge_tab;

static const cJSON *shard_of(const struct res_doc *d)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "shard");
}

static double shard_num(const struct res_doc *d, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(shard_of(d), key);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *shard_plan(const struct res_doc *d)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(shard_of(d), "plan");

	return cJSON_IsString(v) ? v->valuestring : "(none)";
}

/* What makes file k another experiment than file 0: host class, budget, plan and images as compare judges
 * them, and the shard plan; every difference printed, an error unless allowed. */
static int check_same(const struct res_doc *d, char **paths, size_t k, bool allow, struct hx_err *err)
{
	struct cmp_result r = {0};
	const char *why = NULL, *arm = NULL;
	char a[32], b[32];

	cmp_host_diffs(d[0].head, d[k].head, &r);
	for (size_t i = 0; i < r.ndiffs; i++) {
		fprintf(stderr, "harness: merge: %s and %s differ in %s: %s → %s\n", paths[0], paths[k],
			r.diffs[i].field, r.diffs[i].a, r.diffs[i].b);
		if (r.diffs[i].refuse && !why)
			why = r.diffs[i].field;
		if (r.diffs[i].arm)
			arm = r.diffs[i].field;
	}
	/* in and out of the sandbox are two arms: one merged file would keep one side's config.sandbox for both */
	if (arm)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "merge: %s differs between %s and %s: the runtime in and out of the sandbox are two "
			       "experiments (compare them: harness compare)",
			       arm, paths[0], paths[k]);
	snprintf(a, sizeof(a), "%g", shard_num(&d[0], "count"));
	snprintf(b, sizeof(b), "%g", shard_num(&d[k], "count"));
	if (strcmp(shard_plan(&d[0]), shard_plan(&d[k])) != 0 || strcmp(a, b) != 0) {
		fprintf(stderr, "harness: merge: %s and %s are shards of different plans: %s of %s → %s of %s\n",
			paths[0], paths[k], shard_plan(&d[0]), a, shard_plan(&d[k]), b);
		why = why ? why : "config.shard (the plan or the count)";
	}
	if (why && !allow)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "merge: %s differs between %s and %s: not shards of one experiment; --allow-different "
			       "merges them anyway",
			       why, paths[0], paths[k]);
	return 0;
}

static int by_order(const void *a, const void *b)
{
	const struct trial_result *x = a, *y = b;

	return (x->order > y->order) - (x->order < y->order);
}

static bool same_trial(const struct trial_result *x, const struct trial_result *y)
{
	return x->trial == y->trial && !strcmp(x->scenario, y->scenario) && !strcmp(x->runtime, y->runtime) &&
	       !strcmp(x->mode, y->mode) && !strcmp(x->noise, y->noise);
}

/* Every trial of every file into out, in the plan's order; a trial in two files is refused. */
static int join(struct res_doc *d, char **paths, size_t n, struct res_doc *out, struct hx_err *err)
{
	out->head = cJSON_Duplicate(d[0].head, true);
	if (!out->head)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	out->finished = out->verdict_ok = true;
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < d[k].ntrials; i++) {
			struct trial_result *t = res_doc_add(out);

			if (!t)
				return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
			*t = d[k].trials[i];
		}
		if (k && adc_merge(out, &d[k]) < 0) /* each shard measured the adapters of its own trials */
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		out->finished &= d[k].finished;
		out->interrupted |= d[k].interrupted;
		out->verdict_ok &= d[k].verdict_ok;
	}
	qsort(out->trials, out->ntrials, sizeof(*out->trials), by_order);
	for (size_t i = 1; i < out->ntrials; i++)
		if (same_trial(&out->trials[i - 1], &out->trials[i]))
			return hx_fail(
				err, HX_EXIT_USAGE, EEXIST,
				"merge: %s %s %s trial %u is in two of the files (%s ...): the same shard twice?",
				out->trials[i].scenario, out->trials[i].runtime, out->trials[i].mode,
				out->trials[i].trial, paths[0]);
	return 0;
}

/* config.shard of the merged file: how many of the plan's trials it holds, and from how many files. */
static void merged_note(struct res_doc *out, const struct res_doc *first, size_t files)
{
	cJSON *cfg = cJSON_GetObjectItemCaseSensitive(out->head, "config"), *o;

	cJSON_DeleteItemFromObjectCaseSensitive(cfg, "shard");
	o = cJSON_AddObjectToObject(cfg, "merged");
	cJSON_AddNumberToObject(o, "files", (double)files);
	cJSON_AddNumberToObject(o, "trials", (double)out->ntrials);
	if (shard_num(first, "plan_trials") >= 0) {
		cJSON_AddNumberToObject(o, "plan_trials", shard_num(first, "plan_trials"));
		cJSON_AddStringToObject(o, "plan", shard_plan(first));
		cJSON_AddBoolToObject(o, "complete", (double)out->ntrials == shard_num(first, "plan_trials"));
		cJSON_DeleteItemFromObjectCaseSensitive(cfg, "planned_trials"); /* the plan's, not a shard's */
		cJSON_AddNumberToObject(cfg, "planned_trials", shard_num(first, "plan_trials"));
	}
}

static int merge(char **paths, size_t n, const struct merge_opts *o, struct hx_err *err)
{
	struct res_doc d[MERGE_MAX] = {0}, out = {0};
	enum report_format f = RPT_TABLE;
	size_t loaded = 0;
	int rc = 0;

	if (o->format && (report_format_parse(o->format, &f) < 0 || f == RPT_CSV))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "merge: --format takes table, md or json");
	for (; loaded < n && rc == 0; loaded++)
		rc = res_read(paths[loaded], &d[loaded], err) < 0 ? hx_wrap(err, "merge") : 0;
	for (size_t k = 1; k < n && rc == 0; k++)
		rc = check_same(d, paths, k, o->allow_different, err);
	if (rc == 0)
		rc = join(d, paths, n, &out, err);
	if (rc == 0) {
		merged_note(&out, &d[0], n);
		if (res_write(&out, o->out, err) < 0 || report_render(&out, f, stdout, err) < 0)
			rc = -err->errnum;
		else
			fprintf(stderr, "harness: merge: %zu trials from %zu files: %s\n", out.ntrials, n, o->out);
		if (rc == 0) /* a shard missing (a failed matrix job): written all the same, and said */
			verb_warn_partial("merge", o->out, &out);
	}
	/* the trials were copied by value: their owners free what they point to */
	free(out.trials);
	cJSON_Delete(out.head);
	for (size_t k = 0; k < loaded; k++)
		res_doc_free(&d[k]);
	if (rc < 0)
		return rc;
	return out.verdict_ok ? HX_EXIT_OK : HX_EXIT_VERDICT;
}

int verb_merge(int argc, char **argv)
{
	struct merge_opts o = {0};
	struct hx_err err = {0};
	int npos, rc;

	if (opt_parse("merge", merge_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout,
			"harness merge A.json B.json... -o ALL.json [--format table|md|json] [--allow-different]",
			"Join the shards of one plan (harness run --shard I/N) into one results file, trials in\n"
			"the plan's order. Refuses files from different host classes, CPU budgets, runtime\n"
			"images or plans, saying what differs (exit 2), and a trial present twice.\n"
			"Exit 1 when a merged trial failed its verdict.",
			merge_tab);
		return HX_EXIT_OK;
	}
	if (npos < 1 || npos > MERGE_MAX || !o.out) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL,
			"merge: expected 1 to %d results files and -o FILE: harness merge A.json B.json -o all.json",
			MERGE_MAX);
		return hx_report(&err);
	}
	rc = merge(argv + 1, (size_t)npos, &o, &err);
	return rc < 0 ? hx_report(&err) : rc;
}
