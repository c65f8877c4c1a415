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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/cleanup.h"
#include "base/esc.h"
#include "base/proc.h"
#include "base/util.h"
#include "load/startup.h"
#include "run/cmdline.h"
#include "run/sampler.h"
#include "run/script.h"
#include "sandbox/sandbox.h"
#include "stats/stats.h"

#define DUET_LINE_MAX 4096

/* The most windows one round's client is given: its --duet-order is one argument, under the kernel's
 * MAX_ARG_STRLEN (32 pages) */
#define DUET_ORDER_MAX 131000

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

/* The load client in a client slice's sandbox, its stdin from in_fd (-1: none), its stdout to out_fd. */
static int client_start(struct run_env *env, struct cg_tree *tree, enum cg_slice sl, char **argv, int in_fd, int out_fd,
			int err_fd, struct sbx *x, struct hx_err *err)
{
	struct sbx_config c;

	sbx_config_init(&c);
	c.netns_fd = env->netns_fd;
	c.in_fd = in_fd;
	c.argv = argv;
	c.out_fd = out_fd;
	c.err_fd = err_fd;
	c.rootfs.binds[c.rootfs.nbinds++] = (struct sbx_bind){.src = env->harness, .dst = "/opt/harness/harness"};
	c.seccomp.allow_io_uring = true; /* as in a run: the client is our own code */
	if (sbx_start(tree, sl, &c, x, err) < 0 || sbx_wait_exec(x, argv[0], err) < 0) {
		sbx_release(x);
		return hx_wrap(err, "load client");
	}
	return 0;
}

/* What every load of the scenario shares: connections, threads, pipeline, engine, timeout, body check. */
static void load_common(struct cmdline *a, const struct run_env *env, const struct scenario *s)
{
	cmd_argf(a, "-c", "%u", s->connections);
	cmd_argf(a, "-t", "%u", s->threads);
	cmd_argf(a, "--pipeline", "%u", s->pipeline);
	cmd_arg(a, "--engine");
	cmd_arg(a, load_engine_names[env->engine]);
	cmd_argf(a, "--timeout", "%u", s->timeout_ms);
	if (s->check_length)
		cmd_argf(a, "--expect-length", "%llu", (unsigned long long)s->body_length);
}

/* A WebSocket RPC load's target and shape (a ws-rpc scenario): its clients, window and timeout. */
static void rpc_common(struct cmdline *a, const struct scenario *s)
{
	cmd_argf(a, "--rpc", "ws://127.0.0.1:%u%s", s->port, s->ready_path);
	cmd_argf(a, "--clients", "%u", s->clients);
	cmd_argf(a, "--window", "%u", s->window);
	cmd_argf(a, "--timeout", "%u", s->timeout_ms);
}

/* A WebSocket chat room's target and shape (a ws-chat scenario): its clients and timeout. */
static void chat_common(struct cmdline *a, const struct scenario *s)
{
	cmd_argf(a, "--chat", "ws://127.0.0.1:%u%s", s->port, s->ready_path);
	cmd_argf(a, "--clients", "%u", s->clients);
	cmd_argf(a, "--timeout", "%u", s->timeout_ms);
}

static bool is_ws(const struct scenario *s)
{
	return s->workload == SCN_WS_RPC || s->workload == SCN_WS_CHAT;
}

/* The load's first words: the client, then side A's target and the scenario's shape of load. */
static void load_start(struct cmdline *a, const struct run_env *env, const struct scenario *s)
{
	cmd_arg(a, "/opt/harness/harness");
	cmd_arg(a, "load");
	if (s->workload == SCN_WS_RPC) {
		rpc_common(a, s);
		return;
	}
	if (s->workload == SCN_WS_CHAT) {
		chat_common(a, s);
		return;
	}
	cmd_argf(a, NULL, "http://127.0.0.1:%u%s", s->port, s->ready_path);
	load_common(a, env, s);
}

/* One side's warm-up: the scenario's warm-up requests on connections of their own, before the duet. */
static int warm(struct run_env *env, struct cg_tree *tree, const struct scenario *s, struct hx_err *err)
{
	struct cmdline a = {0};
	char out[PATH_MAX], tail[1024];
	_cleanup_close_ int fd = -1;
	struct sbx x = {.pid = -1, .report_fd = -1};
	int st = 0, i;

	if (!s->warmup_requests)
		return 0;
	load_start(&a, env, s);
	/* a chat room's warm-up: the scenario's messages each client sends first */
	cmd_argf(&a, s->workload == SCN_WS_CHAT ? "--messages" : "-n", "%llu", (unsigned long long)s->warmup_requests);
	snprintf(out, sizeof(out), "%s/warm-%u.txt", env->dir, s->port);
	if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return hx_syserr(err, "ab: %s", out);
	if (client_start(env, tree, CG_SLICE_CLIENT, a.argv, -1, fd, fd, &x, err) < 0)
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

/* Side k's server memory now, as the trial sampler reads it (run/sampler.c): its tree's RSS and its slice's
 * memory.current, in KB; NAN what cannot be read. */
static void side_memory(struct cg_tree *tree, int k, pid_t server, double *ret_rss_kb, double *ret_memory_kb)
{
	uint64_t cpu, mem, rss = server > 0 ? smp_tree_rss_kb(sbx_payload_pid(server)) : UINT64_MAX;

	cg_slice_sample(tree, k ? CG_SLICE_SUT_B : CG_SLICE_SUT, &cpu, &mem);
	*ret_rss_kb = rss == UINT64_MAX ? NAN : (double)rss;
	*ret_memory_kb = mem == UINT64_MAX ? NAN : (double)mem / 1024;
}

struct reader {
	struct run_env *env;
	struct cg_tree *tree;
	pid_t server[2]; /* each side's server (its sandbox's init), whose memory each window's end reads */
	const struct duet_opts *o;
	struct ab_doc *d;
	struct cg_cpus cpus; /* the sides' (one set: the same for both) */
	double t0, cpu_ms[2], busy_ms;
	double end_s;	/* the round's end (its share of the duet), on now_s's clock */
	unsigned round; /* the round's number, and its first pair's number in the document */
	unsigned pair0;
	double *origin_mono; /* the duet's first window's start on the clients' monotonic clock, in s (NAN: none yet) */
	bool was_precise, end_seen, round_done;
	char why[256]; /* the client's own check that failed (an rpc duet's end line) */
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
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "why")) && !r->why[0]) /* an rpc duet's failed check */
		snprintf(r->why, sizeof(r->why), "%s", cJSON_GetObjectItemCaseSensitive(j, "why")->valuestring);
	w->pair = r->pair0 + (unsigned)(jnum(j, "window") / 2);
	w->round = r->round;
	w->warmup = w->pair == r->pair0; /* each round's first pair: its connections' first windows */
	/* from the duet's first window: each round's client counts from its own start, the monotonic clock is one */
	if (isnan(*r->origin_mono))
		*r->origin_mono = jnum(j, "start_mono_s") - jnum(j, "start_s");
	w->start_s = isfinite(*r->origin_mono) ? jnum(j, "start_mono_s") - *r->origin_mono : jnum(j, "start_s");
	w->duration_s = jnum(j, "duration_s");
	w->requests = (uint64_t)jnum(j, "requests");
	w->errors = (uint64_t)jnum(j, "errors");
	w->reconnects = (uint64_t)jnum(j, "reconnects");
	w->drained = (uint64_t)jnum(j, "drained");
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
	side_memory(r->tree, !other, r->server[!other], &w->rss_kb, &w->memory_kb);
	r->cpu_ms[0] = cpu[0];
	r->cpu_ms[1] = cpu[1];
	r->busy_ms = busy;
	return 0;
}

/* After a complete pair: whether to end the round (its time, the duet's) or the duet (--precision at two looks
 * in a row: a duet of one round looks at its pairs; with rounds the looks are at the rounds' ends). */
static bool enough(struct reader *r)
{
	struct ab_doc *d = r->d;
	size_t pairs;

	if (d->nw % 2)
		return false;
	if (now_s() >= r->end_s) {
		if (now_s() - r->t0 >= r->o->max_time_s)
			snprintf(d->stopped, sizeof(d->stopped), "max-time");
		return r->round_done = true;
	}
	pairs = d->nw / 2 - 1; /* the warm-up pair is not one */
	if (r->o->precision <= 0 || duet_rounds(r->o) || !paired_is_look(pairs) || ab_analyze(d) < 0)
		return false;
	if (paired_stop(&r->was_precise, paired_precise(&d->metric[AB_RPS], r->o->precision))) {
		snprintf(d->stopped, sizeof(d->stopped), "precision");
		return r->round_done = true;
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

		const cJSON *why = cJSON_GetObjectItemCaseSensitive(j, "why");

		snprintf(r->d->engine, sizeof(r->d->engine), "%s", cJSON_IsString(eng) ? eng->valuestring : "");
		if (cJSON_IsString(why))
			snprintf(r->why, sizeof(r->why), "%s", why->valuestring);
		res_engine_setup_parse(j, &r->d->engine_setup);
		r->end_seen = true;
	} else if (on_window(r, j, err) < 0) {
		rc = -err->errnum;
	} else {
		/* a window whose check failed (an rpc id answered twice, a chat delivery lost) ends the duet there */
		rc = r->why[0] || enough(r) ? 1 : 0;
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

/* A round of a server duet: its number, its first pair's, the duet's start and the round's end (now_s), the
 * origin of the windows' times (struct reader). */
struct round {
	unsigned n, pair0;
	double t0, end_s;
	double *origin_mono;
};

/* The duet's load client for one round: started, read, waited for. */
static int run_duet_client(struct run_env *env, struct cg_tree *tree, const struct duet_side sides[2],
			   const struct sbx servers[2], enum cg_cpu_mode mode, const struct duet_opts *o,
			   const struct round *rnd, struct ab_doc *d, struct hx_err *err)
{
	const struct scenario *s = sides[0].s;
	double left = fmax(0, fmin(o->max_time_s, rnd->end_s - now_s())); /* a slow set-up may have used it all */
	size_t nw0 = d->nw, pairs = (size_t)ceil(left / (2 * o->window_s)) + 2;
	_cleanup_free_ char *order = malloc(2 * pairs + 1);
	_cleanup_free_ struct cmdline *a = calloc(1, sizeof(*a));
	_cleanup_free_ struct reader *r = calloc(1, sizeof(*r));
	char errpath[PATH_MAX], tail[1024];
	_cleanup_close_ int efd = -1, rd = -1;
	struct sbx x = {.pid = -1, .report_fd = -1};
	int p[2], st = 0, rc, i;
	double client_ms = slice_cpu_ms(tree, CG_SLICE_CLIENT);

	if (!order || !a || !r || pairs * 2 > AB_MAX_WINDOWS)
		return hx_fail(err, HX_EXIT_USAGE, E2BIG, "ab: --max-time allows more than %d windows: shorten it",
			       AB_MAX_WINDOWS);
	duet_order(o->seed ^ (rnd->n * 0x9e3779b97f4a7c15ull), pairs, order); /* round 0: the seed's own order */
	load_start(a, env, s);
	cmd_argf(a, "--duet", "%s://127.0.0.1:%u%s", is_ws(s) ? "ws" : "http", sides[1].s->port,
		 sides[1].s->ready_path);
	cmd_argf(a, "--duet-window", "%.3fs", o->window_s);
	cmd_arg(a, "--duet-order");
	cmd_arg(a, order);
	snprintf(errpath, sizeof(errpath), "%s/client.err", env->dir);
	if ((efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0 || pipe2(p, O_CLOEXEC) < 0)
		return hx_syserr(err, "ab: %s", errpath);
	rd = p[0];
	rc = client_start(env, tree, CG_SLICE_CLIENT, a->argv, -1, p[1], efd, &x, err);
	close(p[1]);
	if (rc < 0)
		return rc;
	*r = (struct reader){.env = env,
			     .tree = tree,
			     .o = o,
			     .d = d,
			     .server = {servers[0].pid, servers[1].pid},
			     .t0 = rnd->t0,
			     .end_s = rnd->end_s,
			     .round = rnd->n,
			     .pair0 = rnd->pair0,
			     .origin_mono = rnd->origin_mono,
			     .cpus = env->plan[mode].limits[CG_SLICE_SUT].cpus};
	r->cpu_ms[0] = slice_cpu_ms(tree, CG_SLICE_SUT);
	r->cpu_ms[1] = slice_cpu_ms(tree, CG_SLICE_SUT_B);
	r->busy_ms = cpus_task_ms(&r->cpus);
	rc = read_windows(r, &rd, err);
	if (rd >= 0) { /* an error or an interruption: the client ends at its next window too */
		close(rd);
		rd = -1;
	}
	if (rc < 0)
		snprintf(d->stopped, sizeof(d->stopped), "error");
	if (!r->end_seen) /* stopped before its last line: the engine asked for (the rpc client's is epoll) */
		snprintf(d->engine, sizeof(d->engine), "%s", is_ws(s) ? "epoll" : load_engine_names[env->engine]);
	i = proc_wait_first(&x.pid, 1, util_now_ns() + (uint64_t)(o->window_s * 1e9) + 5000000000ull, NULL, &st);
	if (i != 0) {
		cg_slice_kill(tree, CG_SLICE_CLIENT, &(struct hx_err){0});
		proc_reap(&x.pid, &st);
	}
	sbx_release(&x);
	/* from its slice, over its life: a client ended at a round's end by its closed pipe writes no totals line */
	client_ms = slice_cpu_ms(tree, CG_SLICE_CLIENT) - client_ms;
	if (isfinite(client_ms))
		d->client_cpu_s += client_ms / 1e3;
	if (rc == 0 && r->why[0]) { /* a check of the client's own (an rpc id answered twice, a connection lost) */
		char why[sizeof(r->why) * 4];

		snprintf(d->stopped, sizeof(d->stopped), "error");
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "the duet's load client: %s",
			       esc_term(r->why, why, sizeof(why)));
	}
	/* the client ended before the round did: only when its schedule ran out is that no failure */
	if (rc == 0 && !r->round_done && !(r->end_seen && d->nw - nw0 >= 2 * pairs)) {
		util_log_tail(errpath, tail, sizeof(tail));
		snprintf(d->stopped, sizeof(d->stopped), "error");
		return hx_fail(err, HX_EXIT_VERDICT, EIO,
			       "the duet's load client ended after %zu windows of round %u%s%s", d->nw - nw0, rnd->n,
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

/* Each side's server log, opened once for the duet (a round's servers append to it). */
static int logs_open(struct run_env *env, int logfd[2], struct hx_err *err)
{
	for (int k = 0; k < 2; k++) {
		char logpath[PATH_MAX];

		snprintf(logpath, sizeof(logpath), "%s/server-%c.log", env->dir, "AB"[k]);
		if ((logfd[k] = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)) < 0)
			return hx_syserr(err, "ab: %s", logpath);
	}
	return 0;
}

/* Both servers started, each in its side's slice with its log, then both warmed; B first when b_first (a
 * round's order is drawn, so that neither side is always the later started or warmed). */
static int servers_up(struct run_env *env, const struct duet_side sides[2], struct cg_tree *tree, struct sbx x[2],
		      struct trial_result *t, const int logfd[2], bool b_first, struct hx_err *err)
{
	for (int i = 0; i < 2; i++) {
		int k = b_first ? 1 - i : i;
		char logpath[PATH_MAX];

		snprintf(logpath, sizeof(logpath), "%s/server-%c.log", env->dir, "AB"[k]);
		if (run_server_start(env, sides[k].s, sides[k].m, sides[k].st, tree, &sides[k].side, logfd[k], logpath,
				     &x[k], t, err) < 0)
			return hx_wrap(err, "side %c", "AB"[k]);
	}
	for (int i = 0; i < 2; i++) {
		int k = b_first ? 1 - i : i;

		if (warm(env, tree, sides[k].s, err) < 0)
			return hx_wrap(err, "side %c", "AB"[k]);
	}
	return 0;
}

/* After a round's load: a server that died during it fails the duet (rc 0 becomes exit 1); both stopped. */
static int servers_stop(const struct duet_side sides[2], struct cg_tree *tree, struct sbx x[2], struct trial_result *t,
			int rc, struct hx_err *err)
{
	for (int k = 0; k < 2; k++) {
		if (rc == 0 && x[k].pid > 0 && proc_wait_first(&x[k].pid, 1, util_now_ns(), NULL, &(int){0}) == 0)
			rc = hx_fail(err, HX_EXIT_VERDICT, EPIPE, "side %c's server exited during the duet", "AB"[k]);
		if (x[k].pid > 0)
			run_server_stop(tree, sides[k].side.slice, &x[k], t);
		sbx_release(&x[k]);
		x[k] = (struct sbx){.pid = -1, .report_fd = -1};
	}
	return rc;
}

/* After the duet: the logs closed, the tree removed, the document's totals and wall time. The duet's rc. */
static int duet_end(struct cg_tree *tree, int logfd[2], double t0, struct ab_doc *d, int rc, struct hx_err *err)
{
	for (int k = 0; k < 2; k++)
		if (logfd[k] >= 0)
			close(logfd[k]);
	if (cg_tree_destroy(tree, &(struct hx_err){0}) < 0 && rc == 0)
		rc = hx_fail(err, HX_EXIT_INTERNAL, EBUSY, "ab: the duet's cgroups could not be removed");
	totals(d);
	d->wall_s = now_s() - t0;
	return rc;
}

unsigned duet_round_count(const struct duet_opts *o)
{
	double n = o->round_s > 0 ? floor(o->max_time_s / o->round_s + 1e-9) : 1;

	return n >= PAIRED_MIN_ROUNDS ? (unsigned)n : 1;
}

bool duet_rounds(const struct duet_opts *o)
{
	return duet_round_count(o) > 1;
}

/* Round n of a duet whose rounds began at start: its first pair's number, and its end, its share of what is left of
 * --max-time (its servers' start and warm-up included). */
static struct round round_begin(const struct duet_opts *o, const struct ab_doc *d, unsigned n, double start,
				double *origin_mono)
{
	return (struct round){.n = n,
			      .pair0 = d->nw ? d->w[d->nw - 1].pair + 1 : 0,
			      .t0 = start,
			      .end_s = now_s() + (start + o->max_time_s - now_s()) / (duet_round_count(o) - n),
			      .origin_mono = origin_mono};
}

/* After a round's set-up: a duet of one round measures --max-time from here, after its set-up. */
static void round_set_up(const struct duet_opts *o, struct round *r)
{
	if (!duet_rounds(o))
		r->end_s = now_s() + o->max_time_s;
}

/* After round n: whether another starts, or why the duet stops (d->stopped). With --precision the rounds are
 * looked at from PAIRED_FIRST_LOOK_ROUNDS on, two looks in a row within it. */
static bool round_next(const struct duet_opts *o, struct ab_doc *d, unsigned n, bool *was)
{
	if (d->stopped[0])
		return false;
	if (duet_rounds(o) && o->precision > 0 && paired_is_round_look(n + 1) && ab_analyze(d) == 0 &&
	    paired_stop(was, paired_precise(&d->metric[ab_headline(d)], o->precision))) {
		snprintf(d->stopped, sizeof(d->stopped), "precision");
		return false;
	}
	if (n + 1 >= duet_round_count(o)) {
		snprintf(d->stopped, sizeof(d->stopped), "max-time");
		return false;
	}
	return true;
}

int duet_http(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode, const struct duet_opts *o,
	      struct ab_doc *d, struct hx_err *err)
{
	unsigned slices = 1u << CG_SLICE_SUT | 1u << CG_SLICE_SUT_B | 1u << CG_SLICE_CLIENT;
	struct cg_tree *tree = NULL;
	_cleanup_free_ struct trial_result *t = calloc(1, sizeof(*t)); /* overheads only */
	struct sbx x[2] = {{.pid = -1, .report_fd = -1}, {.pid = -1, .report_fd = -1}};
	int logfd[2] = {-1, -1}, rc;
	double t0 = now_s(), start, origin = NAN;
	double round_s = fmin(o->round_s > 0 ? o->round_s : o->max_time_s, o->max_time_s); /* round_s 0: one round */
	uint64_t state = o->seed;
	bool was = false;

	if (!t)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	/* refused before anything starts, not when the document is full */
	if (2 * ((size_t)ceil(o->max_time_s / (2 * o->window_s)) + 2) > AB_MAX_WINDOWS)
		return hx_fail(err, HX_EXIT_USAGE, E2BIG, "ab: --max-time allows more than %d windows: shorten it",
			       AB_MAX_WINDOWS);
	/* a round's order goes to its client as one argument, which the kernel takes up to MAX_ARG_STRLEN bytes */
	if (2 * ((size_t)ceil(round_s / (2 * o->window_s)) + 2) >= DUET_ORDER_MAX)
		return hx_fail(
			err, HX_EXIT_USAGE, E2BIG,
			"ab: a round of %.0f s holds more than %d windows of %g s (the most one client takes): use "
			"a shorter --round or a longer --window",
			round_s, DUET_ORDER_MAX, o->window_s);
	cg_cpus_format(&env->plan[mode].limits[CG_SLICE_SUT].cpus, d->side[0].cpus, sizeof(d->side[0].cpus));
	cg_cpus_format(&env->plan[mode].limits[CG_SLICE_SUT_B].cpus, d->side[1].cpus, sizeof(d->side[1].cpus));
	if (cg_tree_from_plan(&env->plan[mode], slices, NULL, &tree, err) < 0)
		return -err->errnum;
	rc = logs_open(env, logfd, err);
	start = now_s();
	/* --max-time split into the rounds, each round's share its servers' start and warm-up included */
	for (unsigned n = 0; rc == 0; n++) {
		struct round r = round_begin(o, d, n, start, &origin);

		rc = servers_up(env, sides, tree, x, t, logfd, stats_splitmix(&state) & 1, err);
		round_set_up(o, &r);
		if (rc == 0)
			rc = run_duet_client(env, tree, sides, x, mode, o, &r, d, err);
		rc = servers_stop(sides, tree, x, t, rc, err);
		if (rc < 0 || !round_next(o, d, n, &was))
			break;
	}
	if (rc < 0) /* a round's servers that did not start, a client or a server that failed */
		snprintf(d->stopped, sizeof(d->stopped), "error");
	return duet_end(tree, logfd, t0, d, rc, err);
}

/* ---- simultaneous: both sides loaded at once, block by block, on disjoint CPU sets swapped between blocks ---- */

/* One side's load client: `harness load URL --duet-gate` in its own client slice, a window per byte on its gate. */
struct simul_client {
	struct sbx x;
	int gate, out; /* our ends: a byte to the first starts a window; the second gives its lines */
	char line[DUET_LINE_MAX];
	size_t used;
	char errpath[PATH_MAX]; /* its stderr: why it ended, for the message */
};

/* Side k's client failed the duet: what it did, and the end of its stderr (its own reason). */
static int simul_fail(const struct simul_client *c, int k, int errnum, const char *what, struct hx_err *err)
{
	char tail[1024] = "";

	if (c->errpath[0])
		util_log_tail(c->errpath, tail, sizeof(tail));
	return hx_fail(err, HX_EXIT_VERDICT, errnum, "ab: side %c's load client %s%s%s", "AB"[k], what,
		       tail[0] ? ": " : "", tail);
}

static int simul_start(struct run_env *env, struct cg_tree *tree, const struct duet_side *side, int k,
		       const struct duet_opts *o, struct simul_client *c, struct hx_err *err)
{
	_cleanup_free_ struct cmdline *a = calloc(1, sizeof(*a));
	char errpath[PATH_MAX];
	_cleanup_close_ int efd = -1;
	int g[2], p[2], rc;

	if (!a)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	cmd_arg(a, "/opt/harness/harness");
	cmd_arg(a, "load");
	cmd_argf(a, NULL, "http://127.0.0.1:%u%s", side->s->port, side->s->ready_path);
	load_common(a, env, side->s);
	cmd_arg(a, "--duet-gate");
	cmd_argf(a, "--duet-window", "%.3fs", o->window_s);
	snprintf(errpath, sizeof(errpath), "%s/client-%c.err", env->dir, "AB"[k]);
	if ((efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return hx_syserr(err, "ab: %s", errpath);
	snprintf(c->errpath, sizeof(c->errpath), "%s", errpath);
	if (pipe2(g, O_CLOEXEC) < 0)
		return hx_syserr(err, "ab: pipe");
	if (pipe2(p, O_CLOEXEC) < 0) {
		close(g[0]);
		close(g[1]);
		return hx_syserr(err, "ab: pipe");
	}
	c->gate = g[1];
	c->out = p[0];
	rc = client_start(env, tree, k ? CG_SLICE_CLIENT_B : CG_SLICE_CLIENT, a->argv, g[0], p[1], efd, &c->x, err);
	close(g[0]);
	close(p[1]);
	return rc < 0 ? hx_wrap(err, "side %c", "AB"[k]) : 0;
}

/* The client's next line, parsed, by the deadline; NULL with err at its end, a timeout or garbage. */
static cJSON *simul_line(struct simul_client *c, int k, uint64_t deadline, struct hx_err *err)
{
	for (;;) {
		char *nl = memchr(c->line, '\n', c->used);
		struct pollfd p = {.fd = c->out, .events = POLLIN};
		uint64_t now = util_now_ns();
		ssize_t n;

		if (nl) {
			cJSON *j;

			*nl = '\0';
			j = cJSON_Parse(c->line);
			c->used -= (size_t)(nl + 1 - c->line);
			memmove(c->line, nl + 1, c->used);
			if (!j)
				hx_fail(err, HX_EXIT_INTERNAL, EBADMSG,
					"ab: side %c's load client wrote a line not JSON", "AB"[k]);
			return j;
		}
		if (run_interrupted) {
			hx_fail(err, HX_EXIT_VERDICT, EINTR, "interrupted");
			return NULL;
		}
		if (c->used >= sizeof(c->line) - 1 || now >= deadline) {
			simul_fail(c, k, ETIMEDOUT,
				   now >= deadline ? "gave no window in time" : "wrote a line too long", err);
			return NULL;
		}
		if (poll(&p, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
			continue;
		if ((n = read(c->out, c->line + c->used, sizeof(c->line) - 1 - c->used)) <= 0) {
			simul_fail(c, k, EPIPE, "ended", err);
			return NULL;
		}
		c->used += (size_t)n;
	}
}

/* What a block's measurement needs of the state before it: each side's slice CPU and the task time on its CPUs. */
struct simul_mark {
	double cpu_ms[2], busy_ms[2], rss_kb[2], memory_kb[2];
};

static void simul_mark(struct cg_tree *tree, const struct cg_slice_plan *cur, const pid_t server[2],
		       struct simul_mark *m)
{
	for (int k = 0; k < 2; k++) {
		enum cg_slice sl = k ? CG_SLICE_SUT_B : CG_SLICE_SUT;

		m->cpu_ms[k] = slice_cpu_ms(tree, sl);
		m->busy_ms[k] = cpus_task_ms(&cur->limits[sl].cpus);
		side_memory(tree, k, server[k], &m->rss_kb[k], &m->memory_kb[k]);
	}
}

/* Side k's window of a block, from its client's line and the marks before and after. */
static int simul_window(const cJSON *j, int k, unsigned block, const struct round *rnd, const struct cg_slice_plan *cur,
			bool smt, const struct simul_mark *m0, const struct simul_mark *m1, struct ab_doc *d,
			struct hx_err *err)
{
	const cJSON *lat = cJSON_GetObjectItemCaseSensitive(j, "latency_us");
	struct ab_window *w;

	/* its totals line (a client that stopped by itself) or anything but a window's */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "end")) ||
	    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "requests")) ||
	    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "start_mono_s")))
		return hx_fail(err, HX_EXIT_INTERNAL, EBADMSG, "ab: side %c's load client ended its load in block %u",
			       "AB"[k], block);
	if (!(w = ab_window_add(d)))
		return hx_fail(err, HX_EXIT_INTERNAL, E2BIG, "ab: more than %d windows", AB_MAX_WINDOWS);
	/* each round's first block is its warm-up pair: its connections' first windows */
	*w = (struct ab_window){.pair = block,
				.round = rnd->n,
				.side = "AB"[k],
				.warmup = block == rnd->pair0,
				.start_s = jnum(j, "start_mono_s") - *rnd->origin_mono,
				.duration_s = jnum(j, "duration_s"),
				.requests = (uint64_t)jnum(j, "requests"),
				.errors = (uint64_t)jnum(j, "errors"),
				.reconnects = (uint64_t)jnum(j, "reconnects"),
				.drained = (uint64_t)jnum(j, "drained"),
				.drain_ms = jnum(j, "drain_ms"),
				.mean_us = jnum(lat, "mean"),
				.p50_us = jnum(lat, "p50"),
				.p90_us = jnum(lat, "p90"),
				.p99_us = jnum(lat, "p99"),
				.max_us = jnum(lat, "max"),
				.idle_cpu_ms = NAN,
				.own_cpu_ms = m1->cpu_ms[k] - m0->cpu_ms[k],
				.rss_kb = m1->rss_kb[k],
				.memory_kb = m1->memory_kb[k],
				.smt_shared = smt};
	w->foreign_ms = fmax(0, (m1->busy_ms[k] - m0->busy_ms[k]) - w->own_cpu_ms);
	cg_cpus_format(&cur->limits[k ? CG_SLICE_SUT_B : CG_SLICE_SUT].cpus, w->cpus, sizeof(w->cpus));
	return 0;
}

/* Between blocks: the sides exchange their CPU sets, and so do their clients (the slices' cpusets rewritten; the
 * servers and the connections stay as they are). */
static int simul_swap(struct cg_tree *tree, struct cg_slice_plan *cur, struct hx_err *err)
{
	static const enum cg_slice sl[] = {CG_SLICE_SUT, CG_SLICE_SUT_B, CG_SLICE_CLIENT, CG_SLICE_CLIENT_B};

	cg_plan_simul_swap(cur);
	for (size_t i = 0; i < HX_ARRAY_SIZE(sl); i++)
		if (cg_slice_apply(tree, sl[i], &cur->limits[sl[i]], err) < 0)
			return hx_wrap(err, "ab: the swap of the sides' CPUs");
	return 0;
}

/* One block: both gates opened back to back, both windows read, the evidence around them. */
static int simul_block(struct cg_tree *tree, struct simul_client c[2], const pid_t server[2], unsigned block,
		       const struct round *rnd, const struct cg_slice_plan *cur, const struct duet_opts *o,
		       struct ab_doc *d, struct hx_err *err)
{
	struct simul_mark m0, m1;
	uint64_t deadline;
	cJSON *j[2] = {NULL, NULL};
	bool smt = false;
	int rc = 0;

	if (cg_topo_siblings_shared("/sys", &cur->limits[CG_SLICE_SUT].cpus, &cur->limits[CG_SLICE_SUT_B].cpus, &smt,
				    &(struct hx_err){0}) < 0)
		smt = false; /* no topology shown (some VMs): no sibling known */
	simul_mark(tree, cur, server, &m0);
	for (int k = 0; k < 2; k++)
		if (write(c[k].gate, "g", 1) != 1)
			return simul_fail(&c[k], k, EPIPE, "ended", err);
	deadline = util_now_ns() + (uint64_t)(o->window_s * 1e9) + 30000000000ull;
	for (int k = 0; k < 2 && rc == 0; k++)
		if (!(j[k] = simul_line(&c[k], k, deadline, err)))
			rc = -err->errnum;
	simul_mark(tree, cur, server, &m1);
	for (int k = 0; k < 2 && rc == 0; k++)
		rc = simul_window(j[k], k, block, rnd, cur, smt, &m0, &m1, d, err);
	cJSON_Delete(j[0]);
	cJSON_Delete(j[1]);
	return rc;
}

/* The clients' end: their gates closed, their last lines (the totals) read, the processes reaped. */
static void simul_stop(struct cg_tree *tree, struct simul_client c[2], struct ab_doc *d)
{
	uint64_t deadline = util_now_ns() + 10000000000ull;

	for (int k = 0; k < 2; k++)
		if (c[k].gate >= 0) {
			close(c[k].gate);
			c[k].gate = -1;
		}
	for (int k = 0; k < 2; k++) {
		cJSON *j;
		int st = 0;

		while (c[k].out >= 0 && (j = simul_line(&c[k], k, deadline, &(struct hx_err){0}))) {
			const cJSON *eng = cJSON_GetObjectItemCaseSensitive(j, "engine");

			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "end"))) {
				if (isfinite(jnum(j, "cpu_s"))) /* every round's clients: the duet's */
					d->client_cpu_s += jnum(j, "cpu_s");
				if (cJSON_IsString(eng))
					snprintf(d->engine, sizeof(d->engine), "%s", eng->valuestring);
				if (!d->engine_setup.fallback[0]) /* both clients' engines are set up alike */
					res_engine_setup_parse(j, &d->engine_setup);
			}
			cJSON_Delete(j);
		}
		if (c[k].out >= 0)
			close(c[k].out);
		c[k].out = -1;
		if (c[k].x.pid > 0 && proc_wait_first(&c[k].x.pid, 1, util_now_ns() + 5000000000ull, NULL, &st) != 0) {
			cg_slice_kill(tree, k ? CG_SLICE_CLIENT_B : CG_SLICE_CLIENT, &(struct hx_err){0});
			proc_reap(&c[k].x.pid, &st);
		}
		sbx_release(&c[k].x);
	}
}

/* A round's blocks until its end (its share of --max-time) or the precision rule; the sides swap their CPUs before
 * every block but the duet's first, from round to round as from block to block. */
static int simul_blocks(struct cg_tree *tree, struct simul_client c[2], const pid_t server[2],
			struct cg_slice_plan *cur, const struct duet_opts *o, const struct round *rnd, struct ab_doc *d,
			struct hx_err *err)
{
	_cleanup_free_ struct reader *r = calloc(1, sizeof(*r));
	int rc = 0;

	if (!r)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	*r = (struct reader){.o = o, .d = d, .t0 = rnd->t0, .end_s = rnd->end_s};
	if (isnan(*rnd->origin_mono)) /* the windows' clock: from the duet's first block */
		*rnd->origin_mono = now_s();
	for (unsigned block = rnd->pair0; rc == 0; block++) {
		if (d->nw && simul_swap(tree, cur, err) < 0)
			return -err->errnum;
		rc = simul_block(tree, c, server, block, rnd, cur, o, d, err);
		/* in rounds, a round's counted blocks (all but its first) are even in number, as many on each
		 * placement: the sets alternate block by block over the duet, and each round leaves its first out */
		if (rc == 0 && (!duet_rounds(o) || (block - rnd->pair0) % 2 == 0) && enough(r))
			break;
	}
	return rc;
}

int duet_simultaneous(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode,
		      const struct duet_opts *o, struct ab_doc *d, struct hx_err *err)
{
	unsigned slices = 1u << CG_SLICE_SUT | 1u << CG_SLICE_SUT_B | 1u << CG_SLICE_CLIENT | 1u << CG_SLICE_CLIENT_B;
	struct cg_slice_plan cur = env->plan[mode];
	struct cg_tree *tree = NULL;
	_cleanup_free_ struct trial_result *t = calloc(1, sizeof(*t)); /* overheads only */
	_cleanup_free_ struct simul_client *c = calloc(2, sizeof(*c));
	struct sbx x[2] = {{.pid = -1, .report_fd = -1}, {.pid = -1, .report_fd = -1}};
	int logfd[2] = {-1, -1}, rc;
	double t0 = now_s(), start, origin = NAN;
	uint64_t state = o->seed;
	bool was = false;

	if (!t || !c)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	/* a block is one window of each side: refused before anything starts, not when the document is full */
	if (2 * ((size_t)ceil(o->max_time_s / o->window_s) + 2) > AB_MAX_WINDOWS)
		return hx_fail(err, HX_EXIT_USAGE, E2BIG,
			       "ab: --max-time allows more than %d blocks of --window: shorten it or lengthen --window",
			       AB_MAX_WINDOWS / 2);
	snprintf(d->duet, sizeof(d->duet), "simultaneous");
	for (int k = 0; k < 2; k++)
		cg_cpus_format(&cur.limits[k ? CG_SLICE_SUT_B : CG_SLICE_SUT].cpus, d->side[k].cpus,
			       sizeof(d->side[k].cpus));
	if (cg_tree_from_plan(&cur, slices, NULL, &tree, err) < 0)
		return -err->errnum;
	rc = logs_open(env, logfd, err);
	start = now_s();
	/* in rounds as the interleaved duet (docs/ab.md, "Rounds"): both servers and both clients afresh for each */
	for (unsigned n = 0; rc == 0; n++) {
		struct round r = round_begin(o, d, n, start, &origin);

		for (int k = 0; k < 2; k++)
			c[k] = (struct simul_client){.x = {.pid = -1, .report_fd = -1}, .gate = -1, .out = -1};
		rc = servers_up(env, sides, tree, x, t, logfd, stats_splitmix(&state) & 1, err);
		for (int k = 0; rc == 0 && k < 2; k++)
			rc = simul_start(env, tree, &sides[k], k, o, &c[k], err);
		round_set_up(o, &r);
		if (rc == 0)
			rc = simul_blocks(tree, c, (pid_t[2]){x[0].pid, x[1].pid}, &cur, o, &r, d, err);
		simul_stop(tree, c, d);
		rc = servers_stop(sides, tree, x, t, rc, err);
		if (rc < 0 || !round_next(o, d, n, &was))
			break;
	}
	if (rc < 0)
		snprintf(d->stopped, sizeof(d->stopped), "error");
	if (!d->engine[0])
		snprintf(d->engine, sizeof(d->engine), "%s", load_engine_names[env->engine]);
	return duet_end(tree, logfd, t0, d, rc, err);
}

/* ---- the startup and script duets: pairs of single runs ---- */

/* What a pair of single runs needs of the duet's set-up (runs_duet's). */
struct runs_ctx {
	struct run_env *env;
	struct cg_tree *tree;
	const struct duet_side *sides;
	const struct sbx_config *c; /* each side's sandbox */
	const struct cg_cpus *cpus; /* an interleaved duet's one set of both sides */
	struct cg_slice_plan cur;   /* a simultaneous duet's plan, the sides' sets swapped pair by pair */
	struct startup_gate g[2];   /* a simultaneous duet's launchers, one in each side's slice */
	double t0;
	struct ab_doc *d;
};

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

static int startup_pair(struct runs_ctx *x, unsigned pair, bool a_first, struct hx_err *err)
{
	for (int i = 0; i < 2; i++) {
		int k = a_first ? i : 1 - i;
		struct ab_window *w = ab_window_add(x->d);
		double ms, start = now_s() - x->t0;

		if (!w)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "ab: more than %d runs: shorten --max-time",
				       AB_MAX_WINDOWS);
		if (startup_once(x->tree, x->sides[k].side.slice, &x->c[k], 0, &ms, err) < 0)
			return hx_wrap(err, "side %c", "AB"[k]);
		*w = (struct ab_window){.pair = pair,
					.side = "AB"[k],
					.warmup = pair == 0,
					.start_s = start,
					.duration_s = ms / 1e3,
					.startup_ms = ms,
					.rss_kb = NAN, /* a startup run's memory is not read */
					.memory_kb = NAN};
	}
	return 0;
}

/* A start stays well under this; past it, a run is stuck. */
#define DUET_START_TIMEOUT_S 60

/* A simultaneous startup pair: the sides' CPU sets swapped (but before the first pair), then one run of each side
 * at once, the two launchers' gates opened back to back in the pair's random order; per side its own CPU time and
 * the CPU time others used on its set meanwhile. */
static int startup_simul_pair(struct runs_ctx *x, unsigned pair, bool a_first, struct hx_err *err)
{
	static const enum cg_slice sl[2] = {CG_SLICE_SUT, CG_SLICE_SUT_B};
	struct startup_record rec[2];
	double cpu0[2], busy0[2];
	uint64_t deadline;
	bool smt = false;
	int rc = 0;

	if (pair) {
		cg_plan_simul_swap(&x->cur);
		for (int k = 0; k < 2; k++)
			if (cg_slice_apply(x->tree, sl[k], &x->cur.limits[sl[k]], err) < 0)
				return hx_wrap(err, "ab: the swap of the sides' CPUs");
	}
	if (cg_topo_siblings_shared("/sys", &x->cur.limits[sl[0]].cpus, &x->cur.limits[sl[1]].cpus, &smt,
				    &(struct hx_err){0}) < 0)
		smt = false; /* no topology shown (some VMs): no sibling known */
	for (int k = 0; k < 2; k++) {
		cpu0[k] = slice_cpu_ms(x->tree, sl[k]);
		busy0[k] = cpus_task_ms(&x->cur.limits[sl[k]].cpus);
	}
	for (int i = 0; i < 2 && rc == 0; i++)
		rc = startup_gate_go(&x->g[a_first ? i : 1 - i], err);
	deadline = util_now_ns() + (uint64_t)DUET_START_TIMEOUT_S * 1000000000u;
	for (int k = 0; k < 2 && rc == 0; k++) {
		rc = startup_gate_read(&x->g[k], deadline, &run_interrupted, &rec[k], err);
		if (rc == 0 && rec[k].status != 0)
			rc = hx_fail(err, HX_EXIT_VERDICT, EIO, "a run exited with %d", rec[k].status);
		if (rc < 0)
			hx_wrap(err, "side %c", "AB"[k]);
	}
	if (rc < 0)
		return rc;
	for (int k = 0; k < 2; k++) {
		struct ab_window *w = ab_window_add(x->d);
		double ms = (double)rec[k].wall_ns / 1e6;

		if (!w)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "ab: more than %d runs: shorten --max-time",
				       AB_MAX_WINDOWS);
		*w = (struct ab_window){.pair = pair,
					.side = "AB"[k],
					.warmup = pair == 0,
					.start_s = (double)rec[k].exec_ns / 1e9 - x->t0, /* its execve */
					.duration_s = ms / 1e3,
					.startup_ms = ms,
					.idle_cpu_ms = NAN, /* no side is idle */
					.own_cpu_ms = slice_cpu_ms(x->tree, sl[k]) - cpu0[k],
					.rss_kb = NAN,
					.memory_kb = NAN,
					.smt_shared = smt};
		w->foreign_ms = fmax(0, (cpus_task_ms(&x->cur.limits[sl[k]].cpus) - busy0[k]) - w->own_cpu_ms);
		cg_cpus_format(&x->cur.limits[sl[k]].cpus, w->cpus, sizeof(w->cpus));
	}
	return 0;
}

/* ---- script: whole runs alternated, A and B in a randomized order per pair, each in a fresh sandbox ---- */

/* The run's metric of its line (the scenario's primary_metric), > 0 for a ratio. */
static int script_value(const struct scenario *s, const char *outpath, double *ret, struct hx_err *err)
{
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ struct res_script *m = calloc(1, sizeof(*m));

	if (!m)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (util_read_file(outpath, &out, NULL, err) < 0 ||
	    script_parse_metrics(out, s->metrics, s->nmetrics, m, err) < 0)
		return -err->errnum;
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->name[i], s->primary_metric) == 0) {
			*ret = m->value[i];
			return *ret > 0 ? 0
					: hx_fail(err, HX_EXIT_VERDICT, EDOM,
						  "the script's %s is 0: no ratio of it can be taken",
						  s->primary_metric);
		}
	return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "the script's metrics line has no %s (its primary_metric)",
		       s->primary_metric);
}

/* One whole run of side k in its slice, its output to files of the run folder: into w, with the CPU others used
 * on the sides' CPUs meanwhile (foreign_ms, as a window of an http duet has it) and its peak RSS. */
static int script_once(struct run_env *env, struct cg_tree *tree, const struct duet_side *side, int k,
		       const struct sbx_config *base, const struct cg_cpus *cpus, struct ab_window *w,
		       struct hx_err *err)
{
	const struct scenario *s = side->s;
	char outpath[PATH_MAX], logpath[PATH_MAX], tail[1024];
	_cleanup_close_ int outfd = -1, logfd = -1;
	struct sbx_config c = *base;
	struct sbx x = {.pid = -1, .report_fd = -1};
	double cpu0[2] = {slice_cpu_ms(tree, CG_SLICE_SUT), slice_cpu_ms(tree, CG_SLICE_SUT_B)},
	       busy0 = cpus_task_ms(cpus);
	int st = 0, i;

	snprintf(outpath, sizeof(outpath), "%s/script-%c.out", env->dir, "AB"[k]);
	snprintf(logpath, sizeof(logpath), "%s/script-%c.log", env->dir, "AB"[k]);
	outfd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (outfd < 0 || logfd < 0)
		return hx_syserr(err, "ab: %s", outpath);
	c.out_fd = outfd;
	c.err_fd = logfd;
	if (sbx_start(tree, side->side.slice, &c, &x, err) < 0 || sbx_wait_exec(&x, c.argv[0], err) < 0) {
		sbx_release(&x);
		return hx_wrap(err, "a run");
	}
	i = proc_wait_first(&x.pid, 1, util_now_ns() + (uint64_t)(s->timeout_s * 1e9), &run_interrupted, &st);
	if (i != 0) {
		cg_slice_kill(tree, side->side.slice, &(struct hx_err){0});
		proc_reap(&x.pid, NULL);
	}
	if (x.stamps && x.stamps->exit_ns > x.stamps->exec_ns) {
		w->duration_s = (double)(x.stamps->exit_ns - x.stamps->exec_ns) / 1e9;
		w->rss_kb = x.stamps->maxrss_kb ? (double)x.stamps->maxrss_kb : NAN;
	}
	sbx_release(&x);
	w->memory_kb = NAN;
	if (i != 0)
		return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT, "%s",
			       run_interrupted ? "interrupted" : "a run went past the scenario's timeout_s");
	if (util_exit_code(st) != 0) {
		util_log_tail(logpath, tail, sizeof(tail));
		return hx_fail(err, HX_EXIT_VERDICT, EIO, "a run exited with %d; its last output: %s",
			       util_exit_code(st), tail[0] ? tail : "(nothing)");
	}
	if (!(w->duration_s > 0))
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "a run has no times");
	w->own_cpu_ms = slice_cpu_ms(tree, side->side.slice) - cpu0[k];
	w->idle_cpu_ms = slice_cpu_ms(tree, k ? CG_SLICE_SUT : CG_SLICE_SUT_B) - cpu0[!k];
	w->foreign_ms = fmax(0, (cpus_task_ms(cpus) - busy0) - w->own_cpu_ms - w->idle_cpu_ms);
	return script_value(s, outpath, &w->value, err);
}

static int script_pair(struct runs_ctx *x, unsigned pair, bool a_first, struct hx_err *err)
{
	for (int i = 0; i < 2; i++) {
		int k = a_first ? i : 1 - i;
		struct ab_window *w = ab_window_add(x->d);

		if (!w)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "ab: more than %d runs: shorten --max-time",
				       AB_MAX_WINDOWS);
		*w = (struct ab_window){.pair = pair, .side = "AB"[k], .warmup = pair == 0, .start_s = now_s() - x->t0};
		if (script_once(x->env, x->tree, &x->sides[k], k, &x->c[k], x->cpus, w, err) < 0) {
			x->d->nw--; /* a run that failed is no window */
			return hx_wrap(err, "side %c", "AB"[k]);
		}
	}
	return 0;
}

struct runs_kind {
	enum ab_metric metric; /* the one --precision watches */
	bool quiet;	       /* a startup run's output is not kept */
	bool warm;	       /* the scenario's warm-up runs of each side first (startup; a script's first pair) */
	bool gated;	       /* each side's runs from a launcher kept in its slice (a simultaneous duet) */
	int (*pair)(struct runs_ctx *x, unsigned pair, bool a_first, struct hx_err *err);
};

/* Each side's sandbox set up once, then pairs of runs in a random order (the seed's) in the sides' slices, the
 * first pair the warm-up, until --max-time, --precision, an interruption or a failed run. */
static int runs_duet(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode,
		     const struct duet_opts *o, const struct runs_kind *kind, struct ab_doc *d, struct hx_err *err)
{
	unsigned slices = 1u << CG_SLICE_SUT | 1u << CG_SLICE_SUT_B;
	_cleanup_free_ struct runs_ctx *x = calloc(1, sizeof(*x));
	_cleanup_free_ struct sbx_config *c = calloc(2, sizeof(*c));
	char *argv[2][MAN_MAX_ARGV + 1], store[2][MAN_MAX_ARGV][PATH_MAX];
	uint64_t state = o->seed;
	bool was = false;
	double ms;
	int rc = 0;

	if (!c || !x)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	*x = (struct runs_ctx){.env = env,
			       .sides = sides,
			       .c = c,
			       .cpus = &env->plan[mode].limits[CG_SLICE_SUT].cpus, /* interleaved: both sides' set */
			       .cur = env->plan[mode],
			       .g = {{.launcher = -1, .gate = -1, .out = -1}, {.launcher = -1, .gate = -1, .out = -1}},
			       .t0 = now_s(),
			       .d = d};
	for (int k = 0; k < 2; k++) {
		if (run_sut_config(env, sides[k].s, sides[k].m, sides[k].st, &sides[k].side, &c[k], argv[k], store[k],
				   err) < 0)
			return hx_wrap(err, "side %c", "AB"[k]);
		c[k].quiet = kind->quiet;
	}
	if (kind->gated)
		snprintf(d->duet, sizeof(d->duet), "simultaneous");
	cg_cpus_format(&x->cur.limits[CG_SLICE_SUT].cpus, d->side[0].cpus, sizeof(d->side[0].cpus));
	cg_cpus_format(&x->cur.limits[CG_SLICE_SUT_B].cpus, d->side[1].cpus, sizeof(d->side[1].cpus));
	if (cg_tree_from_plan(&x->cur, slices, NULL, &x->tree, err) < 0)
		return -err->errnum;
	/* the scenario's warm-up runs of each side (page cache, the image's files), not counted */
	for (int k = 0; kind->warm && k < 2 && rc == 0; k++)
		rc = startup_once(x->tree, sides[k].side.slice, &c[k], sides[k].s->warmup, &ms, err);
	for (int k = 0; kind->gated && k < 2 && rc == 0; k++)
		if ((rc = startup_gate_open(x->tree, sides[k].side.slice, &c[k], &x->g[k], err)) < 0)
			hx_wrap(err, "side %c", "AB"[k]);
	for (unsigned pair = 0; rc == 0; pair++) {
		if (run_interrupted) {
			rc = hx_fail(err, HX_EXIT_VERDICT, EINTR, "interrupted");
			break;
		}
		/* the first pair is the warm-up: the page cache, the image's files */
		if ((rc = kind->pair(x, pair, stats_splitmix(&state) & 1, err)) < 0)
			break;
		if (now_s() - x->t0 >= o->max_time_s) {
			snprintf(d->stopped, sizeof(d->stopped), "max-time");
			break;
		}
		if (o->precision > 0 && paired_is_look(pair) && ab_analyze(d) == 0 &&
		    paired_stop(&was, paired_precise(&d->metric[kind->metric], o->precision))) {
			snprintf(d->stopped, sizeof(d->stopped), "precision");
			break;
		}
	}
	if (!d->stopped[0])
		snprintf(d->stopped, sizeof(d->stopped), "error");
	if (rc < 0 && kind->gated) /* a run stuck past its deadline: its slice ends, launcher and all */
		for (int k = 0; k < 2; k++)
			cg_slice_kill(x->tree, sides[k].side.slice, &(struct hx_err){0});
	for (int k = 0; k < 2; k++) /* every gate shut before any launcher is waited for (startup.h) */
		startup_gate_shut(&x->g[k]);
	for (int k = 0; k < 2; k++)
		startup_gate_close(&x->g[k]);
	if (cg_tree_destroy(x->tree, &(struct hx_err){0}) < 0 && rc == 0)
		rc = hx_fail(err, HX_EXIT_INTERNAL, EBUSY, "ab: the duet's cgroups could not be removed");
	d->wall_s = now_s() - x->t0;
	return rc;
}

int duet_startup(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode, const struct duet_opts *o,
		 struct ab_doc *d, struct hx_err *err)
{
	static const struct runs_kind kind = {.metric = AB_STARTUP, .quiet = true, .warm = true, .pair = startup_pair},
				      simul = {.metric = AB_STARTUP,
					       .quiet = true,
					       .warm = true,
					       .gated = true,
					       .pair = startup_simul_pair};

	return runs_duet(env, sides, mode, o, o->simultaneous ? &simul : &kind, d, err);
}

int duet_script(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode, const struct duet_opts *o,
		struct ab_doc *d, struct hx_err *err)
{
	static const struct runs_kind kind = {.metric = AB_SCRIPT, .pair = script_pair};

	return runs_duet(env, sides, mode, o, &kind, d, err);
}
