/* Adaptive repeats (`harness run --precision P%`): whether every cell of a scenario has its median to within
 * P, and, when not, what stands in the way: two modes, a trend over trial order, noisy trials. Valid under
 * optional stopping: a cell is judged only at a fixed schedule of looks (PREC_LOOKS, from 10 trials), each with
 * a distribution-free CI of the median at 1 - 0.05 / (number of looks), so that the chance that any look claims a
 * CI that misses the true median is at most 5% however many looks the run takes (docs/statistics.md). */
#ifndef HX_PRECISION_H
#define HX_PRECISION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "results/results.h"
#include "stats/signif.h"

struct prec_cell {
	char scenario[64], runtime[64], mode[16], noise[32];
	enum res_metric metric;	  /* the workload's main metric */
	size_t n;		  /* trials that passed */
	size_t look;		  /* the trials the last look judged (the first `look` of them); 0: none yet */
	double median, halfwidth; /* halfwidth: of the median's CI at the last look, the larger side, relative */
	double low, high;	  /* that CI */
	bool converged;
	double bimodality; /* Sarle's coefficient; NAN below SIG_BIMODAL_MIN_N trials, where it cannot see two modes */
	bool have_trend;
	struct sig_test trend; /* Spearman's rho against trial order */
	unsigned noisy;	       /* trials with a noisy reason */
};

/* The cells of scenario in d, each judged against precision (e.g. 0.02); *ret is malloc'd (caller frees). */
int prec_check(const struct res_doc *d, const char *scenario, double precision, struct prec_cell **ret, size_t *ret_n,
	       struct hx_err *err);
bool prec_converged(const struct prec_cell *cells, size_t n);
/* The looks: the trial counts at which a cell is judged, and the CI's level at each. */
extern const size_t prec_looks[];
extern const size_t prec_nlooks;
#define PREC_ALPHA 0.05
double prec_level(void);
/* One cell's values in trial order at its last look: the look (0: before the first), the CI of the median of
 * the first `look` values (order statistics: exact for any continuous distribution) and its half-width relative
 * to their median. */
size_t prec_judge(const double *v, size_t n, double *median, double *low, double *high, double *halfwidth);
/* Why a cell has not converged, for people: its CI and what the shape checks found. */
void prec_why(const struct prec_cell *c, char *buf, size_t len);

#endif
