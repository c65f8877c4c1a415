/* The interleaved duet of an http scenario (and the alternated single runs of a startup one, at the end): one tree with the sut, sut-b and client slices, a server in each
 * sut slice (side B on the scenario's port + 1 in the same network namespace: the same loopback device, stack
 * and path, only the port differs), each side warmed by the scenario's warm-up load, then one `harness load
 * --duet` in the client slice whose windows are read line by line from a pipe. Closing the pipe stops it. */
#include "run/duet.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/cleanup.h"
#include "base/proc.h"
#include "base/util.h"
#include "report/stats.h"
#include "load/startup.h"
#include "sandbox/sandbox.h"

#define DUET_LINE_MAX 4096

void duet_order(uint64_t seed, size_t pairs, char *buf)
{
	uint64_t state = seed;

	for (size_t i = 0; i < pairs; i++) {
		bool ab = stats_splitmix(&state) & 1;

		buf[2 * i] = ab ? 'A' : 'B';
		buf[2 * i + 1] = ab ? 'B' : 'A';
	}
	buf[2 * pairs] = '\0';
}

static double now_s(void)
{
	return (double)util_now_ns() / 1e9;
}

/* The load client in the client slice's sandbox, its stdout to out_fd. */
static int client_start(struct run_env *env, struct cg_tree *tree, char **argv, int out_fd, int err_fd, struct sbx *x,
			struct hx_err *err)
{
	struct sbx_config c;

	sbx_config_init(&c);
	c.netns_fd = env->netns_fd;
	c.argv = argv;
	c.out_fd = out_fd;
	c.err_fd = err_fd;
	c.rootfs.binds[c.rootfs.nbinds++] = (struct sbx_bind){.src = env->harness, .dst = "/opt/harness/harness"};
	c.seccomp.allow_io_uring = true; /* as in a run: the client is our own code */
	if (sbx_start(tree, CG_SLICE_CLIENT, &c, x, err) < 0 || sbx_wait_exec(x, argv[0], err) < 0) {
		sbx_release(x);
		return hx_wrap(err, "load client");
	}
	return 0;
}

struct argv_buf {
	char *argv[40];
	char buf[12][4096];
	size_t n, b;
};

static void arg(struct argv_buf *a, const char *s)
{
	a->argv[a->n++] = (char *)s;
	a->argv[a->n] = NULL;
}

static void argf(struct argv_buf *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void argf(struct argv_buf *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->buf[a->b], sizeof(a->buf[0]), fmt, ap);
	va_end(ap);
	arg(a, a->buf[a->b++]);
}

/* What every load of the scenario shares: connections, threads, pipeline, engine, timeout, body check. */
static void load_common(struct argv_buf *a, const struct run_env *env, const struct scenario *s)
{
	arg(a, "-c");
	argf(a, "%u", s->connections);
	arg(a, "-t");
	argf(a, "%u", s->threads);
	arg(a, "--pipeline");
	argf(a, "%u", s->pipeline);
	arg(a, "--engine");
	arg(a, load_engine_names[env->engine]);
	arg(a, "--timeout");
	argf(a, "%u", s->timeout_ms);
	if (s->check_length) {
		arg(a, "--expect-length");
		argf(a, "%llu", (unsigned long long)s->body_length);
	}
}

/* One side's warm-up: the scenario's warm-up requests on connections of their own, before the duet. */
static int warm(struct run_env *env, struct cg_tree *tree, const struct scenario *s, struct hx_err *err)
{
	struct argv_buf a = {0};
	char out[PATH_MAX], tail[1024];
	_cleanup_close_ int fd = -1;
	struct sbx x = {.pid = -1, .report_fd = -1};
	int st = 0, i;

	if (!s->warmup_requests)
		return 0;
	arg(&a, "/opt/harness/harness");
	arg(&a, "load");
	argf(&a, "http://127.0.0.1:%u%s", s->port, s->ready_path);
	load_common(&a, env, s);
	arg(&a, "-n");
	argf(&a, "%llu", (unsigned long long)s->warmup_requests);
	snprintf(out, sizeof(out), "%s/warm-%u.txt", env->dir, s->port);
	if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return hx_syserr(err, "ab: %s", out);
	if (client_start(env, tree, a.argv, fd, fd, &x, err) < 0)
		return -err->errnum;
	i = proc_wait_first(&x.pid, 1, util_now_ns() + 120000000000ull, &run_interrupted, &st);
	if (i != 0) {
		cg_slice_kill(tree, CG_SLICE_CLIENT, &(struct hx_err){0});
		proc_reap(&x.pid, NULL);
	}
	sbx_release(&x);
	if (i != 0 || util_exit_code(st) != 0) {
		util_log_tail(out, tail, sizeof(tail));
		return hx_fail(err, HX_EXIT_VERDICT, EIO, "the warm-up of port %u failed: %s", s->port,
			       tail[0] ? tail : "interrupted or too slow");
	}
	return 0;
}

static double slice_cpu_ms(struct cg_tree *tree, enum cg_slice sl)
{
	struct cg_stats st;

	if (cg_slice_stats(tree, sl, &st, &(struct hx_err){0}) < 0 || !st.have[CG_STAT_CPU_USER_USEC])
		return NAN;
	return (double)(st.v[CG_STAT_CPU_USER_USEC] + st.v[CG_STAT_CPU_SYSTEM_USEC]) / 1e3;
}

/* The time tasks ran on the sides' CPUs (user, nice, system of /proc/stat, in ms; NAN when unreadable). Not irq
 * and softirq: the loopback's receive work for the server's answers runs there, charged to no cgroup. */
static double cpus_task_ms(const struct cg_cpus *cpus)
{
	_cleanup_free_ char *text = NULL;
	unsigned long long sum = 0;
	bool any = false;

	if (util_read_file("/proc/stat", &text, NULL, &(struct hx_err){0}) < 0)
		return NAN;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long user, nice, sys;
		unsigned cpu;

		if (sscanf(l, "cpu%u %llu %llu %llu", &cpu, &user, &nice, &sys) == 4 && cpu < CG_MAX_CPUS &&
		    cg_cpus_test(cpus, cpu)) {
			sum += user + nice + sys;
			any = true;
		}
	}
	return any ? (double)sum * 1e3 / (double)sysconf(_SC_CLK_TCK) : NAN;
}

struct reader {
	struct run_env *env;
	struct cg_tree *tree;
	const struct duet_opts *o;
	struct ab_doc *d;
	struct cg_cpus cpus; /* the sides' (one set: the same for both) */
	double t0, cpu_ms[2], busy_ms;
	bool was_precise, end_seen;
	char line[DUET_LINE_MAX];
	size_t used;
};

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A finished window: into the document, with the other side's CPU since the last window ended. */
static int on_window(struct reader *r, const cJSON *j, struct hx_err *err)
{
	const cJSON *lat = cJSON_GetObjectItemCaseSensitive(j, "latency_us");
	const cJSON *side = cJSON_GetObjectItemCaseSensitive(j, "side");
	struct ab_window *w = ab_window_add(r->d);
	double cpu[2] = {slice_cpu_ms(r->tree, CG_SLICE_SUT), slice_cpu_ms(r->tree, CG_SLICE_SUT_B)}, busy;
	int other;

	if (!w)
		return hx_fail(err, HX_EXIT_INTERNAL, E2BIG, "ab: more than %d windows", AB_MAX_WINDOWS);
	if (!cJSON_IsString(side))
		return hx_fail(err, HX_EXIT_INTERNAL, EBADMSG, "ab: a window without its side from the load client");
	w->side = side->valuestring[0];
	w->pair = (unsigned)(jnum(j, "window") / 2);
	w->warmup = w->pair == 0;
	w->start_s = jnum(j, "start_s");
	w->duration_s = jnum(j, "duration_s");
	w->requests = (uint64_t)jnum(j, "requests");
	w->errors = (uint64_t)jnum(j, "errors");
	w->reconnects = (uint64_t)jnum(j, "reconnects");
	w->drain_ms = jnum(j, "drain_ms");
	w->mean_us = jnum(lat, "mean");
	w->p50_us = jnum(lat, "p50");
	w->p90_us = jnum(lat, "p90");
	w->p99_us = jnum(lat, "p99");
	w->max_us = jnum(lat, "max");
	other = w->side == 'A' ? 1 : 0;
	w->idle_cpu_ms = cpu[other] - r->cpu_ms[other];
	w->own_cpu_ms = cpu[!other] - r->cpu_ms[!other];
	busy = cpus_task_ms(&r->cpus);
	w->foreign_ms = fmax(0, (busy - r->busy_ms) - (cpu[0] - r->cpu_ms[0]) - (cpu[1] - r->cpu_ms[1]));
	r->cpu_ms[0] = cpu[0];
	r->cpu_ms[1] = cpu[1];
	r->busy_ms = busy;
	return 0;
}

/* After a complete pair: whether to stop (time, or --precision at two looks in a row). */
static bool enough(struct reader *r)
{
	struct ab_doc *d = r->d;
	size_t pairs;

	if (d->nw % 2)
		return false;
	if (now_s() - r->t0 >= r->o->max_time_s) {
		snprintf(d->stopped, sizeof(d->stopped), "max-time");
		return true;
	}
	pairs = d->nw / 2 - 1; /* the warm-up pair is not one */
	if (r->o->precision <= 0 || !paired_is_look(pairs) || ab_analyze(d) < 0)
		return false;
	if (paired_stop(&r->was_precise, paired_precise(&d->metric[AB_RPS], r->o->precision))) {
		snprintf(d->stopped, sizeof(d->stopped), "precision");
		return true;
	}
	return false;
}

/* One line of the client: a window, or the totals at the end. 1: stop reading. */
static int on_line(struct reader *r, const char *text, struct hx_err *err)
{
	cJSON *j = cJSON_Parse(text);
	int rc = 0;

	if (!j)
		return hx_fail(err, HX_EXIT_INTERNAL, EBADMSG, "ab: the load client wrote '%.200s'", text);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "end"))) {
		const cJSON *eng = cJSON_GetObjectItemCaseSensitive(j, "engine");

		r->d->client_cpu_s = jnum(j, "cpu_s");
		snprintf(r->d->engine, sizeof(r->d->engine), "%s", cJSON_IsString(eng) ? eng->valuestring : "");
		r->end_seen = true;
	} else if (on_window(r, j, err) < 0) {
		rc = -err->errnum;
	} else {
		rc = enough(r) ? 1 : 0;
	}
	cJSON_Delete(j);
	return rc;
}

/* Lines from the pipe until EOF, an interruption, or enough pairs (then the pipe is closed: the client ends
 * at its next window). */
static int read_windows(struct reader *r, int *fd, struct hx_err *err)
{
	for (;;) {
		struct pollfd p = {.fd = *fd, .events = POLLIN};
		ssize_t n;
		char *nl;

		if (run_interrupted)
			return hx_fail(err, HX_EXIT_VERDICT, EINTR, "interrupted");
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = read(*fd, r->line + r->used, sizeof(r->line) - 1 - r->used);
		if (n <= 0)
			return 0;
		r->used += (size_t)n;
		r->line[r->used] = '\0';
		while ((nl = strchr(r->line, '\n'))) {
			int rc;

			*nl = '\0';
			rc = on_line(r, r->line, err);
			memmove(r->line, nl + 1, r->used - (size_t)(nl + 1 - r->line) + 1);
			r->used -= (size_t)(nl + 1 - r->line);
			if (rc < 0)
				return rc;
			if (rc > 0) {
				close(*fd);
				*fd = -1;
				return 0;
			}
		}
		if (r->used >= sizeof(r->line) - 1)
			return hx_fail(err, HX_EXIT_INTERNAL, EMSGSIZE, "ab: a line of the load client is too long");
	}
}

/* The duet's load client: started, read, waited for. */
static int run_duet_client(struct run_env *env, struct cg_tree *tree, const struct duet_side sides[2],
			   enum cg_cpu_mode mode, const struct duet_opts *o, struct ab_doc *d, struct hx_err *err)
{
	const struct scenario *s = sides[0].s;
	size_t pairs = (size_t)ceil(o->max_time_s / (2 * o->window_s)) + 2;
	_cleanup_free_ char *order = malloc(2 * pairs + 1);
	_cleanup_free_ struct argv_buf *a = calloc(1, sizeof(*a));
	_cleanup_free_ struct reader *r = calloc(1, sizeof(*r));
	char errpath[PATH_MAX], tail[1024];
	_cleanup_close_ int efd = -1, rd = -1;
	struct sbx x = {.pid = -1, .report_fd = -1};
	int p[2], st = 0, rc, i;

	if (!order || !a || !r || pairs * 2 > AB_MAX_WINDOWS)
		return hx_fail(err, HX_EXIT_USAGE, E2BIG, "ab: --max-time allows more than %d windows: shorten it",
			       AB_MAX_WINDOWS);
	duet_order(o->seed, pairs, order);
	arg(a, "/opt/harness/harness");
	arg(a, "load");
	argf(a, "http://127.0.0.1:%u%s", sides[0].s->port, s->ready_path);
	load_common(a, env, s);
	arg(a, "--duet");
	argf(a, "http://127.0.0.1:%u%s", sides[1].s->port, sides[1].s->ready_path);
	arg(a, "--duet-window");
	argf(a, "%.3fs", o->window_s);
	arg(a, "--duet-order");
	arg(a, order);
	snprintf(errpath, sizeof(errpath), "%s/client.err", env->dir);
	if ((efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0 || pipe2(p, O_CLOEXEC) < 0)
		return hx_syserr(err, "ab: %s", errpath);
	rd = p[0];
	rc = client_start(env, tree, a->argv, p[1], efd, &x, err);
	close(p[1]);
	if (rc < 0)
		return rc;
	*r = (struct reader){.env = env,
			     .tree = tree,
			     .o = o,
			     .d = d,
			     .t0 = now_s(),
			     .cpus = env->plan[mode].limits[CG_SLICE_SUT].cpus};
	r->cpu_ms[0] = slice_cpu_ms(tree, CG_SLICE_SUT);
	r->cpu_ms[1] = slice_cpu_ms(tree, CG_SLICE_SUT_B);
	r->busy_ms = cpus_task_ms(&r->cpus);
	rc = read_windows(r, &rd, err);
	if (rd >= 0) { /* an error or an interruption: the client ends at its next window too */
		close(rd);
		rd = -1;
	}
	if (!d->stopped[0])
		snprintf(d->stopped, sizeof(d->stopped), "%s", rc < 0 ? "error" : "pairs");
	if (!r->end_seen) /* stopped before its last line: the engine asked for */
		snprintf(d->engine, sizeof(d->engine), "%s", load_engine_names[env->engine]);
	i = proc_wait_first(&x.pid, 1, util_now_ns() + (uint64_t)(o->window_s * 1e9) + 5000000000ull, NULL, &st);
	if (i != 0) {
		cg_slice_kill(tree, CG_SLICE_CLIENT, &(struct hx_err){0});
		proc_reap(&x.pid, &st);
	}
	sbx_release(&x);
	if (rc == 0 && d->nw < 2 * (PAIRED_MIN_PAIRS + 1)) {
		util_log_tail(errpath, tail, sizeof(tail));
		return hx_fail(err, HX_EXIT_VERDICT, EIO, "the duet's load client ended after %zu windows%s%s", d->nw,
			       tail[0] ? ": " : "", tail);
	}
	return rc;
}

static void totals(struct ab_doc *d)
{
	d->reconnects = d->errors = 0;
	for (size_t i = 0; i < d->nw; i++) {
		d->reconnects += d->w[i].reconnects;
		d->errors += d->w[i].errors;
	}
}

static int servers_up(struct run_env *env, const struct duet_side sides[2], struct cg_tree *tree, struct sbx x[2],
		      struct trial_result *t, int logfd[2], struct hx_err *err)
{
	for (int k = 0; k < 2; k++) {
		char logpath[PATH_MAX];

		snprintf(logpath, sizeof(logpath), "%s/server-%c.log", env->dir, "AB"[k]);
		if ((logfd[k] = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
			return hx_syserr(err, "ab: %s", logpath);
		if (run_server_start(env, sides[k].s, sides[k].m, sides[k].st, tree, &sides[k].side, logfd[k], logpath,
				     &x[k], t, err) < 0)
			return hx_wrap(err, "side %c", "AB"[k]);
	}
	return 0;
}

int duet_http(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode, const struct duet_opts *o,
	      struct ab_doc *d, struct hx_err *err)
{
	unsigned slices = 1u << CG_SLICE_SUT | 1u << CG_SLICE_SUT_B | 1u << CG_SLICE_CLIENT;
	struct cg_tree *tree = NULL;
	_cleanup_free_ struct trial_result *t = calloc(1, sizeof(*t)); /* overheads only */
	struct sbx x[2] = {{.pid = -1, .report_fd = -1}, {.pid = -1, .report_fd = -1}};
	int logfd[2] = {-1, -1}, rc;
	double t0 = now_s();

	if (!t)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	cg_cpus_format(&env->plan[mode].limits[CG_SLICE_SUT].cpus, d->side[0].cpus, sizeof(d->side[0].cpus));
	cg_cpus_format(&env->plan[mode].limits[CG_SLICE_SUT_B].cpus, d->side[1].cpus, sizeof(d->side[1].cpus));
	if (cg_tree_from_plan(&env->plan[mode], slices, NULL, &tree, err) < 0)
		return -err->errnum;
	rc = servers_up(env, sides, tree, x, t, logfd, err);
	for (int k = 0; rc == 0 && k < 2; k++)
		if (warm(env, tree, sides[k].s, err) < 0)
			rc = hx_wrap(err, "side %c", "AB"[k]);
	if (rc == 0)
		rc = run_duet_client(env, tree, sides, mode, o, d, err);
	for (int k = 0; k < 2; k++) {
		if (rc == 0 && proc_wait_first(&x[k].pid, 1, util_now_ns(), NULL, &(int){0}) == 0)
			rc = hx_fail(err, HX_EXIT_VERDICT, EPIPE, "side %c's server exited during the duet", "AB"[k]);
		if (x[k].pid > 0)
			run_server_stop(tree, sides[k].side.slice, &x[k], t);
		sbx_release(&x[k]);
		if (logfd[k] >= 0)
			close(logfd[k]);
	}
	if (cg_tree_destroy(tree, &(struct hx_err){0}) < 0 && rc == 0)
		rc = hx_fail(err, HX_EXIT_INTERNAL, EBUSY, "ab: the duet's cgroups could not be removed");
	totals(d);
	d->wall_s = now_s() - t0;
	return rc;
}

/* ---- startup: single runs alternated, A and B in a randomized order per pair, each in a fresh sandbox ---- */

/* One run of a side in its slice: its wall time from execve to exit, in ms. */
static int startup_once(struct cg_tree *tree, enum cg_slice sl, const struct sbx_config *c, unsigned warmup,
			double *ret_ms, struct hx_err *err)
{
	struct startup_record recs[8];

	if (warmup + 1 > HX_ARRAY_SIZE(recs))
		warmup = HX_ARRAY_SIZE(recs) - 1;
	if (startup_series_at(tree, sl, c, 1, warmup, recs, err) < 0)
		return -err->errnum;
	if (recs[warmup].status != 0)
		return hx_fail(err, HX_EXIT_VERDICT, EIO, "a run of side %c exited with %d",
			       sl == CG_SLICE_SUT ? 'A' : 'B', recs[warmup].status);
	*ret_ms = (double)recs[warmup].wall_ns / 1e6;
	return 0;
}

static int startup_pair(struct cg_tree *tree, const struct duet_side sides[2], const struct sbx_config c[2],
			unsigned pair, bool a_first, double t0, struct ab_doc *d, struct hx_err *err)
{
	for (int i = 0; i < 2; i++) {
		int k = a_first ? i : 1 - i;
		struct ab_window *w = ab_window_add(d);
		double ms, start = now_s() - t0;

		if (!w)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "ab: more than %d runs: shorten --max-time",
				       AB_MAX_WINDOWS);
		if (startup_once(tree, sides[k].side.slice, &c[k], 0, &ms, err) < 0)
			return hx_wrap(err, "side %c", "AB"[k]);
		*w = (struct ab_window){.pair = pair,
					.side = "AB"[k],
					.warmup = pair == 0,
					.start_s = start,
					.duration_s = ms / 1e3,
					.startup_ms = ms};
	}
	return 0;
}

int duet_startup(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode, const struct duet_opts *o,
		 struct ab_doc *d, struct hx_err *err)
{
	unsigned slices = 1u << CG_SLICE_SUT | 1u << CG_SLICE_SUT_B;
	struct cg_tree *tree = NULL;
	struct sbx_config c[2];
	char *argv[2][MAN_MAX_ARGV + 1], store[2][MAN_MAX_ARGV][PATH_MAX];
	uint64_t state = o->seed;
	bool was = false;
	double t0 = now_s(), ms;
	int rc = 0;

	for (int k = 0; k < 2; k++) {
		if (run_sut_config(env, sides[k].s, sides[k].m, sides[k].st, &sides[k].side, &c[k], argv[k], store[k],
				   err) < 0)
			return hx_wrap(err, "side %c", "AB"[k]);
		c[k].quiet = true;
	}
	cg_cpus_format(&env->plan[mode].limits[CG_SLICE_SUT].cpus, d->side[0].cpus, sizeof(d->side[0].cpus));
	cg_cpus_format(&env->plan[mode].limits[CG_SLICE_SUT_B].cpus, d->side[1].cpus, sizeof(d->side[1].cpus));
	if (cg_tree_from_plan(&env->plan[mode], slices, NULL, &tree, err) < 0)
		return -err->errnum;
	/* the scenario's warm-up runs of each side (page cache, the image's files), not counted */
	for (int k = 0; k < 2 && rc == 0; k++)
		rc = startup_once(tree, sides[k].side.slice, &c[k], sides[k].s->warmup, &ms, err);
	for (unsigned pair = 0; rc == 0; pair++) {
		size_t pairs;

		if (run_interrupted) {
			rc = hx_fail(err, HX_EXIT_VERDICT, EINTR, "interrupted");
			break;
		}
		rc = startup_pair(tree, sides, c, pair, stats_splitmix(&state) & 1, t0, d, err);
		pairs = pair; /* the first pair is the warm-up */
		if (rc < 0)
			break;
		if (now_s() - t0 >= o->max_time_s) {
			snprintf(d->stopped, sizeof(d->stopped), "max-time");
			break;
		}
		if (o->precision > 0 && paired_is_look(pairs) && ab_analyze(d) == 0 &&
		    paired_stop(&was, paired_precise(&d->metric[AB_STARTUP], o->precision))) {
			snprintf(d->stopped, sizeof(d->stopped), "precision");
			break;
		}
	}
	if (cg_tree_destroy(tree, &(struct hx_err){0}) < 0 && rc == 0)
		rc = hx_fail(err, HX_EXIT_INTERNAL, EBUSY, "ab: the duet's cgroups could not be removed");
	d->wall_s = now_s() - t0;
	return rc;
}
