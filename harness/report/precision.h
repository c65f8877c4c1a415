/* Adaptive repeats (`harness run --precision P%`): whether every cell of a scenario has its median to within
 * P, and, when not, what stands in the way: two modes, a trend over trial order, noisy trials. */
#ifndef HX_PRECISION_H
#define HX_PRECISION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "report/results.h"
#include "report/signif.h"

struct prec_cell {
	char scenario[64], runtime[64], mode[16], noise[32];
	enum res_metric metric;	  /* the workload's main metric */
	size_t n;		  /* trials that passed */
	double median, halfwidth; /* halfwidth: of the median's 95% CI, relative to the median */
	bool converged;
	double bimodality; /* Sarle's coefficient; NAN with fewer than 4 trials */
	bool have_trend;
	struct sig_test trend; /* Spearman's rho against trial order */
	unsigned noisy;	       /* trials with a noisy reason */
};

/* The cells of scenario in d, each judged against precision (e.g. 0.02); *ret is malloc'd (caller frees). */
int prec_check(const struct res_doc *d, const char *scenario, double precision, struct prec_cell **ret, size_t *ret_n,
	       struct hx_err *err);
bool prec_converged(const struct prec_cell *cells, size_t n);
/* Why a cell has not converged, for people: its CI and what the shape checks found. */
void prec_why(const struct prec_cell *c, char *buf, size_t len);

#endif
