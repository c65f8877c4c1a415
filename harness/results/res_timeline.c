/* The timeline model (res_timeline.h): from the load's intervals, JSON both ways as column arrays, and the
 * steady-state and memory-growth tests over it. */
#include "results/res_timeline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/trend.h"

void res_timeline_free(struct res_timeline *t)
{
	free(t->requests);
	free(t->errors);
	free(t->bytes);
	free(t->p50_us);
	free(t->p99_us);
	free(t->t_ms);
	free(t->cpu_ms);
	free(t->memory_kb);
	free(t->rss_kb);
	memset(t, 0, sizeof(*t));
}

static int client_columns(struct res_timeline *t, unsigned n)
{
	t->n = n;
	t->requests = calloc(n ? n : 1, sizeof(*t->requests));
	t->errors = calloc(n ? n : 1, sizeof(*t->errors));
	t->bytes = calloc(n ? n : 1, sizeof(*t->bytes));
	t->p50_us = calloc(n ? n : 1, sizeof(*t->p50_us));
	t->p99_us = calloc(n ? n : 1, sizeof(*t->p99_us));
	if (!t->requests || !t->errors || !t->bytes || !t->p50_us || !t->p99_us) {
		res_timeline_free(t);
		return -ENOMEM;
	}
	return 0;
}

int res_timeline_samples(struct res_timeline *t, unsigned n)
{
	t->ns = n;
	t->t_ms = calloc(n ? n : 1, sizeof(*t->t_ms));
	t->cpu_ms = calloc(n ? n : 1, sizeof(*t->cpu_ms));
	t->memory_kb = calloc(n ? n : 1, sizeof(*t->memory_kb));
	t->rss_kb = calloc(n ? n : 1, sizeof(*t->rss_kb));
	if (!t->t_ms || !t->cpu_ms || !t->memory_kb || !t->rss_kb) {
		res_timeline_free(t);
		return -ENOMEM;
	}
	return 0;
}

int res_timeline_from_tl(const struct tl *l, struct res_timeline *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!l->iv)
		return 0;
	if (client_columns(ret, l->n) < 0)
		return -ENOMEM;
	ret->interval_ms = (double)l->interval_ns / 1e6;
	ret->origin_ns = l->origin_ns;
	for (unsigned i = 0; i < l->n; i++) {
		ret->requests[i] = l->iv[i].requests;
		ret->errors[i] = l->iv[i].errors;
		ret->bytes[i] = l->iv[i].bytes;
		uint64_t p50 = tl_quantile(&l->iv[i], 0.5), p99 = tl_quantile(&l->iv[i], 0.99);

		/* 0: no answer in the interval (an answer takes at least a few µs) */
		ret->p50_us[i] = p50 ? (double)p50 / 1e3 : NAN;
		ret->p99_us[i] = p99 ? (double)p99 / 1e3 : NAN;
	}
	return 0;
}

const char *const res_tl_phase_names[RES_TL_NR_PHASES] = {"load", "idle", "idle_after_hint", "restart",
							  "after_restart"};

void res_timeline_phase(struct res_timeline *t, enum res_tl_phase ph, uint64_t now_ns)
{
	if (t->nphases == RES_TL_MAX_PHASES || !t->origin_ns)
		return;
	t->phases[t->nphases].phase = ph;
	t->phases[t->nphases++].t_ms = now_ns > t->origin_ns ? (double)(now_ns - t->origin_ns) / 1e6 : 0;
}

/* ---- the tests ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_of(const double *v, unsigned n, double *scratch)
{
	memcpy(scratch, v, n * sizeof(*v));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	return trend_quantile_sorted(scratch, n, 0.5);
}

/* The thirds' medians, and whether they are apart: the lower third's upper RES_STEADY_APART quantile below
 * the higher third's lower one. */
static void thirds(const double *y, unsigned m, double *scratch, struct res_steady *ret)
{
	unsigned k = m / 3;
	double lo_first, hi_first, lo_last, hi_last;

	ret->first_rps = median_of(y, k, scratch);
	lo_first = trend_quantile_sorted(scratch, k, RES_STEADY_APART);
	hi_first = trend_quantile_sorted(scratch, k, 1 - RES_STEADY_APART);
	ret->last_rps = median_of(y + m - k, k, scratch);
	lo_last = trend_quantile_sorted(scratch, k, RES_STEADY_APART);
	hi_last = trend_quantile_sorted(scratch, k, 1 - RES_STEADY_APART);
	ret->apart = hi_first < lo_last || hi_last < lo_first;
	ret->change = ret->median_rps > 0 ? (ret->last_rps - ret->first_rps) / ret->median_rps : NAN;
}

unsigned res_steady_lead(const struct res_timeline *t)
{
	unsigned k = t->interval_ms > 0 ? (unsigned)ceil(RES_STEADY_LEAD_MS / t->interval_ms - 1e-9) : 1;

	return k ? k : 1;
}

/* Over the whole intervals of the measured phase after its lead-in (res_steady_lead), the last, partial, left
 * out. */
static void steady_test(const struct res_timeline *t, struct res_steady *ret)
{
	unsigned lead = res_steady_lead(t), m = t->n > lead + 1 ? t->n - lead - 1 : 0;
	double *x, *y, *scratch, secs = t->interval_ms / 1e3;
	struct trend_mk mk;
	struct trend_ts ts;

	memset(ret, 0, sizeof(*ret));
	if (m < RES_STEADY_MIN || secs <= 0)
		return;
	x = malloc(m * sizeof(*x));
	y = malloc(m * sizeof(*y));
	scratch = malloc(m * sizeof(*scratch));
	if (x && y && scratch) {
		for (unsigned i = 0; i < m; i++) {
			x[i] = (i + lead) * secs;
			y[i] = (double)t->requests[i + lead] / secs;
		}
		if (trend_mann_kendall_ar1(y, m, &mk) == 0 && trend_theil_sen(x, y, m, &ts) == 0) {
			ret->tested = true;
			ret->intervals = m;
			ret->median_rps = median_of(y, m, scratch);
			ret->slope_rps_per_s = ts.slope;
			ret->slope_low = ts.low;
			ret->slope_high = ts.high;
			thirds(y, m, scratch, ret);
			ret->tau = mk.tau;
			ret->p = mk.p;
			ret->rho = mk.rho;
			ret->var_factor = mk.var_factor;
			ret->not_steady = ret->apart && fabs(ret->change) > RES_STEADY_CHANGE &&
					  (mk.p < RES_STEADY_ALPHA || fabs(ret->change) > RES_STEADY_LARGE);
		}
	}
	free(x);
	free(y);
	free(scratch);
}

/* The requests answered by ms after the origin, the interval it falls in counted pro rata. */
static double requests_by(const struct res_timeline *t, double ms)
{
	double done = 0, pos = ms / t->interval_ms;

	for (unsigned i = 0; i < t->n && i < pos; i++)
		done += (double)t->requests[i] * (pos - i >= 1 ? 1 : pos - i);
	return done;
}

#define GROWTH_MAX_POINTS 400 /* Theil-Sen is O(n^2): more samples are thinned evenly */

static void growth_slope(const double *x, const double *kb, const unsigned *idx, unsigned m, unsigned min, double *ret,
			 double *ret_low, double *ret_high)
{
	double *y = malloc(m * sizeof(*y)), *xs = malloc(m * sizeof(*xs));
	struct trend_ts ts = {NAN, NAN, NAN, NAN};
	unsigned k = 0;

	for (unsigned i = 0; y && xs && i < m; i++)
		if (!isnan(kb[idx[i]])) {
			xs[k] = x[i];
			y[k++] = kb[idx[i]] * 1024;
		}
	if (y && xs && k >= min)
		trend_theil_sen(xs, y, k, &ts);
	*ret = ts.slope;
	*ret_low = ts.low;
	*ret_high = ts.high;
	free(y);
	free(xs);
}

static void growth_test(const struct res_timeline *t, struct res_growth *ret)
{
	double end_ms = t->n * t->interval_ms, *x;
	unsigned *idx, m = 0, in = 0, step;

	memset(ret, 0, sizeof(*ret));
	ret->rss = ret->rss_low = ret->rss_high = ret->memory = ret->memory_low = ret->memory_high = NAN;
	ret->rss_late = ret->rss_late_low = ret->rss_late_high = NAN;
	for (unsigned i = 0; i < t->ns; i++)
		in += t->t_ms[i] >= 0 && t->t_ms[i] <= end_ms;
	if (in < RES_GROWTH_MIN_SAMPLES || t->interval_ms <= 0)
		return;
	step = (in + GROWTH_MAX_POINTS - 1) / GROWTH_MAX_POINTS;
	x = malloc(in * sizeof(*x));
	idx = malloc(in * sizeof(*idx));
	for (unsigned i = 0, seen = 0; x && idx && i < t->ns; i++)
		if (t->t_ms[i] >= 0 && t->t_ms[i] <= end_ms && seen++ % step == 0) {
			x[m] = requests_by(t, t->t_ms[i]) / 1000;
			idx[m++] = i;
		}
	if (x && idx) {
		growth_slope(x, t->rss_kb, idx, m, RES_GROWTH_MIN_SAMPLES, &ret->rss, &ret->rss_low, &ret->rss_high);
		growth_slope(x, t->memory_kb, idx, m, RES_GROWTH_MIN_SAMPLES, &ret->memory, &ret->memory_low,
			     &ret->memory_high);
		growth_slope(x + m / 2, t->rss_kb, idx + m / 2, m - m / 2, RES_GROWTH_LATE_MIN, &ret->rss_late,
			     &ret->rss_late_low, &ret->rss_late_high);
		ret->tested = !isnan(ret->rss);
		ret->samples = m;
		ret->leak = ret->tested && m >= RES_LEAK_MIN_SAMPLES && ret->rss_low > 0 &&
			    ret->rss >= RES_LEAK_MIN_BYTES_PER_1K && !isnan(ret->rss_late) && ret->rss_late_low > 0 &&
			    ret->rss_late >= RES_LEAK_MIN_BYTES_PER_1K;
	}
	free(x);
	free(idx);
}

void res_timeline_analyse(struct res_timeline *t)
{
	steady_test(t, &t->steady);
	growth_test(t, &t->growth);
}

/* ---- JSON ---- */

static cJSON *u64_array(const uint64_t *v, unsigned n)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
	return a;
}

/* Rounded to `scale` (100: two decimals); NAN as null. */
static cJSON *num_array(const double *v, unsigned n, double scale)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned i = 0; i < n; i++)
		cJSON_AddItemToArray(a, isnan(v[i]) ? cJSON_CreateNull()
						    : cJSON_CreateNumber(round(v[i] * scale) / scale));
	return a;
}

static void add_num(cJSON *o, const char *k, double v, double scale)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, round(v * scale) / scale);
}

static cJSON *steady_json(const struct res_steady *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "test", "thirds+mann-kendall-ar1");
	cJSON_AddNumberToObject(o, "intervals", s->intervals);
	add_num(o, "median_rps", s->median_rps, 100);
	add_num(o, "first_third_rps", s->first_rps, 100);
	add_num(o, "last_third_rps", s->last_rps, 100);
	add_num(o, "change", s->change, 10000);
	cJSON_AddBoolToObject(o, "apart", s->apart);
	add_num(o, "slope_rps_per_s", s->slope_rps_per_s, 1000);
	add_num(o, "slope_ci95_low", s->slope_low, 1000);
	add_num(o, "slope_ci95_high", s->slope_high, 1000);
	add_num(o, "tau", s->tau, 10000);
	add_num(o, "autocorrelation", s->rho, 10000);
	add_num(o, "variance_factor", s->var_factor, 10000);
	add_num(o, "p", s->p, 1e6);
	cJSON_AddBoolToObject(o, "not_steady", s->not_steady);
	return o;
}

static cJSON *growth_json(const struct res_growth *g)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "test", "theil-sen");
	cJSON_AddNumberToObject(o, "samples", g->samples);
	add_num(o, "rss_bytes_per_1k_requests", g->rss, 1);
	add_num(o, "rss_ci95_low", g->rss_low, 1);
	add_num(o, "rss_ci95_high", g->rss_high, 1);
	add_num(o, "memory_current_bytes_per_1k_requests", g->memory, 1);
	add_num(o, "memory_current_ci95_low", g->memory_low, 1);
	add_num(o, "memory_current_ci95_high", g->memory_high, 1);
	add_num(o, "rss_last_half_bytes_per_1k_requests", g->rss_late, 1);
	add_num(o, "rss_last_half_ci95_low", g->rss_late_low, 1);
	add_num(o, "rss_last_half_ci95_high", g->rss_late_high, 1);
	cJSON_AddBoolToObject(o, "leak", g->leak);
	return o;
}

cJSON *res_timeline_json(const struct res_timeline *t, bool with_origin)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "interval_ms", t->interval_ms);
	if (with_origin)
		cJSON_AddNumberToObject(o, "origin_ns", (double)t->origin_ns);
	cJSON_AddItemToObject(o, "requests", u64_array(t->requests, t->n));
	cJSON_AddItemToObject(o, "errors", u64_array(t->errors, t->n));
	cJSON_AddItemToObject(o, "bytes", u64_array(t->bytes, t->n));
	cJSON_AddItemToObject(o, "p50_us", num_array(t->p50_us, t->n, 10));
	cJSON_AddItemToObject(o, "p99_us", num_array(t->p99_us, t->n, 10));
	if (t->ns) {
		cJSON *s = cJSON_AddObjectToObject(o, "server");

		cJSON_AddNumberToObject(s, "interval_ms", t->sample_ms);
		cJSON_AddItemToObject(s, "t_ms", num_array(t->t_ms, t->ns, 10));
		cJSON_AddItemToObject(s, "cpu_ms", num_array(t->cpu_ms, t->ns, 1000));
		cJSON_AddItemToObject(s, "memory_current_kb", num_array(t->memory_kb, t->ns, 1));
		cJSON_AddItemToObject(s, "rss_kb", num_array(t->rss_kb, t->ns, 1));
	}
	if (t->nphases) {
		cJSON *ph = cJSON_AddArrayToObject(o, "phases");

		for (unsigned i = 0; i < t->nphases; i++) {
			cJSON *p = cJSON_CreateObject();

			cJSON_AddStringToObject(p, "name", res_tl_phase_names[t->phases[i].phase]);
			add_num(p, "t_ms", t->phases[i].t_ms, 10);
			cJSON_AddItemToArray(ph, p);
		}
	}
	if (t->steady.tested)
		cJSON_AddItemToObject(o, "steady", steady_json(&t->steady));
	if (t->growth.tested)
		cJSON_AddItemToObject(o, "growth", growth_json(&t->growth));
	return o;
}

static const cJSON *array_of(const cJSON *o, const char *k, unsigned n)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsArray(a) && (unsigned)cJSON_GetArraySize(a) == n ? a : NULL;
}

static double item_num(const cJSON *v)
{
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void read_u64s(const cJSON *a, uint64_t *v)
{
	unsigned i = 0;
	const cJSON *it;

	cJSON_ArrayForEach (it, a) {
		double d = item_num(it);

		v[i++] = isnan(d) || d < 0 || d >= 0x1p64 ? 0 : (uint64_t)d;
	}
}

static void read_nums(const cJSON *a, double *v)
{
	unsigned i = 0;
	const cJSON *it;

	cJSON_ArrayForEach (it, a)
		v[i++] = item_num(it);
}

static int samples_parse(const cJSON *s, struct res_timeline *ret)
{
	const cJSON *tm = cJSON_GetObjectItemCaseSensitive(s, "t_ms");
	unsigned n = cJSON_IsArray(tm) ? (unsigned)cJSON_GetArraySize(tm) : 0;
	const cJSON *cpu = array_of(s, "cpu_ms", n), *mem = array_of(s, "memory_current_kb", n),
		    *rss = array_of(s, "rss_kb", n);

	if (!n || !cpu || !mem || !rss)
		return 0;
	if (res_timeline_samples(ret, n) < 0)
		return -ENOMEM;
	ret->sample_ms = item_num(cJSON_GetObjectItemCaseSensitive(s, "interval_ms"));
	read_nums(tm, ret->t_ms);
	read_nums(cpu, ret->cpu_ms);
	read_nums(mem, ret->memory_kb);
	read_nums(rss, ret->rss_kb);
	return 0;
}

/* The phases of a file: a known name at a time no earlier than the phase before; the rest is left out. */
static void phases_parse(const cJSON *a, struct res_timeline *ret)
{
	const cJSON *it;

	if (!cJSON_IsArray(a))
		return;
	cJSON_ArrayForEach (it, a) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
		double ms = item_num(cJSON_GetObjectItemCaseSensitive(it, "t_ms"));
		int k = -1;

		for (int i = 0; cJSON_IsString(name) && i < RES_TL_NR_PHASES; i++)
			if (!strcmp(name->valuestring, res_tl_phase_names[i]))
				k = i;
		if (k < 0 || !(ms >= 0 && ms < 1e12) || ret->nphases == RES_TL_MAX_PHASES ||
		    (ret->nphases && ms < ret->phases[ret->nphases - 1].t_ms))
			continue;
		ret->phases[ret->nphases].phase = (enum res_tl_phase)k;
		ret->phases[ret->nphases++].t_ms = ms;
	}
}

/* steady and growth are recomputed from the columns, as the noisy reasons are. */
int res_timeline_parse(const cJSON *o, struct res_timeline *ret)
{
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(o, "requests");
	unsigned n = cJSON_IsArray(req) ? (unsigned)cJSON_GetArraySize(req) : 0;
	const cJSON *err = array_of(o, "errors", n), *bytes = array_of(o, "bytes", n), *p50 = array_of(o, "p50_us", n),
		    *p99 = array_of(o, "p99_us", n);
	double iv = item_num(cJSON_GetObjectItemCaseSensitive(o, "interval_ms"));
	double origin = item_num(cJSON_GetObjectItemCaseSensitive(o, "origin_ns"));

	memset(ret, 0, sizeof(*ret));
	if (!cJSON_IsObject(o) || !cJSON_IsArray(req) || !err || !bytes || !p50 || !p99 || !(iv > 0))
		return -EINVAL;
	if (client_columns(ret, n) < 0)
		return -ENOMEM;
	ret->interval_ms = iv;
	ret->origin_ns = origin > 0 && origin < 0x1p64 ? (uint64_t)origin : 0;
	read_u64s(req, ret->requests);
	read_u64s(err, ret->errors);
	read_u64s(bytes, ret->bytes);
	read_nums(p50, ret->p50_us);
	read_nums(p99, ret->p99_us);
	if (samples_parse(cJSON_GetObjectItemCaseSensitive(o, "server"), ret) < 0) {
		res_timeline_free(ret);
		return -ENOMEM;
	}
	phases_parse(cJSON_GetObjectItemCaseSensitive(o, "phases"), ret);
	res_timeline_analyse(ret);
	return 0;
}

int res_timeline_read(const char *text, struct res_timeline *ret)
{
	cJSON *o = cJSON_Parse(text);
	int rc = res_timeline_parse(cJSON_GetObjectItemCaseSensitive(o, "timeline"), ret);

	cJSON_Delete(o);
	return rc;
}

cJSON *res_warmup_json(const struct res_warmup *w)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "mode", "auto");
	cJSON_AddNumberToObject(o, "rounds", w->rounds);
	cJSON_AddNumberToObject(o, "requests", (double)w->requests);
	cJSON_AddNumberToObject(o, "seconds", round(w->seconds * 1000) / 1000);
	cJSON_AddBoolToObject(o, "steady", w->steady);
	return o;
}

void res_warmup_parse(const cJSON *o, struct res_warmup *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!cJSON_IsObject(o))
		return;
	ret->have = true;
	ret->rounds = (unsigned)fmax(0, item_num(cJSON_GetObjectItemCaseSensitive(o, "rounds")));
	ret->requests = (uint64_t)fmax(0, item_num(cJSON_GetObjectItemCaseSensitive(o, "requests")));
	ret->seconds = item_num(cJSON_GetObjectItemCaseSensitive(o, "seconds"));
	ret->steady = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "steady"));
}

cJSON *res_startup_trend_json(const double *runs_ms, unsigned n)
{
	double *v, *dev, med, mad, z;
	struct trend_mk mk;
	cJSON *o;

	if (n < 3 || !(v = malloc(2 * n * sizeof(*v))))
		return NULL;
	dev = v + n;
	for (unsigned i = 0; i < n; i++)
		v[i] = round(runs_ms[i] * 1e3) / 1e3;
	trend_mann_kendall(v, n, &mk);
	z = v[0];
	qsort(v, n, sizeof(*v), cmp_double);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	for (unsigned i = 0; i < n; i++)
		dev[i] = fabs(v[i] - med);
	qsort(dev, n, sizeof(*dev), cmp_double);
	mad = n % 2 ? dev[n / 2] : (dev[n / 2 - 1] + dev[n / 2]) / 2;
	z = mad > 0 ? 0.6745 * (z - med) / mad : NAN;
	free(v);
	o = cJSON_CreateObject();
	add_num(o, "tau", mk.tau, 10000);
	add_num(o, "p", mk.p, 1e6);
	add_num(o, "first_run_z", z, 100);
	cJSON_AddBoolToObject(o, "first_run_slower", z > RES_FIRST_RUN_Z);
	return o;
}
