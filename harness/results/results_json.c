/* The results document as JSON, both ways: typed trials and their sub-results to JSON and back, the
 * head, the atomic write, and a file read back (any harness-results/1 writer). */
#include "results/results.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "stats/signif.h"

/* ---- reading JSON: absent or mistyped values read as NAN, 0 or "" ---- */

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

const cJSON *res_json_at(const cJSON *o, const char *path)
{
	char key[128];

	while (o && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += n + (path[n] == '.');
	}
	return o;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = get(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static double num0(const cJSON *o, const char *k)
{
	double v = num(o, k);

	return isnan(v) ? 0 : v;
}

/* Defined for any double: numbers_check has refused the non-finite and those past 2^64 of a file read. */
static uint64_t u64(const cJSON *o, const char *k)
{
	double v = num(o, k);

	return isnan(v) || v < 0 || v >= 0x1p64 ? 0 : (uint64_t)v;
}

/* Results files come from others (baselines, CI artifacts): cJSON reads 1e999 as inf, and a double past
 * 2^64 cast to an integer is undefined, so every number of a trial must be finite and below 2^64 in size. */
static int numbers_check(const cJSON *o, struct hx_err *err)
{
	const cJSON *it;

	if (cJSON_IsNumber(o) && (!isfinite(o->valuedouble) || fabs(o->valuedouble) >= 0x1p64))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s is %g: expected a finite number below 2^64",
			       o->string ? o->string : "a value", o->valuedouble);
	cJSON_ArrayForEach (it, o)
		if (numbers_check(it, err) < 0)
			return -err->errnum;
	return 0;
}

/* trial and order index the run's trials: a whole number from 0 to UINT_MAX, never cut; absent reads as 0. */
static int index_field(const cJSON *o, const char *k, unsigned *ret, struct hx_err *err)
{
	double v = num(o, k);

	*ret = 0;
	if (isnan(v))
		return 0;
	if (v < 0 || v > UINT_MAX || v != floor(v))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s is %g: expected a whole number from 0 to %u", k, v,
			       UINT_MAX);
	*ret = (unsigned)v;
	return 0;
}

static void str(const cJSON *o, const char *k, char *buf, size_t len)
{
	const cJSON *v = get(o, k);

	snprintf(buf, len, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* ---- the pieces, both ways ---- */

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v[0])
		cJSON_AddStringToObject(o, k, v);
}

static void add_num(cJSON *o, const char *k, double v)
{
	if (!isnan(v))
		cJSON_AddNumberToObject(o, k, v);
}

/* A member of a typed sub-result and its key: one table per struct serves both directions. */
enum fkind {
	FK_STR,	 /* char[len]; "" is left out */
	FK_NUM,	 /* double; absent reads as 0 */
	FK_OPT,	 /* double; NAN is left out, and absent reads as NAN */
	FK_U64,	 /* uint64_t */
	FK_UINT, /* unsigned */
	FK_INT,	 /* int; absent reads as -1 */
	FK_BOOL, /* bool */
};

struct field {
	const char *key;
	enum fkind kind;
	size_t off, len;
};

#define F(type, member, kind)                                                      \
	{                                                                          \
#member, kind, offsetof(type, member), sizeof(((type *)0)->member) \
	}
#define FK(key, type, member, kind)                                            \
	{                                                                      \
		key, kind, offsetof(type, member), sizeof(((type *)0)->member) \
	}

static void fields_json(cJSON *o, const void *base, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = (const char *)base + f[i].off;

		switch (f[i].kind) {
		case FK_STR:
			add_str(o, f[i].key, p);
			break;
		case FK_NUM:
			cJSON_AddNumberToObject(o, f[i].key, *(const double *)p);
			break;
		case FK_OPT:
			add_num(o, f[i].key, *(const double *)p);
			break;
		case FK_U64:
			cJSON_AddNumberToObject(o, f[i].key, (double)*(const uint64_t *)p);
			break;
		case FK_UINT:
			cJSON_AddNumberToObject(o, f[i].key, *(const unsigned *)p);
			break;
		case FK_INT:
			cJSON_AddNumberToObject(o, f[i].key, *(const int *)p);
			break;
		case FK_BOOL:
			cJSON_AddBoolToObject(o, f[i].key, *(const bool *)p);
			break;
		}
	}
}

static void fields_parse(const cJSON *o, void *base, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *p = (char *)base + f[i].off;
		double v = num(o, f[i].key);

		switch (f[i].kind) {
		case FK_STR:
			str(o, f[i].key, p, f[i].len);
			break;
		case FK_NUM:
			*(double *)p = isnan(v) ? 0 : v;
			break;
		case FK_OPT:
			*(double *)p = v;
			break;
		case FK_U64:
			*(uint64_t *)p = u64(o, f[i].key);
			break;
		case FK_UINT:
			*(unsigned *)p = (unsigned)u64(o, f[i].key);
			break;
		case FK_INT:
			*(int *)p = isnan(v) ? -1 : (int)v;
			break;
		case FK_BOOL:
			*(bool *)p = cJSON_IsTrue(get(o, f[i].key));
			break;
		}
	}
}

#define FIELDS_JSON(o, base, tab)  fields_json(o, base, tab, HX_ARRAY_SIZE(tab))
#define FIELDS_PARSE(o, base, tab) fields_parse(o, base, tab, HX_ARRAY_SIZE(tab))

/* The latency fields, in the order printed. */
static const struct {
	const char *name;
	size_t off;
} lat_fields[] = {
	{"mean", offsetof(struct res_latency, mean)}, {"stddev", offsetof(struct res_latency, stddev)},
	{"min", offsetof(struct res_latency, min)},   {"p50", offsetof(struct res_latency, p50)},
	{"p75", offsetof(struct res_latency, p75)},   {"p90", offsetof(struct res_latency, p90)},
	{"p95", offsetof(struct res_latency, p95)},   {"p99", offsetof(struct res_latency, p99)},
	{"p999", offsetof(struct res_latency, p999)}, {"max", offsetof(struct res_latency, max)},
};

static cJSON *latency_json(const struct res_latency *l)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < HX_ARRAY_SIZE(lat_fields); i++)
		cJSON_AddNumberToObject(o, lat_fields[i].name, *(const double *)((const char *)l + lat_fields[i].off));
	return o;
}

static void latency_parse(const cJSON *o, struct res_latency *ret)
{
	for (size_t i = 0; i < HX_ARRAY_SIZE(lat_fields); i++)
		*(double *)((char *)ret + lat_fields[i].off) = num0(o, lat_fields[i].name);
}

/* stats_summary fields scaled by scale except n, cv and outliers. */
cJSON *res_summary_json(const struct stats_summary *s, double scale)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "n", (double)s->n);
	cJSON_AddNumberToObject(o, "median", s->median * scale);
	cJSON_AddNumberToObject(o, "mean", s->mean * scale);
	cJSON_AddNumberToObject(o, "stddev", s->stddev * scale);
	cJSON_AddNumberToObject(o, "cv", s->cv);
	cJSON_AddNumberToObject(o, "min", s->min * scale);
	cJSON_AddNumberToObject(o, "max", s->max * scale);
	cJSON_AddNumberToObject(o, "mad", s->mad * scale);
	cJSON_AddNumberToObject(o, "ci95_low", s->ci95_low * scale);
	cJSON_AddNumberToObject(o, "ci95_high", s->ci95_high * scale);
	cJSON_AddNumberToObject(o, "outliers", (double)s->outliers);
	return o;
}

static void summary_parse(const cJSON *o, struct stats_summary *ret)
{
	ret->n = (size_t)u64(o, "n");
	ret->median = num0(o, "median");
	ret->mean = num0(o, "mean");
	ret->stddev = num0(o, "stddev");
	ret->cv = num0(o, "cv");
	ret->min = num0(o, "min");
	ret->max = num0(o, "max");
	ret->mad = num0(o, "mad");
	ret->ci95_low = num0(o, "ci95_low");
	ret->ci95_high = num0(o, "ci95_high");
	ret->outliers = (size_t)u64(o, "outliers");
}

/* A slice's cgroup stats, with absent values left out (never a made-up zero). */
cJSON *res_stats_json(const struct cg_stats *st)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *psi = NULL;

	for (int k = 0; k < CG_NR_STATS; k++)
		if (st->have[k])
			cJSON_AddNumberToObject(o, cg_stat_names[k], (double)st->v[k]);
	if (st->peak_since != CG_PEAK_SINCE_UNKNOWN) /* after the warm-up, or over the slice's whole life */
		cJSON_AddStringToObject(o, "memory_peak_since",
					st->peak_since == CG_PEAK_SINCE_RESET ? "measurement" : "slice start");
	for (int r = 0; r < CG_NR_PSI; r++) {
		const struct cg_psi *p = &st->psi[r];
		cJSON *e;

		if (!p->have)
			continue;
		if (!psi)
			psi = cJSON_AddObjectToObject(o, "psi");
		e = cJSON_AddObjectToObject(psi, cg_psi_names[r]);
		cJSON_AddNumberToObject(e, "some_avg10", p->some_avg10);
		cJSON_AddNumberToObject(e, "some_total_usec", (double)p->some_total_usec);
		if (p->have_full) {
			cJSON_AddNumberToObject(e, "full_avg10", p->full_avg10);
			cJSON_AddNumberToObject(e, "full_total_usec", (double)p->full_total_usec);
		}
	}
	return o;
}

static void stats_parse(const cJSON *o, struct cg_stats *ret)
{
	const cJSON *psi = get(o, "psi");

	memset(ret, 0, sizeof(*ret));
	for (int k = 0; k < CG_NR_STATS; k++)
		if ((ret->have[k] = cJSON_IsNumber(get(o, cg_stat_names[k]))))
			ret->v[k] = u64(o, cg_stat_names[k]);
	if (cJSON_IsString(get(o, "memory_peak_since")))
		ret->peak_since = strcmp(get(o, "memory_peak_since")->valuestring, "measurement") == 0
					  ? CG_PEAK_SINCE_RESET
					  : CG_PEAK_SINCE_START;
	for (int r = 0; r < CG_NR_PSI; r++) {
		const cJSON *e = get(psi, cg_psi_names[r]);
		struct cg_psi *p = &ret->psi[r];

		if (!cJSON_IsObject(e))
			continue;
		p->have = true;
		p->some_avg10 = num0(e, "some_avg10");
		p->some_total_usec = u64(e, "some_total_usec");
		if ((p->have_full = cJSON_IsNumber(get(e, "full_avg10")))) {
			p->full_avg10 = num0(e, "full_avg10");
			p->full_total_usec = u64(e, "full_total_usec");
		}
	}
}

static const struct field load_fields[] = {
	F(struct res_load, requests, FK_U64),	F(struct res_load, duration_s, FK_NUM),
	F(struct res_load, rps, FK_NUM),	F(struct res_load, bytes, FK_U64),
	F(struct res_load, reconnects, FK_U64), F(struct res_load, engine, FK_STR),
};

static const struct field load_client_fields[] = {
	FK("cpu_s", struct res_load, client.cpu_s, FK_NUM),
	FK("cpu_us_per_request", struct res_load, client.cpu_us_per_request, FK_NUM),
	FK("max_thread_busy", struct res_load, client.max_thread_busy, FK_NUM),
	FK("saturated", struct res_load, client.saturated, FK_BOOL),
	FK("cpus", struct res_load, client.cpus, FK_STR),
};

static const struct field engine_setup_fields[] = {
	F(struct res_engine_setup, buffer_ring, FK_BOOL),
	F(struct res_engine_setup, multishot_recv, FK_BOOL),
	F(struct res_engine_setup, fallback, FK_STR),
	F(struct res_engine_setup, why, FK_STR),
};

void res_engine_setup_json(cJSON *o, const struct res_engine_setup *s)
{
	char flags[sizeof(s->ring_flags)], *save = NULL;
	cJSON *e, *a;

	if (!s->fallback[0])
		return;
	e = cJSON_AddObjectToObject(o, "engine_setup");
	a = cJSON_AddArrayToObject(e, "ring_flags");
	snprintf(flags, sizeof(flags), "%s", s->ring_flags);
	for (char *f = strtok_r(flags, ",", &save); f; f = strtok_r(NULL, ",", &save))
		cJSON_AddItemToArray(a, cJSON_CreateString(f));
	FIELDS_JSON(e, s, engine_setup_fields);
}

void res_engine_setup_parse(const cJSON *o, struct res_engine_setup *ret)
{
	const cJSON *e = get(o, "engine_setup"), *f;
	size_t at = 0;

	memset(ret, 0, sizeof(*ret));
	if (!cJSON_IsObject(e))
		return;
	cJSON_ArrayForEach (f, get(e, "ring_flags")) {
		if (cJSON_IsString(f) && at < sizeof(ret->ring_flags))
			at += (size_t)snprintf(ret->ring_flags + at, sizeof(ret->ring_flags) - at, "%s%s",
					       at ? "," : "", f->valuestring);
	}
	FIELDS_PARSE(e, ret, engine_setup_fields);
}

static const struct field load_config_fields[] = {
	FK("connections", struct res_load, config.connections, FK_UINT),
	FK("threads", struct res_load, config.threads, FK_UINT),
	FK("pipeline", struct res_load, config.pipeline, FK_UINT),
};

cJSON *res_load_json(const struct res_load *l)
{
	cJSON *j = cJSON_CreateObject(), *e, *cfg;

	FIELDS_JSON(j, l, load_fields);
	res_engine_setup_json(j, &l->setup);
	e = cJSON_AddObjectToObject(j, "errors");
	cJSON_AddNumberToObject(e, "total", (double)l->errors_total);
	for (int k = 0; k < LE_NR; k++)
		if (k != LE_BODY || !l->no_body_count)
			cJSON_AddNumberToObject(e, load_err_names[k], (double)l->errors[k]);
	cJSON_AddItemToObject(j, "latency_us", latency_json(&l->latency_us));
	if (l->config.open)
		cJSON_AddItemToObject(j, "latency_uncorrected_us", latency_json(&l->latency_uncorrected_us));
	FIELDS_JSON(cJSON_AddObjectToObject(j, "client"), l, load_client_fields);
	cfg = cJSON_AddObjectToObject(j, "config");
	cJSON_AddStringToObject(cfg, "mode", l->config.open ? "open" : "closed");
	FIELDS_JSON(cfg, l, load_config_fields);
	if (l->config.open)
		cJSON_AddNumberToObject(cfg, "rate", l->config.rate);
	if (l->config.requests)
		cJSON_AddNumberToObject(cfg, "requests", (double)l->config.requests);
	else
		cJSON_AddNumberToObject(cfg, "duration_s", l->config.duration_s);
	cJSON_AddNumberToObject(cfg, "timeout_ms", l->config.timeout_ms);
	cJSON_AddStringToObject(cfg, "transport", l->config.tls ? "tls" : "tcp");
	return j;
}

int res_load_parse(const cJSON *o, struct res_load *ret)
{
	const cJSON *e = get(o, "errors"), *cfg = get(o, "config");
	char mode[16], transport[16];

	if (!cJSON_IsObject(o) || !cJSON_IsNumber(get(o, "requests")))
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	FIELDS_PARSE(o, ret, load_fields);
	res_engine_setup_parse(o, &ret->setup);
	ret->errors_total = u64(e, "total");
	for (int k = 0; k < LE_NR; k++)
		ret->errors[k] = u64(e, load_err_names[k]);
	ret->no_body_count = cJSON_IsObject(e) && !get(e, load_err_names[LE_BODY]);
	latency_parse(get(o, "latency_us"), &ret->latency_us);
	latency_parse(get(o, "latency_uncorrected_us"), &ret->latency_uncorrected_us);
	FIELDS_PARSE(get(o, "client"), ret, load_client_fields);
	str(cfg, "mode", mode, sizeof(mode));
	str(cfg, "transport", transport, sizeof(transport));
	ret->config.open = strcmp(mode, "open") == 0;
	ret->config.tls = strcmp(transport, "tls") == 0;
	FIELDS_PARSE(cfg, ret, load_config_fields);
	ret->config.timeout_ms = (unsigned)u64(cfg, "timeout_ms");
	ret->config.rate = num0(cfg, "rate");
	ret->config.requests = u64(cfg, "requests");
	ret->config.duration_s = num0(cfg, "duration_s");
	return 0;
}

static const struct field chat_fields[] = {
	F(struct res_chat, clients, FK_UINT),
	F(struct res_chat, messages_per_client, FK_UINT),
	F(struct res_chat, deliveries_expected, FK_U64),
	F(struct res_chat, deliveries, FK_U64),
	F(struct res_chat, lost, FK_U64),
	F(struct res_chat, duplicated, FK_U64),
	F(struct res_chat, duration_s, FK_NUM),
	F(struct res_chat, deliveries_per_s, FK_NUM),
};

cJSON *res_chat_json(const struct res_chat *c)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "workload", "ws-chat");
	FIELDS_JSON(j, c, chat_fields);
	cJSON_AddItemToObject(j, "rtt_us", latency_json(&c->rtt_us));
	cJSON_AddBoolToObject(j, "invariant_ok", c->invariant_ok);
	if (!c->invariant_ok)
		cJSON_AddStringToObject(j, "why", c->why);
	return j;
}

int res_chat_parse(const cJSON *o, struct res_chat *ret)
{
	if (!cJSON_IsObject(o) || !cJSON_IsBool(get(o, "invariant_ok")))
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	FIELDS_PARSE(o, ret, chat_fields);
	latency_parse(get(o, "rtt_us"), &ret->rtt_us);
	ret->invariant_ok = cJSON_IsTrue(get(o, "invariant_ok"));
	str(o, "why", ret->why, sizeof(ret->why));
	return 0;
}

/* A JSON document printed by the load client: its text into a typed result. */
static int client_read(const char *text, void *ret, int (*parse)(const cJSON *, void *), struct hx_err *err)
{
	cJSON *o = cJSON_Parse(text);
	int rc = o ? parse(o, ret) : -EINVAL;

	cJSON_Delete(o);
	if (rc < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "the load client's output is not its JSON: %.200s", text);
	return 0;
}

static int load_parse_any(const cJSON *o, void *ret)
{
	return res_load_parse(o, ret);
}

static int chat_parse_any(const cJSON *o, void *ret)
{
	return res_chat_parse(o, ret);
}

int res_load_read(const char *text, struct res_load *ret, struct hx_err *err)
{
	return client_read(text, ret, load_parse_any, err);
}

int res_chat_read(const char *text, struct res_chat *ret, struct hx_err *err)
{
	return client_read(text, ret, chat_parse_any, err);
}

static const struct field startup_fields[] = {
	F(struct res_startup, user_ms, FK_NUM),	    F(struct res_startup, system_ms, FK_NUM),
	F(struct res_startup, max_rss_kb, FK_U64),  F(struct res_startup, failed_runs, FK_UINT),
	F(struct res_startup, expected_cv, FK_OPT), /* absent in files from before the spread rule */
};

static cJSON *startup_json(const struct res_startup *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "wall_ms", res_summary_json(&s->wall_ms, 1));
	FIELDS_JSON(o, s, startup_fields);
	if (s->nruns) {
		cJSON *ms = cJSON_AddArrayToObject(o, "runs_ms"), *ex = cJSON_AddArrayToObject(o, "runs_exit");

		/* µs are the clock's useful precision here; more digits only make the file larger */
		for (unsigned i = 0; i < s->nruns; i++) {
			cJSON_AddItemToArray(ms, cJSON_CreateNumber(round(s->runs_ms[i] * 1e3) / 1e3));
			cJSON_AddItemToArray(ex, cJSON_CreateNumber(s->runs_exit[i]));
		}
		if (s->nruns >= 3)
			cJSON_AddItemToObject(o, "trend", res_startup_trend_json(s->runs_ms, s->nruns));
	}
	return o;
}

/* The runs a file keeps; an exit code it lacks reads as 0, a run that is not a number ends the list. */
static void startup_runs_parse(const cJSON *ms, const cJSON *ex, struct res_startup *ret)
{
	int n = cJSON_IsArray(ms) ? cJSON_GetArraySize(ms) : 0;
	const cJSON *m, *e = cJSON_IsArray(ex) ? ex->child : NULL;
	unsigned k = 0;

	if (n <= 0 || !(ret->runs_ms = malloc((size_t)n * sizeof(double))) ||
	    !(ret->runs_exit = malloc((size_t)n * sizeof(int)))) {
		free(ret->runs_ms);
		ret->runs_ms = NULL;
		return;
	}
	cJSON_ArrayForEach (m, ms) {
		if (!cJSON_IsNumber(m))
			break;
		ret->runs_ms[k] = m->valuedouble;
		ret->runs_exit[k++] = cJSON_IsNumber(e) ? (int)e->valuedouble : 0;
		e = e ? e->next : NULL;
	}
	ret->nruns = k;
}

static void startup_parse(const cJSON *o, struct res_startup *ret)
{
	summary_parse(get(o, "wall_ms"), &ret->wall_ms);
	FIELDS_PARSE(o, ret, startup_fields);
	startup_runs_parse(get(o, "runs_ms"), get(o, "runs_exit"), ret);
}

static cJSON *script_json(const struct res_script *s)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < s->n; i++)
		cJSON_AddNumberToObject(o, s->name[i], s->value[i]);
	return o;
}

static void script_parse(const cJSON *o, struct res_script *ret)
{
	const cJSON *it;

	ret->n = 0;
	cJSON_ArrayForEach (it, o)
		if (cJSON_IsNumber(it) && ret->n < RES_MAX_METRICS && strlen(it->string) < sizeof(ret->name[0])) {
			snprintf(ret->name[ret->n], sizeof(ret->name[0]), "%s", it->string);
			ret->value[ret->n++] = it->valuedouble;
		}
}

static const struct field server_fields[] = {
	F(struct res_server, log, FK_STR),
	F(struct res_server, idle_rss_kb, FK_OPT),
	F(struct res_server, cpus, FK_STR),
	F(struct res_server, peak_rss_kb, FK_OPT),
	F(struct res_server, post_load_rss_kb, FK_OPT),
	F(struct res_server, ready_ms, FK_OPT),
	F(struct res_server, after_idle_rss_kb, FK_OPT),
	F(struct res_server, after_restart_rss_kb, FK_OPT),
	F(struct res_server, low_memory_hint, FK_STR),
};

static const struct field wire_fields[] = {
	F(struct res_wire, path, FK_STR),	  F(struct res_wire, status, FK_UINT),
	F(struct res_wire, framing, FK_STR),	  F(struct res_wire, header_bytes, FK_U64),
	F(struct res_wire, body_bytes, FK_U64),	  F(struct res_wire, headers, FK_STR),
	F(struct res_wire, content_type, FK_STR), F(struct res_wire, body_sha256, FK_STR),
	F(struct res_wire, differs, FK_STR),
};

static const struct field process_fields[] = {
	F(struct res_process, cpus, FK_STR),
	F(struct res_process, exit, FK_INT),
	F(struct res_process, log, FK_STR),
};

/* When the sandbox's init saw the payload exit. */
static const struct field process_time_fields[] = {
	F(struct res_process, wall_ms, FK_NUM),
	F(struct res_process, user_ms, FK_NUM),
	F(struct res_process, system_ms, FK_NUM),
	F(struct res_process, max_rss_kb, FK_NUM),
};

static const struct field fixture_fields[] = {
	F(struct res_fixture, name, FK_STR),
	F(struct res_fixture, shares_cpus_with, FK_STR),
};

/* Once it was ready. */
static const struct field fixture_start_fields[] = {
	F(struct res_fixture, ready_ms, FK_NUM),
	F(struct res_fixture, slice, FK_STR),
	F(struct res_fixture, cpus, FK_STR),
	F(struct res_fixture, log, FK_STR),
};

/* Once it was stopped. */
static const struct field fixture_stop_fields[] = {
	F(struct res_fixture, stop_ms, FK_NUM),
	F(struct res_fixture, clean_shutdown, FK_BOOL),
};

/* A record, or only why there is none. */
static cJSON *modules_json(const struct res_modules *m)
{
	cJSON *o = cJSON_CreateObject(), *paths;

	if (m->not_recorded[0]) {
		cJSON_AddStringToObject(o, "not_recorded", m->not_recorded);
		return o;
	}
	cJSON_AddNumberToObject(o, "files", m->files);
	cJSON_AddStringToObject(o, "sha256", m->sha256);
	paths = cJSON_AddArrayToObject(o, "paths");
	for (unsigned i = 0; i < m->npaths; i++)
		cJSON_AddItemToArray(paths, cJSON_CreateString(m->paths[i]));
	return o;
}

static int modules_parse(const cJSON *o, struct res_modules *ret)
{
	const cJSON *it;
	uint64_t files = u64(o, "files");

	ret->files = files > UINT_MAX ? UINT_MAX : (unsigned)files;
	str(o, "sha256", ret->sha256, sizeof(ret->sha256));
	str(o, "not_recorded", ret->not_recorded, sizeof(ret->not_recorded));
	cJSON_ArrayForEach (it, get(o, "paths"))
		if (cJSON_IsString(it) && strlen(it->valuestring) < PATH_MAX &&
		    res_modules_add(ret, it->valuestring) < 0)
			return -ENOMEM;
	return 0;
}

static cJSON *server_json(const struct res_server *s)
{
	cJSON *o = cJSON_CreateObject();

	FIELDS_JSON(o, s, server_fields);
	return o;
}

static cJSON *process_json(const struct res_process *p)
{
	cJSON *o = cJSON_CreateObject();

	FIELDS_JSON(o, p, process_fields);
	if (p->have_times)
		FIELDS_JSON(o, p, process_time_fields);
	return o;
}

static cJSON *fixture_json(const struct res_fixture *f)
{
	cJSON *o = cJSON_CreateObject();

	FIELDS_JSON(o, f, fixture_fields);
	if (f->started)
		FIELDS_JSON(o, f, fixture_start_fields);
	if (f->stopped)
		FIELDS_JSON(o, f, fixture_stop_fields);
	return o;
}

/* The optional groups are there when their first key is. */
static void process_parse(const cJSON *o, struct res_process *ret)
{
	FIELDS_PARSE(o, ret, process_fields);
	if ((ret->have_times = cJSON_IsNumber(get(o, process_time_fields[0].key))))
		FIELDS_PARSE(o, ret, process_time_fields);
}

static void fixture_parse(const cJSON *o, struct res_fixture *ret)
{
	FIELDS_PARSE(o, ret, fixture_fields);
	if ((ret->started = cJSON_IsNumber(get(o, fixture_start_fields[0].key))))
		FIELDS_PARSE(o, ret, fixture_start_fields);
	if ((ret->stopped = cJSON_IsNumber(get(o, fixture_stop_fields[0].key))))
		FIELDS_PARSE(o, ret, fixture_stop_fields);
}

/* A generator's JSON line (`harness noise`, docs/noise.md). */
cJSON *res_noise_json(const struct noise_result *r)
{
	cJSON *o = cJSON_CreateObject();
	char buf[CG_MAX_CPUS * 5];

	noise_spec_format(&r->spec, buf, sizeof(buf));
	cJSON_AddStringToObject(o, "noise", buf);
	cJSON_AddStringToObject(o, "kind", noise_kind_names[r->spec.kind]);
	cJSON_AddNumberToObject(o, "level", (double)r->spec.level);
	cJSON_AddNumberToObject(o, "threads", r->threads);
	cJSON_AddNumberToObject(o, "seconds", r->seconds);
	cJSON_AddNumberToObject(o, "ops", (double)r->ops);
	cJSON_AddStringToObject(o, "unit", r->unit);
	cJSON_AddNumberToObject(o, "ops_per_s", r->seconds > 0 ? (double)r->ops / r->seconds : 0);
	if (r->bytes)
		cJSON_AddNumberToObject(o, "bytes_per_s", r->seconds > 0 ? (double)r->bytes / r->seconds : 0);
	cg_cpus_format(&r->ran_on, buf, sizeof(buf));
	cJSON_AddStringToObject(o, "ran_on", buf);
	if (r->target[0]) {
		cJSON_AddStringToObject(o, "target", r->target);
		cJSON_AddStringToObject(o, "fs", r->fs);
	}
	return o;
}

/* A count or a duration: negative or absent reads as 0. */
static double nonneg(const cJSON *o, const char *k)
{
	double v = num(o, k);

	return isnan(v) || v < 0 ? 0 : v;
}

int res_noise_parse(const cJSON *o, struct noise_result *ret, struct hx_err *err)
{
	struct noise_result r = {0};
	const cJSON *spec = get(o, "noise");
	char cpus[CG_MAX_CPUS * 5];

	if (!cJSON_IsString(spec) || noise_spec_parse(spec->valuestring, &r.spec, err) < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "noise: not a generator's result");
	r.spec.level = (uint64_t)nonneg(o, "level");
	r.threads = (unsigned)nonneg(o, "threads");
	r.seconds = nonneg(o, "seconds");
	r.ops = (uint64_t)nonneg(o, "ops");
	r.bytes = (uint64_t)(nonneg(o, "bytes_per_s") * r.seconds + 0.5);
	str(o, "unit", r.unit, sizeof(r.unit));
	str(o, "ran_on", cpus, sizeof(cpus));
	if (cg_cpus_parse(cpus, &r.ran_on) < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "noise: ran_on '%s' is not a CPU list", cpus);
	str(o, "target", r.target, sizeof(r.target));
	str(o, "fs", r.fs, sizeof(r.fs));
	*ret = r;
	return 0;
}

int res_noise_read(const char *text, struct noise_result *ret, struct hx_err *err)
{
	cJSON *o = cJSON_Parse(text);
	int rc = o ? res_noise_parse(o, ret, err) : hx_fail(err, HX_EXIT_VERDICT, EIO, "not JSON: %.200s", text);

	cJSON_Delete(o);
	return rc;
}

static cJSON *external_json(const struct noise_ext *x)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "seconds", x->seconds);
	if (x->have_stat) {
		cJSON_AddNumberToObject(o, "steal_pct", x->steal_pct);
		cJSON_AddNumberToObject(o, "busy_ms", x->busy_ms);
	}
	if (x->have_task) {
		cJSON_AddNumberToObject(o, "ctxt_voluntary", (double)x->ctxt_voluntary);
		cJSON_AddNumberToObject(o, "ctxt_involuntary", (double)x->ctxt_involuntary);
		cJSON_AddNumberToObject(o, "migrations", (double)x->migrations);
		cJSON_AddNumberToObject(o, "run_delay_ms", x->run_delay_ms);
	}
	cJSON_AddNumberToObject(o, "samples", x->samples);
	cJSON_AddNumberToObject(o, "foreign_runnable_mean", x->foreign_runnable_mean);
	cJSON_AddNumberToObject(o, "foreign_runnable_max", x->foreign_runnable_max);
	return o;
}

static void external_parse(const cJSON *o, struct noise_ext *ret)
{
	ret->seconds = num0(o, "seconds");
	if ((ret->have_stat = cJSON_IsNumber(get(o, "steal_pct")))) {
		ret->steal_pct = num0(o, "steal_pct");
		ret->busy_ms = num0(o, "busy_ms");
	}
	if ((ret->have_task = cJSON_IsNumber(get(o, "ctxt_voluntary")))) {
		ret->ctxt_voluntary = u64(o, "ctxt_voluntary");
		ret->ctxt_involuntary = u64(o, "ctxt_involuntary");
		ret->migrations = u64(o, "migrations");
		ret->run_delay_ms = num0(o, "run_delay_ms");
	}
	ret->samples = (unsigned)u64(o, "samples");
	ret->foreign_runnable_mean = num0(o, "foreign_runnable_mean");
	ret->foreign_runnable_max = (unsigned)u64(o, "foreign_runnable_max");
}

static cJSON *neighbour_json(const struct res_neighbour *n)
{
	cJSON *o = cJSON_CreateObject(), *shares;

	cJSON_AddStringToObject(o, "slice", "noise");
	add_str(o, "placement", n->placement);
	add_str(o, "cpus", n->cpus);
	if (n->cpu_quota_us)
		cJSON_AddNumberToObject(o, "cpu_quota_us", (double)n->cpu_quota_us);
	if (n->memory_max)
		cJSON_AddNumberToObject(o, "memory_max_bytes", (double)n->memory_max);
	shares = cJSON_AddArrayToObject(o, "shares_cpus_with");
	for (int sl = 0; sl < CG_NR_SLICES; sl++)
		if (n->shares & (1u << sl))
			cJSON_AddItemToArray(shares, cJSON_CreateString(cg_slice_names[sl]));
	if (n->have_generator)
		cJSON_AddItemToObject(o, "generator", res_noise_json(&n->generator));
	add_str(o, "log", n->log);
	add_str(o, "error", n->error);
	return o;
}

static void neighbour_parse(const cJSON *o, struct res_neighbour *ret)
{
	const cJSON *w;
	struct hx_err err = {0};

	str(o, "placement", ret->placement, sizeof(ret->placement));
	str(o, "cpus", ret->cpus, sizeof(ret->cpus));
	ret->cpu_quota_us = u64(o, "cpu_quota_us");
	ret->memory_max = u64(o, "memory_max_bytes");
	cJSON_ArrayForEach (w, get(o, "shares_cpus_with"))
		for (int sl = 0; sl < CG_NR_SLICES; sl++)
			if (cJSON_IsString(w) && !strcmp(w->valuestring, cg_slice_names[sl]))
				ret->shares |= 1u << sl;
	ret->have_generator = res_noise_parse(get(o, "generator"), &ret->generator, &err) == 0;
	str(o, "log", ret->log, sizeof(ret->log));
	str(o, "error", ret->error, sizeof(ret->error));
}

/* Per-slice objects keyed by slice name: the planned CPU sets, or the stats. */
static cJSON *per_slice_json(const struct trial_result *t, bool stats)
{
	cJSON *o = cJSON_CreateObject();

	for (int sl = 0; sl < CG_NR_SLICES; sl++)
		if (stats && (t->slices_have & (1u << sl)))
			cJSON_AddItemToObject(o, cg_slice_names[sl], res_stats_json(&t->slices[sl]));
		else if (!stats && (t->cpus_have & (1u << sl)))
			cJSON_AddStringToObject(o, cg_slice_names[sl], t->cpus[sl]);
	return o;
}

/* A route matrix: [{"route", "connections", "load", "timeline"}...] in the order measured. */
static cJSON *cells_json(const struct trial_result *t)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned i = 0; i < t->ncells; i++) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddStringToObject(c, "route", t->cells[i].route);
		cJSON_AddNumberToObject(c, "connections", t->cells[i].connections);
		cJSON_AddItemToObject(c, "load", res_load_json(&t->cells[i].load));
		if (t->cells[i].timeline.n)
			cJSON_AddItemToObject(c, "timeline", res_timeline_json(&t->cells[i].timeline, false));
		cJSON_AddItemToArray(a, c);
	}
	return a;
}

static int cells_parse(const cJSON *a, struct trial_result *ret, struct hx_err *err)
{
	const cJSON *it;

	if (!a)
		return 0;
	if (!cJSON_IsArray(a))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "a trial's cells: expected an array");
	cJSON_ArrayForEach (it, a) {
		struct res_cell *c = res_cell_add(ret);

		if (!c)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		str(it, "route", c->route, sizeof(c->route));
		c->connections = (unsigned)u64(it, "connections");
		if (!c->route[0] || res_load_parse(get(it, "load"), &c->load) < 0)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "a trial's cell: expected route, connections and load");
		if (res_timeline_parse(get(it, "timeline"), &c->timeline) == -ENOMEM)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	}
	return 0;
}

static cJSON *overhead_json(const struct res_overhead *oh)
{
	cJSON *o = cJSON_CreateObject();

	for (int p = 0; p < RES_NR_PHASES; p++)
		if (oh->have & (1u << p))
			cJSON_AddNumberToObject(o, res_phase_names[p], oh->ms[p]);
	cJSON_AddNumberToObject(o, "total", res_overhead_total(oh));
	return o;
}

static void overhead_parse(const cJSON *o, struct res_overhead *ret)
{
	for (int p = 0; p < RES_NR_PHASES; p++)
		if (cJSON_IsNumber(get(o, res_phase_names[p])))
			res_overhead_add(ret, (enum res_phase)p, get(o, res_phase_names[p])->valuedouble);
}

cJSON *res_trial_json(const struct trial_result *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "scenario", t->scenario);
	if (t->workload[0])
		cJSON_AddStringToObject(o, "workload", t->workload);
	cJSON_AddStringToObject(o, "runtime", t->runtime);
	cJSON_AddStringToObject(o, "mode", t->mode);
	if (strcmp(t->noise, "none") != 0) /* absent: a quiet trial, as in files from before noise */
		cJSON_AddStringToObject(o, "noise", t->noise);
	cJSON_AddNumberToObject(o, "trial", t->trial);
	cJSON_AddNumberToObject(o, "order", t->order);
	cJSON_AddItemToObject(o, "cpus", per_slice_json(t, false));
	if (t->isolated)
		cJSON_AddBoolToObject(o, "isolated", true);
	if ((t->have & RES_HAVE_NEIGHBOUR) && t->neighbour)
		cJSON_AddItemToObject(o, "neighbour", neighbour_json(t->neighbour));
	if (t->have & RES_HAVE_EXTERNAL)
		cJSON_AddItemToObject(o, "external", external_json(&t->external));
	if (t->have & RES_HAVE_FIXTURE)
		cJSON_AddItemToObject(o, "fixture", fixture_json(&t->fixture));
	if (t->have & RES_HAVE_SERVER)
		cJSON_AddItemToObject(o, "server", server_json(&t->server));
	if (t->have & RES_HAVE_PROCESS)
		cJSON_AddItemToObject(o, "process", process_json(&t->process));
	if ((t->have & RES_HAVE_WIRE) && t->wire)
		FIELDS_JSON(cJSON_AddObjectToObject(o, "wire"), t->wire, wire_fields);
	if ((t->have & RES_HAVE_MODULES) && t->modules)
		cJSON_AddItemToObject(o, "modules", modules_json(t->modules));
	if (t->have & RES_HAVE_STARTUP)
		cJSON_AddItemToObject(o, "startup", startup_json(&t->startup));
	if (t->have & RES_HAVE_LOAD)
		cJSON_AddItemToObject(o, "load", res_load_json(&t->load));
	if (t->have & RES_HAVE_CHAT)
		cJSON_AddItemToObject(o, "chat", res_chat_json(&t->chat));
	if (t->ncells)
		cJSON_AddItemToObject(o, "cells", cells_json(t));
	if (t->timeline.n)
		cJSON_AddItemToObject(o, "timeline", res_timeline_json(&t->timeline, false));
	if (t->warmup_auto.have)
		cJSON_AddItemToObject(o, "warmup_auto", res_warmup_json(&t->warmup_auto));
	if ((t->have & RES_HAVE_SCRIPT) && t->script)
		cJSON_AddItemToObject(o, "script", script_json(t->script));
	if (t->slices_have)
		cJSON_AddItemToObject(o, "slices", per_slice_json(t, true));
	cJSON_AddNumberToObject(o, "wall_s", t->wall_s);
	add_num(o, "harness_fds", t->harness_fds);
	add_num(o, "harness_rss_kb", t->harness_rss_kb);
	if (t->measuring_s > 0)
		cJSON_AddNumberToObject(o, "measuring_s", t->measuring_s);
	if (t->warmup)
		cJSON_AddNumberToObject(o, "warmup", (double)t->warmup);
	if (t->min_duration_s > 0)
		cJSON_AddNumberToObject(o, "min_duration_s", t->min_duration_s);
	add_str(o, "adapter", t->adapter);
	if (t->overhead.have)
		cJSON_AddItemToObject(o, "overhead_ms", overhead_json(&t->overhead));
	if (res_trial_noisy(t)) { /* recomputed from the evidence above whenever the file is written */
		cJSON *why = cJSON_AddArrayToObject(o, "noisy"), *words = cJSON_AddArrayToObject(o, "noisy_reasons");

		for (int r = 0; r < RES_NR_NOISY; r++)
			if (res_trial_noisy(t) & (1u << r)) {
				char buf[256];

				res_noisy_reason(t, (enum res_noisy)r, buf, sizeof(buf));
				cJSON_AddItemToArray(why, cJSON_CreateString(res_noisy_names[r]));
				cJSON_AddItemToArray(words, cJSON_CreateString(buf));
			}
	}
	cJSON_AddStringToObject(o, "status", res_status_names[t->status]);
	add_str(o, "error", res_trial_error(t));
	return o;
}

static int per_slice_parse(const cJSON *cpus, const cJSON *slices, struct trial_result *t)
{
	for (int sl = 0; sl < CG_NR_SLICES; sl++) {
		const cJSON *c = get(cpus, cg_slice_names[sl]), *s = get(slices, cg_slice_names[sl]);

		if (cJSON_IsString(c) && res_trial_set_cpus(t, sl, c->valuestring) < 0)
			return -ENOMEM;
		if (cJSON_IsObject(s)) {
			t->slices_have |= 1u << sl;
			stats_parse(s, &t->slices[sl]);
		}
	}
	return 0;
}

int res_trial_parse(const cJSON *o, struct trial_result *ret, struct hx_err *err)
{
	char status[16];
	unsigned trial, order;
	int k;

	if (!cJSON_IsObject(o) || !cJSON_IsString(get(o, "scenario")) || !cJSON_IsString(get(o, "status")))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "a trial without scenario or status");
	if (numbers_check(o, err) < 0 || index_field(o, "trial", &trial, err) < 0 ||
	    index_field(o, "order", &order, err) < 0)
		return -err->errnum;
	res_trial_init(ret, get(o, "scenario")->valuestring, "", "", trial, order);
	str(o, "runtime", ret->runtime, sizeof(ret->runtime));
	str(o, "workload", ret->workload, sizeof(ret->workload));
	str(o, "mode", ret->mode, sizeof(ret->mode));
	if (cJSON_IsString(get(o, "noise"))) /* a file from before noise existed: quiet trials */
		str(o, "noise", ret->noise, sizeof(ret->noise));
	str(o, "status", status, sizeof(status));
	for (k = 0; k < TRIAL_NR_STATUS && strcmp(status, res_status_names[k]) != 0; k++)
		;
	if (k == TRIAL_NR_STATUS)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "a trial with status '%s'", status);
	ret->status = (enum trial_status)k;
	if (cJSON_IsString(get(o, "error")) && get(o, "error")->valuestring[0] &&
	    res_trial_set_error(ret, "%s", get(o, "error")->valuestring) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	ret->wall_s = num0(o, "wall_s");
	ret->harness_fds = num(o, "harness_fds");
	ret->harness_rss_kb = num(o, "harness_rss_kb");
	ret->measuring_s = num0(o, "measuring_s");
	ret->warmup = u64(o, "warmup");
	ret->min_duration_s = num0(o, "min_duration_s");
	str(o, "adapter", ret->adapter, sizeof(ret->adapter));
	overhead_parse(get(o, "overhead_ms"), &ret->overhead);
	if (per_slice_parse(get(o, "cpus"), get(o, "slices"), ret) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (cJSON_IsObject(get(o, "fixture")))
		ret->have |= RES_HAVE_FIXTURE, fixture_parse(get(o, "fixture"), &ret->fixture);
	ret->isolated = cJSON_IsTrue(get(o, "isolated"));
	if (cJSON_IsObject(get(o, "neighbour")) && !res_trial_neighbour(ret))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (cJSON_IsObject(get(o, "neighbour")))
		ret->have |= RES_HAVE_NEIGHBOUR, neighbour_parse(get(o, "neighbour"), ret->neighbour);
	if (cJSON_IsObject(get(o, "external")))
		ret->have |= RES_HAVE_EXTERNAL, external_parse(get(o, "external"), &ret->external);
	if (cJSON_IsObject(get(o, "server")))
		ret->have |= RES_HAVE_SERVER, FIELDS_PARSE(get(o, "server"), &ret->server, server_fields);
	if (cJSON_IsObject(get(o, "process")))
		ret->have |= RES_HAVE_PROCESS, process_parse(get(o, "process"), &ret->process);
	if (cJSON_IsObject(get(o, "wire")) && res_trial_wire(ret))
		ret->have |= RES_HAVE_WIRE, FIELDS_PARSE(get(o, "wire"), ret->wire, wire_fields);
	if (cJSON_IsObject(get(o, "modules")) &&
	    (!res_trial_modules(ret) || modules_parse(get(o, "modules"), ret->modules) < 0))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (cJSON_IsObject(get(o, "modules")))
		ret->have |= RES_HAVE_MODULES;
	if (cJSON_IsObject(get(o, "startup")))
		ret->have |= RES_HAVE_STARTUP, startup_parse(get(o, "startup"), &ret->startup);
	if (cJSON_IsObject(get(o, "script")) && !res_trial_script(ret))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (cJSON_IsObject(get(o, "script")))
		ret->have |= RES_HAVE_SCRIPT, script_parse(get(o, "script"), ret->script);
	if (res_load_parse(get(o, "load"), &ret->load) == 0)
		ret->have |= RES_HAVE_LOAD;
	if (res_chat_parse(get(o, "chat"), &ret->chat) == 0)
		ret->have |= RES_HAVE_CHAT;
	res_warmup_parse(get(o, "warmup_auto"), &ret->warmup_auto);
	if (res_timeline_parse(get(o, "timeline"), &ret->timeline) == -ENOMEM)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	return cells_parse(get(o, "cells"), ret, err);
}

/* A group against its pinned twin (results_twin.c). */
static cJSON *twin_json(const struct res_twin *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "metric", res_metric_names[t->metric]);
	add_num(o, "ratio", t->ratio);
	add_num(o, "ci95_low", t->ci95_low);
	add_num(o, "ci95_high", t->ci95_high);
	add_num(o, "p", t->p);
	cJSON_AddStringToObject(o, "test", t->paired ? "wilcoxon-signed-rank" : "mann-whitney-u");
	cJSON_AddNumberToObject(o, "pairs", t->pairs);
	cJSON_AddNumberToObject(o, "seed", (double)SIG_SEED);
	cJSON_AddBoolToObject(o, "significant", t->significant);
	return o;
}

/* A noisy group against its quiet one (results_shift.c): the isolation table's figures. */
static cJSON *shift_json(const struct res_shift *s)
{
	cJSON *o = cJSON_CreateObject(), *with;

	cJSON_AddStringToObject(o, "metric", res_metric_names[s->metric]);
	cJSON_AddBoolToObject(o, "lower_is_better", s->lower_is_better);
	cJSON_AddNumberToObject(o, "quiet_trials", s->quiet_trials);
	cJSON_AddNumberToObject(o, "noisy_trials", s->noisy_trials);
	add_num(o, "quiet_median", s->quiet_median);
	add_num(o, "noisy_median", s->noisy_median);
	add_num(o, "ratio", s->ratio);
	add_num(o, "ratio_ci95_low", s->ci95_low);
	add_num(o, "ratio_ci95_high", s->ci95_high);
	add_num(o, "p", s->p);
	cJSON_AddBoolToObject(o, "paired", s->paired);
	cJSON_AddNumberToObject(o, "pairs", s->pairs);
	cJSON_AddStringToObject(o, "placement", s->placement);
	cJSON_AddStringToObject(o, "noise_cpus", s->noise_cpus);
	with = cJSON_AddArrayToObject(o, "shares_cpus_with");
	for (int sl = 0; sl < CG_NR_SLICES; sl++)
		if (s->shares & (1u << sl))
			cJSON_AddItemToArray(with, cJSON_CreateString(cg_slice_names[sl]));
	return o;
}

static cJSON *summary_group_json(const struct res_summary *g)
{
	cJSON *o = cJSON_CreateObject(), *ms;

	cJSON_AddStringToObject(o, "scenario", g->scenario);
	cJSON_AddStringToObject(o, "runtime", g->runtime);
	cJSON_AddStringToObject(o, "mode", g->mode);
	if (strcmp(g->noise, "none") != 0)
		cJSON_AddStringToObject(o, "noise", g->noise);
	ms = cJSON_AddObjectToObject(o, "metrics");
	for (int m = 0; m < RES_NR_METRICS; m++)
		if (g->have & (1u << m))
			cJSON_AddItemToObject(ms, res_metric_names[m], res_summary_json(&g->metric[m], 1));
	cJSON_AddNumberToObject(o, "trials", g->trials);
	cJSON_AddBoolToObject(o, "failed", g->failed);
	cJSON_AddBoolToObject(o, "client_saturated", g->client_saturated);
	if (g->noisy_trials) /* absent when none, as in files from before the rule */
		cJSON_AddNumberToObject(o, "noisy_trials", g->noisy_trials);
	if (g->shift.have)
		cJSON_AddItemToObject(o, "shift", shift_json(&g->shift));
	if (g->vs_pinned.have)
		cJSON_AddItemToObject(o, "vs_pinned", twin_json(&g->vs_pinned));
	return o;
}

/* ---- the head ---- */

/* A runtime's packages by the digest of their lock file: the name of their folder in the cache
 * (npm/sha256-<hex>/node_modules), "" when it has none. */
static void packages_key(const struct img_status *st, char *buf, size_t len)
{
	const char *end = strrchr(st->packages, '/'), *start = end;

	while (start && start > st->packages && start[-1] != '/')
		start--;
	if (!st->packages[0] || !end || start == end)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%.*s", (int)(end - start), start);
}

cJSON *res_image_json(const struct manifest *m, const struct img_status *st)
{
	cJSON *j = cJSON_CreateObject();
	char packages[80];

	cJSON_AddStringToObject(j, "name", m->name);
	cJSON_AddStringToObject(j, "version", m->version);
	cJSON_AddStringToObject(j, "kind", m->kind == MAN_RUNTIME ? "runtime" : "fixture");
	add_str(j, "family", m->family);
	add_str(j, "spec", m->spec); /* what --runtimes named: an npm spec, a local build's path */
	cJSON_AddStringToObject(j, "source", man_source_names[m->source]);
	if (m->source == MAN_SRC_NPM) {
		cJSON_AddStringToObject(j, "package", m->package);
		cJSON_AddStringToObject(j, "package_version", m->pkg_version);
		cJSON_AddStringToObject(j, "integrity", m->integrity);
	} else if (m->source == MAN_SRC_URL) {
		cJSON_AddStringToObject(j, "url", m->url);
	}
	cJSON_AddStringToObject(j, "entry", st->entry);
	cJSON_AddBoolToObject(j, "present", st->present);
	add_str(j, "digest", st->digest);
	add_str(j, "binary_version", st->binary_version);
	packages_key(st, packages, sizeof(packages));
	add_str(j, "packages", packages); /* wrangler's: which lock file its node_modules were installed from */
	cJSON_AddNumberToObject(j, "size_bytes", (double)st->size);
	return j;
}

static cJSON *strings_json(const char *const *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

cJSON *res_seccomp_json(const struct sbx_seccomp_desc *d)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "default", d->default_action);
	cJSON_AddStringToObject(o, "other_architectures", d->other_architectures);
	cJSON_AddItemToObject(o, "eperm", strings_json(d->eperm, d->neperm));
	cJSON_AddItemToObject(o, "eafnosupport", strings_json(d->eafnosupport, d->neafnosupport));
	cJSON_AddItemToObject(o, "enosys", strings_json(d->enosys, d->nenosys));
	cJSON_AddBoolToObject(o, "io_uring_allowed", d->io_uring_allowed);
	return o;
}

static cJSON *pg_config_json(const struct res_pg_config *pg)
{
	cJSON *o = cJSON_CreateObject(), *set = cJSON_AddObjectToObject(o, "settings");

	for (size_t i = 0; i < pg->nsettings; i++)
		cJSON_AddStringToObject(set, pg->name[i], pg->value[i]);
	cJSON_AddStringToObject(o, "auth", "scram-sha-256, 127.0.0.1/32 only");
	cJSON_AddStringToObject(o, "data", "overlay of the cached template over a tmpfs, per trial");
	cJSON_AddNumberToObject(o, "data_size_bytes", (double)pg->data_size_bytes);
	cJSON_AddNumberToObject(o, "memory_max_bytes", (double)pg->memory_max_bytes);
	cJSON_AddStringToObject(o, "user", pg->user);
	cJSON_AddStringToObject(o, "database", pg->database);
	cJSON_AddItemToObject(o, "image", res_image_json(pg->image, pg->status));
	return o;
}

static cJSON *config_json(const struct res_config *c)
{
	cJSON *cfg = cJSON_CreateObject(), *modes, *nz, *kinds;

	cJSON_AddStringToObject(cfg, "profile", c->profile);
	if (c->engine)
		cJSON_AddStringToObject(cfg, "engine", c->engine);
	cJSON_AddNumberToObject(cfg, "cpus", c->cpus);
	cJSON_AddStringToObject(cfg, "client_cpus", c->client_cpus);
	cJSON_AddNumberToObject(cfg, "memory_max_bytes", (double)c->memory_max_bytes);
	cJSON_AddNumberToObject(cfg, "client_memory_max_bytes", (double)c->client_memory_max_bytes);
	cJSON_AddNumberToObject(cfg, "cap_s", c->cap_s);
	if (c->interval_ms)
		cJSON_AddNumberToObject(cfg, "interval_ms", c->interval_ms);
	modes = cJSON_AddObjectToObject(cfg, "modes");
	for (size_t i = 0; i < c->nmodes; i++) {
		const struct res_mode *md = &c->modes[i];
		cJSON *m = cJSON_AddObjectToObject(modes, md->name);

		for (int s = 0; s < CG_NR_SLICES; s++)
			if (md->slices & (1u << s))
				cJSON_AddStringToObject(m, cg_slice_names[s], md->cpus[s]);
		if (md->sut_cpu_quota_us)
			cJSON_AddNumberToObject(m, "sut_cpu_quota_us", (double)md->sut_cpu_quota_us);
		if (md->sut_shares_client)
			cJSON_AddBoolToObject(m, "sut_shares_client", true);
	}
	if (c->pg)
		cJSON_AddItemToObject(cJSON_AddObjectToObject(cfg, "fixtures"), "postgres", pg_config_json(c->pg));
	nz = cJSON_AddObjectToObject(cfg, "noise");
	kinds = cJSON_AddArrayToObject(nz, "kinds");
	for (size_t i = 0; i < c->nnoise; i++)
		cJSON_AddItemToArray(kinds, cJSON_CreateString(c->noise[i]));
	cJSON_AddStringToObject(nz, "placement", c->noise_placement);
	add_str(nz, "io_dir", c->noise_io_dir);
	cJSON_AddStringToObject(cfg, "logs", c->logs);
	cJSON_AddBoolToObject(cfg, "sandbox", c->sandbox);
	cJSON_AddBoolToObject(cfg, "rootless", c->rootless);
	if (c->rootless) {
		cJSON *ns = cJSON_AddObjectToObject(cfg, "userns");

		cJSON_AddStringToObject(ns, "uid_map", c->uid_map);
		cJSON_AddStringToObject(ns, "gid_map", c->gid_map);
		cJSON_AddBoolToObject(ns, "roles", c->userns_roles);
		if (!c->userns_roles)
			cJSON_AddStringToObject(ns, "roles_shared", c->userns_shared_why);
	}
	return cfg;
}

int res_doc_head(struct res_doc *d, const char *host_json, const struct res_config *c,
		 const struct sbx_seccomp_desc *sec, const struct manifest *img, const struct img_status *st,
		 size_t nimg, struct hx_err *err)
{
	cJSON *host = host_json ? cJSON_Parse(host_json) : NULL, *imgs;

	(void)err;
	if (host)
		cJSON_AddItemToObject(d->head, "host", host);
	cJSON_AddItemToObject(d->head, "config", config_json(c));
	cJSON_AddItemToObject(d->head, "seccomp", res_seccomp_json(sec));
	imgs = cJSON_AddArrayToObject(d->head, "images");
	for (size_t i = 0; i < nimg; i++)
		cJSON_AddItemToArray(imgs, res_image_json(&img[i], &st[i]));
	return 0;
}

/* ---- the document ---- */

/* In a GitHub Actions job, the calling repository and its commit beside harness's own (which an action's
 * download knows only as the action's ref): which change was measured with which harness. */
static void res_doc_ci(cJSON *h)
{
	static const char *const vars[][2] = {
		{"repository", "GITHUB_REPOSITORY"},
		{"commit", "GITHUB_SHA"},
		{"ref", "GITHUB_REF"},
		{"run_id", "GITHUB_RUN_ID"},
		{"action_ref", "HARNESS_ACTION_REF"},
	};
	cJSON *ci;
	const char *v;

	if (!getenv("GITHUB_ACTIONS"))
		return;
	ci = cJSON_AddObjectToObject(h, "ci");
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if ((v = getenv(vars[i][1])) && v[0] && strlen(v) < 256)
			cJSON_AddStringToObject(ci, vars[i][0], v);
}

int res_doc_init(struct res_doc *d, const char *version, const char *commit, struct hx_err *err)
{
	cJSON *h;

	memset(d, 0, sizeof(*d));
	d->head = cJSON_CreateObject();
	if (!d->head)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	cJSON_AddStringToObject(d->head, "schema", RES_SCHEMA);
	h = cJSON_AddObjectToObject(d->head, "harness");
	cJSON_AddStringToObject(h, "version", version);
	cJSON_AddStringToObject(h, "commit", commit);
	res_doc_ci(h);
	return 0;
}

void res_time_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int res_doc_run(struct res_doc *d, int argc, char *const *argv, struct hx_err *err)
{
	cJSON *run = cJSON_AddObjectToObject(d->head, "run"), *cmd;
	char now[32];

	if (!run || !(cmd = cJSON_AddArrayToObject(run, "command")))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	res_time_now(now, sizeof(now));
	cJSON_AddStringToObject(run, "started_at", now);
	for (int i = 0; i < argc; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
	return 0;
}

void res_doc_free(struct res_doc *d)
{
	for (size_t i = 0; i < d->ntrials; i++)
		res_trial_free(&d->trials[i]);
	cJSON_Delete(d->head);
	free(d->trials);
	memset(d, 0, sizeof(*d));
}

/* The run's end in its "run" object: when it finished, its wall time and the share of it spent measuring. */
static void run_end_json(const struct res_doc *d, cJSON *run)
{
	double measuring_s, share = res_doc_measuring_share(d, &measuring_s);

	cJSON_DeleteItemFromObjectCaseSensitive(run, "finished_at");
	cJSON_DeleteItemFromObjectCaseSensitive(run, "wall_s");
	cJSON_DeleteItemFromObjectCaseSensitive(run, "measuring_s");
	cJSON_DeleteItemFromObjectCaseSensitive(run, "measuring_share");
	if (d->finished_at[0])
		cJSON_AddStringToObject(run, "finished_at", d->finished_at);
	if (d->wall_s > 0) {
		cJSON_AddNumberToObject(run, "wall_s", d->wall_s);
		cJSON_AddNumberToObject(run, "measuring_s", measuring_s);
		add_num(run, "measuring_share", share);
	}
}

cJSON *res_doc_json(const struct res_doc *d, struct hx_err *err)
{
	_cleanup_free_ struct res_summary *groups = NULL;
	size_t ng = 0;
	cJSON *o, *trials, *sums;

	if (res_summarize(d->trials, d->ntrials, &groups, &ng, err) < 0)
		return NULL;
	o = cJSON_Duplicate(d->head, true);
	if (!o) {
		hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	trials = cJSON_AddArrayToObject(o, "trials");
	for (size_t i = 0; i < d->ntrials; i++)
		cJSON_AddItemToArray(trials, res_trial_json(&d->trials[i]));
	sums = cJSON_AddArrayToObject(o, "summaries");
	for (size_t i = 0; i < ng; i++)
		cJSON_AddItemToArray(sums, summary_group_json(&groups[i]));
	if (d->finished_at[0] || d->wall_s > 0) {
		cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "run");

		if (!run)
			run = cJSON_AddObjectToObject(o, "run");
		run_end_json(d, run);
	}
	if (d->finished) {
		cJSON_AddBoolToObject(o, "interrupted", d->interrupted);
		cJSON_AddStringToObject(o, "verdict", d->interrupted ? "interrupted" : d->verdict_ok ? "ok" : "failed");
	}
	return o;
}

int res_write(const struct res_doc *d, const char *path, struct hx_err *err)
{
	cJSON *o = res_doc_json(d, err);
	_cleanup_free_ char *text = NULL;

	if (!o)
		return -err->errnum;
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (!text)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	return util_write_atomic(path, text, strlen(text), err);
}

/* The head: everything but trials, summaries (recomputed) and the run's end (typed). */
static int doc_parse(cJSON *root, struct res_doc *d, struct hx_err *err)
{
	const cJSON *trials = get(root, "trials"), *it;
	const cJSON *verdict = get(root, "verdict");

	cJSON_ArrayForEach (it, trials) {
		struct trial_result *t = res_doc_add(d);

		if (!t)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		if (res_trial_parse(it, t, err) < 0)
			return hx_wrap(err, "trial %zu", d->ntrials);
	}
	d->finished = cJSON_IsString(verdict);
	d->interrupted = cJSON_IsTrue(get(root, "interrupted"));
	d->verdict_ok = d->finished && strcmp(verdict->valuestring, "ok") == 0;
	d->wall_s = num0(get(root, "run"), "wall_s");
	cJSON_DeleteItemFromObjectCaseSensitive(root, "trials");
	cJSON_DeleteItemFromObjectCaseSensitive(root, "summaries");
	cJSON_DeleteItemFromObjectCaseSensitive(root, "interrupted");
	cJSON_DeleteItemFromObjectCaseSensitive(root, "verdict");
	d->head = root;
	return 0;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* One JSON value at *p (cJSON's parser), *p moved past it and the white space after; NULL when there is none. */
static cJSON *next_value(const char **p, const char *end)
{
	const char *after = NULL;
	cJSON *v = cJSON_ParseWithLengthOpts(*p, (size_t)(end - *p), &after, false);

	if (v)
		*p = skip_ws(after, end);
	return v;
}

/* The trials array at *p, each trial parsed into d and its tree freed before the next is parsed. 1: not JSON. */
static int stream_trials(const char **p, const char *end, struct res_doc *d, struct hx_err *err)
{
	*p = skip_ws(*p + 1, end);
	if (*p < end && **p == ']')
		return (*p = skip_ws(*p + 1, end)), 0;
	for (;;) {
		cJSON *v = next_value(p, end);
		struct trial_result *t = v ? res_doc_add(d) : NULL;
		int rc = !v   ? 1
			 : !t ? hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory")
			      : res_trial_parse(v, t, err);

		cJSON_Delete(v);
		if (rc)
			return rc < 0 ? hx_wrap(err, "trial %zu", d->ntrials) : 1;
		if (*p < end && **p == ',') {
			*p = skip_ws(*p + 1, end);
			continue;
		}
		if (*p < end && **p == ']')
			return (*p = skip_ws(*p + 1, end)), 0;
		return 1;
	}
}

/* The document read one top-level value at a time, its trials one trial at a time: the tree of a 100,000-trial
 * file (some 6 times its text) is never whole in memory, only the head and one trial's. The head comes back with
 * an empty "trials" array where the trials were. NULL with *ret_bad set when the text is not a JSON object;
 * NULL with err set when a trial is not one harness reads. */
static cJSON *stream_doc(const char *text, size_t len, struct res_doc *d, bool *ret_bad, struct hx_err *err)
{
	const char *p = skip_ws(text, text + len), *end = text + len;
	cJSON *head = cJSON_CreateObject();
	int rc = 0;

	*ret_bad = true;
	if (!head || p >= end || *p != '{')
		goto fail;
	p = skip_ws(p + 1, end);
	while (rc == 0 && p < end && *p != '}') {
		cJSON *key = next_value(&p, end), *v = NULL;

		if (!cJSON_IsString(key) || p >= end || *p != ':') {
			cJSON_Delete(key);
			goto fail;
		}
		p = skip_ws(p + 1, end);
		if (!strcmp(key->valuestring, "trials") && p < end && *p == '[' && !get(head, "trials")) {
			const cJSON *schema = get(head, "schema");

			if (schema && (!cJSON_IsString(schema) || strcmp(schema->valuestring, RES_SCHEMA) != 0)) {
				cJSON_Delete(key); /* another kind of file: said as such, not as a bad trial */
				goto fail;
			}
			rc = stream_trials(&p, end, d, err);
			v = cJSON_CreateArray();
		} else {
			v = next_value(&p, end);
		}
		if (v)
			cJSON_AddItemToObject(head, key->valuestring, v);
		cJSON_Delete(key);
		if (rc < 0 || (rc == 0 && !v))
			goto fail;
		if (rc == 0 && p < end && *p == ',')
			p = skip_ws(p + 1, end);
		else if (rc == 0 && (p >= end || *p != '}'))
			goto fail;
	}
	if (rc != 0 || p >= end || skip_ws(p + 1, end) != end)
		goto fail;
	*ret_bad = false;
	return head;
fail:
	*ret_bad = !err->msg[0];
	cJSON_Delete(head);
	return NULL;
}

int res_read(const char *path, struct res_doc *ret, struct hx_err *err)
{
	_cleanup_free_ char *text = NULL;
	struct res_doc d = {0};
	size_t len;
	cJSON *root;
	const cJSON *schema;
	bool bad;

	if (util_read_input(path, UTIL_MAX_RESULTS, &text, &len, err) < 0)
		return -err->errnum;
	root = stream_doc(text, len, &d, &bad, err);
	free(steal_pointer(&text));
	if (!root && !bad) {
		res_doc_free(&d);
		return hx_wrap(err, "%s", path);
	}
	schema = get(root, "schema");
	if (!root || !cJSON_IsArray(get(root, "trials")) ||
	    (schema && (!cJSON_IsString(schema) || strcmp(schema->valuestring, RES_SCHEMA) != 0))) {
		cJSON_Delete(root);
		res_doc_free(&d);
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s is not a harness results file (%s)", path, RES_SCHEMA);
	}
	if (doc_parse(root, &d, err) < 0) {
		cJSON_Delete(root);
		d.head = NULL;
		res_doc_free(&d);
		return hx_wrap(err, "%s", path);
	}
	*ret = d;
	return 0;
}
