/* The results document: typed trials to JSON and back, summaries, the verdict, the atomic write. The
 * one place, with report and the verbs, that knows the JSON. */
#include "report/results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "report/isolation.h"

const char *const res_status_names[TRIAL_NR_STATUS] = {"ok", "failed", "cut", "interrupted", "skipped"};

const char *const res_metric_names[RES_NR_METRICS] = {
	"startup_median_ms",
	"rps",
	"p99_us",
	"idle_rss_kb",
	"peak_rss_kb",
	"post_load_rss_kb",
	"errors",
	"client_cpu_us_per_request",
	"deliveries_per_s",
	"rtt_p99_us",
	"lost",
	"ops_per_s",
	"script_p50_ms",
	"script_p99_ms",
	"script_errors",
	"script_max_rss_kb",
	"fixture_ready_ms",
	"noise_ops_per_s",
};

/* ---- the trial ---- */

void res_trial_init(struct trial_result *t, const char *scenario, const char *runtime, const char *mode, unsigned trial,
		    unsigned order)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->scenario, sizeof(t->scenario), "%s", scenario);
	snprintf(t->runtime, sizeof(t->runtime), "%s", runtime);
	snprintf(t->mode, sizeof(t->mode), "%s", mode);
	snprintf(t->noise, sizeof(t->noise), "none");
	t->trial = trial;
	t->order = order;
	t->server.idle_rss_kb = t->server.peak_rss_kb = t->server.post_load_rss_kb = NAN;
	t->process.exit = -1;
}

enum trial_status res_trial_status(int rc, bool interrupted, bool cut)
{
	if (rc == 0)
		return TRIAL_OK;
	if (interrupted)
		return TRIAL_INTERRUPTED;
	return cut ? TRIAL_CUT : TRIAL_FAILED;
}

double res_script_value(const struct res_script *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->name[i], name) == 0)
			return s->value[i];
	return NAN;
}

bool res_trial_passed(const struct trial_result *t, uint64_t max_errors)
{
	double errors = NAN;

	if (t->status != TRIAL_OK)
		return false;
	if (t->have & RES_HAVE_LOAD)
		errors = (double)t->load.errors_total;
	else if (t->have & RES_HAVE_SCRIPT) /* a script counts its own */
		errors = res_script_value(&t->script, "errors");
	return isnan(errors) || errors <= (double)max_errors;
}

/* ---- from the engines' results ---- */

void res_latency_from(const struct hist *h, struct res_latency *ret)
{
	ret->mean = round(hist_mean(h) / 10.0) / 100.0;
	ret->stddev = round(hist_stddev(h) / 10.0) / 100.0;
	ret->min = h->count ? (double)h->min / 1e3 : 0;
	ret->p50 = (double)hist_quantile(h, 0.5) / 1e3;
	ret->p75 = (double)hist_quantile(h, 0.75) / 1e3;
	ret->p90 = (double)hist_quantile(h, 0.9) / 1e3;
	ret->p95 = (double)hist_quantile(h, 0.95) / 1e3;
	ret->p99 = (double)hist_quantile(h, 0.99) / 1e3;
	ret->p999 = (double)hist_quantile(h, 0.999) / 1e3;
	ret->max = (double)h->max / 1e3 * (h->count > 0);
}

void res_load_from(const struct load_config *c, const struct load_result *r, const char *cpus, struct res_load *ret)
{
	double rps = r->duration_s > 0 ? (double)r->requests / r->duration_s : 0;

	memset(ret, 0, sizeof(*ret));
	ret->requests = r->requests;
	ret->duration_s = r->duration_s;
	ret->rps = round(rps * 100) / 100;
	ret->bytes = r->bytes;
	ret->reconnects = r->reconnects;
	ret->errors_total = r->errors_total;
	memcpy(ret->errors, r->errors, sizeof(ret->errors));
	res_latency_from(&r->latency, &ret->latency_us);
	if (c->rate > 0)
		res_latency_from(&r->latency_uncorrected, &ret->latency_uncorrected_us);
	ret->client.cpu_s = r->cpu_s;
	ret->client.cpu_us_per_request = r->requests ? r->cpu_s * 1e6 / (double)r->requests : 0;
	ret->client.max_thread_busy = round(r->max_thread_busy * 1000) / 1000;
	ret->client.saturated = r->max_thread_busy >= RES_SATURATED;
	snprintf(ret->client.cpus, sizeof(ret->client.cpus), "%s", cpus ? cpus : "");
	ret->config.open = c->rate > 0;
	ret->config.tls = c->url.tls;
	ret->config.connections = c->conns;
	ret->config.threads = c->threads;
	ret->config.pipeline = c->pipeline;
	ret->config.timeout_ms = c->timeout_ms;
	ret->config.rate = c->rate;
	ret->config.requests = c->requests;
	ret->config.duration_s = c->duration_s;
}

void res_chat_from(const struct chat_result *r, struct res_chat *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->clients = r->clients;
	ret->messages_per_client = r->messages;
	ret->deliveries_expected = r->expected;
	ret->deliveries = r->delivered;
	ret->lost = r->lost;
	ret->duplicated = r->duplicated;
	ret->duration_s = r->duration_s;
	ret->deliveries_per_s = r->duration_s > 0 ? (double)r->delivered / r->duration_s : 0;
	res_latency_from(&r->rtt, &ret->rtt_us);
	ret->invariant_ok = r->ok;
	snprintf(ret->why, sizeof(ret->why), "%s", r->ok ? "" : r->why);
}

/* ---- reading JSON: absent or mistyped values read as NAN, 0 or "" ---- */

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
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

static uint64_t u64(const cJSON *o, const char *k)
{
	double v = num(o, k);

	return isnan(v) || v < 0 ? 0 : (uint64_t)v;
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

cJSON *res_load_json(const struct res_load *l)
{
	cJSON *j = cJSON_CreateObject(), *e, *cl, *cfg;

	cJSON_AddNumberToObject(j, "requests", (double)l->requests);
	cJSON_AddNumberToObject(j, "duration_s", l->duration_s);
	cJSON_AddNumberToObject(j, "rps", l->rps);
	cJSON_AddNumberToObject(j, "bytes", (double)l->bytes);
	cJSON_AddNumberToObject(j, "reconnects", (double)l->reconnects);
	e = cJSON_AddObjectToObject(j, "errors");
	cJSON_AddNumberToObject(e, "total", (double)l->errors_total);
	for (int k = 0; k < LE_NR; k++)
		cJSON_AddNumberToObject(e, load_err_names[k], (double)l->errors[k]);
	cJSON_AddItemToObject(j, "latency_us", latency_json(&l->latency_us));
	if (l->config.open)
		cJSON_AddItemToObject(j, "latency_uncorrected_us", latency_json(&l->latency_uncorrected_us));
	cl = cJSON_AddObjectToObject(j, "client");
	cJSON_AddNumberToObject(cl, "cpu_s", l->client.cpu_s);
	cJSON_AddNumberToObject(cl, "cpu_us_per_request", l->client.cpu_us_per_request);
	cJSON_AddNumberToObject(cl, "max_thread_busy", l->client.max_thread_busy);
	cJSON_AddBoolToObject(cl, "saturated", l->client.saturated);
	add_str(cl, "cpus", l->client.cpus);
	cfg = cJSON_AddObjectToObject(j, "config");
	cJSON_AddStringToObject(cfg, "mode", l->config.open ? "open" : "closed");
	cJSON_AddNumberToObject(cfg, "connections", l->config.connections);
	cJSON_AddNumberToObject(cfg, "threads", l->config.threads);
	cJSON_AddNumberToObject(cfg, "pipeline", l->config.pipeline);
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
	const cJSON *e = get(o, "errors"), *cl = get(o, "client"), *cfg = get(o, "config");
	char mode[16], transport[16];

	if (!cJSON_IsObject(o) || !cJSON_IsNumber(get(o, "requests")))
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	ret->requests = u64(o, "requests");
	ret->duration_s = num0(o, "duration_s");
	ret->rps = num0(o, "rps");
	ret->bytes = u64(o, "bytes");
	ret->reconnects = u64(o, "reconnects");
	ret->errors_total = u64(e, "total");
	for (int k = 0; k < LE_NR; k++)
		ret->errors[k] = u64(e, load_err_names[k]);
	latency_parse(get(o, "latency_us"), &ret->latency_us);
	latency_parse(get(o, "latency_uncorrected_us"), &ret->latency_uncorrected_us);
	ret->client.cpu_s = num0(cl, "cpu_s");
	ret->client.cpu_us_per_request = num0(cl, "cpu_us_per_request");
	ret->client.max_thread_busy = num0(cl, "max_thread_busy");
	ret->client.saturated = cJSON_IsTrue(get(cl, "saturated"));
	str(cl, "cpus", ret->client.cpus, sizeof(ret->client.cpus));
	str(cfg, "mode", mode, sizeof(mode));
	str(cfg, "transport", transport, sizeof(transport));
	ret->config.open = strcmp(mode, "open") == 0;
	ret->config.tls = strcmp(transport, "tls") == 0;
	ret->config.connections = (unsigned)u64(cfg, "connections");
	ret->config.threads = (unsigned)u64(cfg, "threads");
	ret->config.pipeline = (unsigned)u64(cfg, "pipeline");
	ret->config.timeout_ms = (unsigned)u64(cfg, "timeout_ms");
	ret->config.rate = num0(cfg, "rate");
	ret->config.requests = u64(cfg, "requests");
	ret->config.duration_s = num0(cfg, "duration_s");
	return 0;
}

cJSON *res_chat_json(const struct res_chat *c)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "workload", "ws-chat");
	cJSON_AddNumberToObject(j, "clients", c->clients);
	cJSON_AddNumberToObject(j, "messages_per_client", c->messages_per_client);
	cJSON_AddNumberToObject(j, "deliveries_expected", (double)c->deliveries_expected);
	cJSON_AddNumberToObject(j, "deliveries", (double)c->deliveries);
	cJSON_AddNumberToObject(j, "lost", (double)c->lost);
	cJSON_AddNumberToObject(j, "duplicated", (double)c->duplicated);
	cJSON_AddNumberToObject(j, "duration_s", c->duration_s);
	cJSON_AddNumberToObject(j, "deliveries_per_s", c->deliveries_per_s);
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
	ret->clients = (unsigned)u64(o, "clients");
	ret->messages_per_client = (unsigned)u64(o, "messages_per_client");
	ret->deliveries_expected = u64(o, "deliveries_expected");
	ret->deliveries = u64(o, "deliveries");
	ret->lost = u64(o, "lost");
	ret->duplicated = u64(o, "duplicated");
	ret->duration_s = num0(o, "duration_s");
	ret->deliveries_per_s = num0(o, "deliveries_per_s");
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

static cJSON *startup_json(const struct res_startup *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "wall_ms", res_summary_json(&s->wall_ms, 1));
	cJSON_AddNumberToObject(o, "user_ms", s->user_ms);
	cJSON_AddNumberToObject(o, "system_ms", s->system_ms);
	cJSON_AddNumberToObject(o, "max_rss_kb", (double)s->max_rss_kb);
	cJSON_AddNumberToObject(o, "failed_runs", s->failed_runs);
	if (s->nruns) {
		cJSON *ms = cJSON_AddArrayToObject(o, "runs_ms"), *ex = cJSON_AddArrayToObject(o, "runs_exit");

		/* µs are the clock's useful precision here; more digits only make the file larger */
		for (unsigned i = 0; i < s->nruns; i++) {
			cJSON_AddItemToArray(ms, cJSON_CreateNumber(round(s->runs_ms[i] * 1e3) / 1e3));
			cJSON_AddItemToArray(ex, cJSON_CreateNumber(s->runs_exit[i]));
		}
	}
	return o;
}

int res_startup_runs(struct res_startup *s, const double *ms, const int *exit, unsigned n)
{
	double *m = n ? malloc(n * sizeof(*m)) : NULL;
	int *e = n ? malloc(n * sizeof(*e)) : NULL;

	if (n && (!m || !e)) {
		free(m);
		free(e);
		return -ENOMEM;
	}
	if (n) {
		memcpy(m, ms, n * sizeof(*m));
		memcpy(e, exit, n * sizeof(*e));
	}
	free(s->runs_ms);
	free(s->runs_exit);
	s->runs_ms = m;
	s->runs_exit = e;
	s->nruns = n;
	return 0;
}

void res_trial_free(struct trial_result *t)
{
	free(t->startup.runs_ms);
	free(t->startup.runs_exit);
	t->startup.runs_ms = NULL;
	t->startup.runs_exit = NULL;
	t->startup.nruns = 0;
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
	ret->user_ms = num0(o, "user_ms");
	ret->system_ms = num0(o, "system_ms");
	ret->max_rss_kb = u64(o, "max_rss_kb");
	ret->failed_runs = (unsigned)u64(o, "failed_runs");
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

static cJSON *server_json(const struct res_server *s)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "log", s->log);
	add_num(o, "idle_rss_kb", s->idle_rss_kb);
	add_str(o, "cpus", s->cpus);
	add_num(o, "peak_rss_kb", s->peak_rss_kb);
	add_num(o, "post_load_rss_kb", s->post_load_rss_kb);
	return o;
}

static void server_parse(const cJSON *o, struct res_server *ret)
{
	str(o, "log", ret->log, sizeof(ret->log));
	str(o, "cpus", ret->cpus, sizeof(ret->cpus));
	ret->idle_rss_kb = num(o, "idle_rss_kb");
	ret->peak_rss_kb = num(o, "peak_rss_kb");
	ret->post_load_rss_kb = num(o, "post_load_rss_kb");
}

static cJSON *process_json(const struct res_process *p)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "cpus", p->cpus);
	cJSON_AddNumberToObject(o, "exit", p->exit);
	if (p->have_times) {
		cJSON_AddNumberToObject(o, "wall_ms", p->wall_ms);
		cJSON_AddNumberToObject(o, "user_ms", p->user_ms);
		cJSON_AddNumberToObject(o, "system_ms", p->system_ms);
		cJSON_AddNumberToObject(o, "max_rss_kb", p->max_rss_kb);
	}
	add_str(o, "log", p->log);
	return o;
}

static void process_parse(const cJSON *o, struct res_process *ret)
{
	double code = num(o, "exit");

	ret->exit = isnan(code) ? -1 : (int)code;
	str(o, "cpus", ret->cpus, sizeof(ret->cpus));
	str(o, "log", ret->log, sizeof(ret->log));
	if ((ret->have_times = cJSON_IsNumber(get(o, "wall_ms")))) {
		ret->wall_ms = num0(o, "wall_ms");
		ret->user_ms = num0(o, "user_ms");
		ret->system_ms = num0(o, "system_ms");
		ret->max_rss_kb = num0(o, "max_rss_kb");
	}
}

static cJSON *fixture_json(const struct res_fixture *f)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "name", f->name);
	add_str(o, "shares_cpus_with", f->shares_cpus_with);
	if (f->started) {
		add_str(o, "slice", f->slice);
		add_str(o, "cpus", f->cpus);
		cJSON_AddNumberToObject(o, "ready_ms", f->ready_ms);
		add_str(o, "log", f->log);
	}
	if (f->stopped) {
		cJSON_AddNumberToObject(o, "stop_ms", f->stop_ms);
		cJSON_AddBoolToObject(o, "clean_shutdown", f->clean_shutdown);
	}
	return o;
}

static void fixture_parse(const cJSON *o, struct res_fixture *ret)
{
	str(o, "name", ret->name, sizeof(ret->name));
	str(o, "shares_cpus_with", ret->shares_cpus_with, sizeof(ret->shares_cpus_with));
	if ((ret->started = cJSON_IsNumber(get(o, "ready_ms")))) {
		str(o, "slice", ret->slice, sizeof(ret->slice));
		str(o, "cpus", ret->cpus, sizeof(ret->cpus));
		str(o, "log", ret->log, sizeof(ret->log));
		ret->ready_ms = num0(o, "ready_ms");
	}
	if ((ret->stopped = cJSON_IsNumber(get(o, "stop_ms")))) {
		ret->stop_ms = num0(o, "stop_ms");
		ret->clean_shutdown = cJSON_IsTrue(get(o, "clean_shutdown"));
	}
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
		cJSON_AddItemToObject(o, "generator", noise_result_json(&n->generator));
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
	ret->have_generator = noise_result_parse(get(o, "generator"), &ret->generator, &err) == 0;
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

cJSON *res_trial_json(const struct trial_result *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "scenario", t->scenario);
	cJSON_AddStringToObject(o, "runtime", t->runtime);
	cJSON_AddStringToObject(o, "mode", t->mode);
	if (strcmp(t->noise, "none") != 0) /* absent: a quiet trial, as in files from before noise */
		cJSON_AddStringToObject(o, "noise", t->noise);
	cJSON_AddNumberToObject(o, "trial", t->trial);
	cJSON_AddNumberToObject(o, "order", t->order);
	cJSON_AddItemToObject(o, "cpus", per_slice_json(t, false));
	if (t->have & RES_HAVE_NEIGHBOUR)
		cJSON_AddItemToObject(o, "neighbour", neighbour_json(&t->neighbour));
	if (t->have & RES_HAVE_FIXTURE)
		cJSON_AddItemToObject(o, "fixture", fixture_json(&t->fixture));
	if (t->have & RES_HAVE_SERVER)
		cJSON_AddItemToObject(o, "server", server_json(&t->server));
	if (t->have & RES_HAVE_PROCESS)
		cJSON_AddItemToObject(o, "process", process_json(&t->process));
	if (t->have & RES_HAVE_STARTUP)
		cJSON_AddItemToObject(o, "startup", startup_json(&t->startup));
	if (t->have & RES_HAVE_LOAD)
		cJSON_AddItemToObject(o, "load", res_load_json(&t->load));
	if (t->have & RES_HAVE_CHAT)
		cJSON_AddItemToObject(o, "chat", res_chat_json(&t->chat));
	if (t->have & RES_HAVE_SCRIPT)
		cJSON_AddItemToObject(o, "script", script_json(&t->script));
	if (t->slices_have)
		cJSON_AddItemToObject(o, "slices", per_slice_json(t, true));
	cJSON_AddNumberToObject(o, "wall_s", t->wall_s);
	cJSON_AddStringToObject(o, "status", res_status_names[t->status]);
	add_str(o, "error", t->error);
	return o;
}

static void per_slice_parse(const cJSON *cpus, const cJSON *slices, struct trial_result *t)
{
	for (int sl = 0; sl < CG_NR_SLICES; sl++) {
		const cJSON *c = get(cpus, cg_slice_names[sl]), *s = get(slices, cg_slice_names[sl]);

		if (cJSON_IsString(c)) {
			t->cpus_have |= 1u << sl;
			snprintf(t->cpus[sl], sizeof(t->cpus[sl]), "%s", c->valuestring);
		}
		if (cJSON_IsObject(s)) {
			t->slices_have |= 1u << sl;
			stats_parse(s, &t->slices[sl]);
		}
	}
}

int res_trial_parse(const cJSON *o, struct trial_result *ret, struct hx_err *err)
{
	char status[16];
	int k;

	if (!cJSON_IsObject(o) || !cJSON_IsString(get(o, "scenario")) || !cJSON_IsString(get(o, "status")))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "a trial without scenario or status");
	res_trial_init(ret, get(o, "scenario")->valuestring, "", "", (unsigned)u64(o, "trial"),
		       (unsigned)u64(o, "order"));
	str(o, "runtime", ret->runtime, sizeof(ret->runtime));
	str(o, "mode", ret->mode, sizeof(ret->mode));
	if (cJSON_IsString(get(o, "noise"))) /* a file from before noise existed: quiet trials */
		str(o, "noise", ret->noise, sizeof(ret->noise));
	str(o, "status", status, sizeof(status));
	for (k = 0; k < TRIAL_NR_STATUS && strcmp(status, res_status_names[k]) != 0; k++)
		;
	if (k == TRIAL_NR_STATUS)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "a trial with status '%s'", status);
	ret->status = (enum trial_status)k;
	str(o, "error", ret->error, sizeof(ret->error));
	ret->wall_s = num0(o, "wall_s");
	per_slice_parse(get(o, "cpus"), get(o, "slices"), ret);
	if (cJSON_IsObject(get(o, "fixture")))
		ret->have |= RES_HAVE_FIXTURE, fixture_parse(get(o, "fixture"), &ret->fixture);
	if (cJSON_IsObject(get(o, "neighbour")))
		ret->have |= RES_HAVE_NEIGHBOUR, neighbour_parse(get(o, "neighbour"), &ret->neighbour);
	if (cJSON_IsObject(get(o, "server")))
		ret->have |= RES_HAVE_SERVER, server_parse(get(o, "server"), &ret->server);
	if (cJSON_IsObject(get(o, "process")))
		ret->have |= RES_HAVE_PROCESS, process_parse(get(o, "process"), &ret->process);
	if (cJSON_IsObject(get(o, "startup")))
		ret->have |= RES_HAVE_STARTUP, startup_parse(get(o, "startup"), &ret->startup);
	if (cJSON_IsObject(get(o, "script")))
		ret->have |= RES_HAVE_SCRIPT, script_parse(get(o, "script"), &ret->script);
	if (res_load_parse(get(o, "load"), &ret->load) == 0)
		ret->have |= RES_HAVE_LOAD;
	if (res_chat_parse(get(o, "chat"), &ret->chat) == 0)
		ret->have |= RES_HAVE_CHAT;
	return 0;
}

/* ---- summaries ---- */

double res_metric(const struct trial_result *t, enum res_metric m)
{
	bool load = t->have & RES_HAVE_LOAD, chat = t->have & RES_HAVE_CHAT, server = t->have & RES_HAVE_SERVER;

	switch (m) {
	case RES_M_STARTUP_MEDIAN_MS:
		return t->have & RES_HAVE_STARTUP ? t->startup.wall_ms.median : NAN;
	case RES_M_RPS:
		return load ? t->load.rps : NAN;
	case RES_M_P99_US:
		return load ? t->load.latency_us.p99 : NAN;
	case RES_M_IDLE_RSS_KB:
		return server ? t->server.idle_rss_kb : NAN;
	case RES_M_PEAK_RSS_KB:
		return server ? t->server.peak_rss_kb : NAN;
	case RES_M_POST_LOAD_RSS_KB:
		return server ? t->server.post_load_rss_kb : NAN;
	case RES_M_ERRORS:
		return load ? (double)t->load.errors_total : NAN;
	case RES_M_CLIENT_CPU_US_PER_REQUEST:
		return load ? t->load.client.cpu_us_per_request : NAN;
	case RES_M_DELIVERIES_PER_S:
		return chat ? t->chat.deliveries_per_s : NAN;
	case RES_M_RTT_P99_US:
		return chat ? t->chat.rtt_us.p99 : NAN;
	case RES_M_LOST:
		return chat ? (double)t->chat.lost : NAN;
	case RES_M_OPS_PER_S:
		return res_script_value(&t->script, "ops_per_s");
	case RES_M_SCRIPT_P50_MS:
		return res_script_value(&t->script, "p50_ms");
	case RES_M_SCRIPT_P99_MS:
		return res_script_value(&t->script, "p99_ms");
	case RES_M_SCRIPT_ERRORS:
		return res_script_value(&t->script, "errors");
	case RES_M_SCRIPT_MAX_RSS_KB:
		return t->have & RES_HAVE_PROCESS && t->process.have_times ? t->process.max_rss_kb : NAN;
	case RES_M_FIXTURE_READY_MS:
		return t->have & RES_HAVE_FIXTURE && t->fixture.started ? t->fixture.ready_ms : NAN;
	case RES_M_NOISE_OPS_PER_S:
		return t->have & RES_HAVE_NEIGHBOUR && t->neighbour.have_generator && t->neighbour.generator.seconds > 0
			       ? (double)t->neighbour.generator.ops / t->neighbour.generator.seconds
			       : NAN;
	case RES_NR_METRICS:
		break;
	}
	return NAN;
}

static bool same_group(const struct trial_result *a, const struct res_summary *g)
{
	return !strcmp(a->scenario, g->scenario) && !strcmp(a->runtime, g->runtime) && !strcmp(a->mode, g->mode) &&
	       !strcmp(a->noise, g->noise);
}

static void summarize_group(const struct trial_result *trials, size_t n, struct res_summary *g, double *v)
{
	for (size_t i = 0; i < n; i++)
		if (same_group(&trials[i], g) && trials[i].status != TRIAL_SKIPPED) {
			g->trials++;
			g->failed |= trials[i].status != TRIAL_OK;
			g->client_saturated |= (trials[i].have & RES_HAVE_LOAD) && trials[i].load.client.saturated;
		}
	for (int m = 0; m < RES_NR_METRICS; m++) {
		size_t nv = 0;

		for (size_t i = 0; i < n; i++)
			if (same_group(&trials[i], g) && trials[i].status == TRIAL_OK &&
			    !isnan(res_metric(&trials[i], (enum res_metric)m)))
				v[nv++] = res_metric(&trials[i], (enum res_metric)m);
		if (nv) {
			stats_summarize(v, nv, &g->metric[m]);
			g->have |= 1u << m;
		}
	}
}

int res_summarize(const struct trial_result *trials, size_t n, struct res_summary **ret, size_t *ret_n,
		  struct hx_err *err)
{
	_cleanup_free_ struct res_summary *out = calloc(n ? n : 1, sizeof(*out));
	_cleanup_free_ double *v = calloc(n ? n : 1, sizeof(*v));
	size_t ng = 0;

	if (!out || !v)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t k = 0; k < ng && !seen; k++)
			seen = same_group(&trials[i], &out[k]);
		if (seen)
			continue;
		snprintf(out[ng].scenario, sizeof(out[ng].scenario), "%s", trials[i].scenario);
		snprintf(out[ng].runtime, sizeof(out[ng].runtime), "%s", trials[i].runtime);
		snprintf(out[ng].mode, sizeof(out[ng].mode), "%s", trials[i].mode);
		snprintf(out[ng].noise, sizeof(out[ng].noise), "%s", trials[i].noise);
		summarize_group(trials, n, &out[ng++], v);
	}
	for (size_t k = 0; k < ng; k++)
		if (iso_shift(trials, n, &out[k], &out[k].shift) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	*ret = steal_pointer(&out);
	*ret_n = ng;
	return 0;
}

double res_median(const struct res_summary *s, enum res_metric m)
{
	return s->have & (1u << m) ? s->metric[m].median : NAN;
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
	if (g->shift.have)
		cJSON_AddItemToObject(o, "shift", iso_shift_json(&g->shift));
	return o;
}

/* ---- the document ---- */

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
	return 0;
}

struct trial_result *res_doc_add(struct res_doc *d)
{
	if (d->ntrials == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct trial_result *t = realloc(d->trials, cap * sizeof(*t));

		if (!t)
			return NULL;
		d->trials = t;
		d->cap = cap;
	}
	res_trial_init(&d->trials[d->ntrials], "", "", "", 0, 0);
	return &d->trials[d->ntrials++];
}

void res_doc_free(struct res_doc *d)
{
	for (size_t i = 0; i < d->ntrials; i++)
		res_trial_free(&d->trials[i]);
	cJSON_Delete(d->head);
	free(d->trials);
	memset(d, 0, sizeof(*d));
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
	if (d->finished) {
		cJSON_AddBoolToObject(o, "interrupted", d->interrupted);
		cJSON_AddStringToObject(o, "verdict", d->verdict_ok ? "ok" : "failed");
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
	cJSON_DeleteItemFromObjectCaseSensitive(root, "trials");
	cJSON_DeleteItemFromObjectCaseSensitive(root, "summaries");
	cJSON_DeleteItemFromObjectCaseSensitive(root, "interrupted");
	cJSON_DeleteItemFromObjectCaseSensitive(root, "verdict");
	d->head = root;
	return 0;
}

int res_read(const char *path, struct res_doc *ret, struct hx_err *err)
{
	_cleanup_free_ char *text = NULL;
	struct res_doc d = {0};
	cJSON *root;
	const cJSON *schema;

	if (util_read_file(path, &text, NULL, err) < 0)
		return -err->errnum;
	root = cJSON_Parse(text);
	schema = get(root, "schema");
	if (!root || !cJSON_IsArray(get(root, "trials")) ||
	    (schema && (!cJSON_IsString(schema) || strcmp(schema->valuestring, RES_SCHEMA) != 0))) {
		cJSON_Delete(root);
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

void res_stats_print(FILE *f, const struct cg_stats *st)
{
	for (int k = 0; k < CG_NR_STATS; k++) {
		if (st->have[k])
			fprintf(f, "  %-22s %" PRIu64 "\n", cg_stat_names[k], st->v[k]);
		else
			fprintf(f, "  %-22s (not reported by this host)\n", cg_stat_names[k]);
	}
	for (int r = 0; r < CG_NR_PSI; r++)
		if (st->psi[r].have)
			fprintf(f, "  psi_%-18s some avg10 %.2f total %" PRIu64 " us\n", cg_psi_names[r],
				st->psi[r].some_avg10, st->psi[r].some_total_usec);
}
