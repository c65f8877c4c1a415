/* Comparing two results files: a row per scenario x runtime x mode x metric present in both, with the ratio of
 * medians, its bootstrap CI, a rank test's p and a verdict; and what differs between the two hosts and plans.
 * The verdicts and the gate are described in docs/statistics.md; report/compare_report.h renders them. */
#ifndef HX_COMPARE_H
#define HX_COMPARE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "results/results.h"
#include "stats/signif.h"

#define CMP_MAX_CELLS  256
#define CMP_TRIALS_CAP 1000 /* beyond it, "trials that would settle it" is not a plan anyone runs */

/* A metric's values in one scenario x runtime x mode, over the trials that passed, in trial order. */
struct cmp_cell {
	char scenario[64], runtime[64], mode[16];
	const char *metric; /* one of res_metric_names */
	double *v;
	size_t n;
	size_t noisy;	       /* of the n trials, those flagged noisy (docs/statistics.md): counted, never dropped */
	unsigned *trial, *why; /* per value: its trial index, and its noisy reasons (a bit per enum res_noisy) */
};

/* One file as compare reads it: what describes the run (host, config, images), and its cells. */
struct cmp_side {
	const char *path;
	const cJSON *head;
	struct cmp_cell *cells;
	size_t ncells;
};

/* compare's verdicts, by the rule every comparison uses (sig_against; the paired duet's too). Better and worse
 * need a significant difference (rank test, adjusted over the rows, and a CI that excludes 1) at least the
 * threshold away from 1; below threshold: significant but smaller; equivalent: not significant and the CI inside
 * 1 +- threshold; inconclusive: neither; too few: the trials cannot give p < alpha whatever they are. */
enum cmp_verdict {
	CMP_BETTER,
	CMP_WORSE,
	CMP_BELOW_THRESHOLD,
	CMP_EQUIVALENT,
	CMP_INCONCLUSIVE,
	CMP_TOO_FEW,
	CMP_NR_VERDICTS
};
/* The verdicts' names in JSON ("better" and "worse" for the generic ones; compare writes its metric's word). */
extern const char *const cmp_verdict_names[CMP_NR_VERDICTS];
/* The verdict of a ratio from its p (already adjusted for the rows compared with it) and its CI. */
enum cmp_verdict cmp_decide(double p, const struct sig_ci *ci, double threshold, double alpha, bool higher_better);

/* The gate's outcome. Unjudged: no gated row could be judged (every one too few trials): not a pass. */
enum cmp_gate { CMP_GATE_OFF, CMP_GATE_PASSED, CMP_GATE_FAILED, CMP_GATE_UNJUDGED };
extern const char *const cmp_gate_names[4];
/* compare's exit status when the gate could judge no row (0-4 keep their meaning: docs/errors.md). */
#define CMP_EXIT_UNJUDGED 5

struct cmp_row {
	const struct cmp_cell *a, *b;
	bool higher_better;
	double a_median, b_median, cv; /* cv: the larger of the two sides' */
	struct sig_ci ratio;	       /* median(B) / median(A) */
	struct sig_test mwu, welch;
	double p_adj; /* mwu.p after Holm's adjustment over the rows that can be judged; NAN: too few trials */
	double shift; /* Hodges-Lehmann: B - A */
	enum cmp_verdict verdict;
	bool regression; /* worse, gated, and the whole CI beyond the threshold */
	/* a regression that does not fail the gate (--fail-on quiet-regression): B, the slower side, has trials with
	 * evidence of outside noise, and without them the row would not fail; excused_by: those trials */
	bool excused;
	char excused_by[160];
	size_t trials_needed; /* inconclusive: trials per side that would settle it; 0: more than CMP_TRIALS_CAP;
			       * too few: trials per side any verdict needs */
};

/* A field that differs between the two files; refuse: it makes them incomparable without --allow-different-host. */
struct cmp_diff {
	char field[96], a[160], b[160];
	bool refuse;
	bool arm;   /* another arm of one experiment (in and out of the sandbox): compared, never merged */
	bool image; /* another image under one runtime name (two builds): --allow-different-images compares */
};

/* What fails the gate: any regression, a regression with no noisy trial on either side, or nothing. */
enum cmp_fail_on { CMP_FAIL_REGRESSION, CMP_FAIL_QUIET_REGRESSION, CMP_FAIL_NONE };

struct cmp_opts {
	double threshold; /* relative, e.g. 0.05 */
	double alpha;
	enum cmp_fail_on fail_on;
	bool allow_different_host;
	bool allow_different_images;
};

struct cmp_result {
	struct cmp_row *rows;
	size_t nrows;
	struct cmp_diff diffs[64];
	size_t ndiffs;
	size_t regressions; /* rows with a regression */
	size_t failing;	    /* of them, those that fail the gate: not excused, and a gate (not --fail-on none) */
	size_t family;	    /* rows Holm's adjustment ran over: those whose trials can reach p < alpha */
	size_t unjudged;    /* gated rows with too few trials for any verdict */
	size_t gated;	    /* rows of gated metrics */
	enum cmp_gate gate;
};

/* What each compared metric is: bigger or smaller is better, whether it gates, how people read it. */
struct cmp_metric {
	enum res_metric id;
	const char *label;
	bool higher_better, gated; /* gated: a significant change beyond the threshold fails the gate */
	double scale;		   /* from the metric's unit to the label's */
	int decimals;
	const char *better, *worse; /* the verdicts' words: "faster", "slower"; "smaller", "larger" */
};
/* The compared metric of that name (one of res_metric_names); NULL: not compared. */
const struct cmp_metric *cmp_metric_of(const char *name);
/* Whether bigger is better for this metric (throughput), or smaller (time, latency, memory); -1: not compared. */
int cmp_metric_direction(const char *metric);
/* The cells of a results document's trials that passed, in the order of first appearance. */
int cmp_cells_from(const struct res_doc *d, struct cmp_cell **ret, size_t *ret_n, struct hx_err *err);
void cmp_cells_free(struct cmp_cell *cells, size_t n);
/* Host, plan and image fields that differ between the heads of two results files. */
void cmp_host_diffs(const cJSON *a, const cJSON *b, struct cmp_result *res);
/* Rows for every cell present in both sides; deterministic. */
int cmp_run(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_opts *o, struct cmp_result *ret,
	    struct hx_err *err);
void cmp_result_free(struct cmp_result *r);
/* Whether a and b look like the two sides of one duet measured apart: each file a run of one runtime, on the same
 * host and plan (no difference compare refuses but an image's), of the same scenarios, the two runtimes differing
 * (by name, or by image under one name: two builds, two versions). harness ab answers that question paired;
 * buf gets its command for the first scenario ("harness ab SPEC_A SPEC_B SCENARIO"). */
bool cmp_duet_sides(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_result *r, char *buf,
		    size_t len);

const char *cmp_verdict_word(const struct cmp_row *r);
/* --fail-on's words, by enum cmp_fail_on. */
extern const char *const cmp_fail_on_names[3];

#endif
