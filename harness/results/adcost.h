/* What an adapter costs (docs/scenario.md, "Adapters"): the adapter's null-handler server against the same
 * runtime's plain server on a null handler, in a short duet, as microseconds a request adds; its arithmetic
 * and its record in the results' "adapter_costs" (docs/results.md); report_adcost_text is its line. */
#ifndef HX_ADCOST_H
#define HX_ADCOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct res_doc;

#define ADC_LEVEL 0.95
#define ADC_SEED  35 /* the bootstrap's: the same pairs give the same CI */

struct adc_cost {
	char scenario[64], runtime[64], mode[16];
	char adapter[256], plain[256]; /* the two null-handler scripts, relative to the scenario folder */
	unsigned connections;
	double window_s, seconds;  /* each window, and the whole measurement from its slices made to removed */
	size_t pairs, noisy_pairs; /* pairs counted; noisy ones left out (all kept when too few were quiet) */
	bool noisy_kept;
	double plain_rps, adapter_rps;	     /* medians of the counted windows */
	double ratio, ratio_low, ratio_high; /* time per request, adapter / plain: geometric mean and CI */
	double us, us_low, us_high;	     /* µs per request the adapter adds, and its CI (NAN: no CI) */
	char error[256];		     /* the measurement failed: why (the rest is unset) */
};

/* The cost from n pairs of windows' throughputs (plain[i], adapter[i] > 0): the ratio of the times per request
 * (plain[i] / adapter[i]) as a geometric mean with paired_ci's bootstrap CI, times the plain server's time per
 * request (1e6 / its median throughput, µs) less one. Fills the figures of ret; -1 on bad input (n = 0, a value
 * not above 0). One pair gives the figure without a CI. */
int adc_compute(const double *plain, const double *adapter, size_t n, struct adc_cost *ret);

cJSON *adc_json(const struct adc_cost *c);
/* A record read back (a results file is outside input): 0, or -1 when it is not one. */
int adc_parse(const cJSON *o, struct adc_cost *ret);

/* Appends c to the document's "adapter_costs"; -1 when out of memory. */
int adc_record(struct res_doc *d, const struct adc_cost *c);
/* The document's cost for this scenario, runtime and mode: true and *ret filled, else false. */
bool adc_find(const struct res_doc *d, const char *scenario, const char *runtime, const char *mode,
	      struct adc_cost *ret);

/* harness merge: the costs of from that out has not (by scenario, runtime and mode) appended to out's; -1 when
 * out of memory. Shards measure the adapters of their own trials. */
int adc_merge(struct res_doc *out, const struct res_doc *from);

#endif
