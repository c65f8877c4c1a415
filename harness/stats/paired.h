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

#define PAIRED_MIN_PAIRS  6    /* fewer: no CI, inconclusive */
#define PAIRED_MIN_ROUNDS 3    /* with rounds, fewer: no CI (two rounds' t interval has 1 degree of freedom) */
#define PAIRED_DRIFT_P	  0.01 /* a trend of the ratios over the run at this p is flagged */
#define PAIRED_BIMODAL_N  20   /* the bimodality coefficient is read from this many pairs on */
#define PAIRED_RESAMPLES  2000

struct paired_opts {
	double threshold; /* e.g. 0.02 */
	double level;	  /* e.g. 0.95 */
	uint64_t seed;
	bool smaller_better; /* latency, startup: a ratio above 1 is B slower; throughput: B faster */
};

struct paired_result {
	size_t n;
	size_t rounds;		 /* the rounds the pairs came from (1: the pairs' analysis) */
	double ratio, low, high; /* geometric mean of b[i]/a[i] and its CI */
	double half_width;	 /* of the CI, relative: (high - low) / 2 / ratio */
	double p;	   /* Wilcoxon signed-rank on log(b/a), two-sided; with rounds, the t test of their means */
	double sd_round;   /* with rounds: the standard deviation of their mean log ratios; else NAN */
	double sd_log;	   /* of the log ratios (adjusted for the carry-over): the pair-to-pair noise */
	double sd_log_raw; /* of the log ratios as measured */
	/* the slope of the log ratio on the carry-over covariate, taken out of the estimate and the CI; NAN: none
	 * (not given, or the same for every pair) */
	double carry;
	double trend_rho, trend_p;
	bool drift;
	double bimodality; /* Sarle's coefficient of the log ratios; NAN below PAIRED_BIMODAL_N pairs */
	bool bimodal;
	bool significant; /* the CI excludes 1 and p < 1 - level */
	enum paired_verdict verdict;
	/* inconclusive: the pairs in all that would settle it at this noise (0: none would, within 100,000) */
	size_t pairs_needed;
};

/* The pairs of a duet: a[i] side A's value, b[i] B's, every value > 0. carry[i] (NULL: none) is a covariate of
 * pair i fixed by the design, whose mean over the design is 0 (an interleaved duet's carry-over: whether B's
 * window followed a window of A, minus whether A's followed one of B): the log ratios are adjusted for it by
 * least squares within rounds, the estimate's target unchanged, the noise it explains out of the CI. round[i]
 * (NULL: one round), non-decreasing, is the round of pair i: the pairs measured on one pair of server processes.
 * With two rounds or more the estimate is the mean of the rounds' mean log ratios and its CI their t interval,
 * the p their t test's: a process's own speed is shared by every pair of its round. */
struct paired_input {
	const double *a, *b, *carry;
	const unsigned *round;
	size_t n;
};

/* The paired analysis; -1 on bad input (a value not above 0, rounds out of order) or no memory. */
int paired_analyze(const struct paired_input *in, const struct paired_opts *o, struct paired_result *ret);

/* Each round's mean log ratio as paired_analyze takes it (adjusted by slope, its result's carry; NAN: none),
 * into m[k] for the k-th round of in (runs of equal in->round[i]); their number, or -1 without rounds or memory. */
int paired_round_means(const struct paired_input *in, double slope, double *m);

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
/* With rounds, a look at the end of every round from PAIRED_FIRST_LOOK_ROUNDS on (rounds: those ended). */
#define PAIRED_FIRST_LOOK_ROUNDS 12
bool paired_is_round_look(size_t rounds);
/* Whether to stop at a look: the CI's relative half-width is within precision. */
bool paired_precise(const struct paired_result *r, double precision);
/* The stopping rule: precise at two looks in a row (*was carries the last look's answer). One look is not
 * enough: a sample whose spread came out small by chance (heavy tails) would stop with a CI too narrow. */
bool paired_stop(bool *was, bool precise_now);

#endif
