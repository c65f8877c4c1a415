/* Paired statistics of a duet (harness ab): per-pair ratios B/A, the geometric mean of the ratios with an
 * expanded percentile bootstrap CI, a Wilcoxon signed-rank p on the log ratios, the verdict against a threshold,
 * drift and bimodality flags, and the stopping rule of --precision (docs/ab.md). Pure and deterministic: the
 * same input and seed give the same bits. */
#ifndef HX_PAIRED_H
#define HX_PAIRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum paired_verdict { PV_FASTER, PV_SLOWER, PV_EQUIVALENT, PV_BELOW_THRESHOLD, PV_INCONCLUSIVE, PV_NR };
extern const char *const paired_verdict_names[PV_NR]; /* "below threshold" */
extern const char *const paired_verdict_keys[PV_NR];  /* "below_threshold": the JSON's */

#define PAIRED_MIN_PAIRS 6    /* fewer: no CI, inconclusive */
#define PAIRED_DRIFT_P	 0.01 /* a trend of the ratios over the run at this p is flagged */
#define PAIRED_BIMODAL_N 20   /* the bimodality coefficient is read from this many pairs on */
#define PAIRED_RESAMPLES 2000

struct paired_opts {
	double threshold; /* e.g. 0.02 */
	double level;	  /* e.g. 0.95 */
	uint64_t seed;
	bool smaller_better; /* latency, startup: a ratio above 1 is B slower; throughput: B faster */
};

struct paired_result {
	size_t n;
	double ratio, low, high; /* geometric mean of b[i]/a[i] and its CI */
	double half_width;	 /* of the CI, relative: (high - low) / 2 / ratio */
	double p;		 /* Wilcoxon signed-rank on log(b/a), two-sided */
	double sd_log;		 /* of the log ratios: the pair-to-pair noise */
	double trend_rho, trend_p;
	bool drift;
	double bimodality; /* Sarle's coefficient of the log ratios; NAN below PAIRED_BIMODAL_N pairs */
	bool bimodal;
	bool significant; /* the CI excludes 1 and p < 1 - level */
	enum paired_verdict verdict;
	/* inconclusive: the pairs in all that would settle it at this noise (0: none would, within 100,000) */
	size_t pairs_needed;
};

/* The paired analysis of n pairs (a[i], b[i]), every value > 0; -1 on bad input or no memory. */
int paired_analyze(const double *a, const double *b, size_t n, const struct paired_opts *o, struct paired_result *ret);

/* The CI alone, of the geometric mean of r[0..n) (ratios): Hesterberg's expanded percentile bootstrap, whose
 * tail probability is widened so that a normal sample's interval is the t interval's width (the plain
 * percentile interval covers too little below ~30 pairs). */
int paired_ci(const double *r, size_t n, double level, uint64_t seed, double *ret_gm, double *ret_low,
	      double *ret_high);

/* --precision's looks: after PAIRED_FIRST_LOOK pairs, then at every PAIRED_LOOK_GROWTH times as many (a fixed
 * schedule: the stopping decision depends on the CI's width only, never on where it lies). */
#define PAIRED_FIRST_LOOK  20
#define PAIRED_LOOK_GROWTH 1.2
bool paired_is_look(size_t n);
/* Whether to stop at a look: the CI's relative half-width is within precision. */
bool paired_precise(const struct paired_result *r, double precision);
/* The stopping rule: precise at two looks in a row (*was carries the last look's answer). One look is not
 * enough: a sample whose spread came out small by chance (heavy tails) would stop with a CI too narrow. */
bool paired_stop(bool *was, bool precise_now);

#endif
