/* The results model: typed trials filled from the engines' results, a trial's status and verdict (pure),
 * summaries over trials. Its JSON, both ways, is results_json.c. */
#include "results/results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"

const char *const res_status_names[TRIAL_NR_STATUS] = {"ok", "failed", "cut", "interrupted", "skipped"};
const char *const res_phase_names[RES_NR_PHASES] = {"slices", "sandboxes", "ready", "stop", "teardown", "fixture"};

void res_overhead_add(struct res_overhead *o, enum res_phase p, double ms)
{
	o->have |= 1u << p;
	o->ms[p] += ms > 0 ? ms : 0; /* a monotonic clock: only rounding can make one negative */
}

double res_overhead_total(const struct res_overhead *o)
{
	double sum = 0;

	for (int p = 0; p < RES_NR_PHASES; p++)
		if (p != RES_PH_FIXTURE && (o->have & (1u << p)))
			sum += o->ms[p];
	return sum;
}

double res_doc_measuring_share(const struct res_doc *d, double *ret_measuring_s)
{
	double sum = 0;

	for (size_t i = 0; i < d->ntrials; i++)
		sum += d->trials[i].measuring_s;
	*ret_measuring_s = sum;
	return d->wall_s > 0 ? sum / d->wall_s : NAN;
}

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
	"sut_slice_peak_kb",
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
	t->harness_fds = t->harness_rss_kb = NAN;
	t->server.after_idle_rss_kb = t->server.after_restart_rss_kb = NAN;
	t->server.ready_ms = NAN;
	t->process.exit = -1;
}

const char *res_trial_error(const struct trial_result *t)
{
	return t->error ? t->error : "";
}

int res_trial_set_error(struct trial_result *t, const char *fmt, ...)
{
	char buf[RES_ERROR_LEN], *e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	e = strdup(buf);
	if (!e)
		return -ENOMEM;
	free(t->error);
	t->error = e;
	return 0;
}

int res_trial_set_cpus(struct trial_result *t, int sl, const char *cpus)
{
	char *c = strndup(cpus, RES_CPUS_LEN - 1);

	if (!c)
		return -ENOMEM;
	free(t->cpus[sl]);
	t->cpus[sl] = c;
	t->cpus_have |= 1u << sl;
	return 0;
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
	for (size_t i = 0; s && i < s->n; i++)
		if (strcmp(s->name[i], name) == 0)
			return s->value[i];
	return NAN;
}

const char *const res_noisy_names[RES_NR_NOISY] = {"throttled", "cpu_pressure", "client_saturated", "stall",
						   "steal",	"foreign",	"spread",	    "contended",
						   "short",	"not_steady"};

static bool stalled(double max_s, double duration_s)
{
	return duration_s > 0 && max_s >= RES_STALL_MIN_S && max_s >= RES_STALL_FRACTION * duration_s;
}

/* How long the measured phase lasted by the workload's own clock; NAN when the trial measured nothing. */
static double measured_s(const struct trial_result *t)
{
	double least = NAN;

	for (unsigned i = 0; i < t->ncells; i++)
		if (isnan(least) || t->cells[i].load.duration_s < least)
			least = t->cells[i].load.duration_s;
	if (t->ncells)
		return least;
	if (t->have & RES_HAVE_LOAD)
		return t->load.duration_s;
	if (t->have & RES_HAVE_CHAT)
		return t->chat.duration_s;
	if (t->have & RES_HAVE_SCRIPT)
		return res_script_value(t->script, "seconds");
	return NAN;
}

unsigned res_trial_noisy(const struct trial_result *t)
{
	const struct cg_stats *sut = &t->slices[CG_SLICE_SUT];
	bool have_sut = t->slices_have & (1u << CG_SLICE_SUT);
	unsigned why = 0;

	if (have_sut && !strcmp(t->mode, "pinned") && sut->have[CG_STAT_NR_THROTTLED] && sut->v[CG_STAT_NR_THROTTLED])
		why |= 1u << RES_NOISY_THROTTLED;
	if (have_sut && sut->psi[CG_PSI_CPU].have && t->wall_s > 0 &&
	    (double)sut->psi[CG_PSI_CPU].some_total_usec / 1e6 > RES_NOISY_PRESSURE * t->wall_s)
		why |= 1u << RES_NOISY_CPU_PRESSURE;
	if ((t->have & RES_HAVE_LOAD) && t->load.client.saturated)
		why |= 1u << RES_NOISY_CLIENT_SATURATED;
	if ((t->have & RES_HAVE_LOAD) && stalled(t->load.latency_us.max / 1e6, t->load.duration_s))
		why |= 1u << RES_NOISY_STALL;
	if ((t->have & RES_HAVE_CHAT) && stalled(t->chat.rtt_us.max / 1e6, t->chat.duration_s))
		why |= 1u << RES_NOISY_STALL;
	if ((t->have & RES_HAVE_EXTERNAL) && t->external.have_stat && t->external.seconds >= RES_EXT_MIN_S &&
	    t->external.steal_pct > RES_STEAL_PCT)
		why |= 1u << RES_NOISY_STEAL;
	if ((t->have & RES_HAVE_EXTERNAL) && t->external.samples >= RES_EXT_MIN_SAMPLES &&
	    t->external.foreign_runnable_mean >= RES_FOREIGN_MEAN)
		why |= 1u << RES_NOISY_FOREIGN;
	/* a throttled slice stalls whole by its own budget: that is quota mode's point, not another's doing */
	if (have_sut && sut->psi[CG_PSI_CPU].have && t->wall_s > 0 &&
	    !(sut->have[CG_STAT_NR_THROTTLED] && sut->v[CG_STAT_NR_THROTTLED]) &&
	    (double)sut->psi[CG_PSI_CPU].full_total_usec / 1e6 > RES_CONTENDED * t->wall_s)
		why |= 1u << RES_NOISY_CONTENDED;
	if (t->min_duration_s > 0 && measured_s(t) < t->min_duration_s) /* NAN: nothing measured, nothing flagged */
		why |= 1u << RES_NOISY_SHORT;
	if ((t->have & RES_HAVE_STARTUP) && t->startup.expected_cv > 0 && t->startup.wall_ms.n > 1 &&
	    t->startup.wall_ms.cv > t->startup.expected_cv)
		why |= 1u << RES_NOISY_SPREAD;
	if (t->timeline.steady.not_steady)
		why |= 1u << RES_NOISY_NOT_STEADY;
	return why;
}

void res_noisy_reason(const struct trial_result *t, enum res_noisy r, char *buf, size_t len)
{
	const struct cg_stats *sut = &t->slices[CG_SLICE_SUT];
	bool chat = !(t->have & RES_HAVE_LOAD);

	switch (r) {
	case RES_NOISY_THROTTLED:
		snprintf(buf, len,
			 "throttled: the pinned runtime's slice was throttled %llu times (its CPUs are its own: "
			 "expected 0)",
			 (unsigned long long)sut->v[CG_STAT_NR_THROTTLED]);
		return;
	case RES_NOISY_CPU_PRESSURE:
		snprintf(buf, len,
			 "cpu_pressure: the runtime waited for a CPU %.1f s of the trial's %.1f s (above %.0f%%)",
			 (double)sut->psi[CG_PSI_CPU].some_total_usec / 1e6, t->wall_s, RES_NOISY_PRESSURE * 100);
		return;
	case RES_NOISY_CLIENT_SATURATED:
		snprintf(buf, len,
			 "client_saturated: a load client thread was %.0f%% busy (the rule: %.0f%%): the figure may "
			 "measure the client; give it more CPUs (run --client-cpus N) and the scenario more "
			 "load.threads",
			 t->load.client.max_thread_busy * 100, RES_SATURATED * 100);
		return;
	case RES_NOISY_STALL:
		snprintf(buf, len,
			 "stall: a %s waited %.1f s of a %.1f s load (the rule: at least %.0f s and %.0f%% of it)",
			 chat ? "chat round trip" : "request",
			 (chat ? t->chat.rtt_us.max : t->load.latency_us.max) / 1e6,
			 chat ? t->chat.duration_s : t->load.duration_s, RES_STALL_MIN_S, RES_STALL_FRACTION * 100);
		return;
	case RES_NOISY_STEAL:
		snprintf(buf, len, "steal: the hypervisor took %.1f%% of the runtime's CPUs' time (above %.0f%%)",
			 t->external.steal_pct, RES_STEAL_PCT);
		return;
	case RES_NOISY_FOREIGN:
		snprintf(
			buf, len,
			"foreign: %.1f tasks outside the trial ran or waited on the runtime's CPUs on average (at most "
			"%u; the rule: %.1f)",
			t->external.foreign_runnable_mean, t->external.foreign_runnable_max, RES_FOREIGN_MEAN);
		return;
	case RES_NOISY_SPREAD:
		snprintf(buf, len, "spread: the runs' CV was %.1f%%, above the scenario's expected %.1f%%",
			 t->startup.wall_ms.cv * 100, t->startup.expected_cv * 100);
		return;
	case RES_NOISY_CONTENDED:
		snprintf(buf, len,
			 "contended: none of the runtime's tasks could run while one waited for a CPU %.2f s of the "
			 "trial's %.1f s (above %.0f%%: something else held its CPUs)",
			 (double)sut->psi[CG_PSI_CPU].full_total_usec / 1e6, t->wall_s, RES_CONTENDED * 100);
		return;
	case RES_NOISY_SHORT:
		snprintf(buf, len,
			 "short: the measured phase lasted %.2f s, under the scenario's min_duration_s of %.1f s (give "
			 "it more requests or messages)",
			 measured_s(t), t->min_duration_s);
		return;
	case RES_NOISY_NOT_STEADY:
		snprintf(buf, len,
			 "not_steady: the throughput moved %+.1f%% from the first to the last third of the measured "
			 "phase's %u intervals (medians %.0f and %.0f req/s, the thirds apart; Mann-Kendall p = %.2g "
			 "allowing for the intervals' autocorrelation %.2f; the rule: apart, more than %.0f%% and "
			 "p < %.2g)",
			 t->timeline.steady.change * 100, t->timeline.steady.intervals, t->timeline.steady.first_rps,
			 t->timeline.steady.last_rps, t->timeline.steady.p, t->timeline.steady.rho,
			 RES_STEADY_CHANGE * 100, RES_STEADY_ALPHA);
		return;
	case RES_NR_NOISY:
		break;
	}
	snprintf(buf, len, "?");
}

static double cells_errors(const struct trial_result *t)
{
	double n = 0;

	for (unsigned i = 0; i < t->ncells; i++)
		n += (double)t->cells[i].load.errors_total;
	return n;
}

bool res_trial_passed(const struct trial_result *t, uint64_t max_errors)
{
	double errors = NAN;

	if (t->status != TRIAL_OK)
		return false;
	if (t->have & RES_HAVE_LOAD)
		errors = (double)t->load.errors_total;
	else if (t->ncells) /* a route matrix: every cell's */
		errors = cells_errors(t);
	else if (t->have & RES_HAVE_SCRIPT) /* a script counts its own */
		errors = res_script_value(t->script, "errors");
	return isnan(errors) || errors <= (double)max_errors;
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

struct res_script *res_trial_script(struct trial_result *t)
{
	if (!t->script)
		t->script = calloc(1, sizeof(*t->script));
	return t->script;
}

struct res_wire *res_trial_wire(struct trial_result *t)
{
	if (!t->wire)
		t->wire = calloc(1, sizeof(*t->wire));
	return t->wire;
}

struct res_modules *res_trial_modules(struct trial_result *t)
{
	if (!t->modules)
		t->modules = calloc(1, sizeof(*t->modules));
	return t->modules;
}

int res_modules_add(struct res_modules *m, const char *path)
{
	if (m->npaths >= RES_MODULES_LISTED)
		return 0;
	if (!m->paths && !(m->paths = calloc(RES_MODULES_LISTED, sizeof(*m->paths))))
		return -ENOMEM;
	if (!(m->paths[m->npaths] = strdup(path)))
		return -ENOMEM;
	m->npaths++;
	return 0;
}

static void modules_free(struct res_modules *m)
{
	for (unsigned i = 0; m && i < m->npaths; i++)
		free(m->paths[i]);
	if (m)
		free(m->paths);
	free(m);
}

struct res_neighbour *res_trial_neighbour(struct trial_result *t)
{
	if (!t->neighbour)
		t->neighbour = calloc(1, sizeof(*t->neighbour));
	return t->neighbour;
}

void res_trial_free(struct trial_result *t)
{
	free(t->error);
	t->error = NULL;
	for (int sl = 0; sl < CG_NR_SLICES; sl++) {
		free(t->cpus[sl]);
		t->cpus[sl] = NULL;
	}
	t->cpus_have = 0;
	free(t->script);
	free(t->neighbour);
	free(t->wire);
	t->wire = NULL;
	modules_free(t->modules);
	t->modules = NULL;
	t->script = NULL;
	t->neighbour = NULL;
	free(t->startup.runs_ms);
	free(t->startup.runs_exit);
	t->startup.runs_ms = NULL;
	t->startup.runs_exit = NULL;
	t->startup.nruns = 0;
	for (unsigned i = 0; i < t->ncells; i++)
		res_timeline_free(&t->cells[i].timeline);
	free(t->cells);
	t->cells = NULL;
	t->ncells = 0;
	res_timeline_free(&t->timeline);
}

struct res_cell *res_cell_add(struct trial_result *t)
{
	struct res_cell *c = realloc(t->cells, (t->ncells + 1) * sizeof(*c));

	if (!c)
		return NULL;
	t->cells = c;
	memset(&c[t->ncells], 0, sizeof(*c));
	return &c[t->ncells++];
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

void res_engine_setup_from(const struct load_setup *s, struct res_engine_setup *ret)
{
	snprintf(ret->ring_flags, sizeof(ret->ring_flags), "%s", s->ring_flags);
	ret->buffer_ring = s->buffer_ring;
	ret->multishot_recv = s->multishot;
	snprintf(ret->fallback, sizeof(ret->fallback), "%s", load_fallback_names[s->fallback]);
	snprintf(ret->why, sizeof(ret->why), "%s", s->why);
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
	snprintf(ret->engine, sizeof(ret->engine), "%s", load_engine_names[r->engine]);
	res_engine_setup_from(&r->setup, &ret->setup);
	ret->errors_total = r->errors_total;
	memcpy(ret->errors, r->errors, sizeof(ret->errors));
	res_latency_from(&r->latency, &ret->latency_us);
	if (c->rate > 0)
		res_latency_from(&r->latency_uncorrected, &ret->latency_uncorrected_us);
	ret->client.cpu_s = r->cpu_s;
	ret->client.cpu_us_per_request = r->requests ? r->cpu_s * 1e6 / (double)r->requests : 0;
	ret->client.max_thread_busy = round(r->max_thread_busy * 1000) / 1000;
	/* a thread spinning on failed connects measured nothing: that is not saturation */
	ret->client.saturated = r->max_thread_busy >= RES_SATURATED && r->requests > 0;
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
		return res_script_value(t->script, "ops_per_s");
	case RES_M_SCRIPT_P50_MS:
		return res_script_value(t->script, "p50_ms");
	case RES_M_SCRIPT_P99_MS:
		return res_script_value(t->script, "p99_ms");
	case RES_M_SCRIPT_ERRORS:
		return res_script_value(t->script, "errors");
	case RES_M_SCRIPT_MAX_RSS_KB:
		return t->have & RES_HAVE_PROCESS && t->process.have_times ? t->process.max_rss_kb : NAN;
	case RES_M_FIXTURE_READY_MS:
		return t->have & RES_HAVE_FIXTURE && t->fixture.started ? t->fixture.ready_ms : NAN;
	case RES_M_NOISE_OPS_PER_S:
		return t->have & RES_HAVE_NEIGHBOUR && t->neighbour && t->neighbour->have_generator &&
				       t->neighbour->generator.seconds > 0
			       ? (double)t->neighbour->generator.ops / t->neighbour->generator.seconds
			       : NAN;
	case RES_M_SUT_SLICE_PEAK_KB:
		return server && (t->slices_have & (1u << CG_SLICE_SUT)) &&
				       t->slices[CG_SLICE_SUT].have[CG_STAT_MEMORY_PEAK]
			       ? (double)t->slices[CG_SLICE_SUT].v[CG_STAT_MEMORY_PEAK] / 1024
			       : NAN;
	case RES_NR_METRICS:
		break;
	}
	return NAN;
}

static void summarize_group(const struct trial_result *const *ts, size_t n, struct res_summary *g, double *v)
{
	for (size_t i = 0; i < n; i++)
		if (ts[i]->status != TRIAL_SKIPPED) {
			g->trials++;
			g->failed |= ts[i]->status != TRIAL_OK;
			g->client_saturated |= (ts[i]->have & RES_HAVE_LOAD) && ts[i]->load.client.saturated;
			g->noisy_trials += res_trial_noisy(ts[i]) != 0;
		}
	for (int m = 0; m < RES_NR_METRICS; m++) {
		size_t nv = 0;

		for (size_t i = 0; i < n; i++)
			if (ts[i]->status == TRIAL_OK && !isnan(res_metric(ts[i], (enum res_metric)m)))
				v[nv++] = res_metric(ts[i], (enum res_metric)m);
		if (nv) {
			stats_summarize(v, nv, &g->metric[m]);
			g->have |= 1u << m;
		}
	}
}

static int cmp_key(const struct trial_result *t, const char *scenario, const char *runtime, const char *mode,
		   const char *noise)
{
	int c = strcmp(t->scenario, scenario);

	if (!c)
		c = strcmp(t->runtime, runtime);
	if (!c)
		c = strcmp(t->mode, mode);
	return c ? c : strcmp(t->noise, noise);
}

/* Trials by group (scenario, runtime, mode, noise), then by their place in the file. */
static int cmp_group(const void *a, const void *b)
{
	const struct trial_result *x = *(const struct trial_result *const *)a,
				  *y = *(const struct trial_result *const *)b;
	int c = cmp_key(x, y->scenario, y->runtime, y->mode, y->noise);

	return c ? c : (x > y) - (x < y);
}

/* A group: the run of `by` (trials sorted by group) from at, n long. */
struct res_run {
	size_t at, n;
};

static int cmp_run_first(const void *a, const void *b)
{
	size_t x = ((const struct res_run *)a)->at, y = ((const struct res_run *)b)->at;

	return (x > y) - (x < y);
}

/* The group of that key among runs (sorted by key), or NULL. */
static const struct res_run *run_of(const struct res_run *runs, size_t nr, const struct trial_result *const *by,
				    const struct res_summary *g, const char *mode, const char *noise)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(by[runs[mid].at], g->scenario, g->runtime, mode, noise);

		if (!c)
			return &runs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The group's own trials, then its twin's (none when it has none): what a shift or a ratio to pinned reads. */
static size_t with_twin(const struct trial_result *const *by, const struct res_run *own, const struct res_run *twin,
			const struct trial_result **ret)
{
	memcpy(ret, by + own->at, own->n * sizeof(*ret));
	if (twin && twin != own)
		memcpy(ret + own->n, by + twin->at, twin->n * sizeof(*ret));
	return own->n + (twin && twin != own ? twin->n : 0);
}

bool res_in_group(const struct trial_result *t, const struct res_summary *g)
{
	return !strcmp(t->scenario, g->scenario) && !strcmp(t->runtime, g->runtime) && !strcmp(t->mode, g->mode) &&
	       !strcmp(t->noise, g->noise);
}

/* The groups, each from its own trials and its twin's: the trials are sorted by group once, so the summaries
 * cost n log n and each group's statistics, not a pass over every trial per group and metric. */
int res_summarize(const struct trial_result *trials, size_t n, struct res_summary **ret, size_t *ret_n,
		  struct hx_err *err)
{
	_cleanup_free_ struct res_summary *out = calloc(n ? n : 1, sizeof(*out));
	_cleanup_free_ double *v = calloc(n ? n : 1, sizeof(*v));
	_cleanup_free_ const struct trial_result **by = calloc(n ? n : 1, sizeof(*by)),
						 **tmp = calloc(n ? n : 1, sizeof(*tmp));
	_cleanup_free_ struct res_run *runs = calloc(n ? n : 1, sizeof(*runs)),
				      *order = calloc(n ? n : 1, sizeof(*order));
	size_t nr = 0;

	if (!out || !v || !by || !tmp || !runs || !order)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		by[i] = &trials[i];
	qsort(by, n, sizeof(*by), cmp_group);
	for (size_t i = 0; i < n; i++)
		if (i == 0 ||
		    cmp_key(by[i], by[i - 1]->scenario, by[i - 1]->runtime, by[i - 1]->mode, by[i - 1]->noise))
			runs[nr++] = (struct res_run){i, 1};
		else
			runs[nr - 1].n++;
	/* in the order each group's first trial ran (the first of its run: sorted by place within a group) */
	memcpy(order, runs, nr * sizeof(*order));
	for (size_t k = 0; k < nr; k++)
		order[k].at = (size_t)(by[runs[k].at] - trials), order[k].n = k;
	qsort(order, nr, sizeof(*order), cmp_run_first);
	for (size_t k = 0; k < nr; k++) {
		const struct res_run *own = &runs[order[k].n];
		struct res_summary *g = &out[k];
		const struct trial_result *t = by[own->at];
		size_t m;

		snprintf(g->scenario, sizeof(g->scenario), "%s", t->scenario);
		snprintf(g->runtime, sizeof(g->runtime), "%s", t->runtime);
		snprintf(g->mode, sizeof(g->mode), "%s", t->mode);
		snprintf(g->noise, sizeof(g->noise), "%s", t->noise);
		summarize_group(by + own->at, own->n, g, v);
		m = with_twin(by, own, run_of(runs, nr, by, g, g->mode, "none"), tmp);
		if (res_shift_of(tmp, m, g, &g->shift) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		m = with_twin(by, own, run_of(runs, nr, by, g, "pinned", "none"), tmp);
		if (res_twin_of(tmp, m, g, &g->vs_pinned) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	}
	*ret = steal_pointer(&out);
	*ret_n = nr;
	return 0;
}

double res_median(const struct res_summary *s, enum res_metric m)
{
	return s->have & (1u << m) ? s->metric[m].median : NAN;
}

/* ---- the document ---- */

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
