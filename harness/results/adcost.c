/* An adapter's cost per request on a null handler: the arithmetic over a duet's pairs, its line, its JSON. The
 * pairs are what a duet makes (run/adapter.c): each pair one window of the plain server and one of the adapter's,
 * close in time, so the host's noise is mostly the same in both and cancels in their ratio. */
#include "results/adcost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "results/results.h"
#include "stats/paired.h"
#include "stats/stats.h"

int adc_compute(const double *plain, const double *adapter, size_t n, struct adc_cost *ret)
{
	_cleanup_free_ double *r = calloc(n ? n : 1, sizeof(double));
	double gm, lo = NAN, hi = NAN, t_plain;

	if (!r || n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(plain[i] > 0) || !(adapter[i] > 0) || !isfinite(plain[i]) || !isfinite(adapter[i]))
			return -1;
		r[i] = plain[i] / adapter[i]; /* the adapter's time per request over the plain server's */
	}
	if (n == 1)
		gm = r[0];
	else if (paired_ci(r, n, ADC_LEVEL, ADC_SEED, &gm, &lo, &hi) < 0)
		return -1;
	ret->pairs = n;
	ret->plain_rps = stats_median_of(plain, n);
	ret->adapter_rps = stats_median_of(adapter, n);
	t_plain = 1e6 / ret->plain_rps;
	ret->ratio = gm;
	ret->ratio_low = lo;
	ret->ratio_high = hi;
	ret->us = t_plain * (gm - 1);
	ret->us_low = t_plain * (lo - 1);
	ret->us_high = t_plain * (hi - 1);
	return 0;
}

static void num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
}

cJSON *adc_json(const struct adc_cost *c)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "scenario", c->scenario);
	cJSON_AddStringToObject(o, "runtime", c->runtime);
	cJSON_AddStringToObject(o, "mode", c->mode);
	cJSON_AddStringToObject(o, "adapter", c->adapter);
	cJSON_AddStringToObject(o, "plain", c->plain);
	cJSON_AddNumberToObject(o, "connections", c->connections);
	num(o, "window_s", c->window_s);
	num(o, "seconds", c->seconds);
	if (c->error[0]) {
		cJSON_AddStringToObject(o, "error", c->error);
		return o;
	}
	cJSON_AddNumberToObject(o, "pairs", (double)c->pairs);
	cJSON_AddNumberToObject(o, "noisy_pairs", (double)c->noisy_pairs);
	if (c->noisy_kept)
		cJSON_AddBoolToObject(o, "noisy_kept", true);
	num(o, "plain_rps", c->plain_rps);
	num(o, "adapter_rps", c->adapter_rps);
	num(o, "ratio", c->ratio);
	num(o, "ratio_ci95_low", c->ratio_low);
	num(o, "ratio_ci95_high", c->ratio_high);
	num(o, "us_per_request", c->us);
	num(o, "us_ci95_low", c->us_low);
	num(o, "us_ci95_high", c->us_high);
	return o;
}

static bool str(const cJSON *o, const char *k, char *buf, size_t len, bool need)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!v)
		return !need;
	if (!cJSON_IsString(v) || strlen(v->valuestring) >= len)
		return false;
	strcpy(buf, v->valuestring);
	return true;
}

static double dbl(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

static size_t count(const cJSON *o, const char *k)
{
	double v = dbl(o, k);

	return v >= 0 && v < 1e9 ? (size_t)v : 0;
}

int adc_parse(const cJSON *o, struct adc_cost *ret)
{
	struct adc_cost c = {0};

	if (!cJSON_IsObject(o) || !str(o, "scenario", c.scenario, sizeof(c.scenario), true) ||
	    !str(o, "runtime", c.runtime, sizeof(c.runtime), true) || !str(o, "mode", c.mode, sizeof(c.mode), true) ||
	    !str(o, "adapter", c.adapter, sizeof(c.adapter), false) ||
	    !str(o, "plain", c.plain, sizeof(c.plain), false) || !str(o, "error", c.error, sizeof(c.error), false))
		return -1;
	c.connections = (unsigned)count(o, "connections");
	c.window_s = dbl(o, "window_s");
	c.seconds = dbl(o, "seconds");
	c.pairs = count(o, "pairs");
	c.noisy_pairs = count(o, "noisy_pairs");
	c.noisy_kept = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "noisy_kept"));
	c.plain_rps = dbl(o, "plain_rps");
	c.adapter_rps = dbl(o, "adapter_rps");
	c.ratio = dbl(o, "ratio");
	c.ratio_low = dbl(o, "ratio_ci95_low");
	c.ratio_high = dbl(o, "ratio_ci95_high");
	c.us = dbl(o, "us_per_request");
	c.us_low = dbl(o, "us_ci95_low");
	c.us_high = dbl(o, "us_ci95_high");
	if (!c.error[0] && (isnan(c.us) || c.pairs == 0))
		return -1;
	*ret = c;
	return 0;
}

int adc_record(struct res_doc *d, const struct adc_cost *c)
{
	cJSON *all = cJSON_GetObjectItemCaseSensitive(d->head, "adapter_costs"), *o;

	if (!all && !(all = cJSON_AddArrayToObject(d->head, "adapter_costs")))
		return -1;
	if (!(o = adc_json(c)))
		return -1;
	cJSON_AddItemToArray(all, o);
	return 0;
}

bool adc_find(const struct res_doc *d, const char *scenario, const char *runtime, const char *mode,
	      struct adc_cost *ret)
{
	const cJSON *all = d->head ? cJSON_GetObjectItemCaseSensitive(d->head, "adapter_costs") : NULL, *it;

	if (!cJSON_IsArray(all))
		return false;
	cJSON_ArrayForEach (it, all) {
		struct adc_cost c;

		if (adc_parse(it, &c) == 0 && !strcmp(c.scenario, scenario) && !strcmp(c.runtime, runtime) &&
		    !strcmp(c.mode, mode)) {
			*ret = c;
			return true;
		}
	}
	return false;
}

int adc_merge(struct res_doc *out, const struct res_doc *from)
{
	const cJSON *all = from->head ? cJSON_GetObjectItemCaseSensitive(from->head, "adapter_costs") : NULL, *it;

	if (!cJSON_IsArray(all))
		return 0;
	cJSON_ArrayForEach (it, all) {
		struct adc_cost c, have;

		if (adc_parse(it, &c) == 0 && !adc_find(out, c.scenario, c.runtime, c.mode, &have) &&
		    adc_record(out, &c) < 0)
			return -1;
	}
	return 0;
}
