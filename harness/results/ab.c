/* The harness-ab/1 document: every window of a duet, the pairs, the paired verdict per metric, and JSON both
 * ways (written atomically); report/ab_report.c renders it. */
#include "results/ab.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/cleanup.h"
#include "base/esc.h"
#include "base/util.h"

const char *const ab_metric_names[AB_NR_METRICS] = {"throughput", "p50", "p99", "startup", "script", "memory"};

struct ab_window *ab_window_add(struct ab_doc *d)
{
	if (d->nw == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct ab_window *w = cap > AB_MAX_WINDOWS ? NULL : realloc(d->w, cap * sizeof(*w));

		if (!w)
			return NULL;
		d->w = w;
		d->cap = cap;
	}
	memset(&d->w[d->nw], 0, sizeof(d->w[0]));
	return &d->w[d->nw++];
}

bool ab_simultaneous(const struct ab_doc *d)
{
	return strcmp(d->duet, "simultaneous") == 0;
}

void ab_free(struct ab_doc *d)
{
	free(d->w);
	d->w = NULL;
	d->nw = d->cap = 0;
}

double ab_value(const struct ab_window *w, enum ab_metric m)
{
	switch (m) {
	case AB_RPS:
		return w->duration_s > 0 ? (double)w->requests / w->duration_s : NAN;
	case AB_P50:
		return w->p50_us;
	case AB_P99:
		return w->p99_us;
	case AB_STARTUP:
		return w->startup_ms;
	case AB_SCRIPT:
		return w->value;
	case AB_MEMORY:
		return w->rss_kb;
	case AB_NR_METRICS:
		break;
	}
	return NAN;
}

/* Foreign tasks take the CPU from whichever side is measured: a window that lost more of it than its pair's other
 * did is slower for that alone. The two servers each saturate the CPU in their window, so what the scheduler
 * leaves to foreign tasks does not depend on the side: leaving such pairs out biases neither. */
bool ab_pair_noisy(const struct ab_window *x, const struct ab_window *y)
{
	double window_ms = 1e3 * fmin(x->duration_s, y->duration_s);

	return isfinite(x->foreign_ms) && isfinite(y->foreign_ms) &&
	       fabs(x->foreign_ms - y->foreign_ms) > fmax(AB_NOISY_SHARE * window_ms, AB_NOISY_MIN_MS);
}

const char *const ab_pair_use_names[AB_NR_PAIR_USES] = {"counted", "warmup", "noisy"};

bool ab_pair_at(const struct ab_doc *d, size_t i, const struct ab_window **ret_a, const struct ab_window **ret_b,
		enum ab_pair_use *ret_use)
{
	const struct ab_window *x, *y;

	if (i + 1 >= d->nw || i % 2)
		return false;
	x = &d->w[i], y = &d->w[i + 1];
	if (x->pair != y->pair || x->side == y->side)
		return false;
	*ret_a = x->side == 'A' ? x : y;
	*ret_b = x->side == 'A' ? y : x;
	*ret_use = x->warmup ? AB_PAIR_WARMUP : ab_pair_noisy(x, y) ? AB_PAIR_NOISY : AB_PAIR_COUNTED;
	return true;
}

/* Whether window k followed a window of the other side on the same servers: an interleaved duet's carry-over
 * (stats/paired.h). */
static bool follows_other(const struct ab_doc *d, size_t k)
{
	return k > 0 && d->w[k - 1].round == d->w[k].round && d->w[k - 1].side != d->w[k].side;
}

void ab_pairset_free(struct ab_pairset *p)
{
	free(p->a);
	free(p->b);
	free(p->carry);
	free(p->round);
	*p = (struct ab_pairset){0};
}

int ab_pairs(const struct ab_doc *d, enum ab_metric m, struct ab_pairset *ret)
{
	size_t cap = d->nw / 2 + 1;
	struct ab_pairset p = {.a = calloc(cap, sizeof(double)),
			       .b = calloc(cap, sizeof(double)),
			       .carry = calloc(cap, sizeof(double)),
			       .round = calloc(cap, sizeof(unsigned))};

	if (!p.a || !p.b || !p.carry || !p.round) {
		ab_pairset_free(&p);
		return -1;
	}
	for (size_t i = 0; i + 1 < d->nw; i += 2) {
		const struct ab_window *wa, *wb;
		enum ab_pair_use use;

		if (!ab_pair_at(d, i, &wa, &wb, &use) || use != AB_PAIR_COUNTED)
			continue;
		p.a[p.n] = ab_value(wa, m);
		p.b[p.n] = ab_value(wb, m);
		/* a simultaneous duet's two windows of a pair ran at once: nothing carries over */
		p.carry[p.n] = ab_simultaneous(d) ? 0
						  : (double)follows_other(d, (size_t)(wb - d->w)) -
							    (double)follows_other(d, (size_t)(wa - d->w));
		p.round[p.n] = wa->round;
		if (p.a[p.n] > 0 && p.b[p.n] > 0 && isfinite(p.a[p.n]) && isfinite(p.b[p.n]))
			p.n++;
	}
	*ret = p;
	return 0;
}

int ab_side_means(const struct ab_doc *d, enum ab_metric m, double *ret_a, double *ret_b, size_t *ret_n)
{
	struct ab_pairset p;
	double la = 0, lb = 0;

	if (ab_pairs(d, m, &p) < 0)
		return -1;
	for (size_t i = 0; i < p.n; i++) {
		la += log(p.a[i]) / (double)p.n;
		lb += log(p.b[i]) / (double)p.n;
	}
	*ret_a = p.n ? exp(la) : NAN;
	*ret_b = p.n ? exp(lb) : NAN;
	*ret_n = p.n;
	ab_pairset_free(&p);
	return 0;
}

/* Each side's CPU during the other's windows, as a share of one CPU; a simultaneous duet has no idle side. */
static void idle_evidence(struct ab_doc *d)
{
	for (int s = 0; s < 2; s++) {
		d->idle_share[s] = 0;
		d->idle_busy[s] = false;
		for (size_t i = 0; i < d->nw && !ab_simultaneous(d); i++) {
			const struct ab_window *w = &d->w[i];
			double share = w->duration_s > 0 ? w->idle_cpu_ms / 1e3 / w->duration_s : 0;

			if (w->side != "AB"[s] && !w->warmup && share > d->idle_share[s])
				d->idle_share[s] = share;
			d->idle_busy[s] = d->idle_share[s] > AB_IDLE_SHARE;
		}
	}
}

/* Whether the servers were still warming up in their rounds: each round's counted windows (both sides, in the
 * order run) split in thirds, the log of the headline metric's last third against its first, better as positive;
 * the mean over the rounds with AB_WARMING_PAIRS counted pairs or more. Blind to the sides: it cannot favour one. */
static void warm_evidence(struct ab_doc *d)
{
	enum ab_metric m = ab_headline(d);
	double sign = ab_higher_better(d, m) ? 1 : -1, sum = 0;
	size_t rounds = 0;

	d->warming = NAN;
	d->still_warming = false;
	if (d->round_s <= 0)
		return;
	for (size_t i = 0, j; i < d->nw; i = j) {
		size_t n = 0, k;
		double first = 0, last = 0;

		for (j = i; j < d->nw && d->w[j].round == d->w[i].round; j++)
			n += !d->w[j].warmup && isfinite(ab_value(&d->w[j], m)) && ab_value(&d->w[j], m) > 0;
		if (n < 2 * AB_WARMING_PAIRS)
			continue;
		k = n / 6 * 2; /* a third of the pairs, in windows */
		for (size_t x = i, at = 0; x < j; x++) {
			double v = ab_value(&d->w[x], m);

			if (d->w[x].warmup || !isfinite(v) || v <= 0)
				continue;
			if (at < k)
				first += log(v);
			else if (at >= n - k)
				last += log(v);
			at++;
		}
		sum += sign * (last - first) / (double)k;
		rounds++;
	}
	if (rounds) {
		d->warming = exp(sum / (double)rounds) - 1;
		d->still_warming = d->warming > AB_WARMING;
	}
}

int ab_analyze(struct ab_doc *d)
{
	for (int m = 0; m < AB_NR_METRICS; m++) {
		struct ab_pairset p;
		struct paired_opts o = {.threshold = d->threshold > 0 ? d->threshold : AB_DEFAULT_TH,
					.level = 0.95,
					.seed = d->seed,
					.smaller_better = !ab_higher_better(d, (enum ab_metric)m)};
		int rc;

		if (ab_pairs(d, (enum ab_metric)m, &p) < 0)
			return -1;
		rc = paired_analyze(&(struct paired_input){p.a, p.b, p.carry, p.round, p.n}, &o, &d->metric[m]);
		ab_pairset_free(&p);
		if (rc < 0)
			return -1;
		if ((enum ab_metric)m == ab_headline(d))
			d->pairs = d->metric[m].n;
	}
	d->noisy_pairs = 0;
	for (size_t i = 0; i + 1 < d->nw; i += 2) {
		const struct ab_window *x = &d->w[i], *y = &d->w[i + 1];

		d->noisy_pairs += x->pair == y->pair && !x->warmup && ab_pair_noisy(x, y);
	}
	idle_evidence(d);
	warm_evidence(d);
	return 0;
}

enum ab_metric ab_headline(const struct ab_doc *d)
{
	return strcmp(d->workload, "startup") == 0  ? AB_STARTUP
	       : strcmp(d->workload, "script") == 0 ? AB_SCRIPT
						    : AB_RPS;
}

bool ab_has_metric(const struct ab_doc *d, enum ab_metric m)
{
	switch (ab_headline(d)) {
	case AB_STARTUP:
		return m == AB_STARTUP;
	case AB_SCRIPT:
		return m == AB_SCRIPT || m == AB_MEMORY;
	default:
		return m == AB_RPS || m == AB_P50 || m == AB_P99 || m == AB_MEMORY;
	}
}

bool ab_higher_better(const struct ab_doc *d, enum ab_metric m)
{
	return m == AB_RPS || (m == AB_SCRIPT && d->metric_higher);
}

const char *ab_metric_label(const struct ab_doc *d, enum ab_metric m)
{
	return m == AB_SCRIPT && d->metric_name[0] ? d->metric_name : ab_metric_names[m];
}

const char *ab_verdict_name(enum ab_metric m, enum paired_verdict v)
{
	if (m == AB_MEMORY && (v == PV_SLOWER || v == PV_FASTER))
		return v == PV_SLOWER ? "larger" : "smaller";
	return paired_verdict_names[v];
}

bool ab_regressed(const struct ab_doc *d)
{
	return d->metric[ab_headline(d)].verdict == PV_SLOWER;
}

/* ---- JSON ---- */

static cJSON *window_json(const struct ab_doc *d, const struct ab_window *w)
{
	cJSON *o = cJSON_CreateObject();
	char side[2] = {w->side, 0};

	cJSON_AddNumberToObject(o, "pair", w->pair);
	cJSON_AddNumberToObject(o, "round", w->round);
	cJSON_AddStringToObject(o, "side", side);
	cJSON_AddBoolToObject(o, "warmup", w->warmup);
	cJSON_AddNumberToObject(o, "start_s", w->start_s);
	cJSON_AddNumberToObject(o, "duration_s", w->duration_s);
	cJSON_AddNumberToObject(o, "requests", (double)w->requests);
	cJSON_AddNumberToObject(o, "errors", (double)w->errors);
	cJSON_AddNumberToObject(o, "reconnects", (double)w->reconnects);
	if (w->requests)
		cJSON_AddNumberToObject(o, "drained", (double)w->drained);
	cJSON_AddNumberToObject(o, "mean_us", w->mean_us);
	cJSON_AddNumberToObject(o, "p50_us", w->p50_us);
	cJSON_AddNumberToObject(o, "p90_us", w->p90_us);
	cJSON_AddNumberToObject(o, "p99_us", w->p99_us);
	cJSON_AddNumberToObject(o, "max_us", w->max_us);
	cJSON_AddNumberToObject(o, "drain_ms", w->drain_ms);
	cJSON_AddNumberToObject(o, "other_side_cpu_ms", w->idle_cpu_ms);
	cJSON_AddNumberToObject(o, "side_cpu_ms", w->own_cpu_ms);
	cJSON_AddNumberToObject(o, "foreign_cpu_ms", w->foreign_ms);
	if (w->startup_ms > 0)
		cJSON_AddNumberToObject(o, "startup_ms", w->startup_ms);
	if (w->value > 0)
		cJSON_AddNumberToObject(o, "value", w->value);
	if (w->rss_kb > 0)
		cJSON_AddNumberToObject(o, "rss_kb", w->rss_kb);
	if (w->memory_kb > 0)
		cJSON_AddNumberToObject(o, "memory_kb", w->memory_kb);
	if (ab_simultaneous(d)) {
		cJSON_AddStringToObject(o, "cpus", w->cpus);
		cJSON_AddBoolToObject(o, "smt_siblings_shared", w->smt_shared);
	}
	return o;
}

static cJSON *side_json(const struct ab_side *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "runtime", s->runtime);
	cJSON_AddStringToObject(o, "scenario", s->scenario);
	cJSON_AddStringToObject(o, "slice", s->slice);
	cJSON_AddStringToObject(o, "cpus", s->cpus);
	cJSON_AddStringToObject(o, "args", s->args);
	cJSON_AddStringToObject(o, "env", s->env);
	cJSON_AddNumberToObject(o, "port", s->port);
	return o;
}

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *verdict_json(const struct ab_doc *d, enum ab_metric m)
{
	const struct paired_result *r = &d->metric[m];
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "pairs", (double)r->n);
	cJSON_AddNumberToObject(o, "rounds", (double)r->rounds);
	cJSON_AddItemToObject(o, "sd_round", num_or_null(r->sd_round));
	cJSON_AddItemToObject(o, "ratio", num_or_null(r->ratio));
	cJSON_AddItemToObject(o, "ci_low", num_or_null(r->low));
	cJSON_AddItemToObject(o, "ci_high", num_or_null(r->high));
	cJSON_AddItemToObject(o, "ci_half_width", num_or_null(r->half_width));
	cJSON_AddItemToObject(o, "p", num_or_null(r->p));
	cJSON_AddItemToObject(o, "sd_log_ratio", num_or_null(r->sd_log));
	cJSON_AddItemToObject(o, "sd_log_ratio_raw", num_or_null(r->sd_log_raw));
	cJSON_AddItemToObject(o, "carry_slope", num_or_null(r->carry));
	cJSON_AddItemToObject(o, "trend_rho", num_or_null(r->trend_rho));
	cJSON_AddBoolToObject(o, "drift", r->drift);
	cJSON_AddItemToObject(o, "bimodality", num_or_null(r->bimodality));
	cJSON_AddBoolToObject(o, "bimodal", r->bimodal);
	/* the JSON's keys (below_threshold), with memory's words for its two directions */
	cJSON_AddStringToObject(o, "verdict",
				m == AB_MEMORY && (r->verdict == PV_SLOWER || r->verdict == PV_FASTER)
					? ab_verdict_name(m, r->verdict)
					: paired_verdict_keys[r->verdict]);
	cJSON_AddNumberToObject(o, "pairs_needed", (double)r->pairs_needed);
	return o;
}

static cJSON *ab_json(const struct ab_doc *d)
{
	cJSON *o = cJSON_CreateObject(), *sides, *ws, *v, *idle;

	cJSON_AddStringToObject(o, "kind", AB_KIND); /* first: ab_is_file reads only the head */
	sides = cJSON_AddObjectToObject(o, "sides");
	cJSON_AddStringToObject(o, "harness_version", d->version);
	cJSON_AddStringToObject(o, "harness_commit", d->commit);
	cJSON_AddStringToObject(o, "started", d->started);
	cJSON_AddStringToObject(o, "cpu_model", d->cpu_model);
	cJSON_AddStringToObject(o, "scenario", d->scenario);
	cJSON_AddStringToObject(o, "workload", d->workload);
	cJSON_AddStringToObject(o, "mode", d->mode);
	cJSON_AddStringToObject(o, "duet", ab_simultaneous(d) ? "simultaneous" : "interleaved");
	cJSON_AddItemToObject(sides, "A", side_json(&d->side[0]));
	cJSON_AddItemToObject(sides, "B", side_json(&d->side[1]));
	if (ab_headline(d) == AB_SCRIPT) {
		cJSON *mt = cJSON_AddObjectToObject(o, "metric");

		cJSON_AddStringToObject(mt, "name", d->metric_name);
		cJSON_AddBoolToObject(mt, "higher_is_better", d->metric_higher);
	}
	cJSON_AddNumberToObject(o, "threshold", d->threshold);
	cJSON_AddNumberToObject(o, "precision", d->precision);
	cJSON_AddNumberToObject(o, "max_time_s", d->max_time_s);
	cJSON_AddNumberToObject(o, "window_s", d->window_s);
	cJSON_AddNumberToObject(o, "round_s", d->round_s);
	cJSON_AddNumberToObject(o, "seed", (double)d->seed);
	cJSON_AddNumberToObject(o, "connections", d->connections);
	cJSON_AddNumberToObject(o, "threads", d->threads);
	cJSON_AddStringToObject(o, "engine", d->engine);
	res_engine_setup_json(o, &d->engine_setup);
	cJSON_AddStringToObject(o, "stopped", d->stopped);
	cJSON_AddNumberToObject(o, "wall_s", d->wall_s);
	cJSON_AddNumberToObject(o, "client_cpu_s", d->client_cpu_s);
	cJSON_AddNumberToObject(o, "reconnects", (double)d->reconnects);
	cJSON_AddNumberToObject(o, "errors", (double)d->errors);
	ws = cJSON_AddArrayToObject(o, "windows");
	for (size_t i = 0; i < d->nw; i++)
		cJSON_AddItemToArray(ws, window_json(d, &d->w[i]));
	v = cJSON_AddObjectToObject(o, "verdicts");
	for (int m = 0; m < AB_NR_METRICS; m++)
		if (ab_has_metric(d, (enum ab_metric)m)) /* a startup duet has no latency */
			cJSON_AddItemToObject(v, ab_metric_names[m], verdict_json(d, (enum ab_metric)m));
	idle = cJSON_AddObjectToObject(o, "idle_side_cpu_share");
	cJSON_AddNumberToObject(idle, "A", d->idle_share[0]);
	cJSON_AddNumberToObject(idle, "B", d->idle_share[1]);
	cJSON_AddBoolToObject(o, "idle_side_busy", d->idle_busy[0] || d->idle_busy[1]);
	cJSON_AddNumberToObject(o, "noisy_pairs", (double)d->noisy_pairs);
	cJSON_AddItemToObject(o, "warming", num_or_null(d->warming));
	cJSON_AddBoolToObject(o, "still_warming", d->still_warming);
	return o;
}

char *ab_json_text(const struct ab_doc *d)
{
	cJSON *j = ab_json(d);
	char *text = cJSON_Print(j);

	cJSON_Delete(j);
	return text;
}

int ab_write(const struct ab_doc *d, const char *path, struct hx_err *err)
{
	_cleanup_free_ char *text = ab_json_text(d);
	int rc;

	if (!text)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	rc = util_write_atomic(path, text, strlen(text), err);
	return rc < 0 ? hx_wrap(err, "ab: %s", path) : 0;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A count of the document, 0 when it is absent, negative, fractional beyond 2^53 or not a number: a hostile
 * file's NaN or 1e300 would be undefined as an integer. */
static uint64_t count(const cJSON *o, const char *k)
{
	double v = num(o, k);

	return v >= 0 && v <= 9007199254740992.0 ? (uint64_t)v : 0;
}

static void str(const cJSON *o, const char *k, char *buf, size_t len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	snprintf(buf, len, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static int window_read(const cJSON *o, struct ab_window *w)
{
	char side[4];

	str(o, "side", side, sizeof(side));
	if ((side[0] != 'A' && side[0] != 'B') || side[1] || !(num(o, "duration_s") > 0) ||
	    !(num(o, "pair") >= 0 && num(o, "pair") < AB_MAX_WINDOWS))
		return -1;
	w->side = side[0];
	w->pair = (unsigned)num(o, "pair");
	/* absent before rounds: one round */
	w->round = num(o, "round") >= 0 && num(o, "round") < AB_MAX_WINDOWS ? (unsigned)num(o, "round") : 0;
	w->warmup = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "warmup"));
	w->start_s = num(o, "start_s");
	w->duration_s = num(o, "duration_s");
	w->requests = count(o, "requests");
	w->errors = count(o, "errors");
	w->reconnects = count(o, "reconnects");
	w->drained = count(o, "drained");
	w->mean_us = num(o, "mean_us");
	w->p50_us = num(o, "p50_us");
	w->p90_us = num(o, "p90_us");
	w->p99_us = num(o, "p99_us");
	w->max_us = num(o, "max_us");
	w->drain_ms = num(o, "drain_ms");
	w->idle_cpu_ms = num(o, "other_side_cpu_ms");
	w->foreign_ms = num(o, "foreign_cpu_ms");
	w->own_cpu_ms = num(o, "side_cpu_ms");
	w->startup_ms = num(o, "startup_ms");
	w->value = num(o, "value");
	w->rss_kb = num(o, "rss_kb");
	w->memory_kb = num(o, "memory_kb");
	str(o, "cpus", w->cpus, sizeof(w->cpus));
	w->smt_shared = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "smt_siblings_shared"));
	return 0;
}

static void side_read(const cJSON *o, struct ab_side *s)
{
	str(o, "runtime", s->runtime, sizeof(s->runtime));
	str(o, "scenario", s->scenario, sizeof(s->scenario));
	str(o, "slice", s->slice, sizeof(s->slice));
	str(o, "cpus", s->cpus, sizeof(s->cpus));
	str(o, "args", s->args, sizeof(s->args));
	str(o, "env", s->env, sizeof(s->env));
	s->port = count(o, "port") <= 65535 ? (unsigned)count(o, "port") : 0;
}

static int doc_read(const cJSON *j, struct ab_doc *d, const char *path, struct hx_err *err)
{
	const cJSON *ws = cJSON_GetObjectItemCaseSensitive(j, "windows"), *w;
	const cJSON *sides = cJSON_GetObjectItemCaseSensitive(j, "sides");

	str(j, "scenario", d->scenario, sizeof(d->scenario));
	str(j, "mode", d->mode, sizeof(d->mode));
	str(j, "duet", d->duet, sizeof(d->duet)); /* absent before the simultaneous duet: interleaved */
	if (strcmp(d->duet, "simultaneous") != 0)
		snprintf(d->duet, sizeof(d->duet), "interleaved");
	str(j, "workload", d->workload, sizeof(d->workload));
	str(j, "engine", d->engine, sizeof(d->engine));
	res_engine_setup_parse(j, &d->engine_setup);
	str(j, "stopped", d->stopped, sizeof(d->stopped));
	str(j, "started", d->started, sizeof(d->started));
	str(j, "harness_version", d->version, sizeof(d->version));
	str(j, "harness_commit", d->commit, sizeof(d->commit));
	str(j, "cpu_model", d->cpu_model, sizeof(d->cpu_model));
	str(cJSON_GetObjectItemCaseSensitive(j, "metric"), "name", d->metric_name, sizeof(d->metric_name));
	d->metric_higher = cJSON_IsTrue(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "metric"), "higher_is_better"));
	side_read(cJSON_GetObjectItemCaseSensitive(sides, "A"), &d->side[0]);
	side_read(cJSON_GetObjectItemCaseSensitive(sides, "B"), &d->side[1]);
	d->threshold = num(j, "threshold");
	d->precision = num(j, "precision");
	d->max_time_s = num(j, "max_time_s");
	d->window_s = num(j, "window_s");
	d->round_s = num(j, "round_s") > 0 ? num(j, "round_s") : 0; /* absent before rounds: one */
	d->seed = count(j, "seed");
	d->connections = count(j, "connections") <= UINT32_MAX ? (unsigned)count(j, "connections") : 0;
	d->threads = count(j, "threads") <= UINT32_MAX ? (unsigned)count(j, "threads") : 0;
	d->wall_s = num(j, "wall_s");
	d->client_cpu_s = num(j, "client_cpu_s");
	d->reconnects = count(j, "reconnects");
	d->errors = count(j, "errors");
	if (!cJSON_IsArray(ws) || !(d->threshold > 0 && d->threshold < 1))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "ab: %s: no windows or threshold: not a harness-ab file",
			       path);
	cJSON_ArrayForEach (w, ws) {
		struct ab_window *x = ab_window_add(d);

		if (!x)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "ab: %s: more than %d windows", path, AB_MAX_WINDOWS);
		if (window_read(w, x) < 0)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "ab: %s: window %zu has no side A or B, no pair number or no duration", path,
				       d->nw - 1);
		if (d->nw > 1 && x->round < x[-1].round)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "ab: %s: window %zu is of round %u after round %u: the windows are out of order",
				       path, d->nw - 1, x->round, x[-1].round);
	}
	return ab_analyze(d) < 0 ? hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory") : 0;
}

int ab_read(const char *path, struct ab_doc *d, struct hx_err *err)
{
	_cleanup_free_ char *text = NULL;
	cJSON *j;
	const cJSON *kind;
	int rc;

	memset(d, 0, sizeof(*d));
	if (util_read_file(path, &text, NULL, err) < 0)
		return -err->errnum;
	j = cJSON_Parse(text);
	kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
	if (!cJSON_IsString(kind) || strcmp(kind->valuestring, AB_KIND) != 0) {
		cJSON_Delete(j);
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "ab: %s is not a %s document", path, AB_KIND);
	}
	rc = doc_read(j, d, path, err);
	cJSON_Delete(j);
	if (rc < 0)
		ab_free(d);
	return rc;
}

bool ab_is_file(const char *path)
{
	/* the head only, of a regular file only: a results file may be hundreds of MB, a FIFO never ends (the
	 * reader that follows refuses what is not a regular file, with its message) */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char head[4096];
	struct stat st;
	ssize_t n;
	const char *p;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (n = read(fd, head, sizeof(head) - 1)) <= 0)
		return false;
	head[n] = '\0';
	if (!(p = strstr(head, "\"kind\"")))
		return false;
	for (p += 6; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ':'; p++)
		;
	return strncmp(p, "\"" AB_KIND "\"", strlen(AB_KIND) + 2) == 0;
}

/* ---- the figures a report shows ---- */

void ab_cost(const struct ab_doc *d, enum ab_metric m, double *ret_c, double *ret_low, double *ret_high)
{
	const struct paired_result *r = &d->metric[m];
	bool inv = ab_higher_better(d, m);

	/* a time as it is, a throughput inverted (the time per request) */
	*ret_c = inv ? 1 / r->ratio : r->ratio;
	*ret_low = inv ? 1 / r->high : r->low;
	*ret_high = inv ? 1 / r->low : r->high;
}
