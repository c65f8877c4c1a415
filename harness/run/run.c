/* One trial of a scenario on a runtime in a mode: fresh slices, the server (or the startup series) in
 * the sut slice's sandbox, the load client in the client slice's sandbox, in the run's network
 * namespace; stats collected, everything torn down. */
#include "run/run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include "base/backoff.h"
#include "base/cleanup.h"
#include "base/proc.h"
#include "base/procfs.h"
#include "base/util.h"
#include "load/docstore.h"
#include "load/load.h"
#include "load/startup.h"
#include "run/cmdline.h"
#include "run/modules.h"
#include "run/owner.h"
#include "run/prepare.h"
#include "run/sampler.h"
#include "run/script.h"
#include "run/thrash.h"
#include "run/wire.h"
#include "sandbox/sandbox.h"
#include "stats/stats.h"

volatile int run_interrupted;

void run_stage(const char *stage)
{
	static bool stopped;
	const char *at = getenv("HARNESS_STOP_AT");

	if (stopped || !at || strcmp(at, stage) != 0)
		return;
	stopped = true;
	fprintf(stderr, "harness: run: stopped at %s (HARNESS_STOP_AT); SIGCONT goes on\n", stage);
	raise(SIGSTOP);
}

#define RUN_FLOOR_RPS 100 /* the slowest a real server answers (the emulated guest: a few hundred a second) */

static double now_s(void)
{
	return (double)util_now_ns() / 1e9;
}

static double ms_since(double t0_s)
{
	return (now_s() - t0_s) * 1e3;
}

/* A sandbox started in slice sl, up to its payload's execve; what it took is the trial's sandboxes phase. */
static int start_timed(struct cg_tree *tree, enum cg_slice sl, const struct sbx_config *c, struct sbx *x,
		       struct trial_result *t, struct hx_err *err)
{
	double t0 = now_s();
	int rc = sbx_start(tree, sl, c, x, err) < 0 || sbx_wait_exec(x, c->argv[0], err) < 0 ? -err->errnum : 0;

	res_overhead_add(&t->overhead, RES_PH_SANDBOXES, ms_since(t0));
	return rc;
}

/* How a readiness probe ended. */
enum ready { READY, READY_TIMEOUT, READY_EXITED, READY_INTERRUPTED };

/* One attempt: an HTTP GET of path until status, or a TCP connect for TLS servers. */
static bool probe_once(unsigned port, const char *path, unsigned status, bool tcp_only)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((unsigned short)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	_cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char req[512], resp[64] = "";
	struct timeval tv = {1, 0};
	int code = 0, n;

	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return false;
	if (tcp_only)
		return true;
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (write(fd, req, (size_t)n) == n && read(fd, resp, sizeof(resp) - 1) > 12)
		sscanf(resp, "HTTP/1.%*c %d", &code);
	return code == (int)status;
}

/* Probe from inside the run's network namespace on the back-off schedule (1 ms doubling to 8 ms: a refused
 * connect costs microseconds, a late look costs the trial); the probe child's exit code: 0 ready, with the
 * time of the last attempt that failed (since_ns when none did) written to report_fd, 1 not in time. */
static int probe_child(int netns, const struct scenario *s, uint64_t since_ns, int report_fd)
{
	uint64_t end = util_now_ns() + (uint64_t)(s->ready_timeout_s * 1e9);
	struct backoff b;

	if (setns(netns, CLONE_NEWNET) < 0)
		return 2;
	backoff_init(&b, BACKOFF_FIRST_NS, BACKOFF_MAX_NS);
	do {
		if (probe_once(s->port, s->ready_path, s->ready_status,
			       s->tls || s->workload == SCN_WS_CHAT || s->workload == SCN_WS_RPC))
			return write(report_fd, &since_ns, sizeof(since_ns)) == sizeof(since_ns) ? 0 : 2;
		since_ns = util_now_ns();
	} while (backoff_sleep(&b, since_ns, end)); /* the probe's own pace, in its own process */
	return 1;
}

/* Probe in a child while waiting on both it and the server: the moment the server exits, the probe is
 * stopped and the server's wait status is in *ret_status (server->pid is -1: reaped here). When ready, what
 * polling cost at most (from the last failed attempt to the sight of the server ready) is in *ret_ms. */
static enum ready probe_ready(int netns, const struct scenario *s, struct sbx *server, int *ret_status, double *ret_ms)
{
	uint64_t since = util_now_ns();
	_cleanup_close_ int rd = -1;
	pid_t pids[2] = {-1, server->pid};
	enum ready r;
	int st = 0, i, p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return READY_TIMEOUT;
	rd = p[0];
	pids[0] = fork();
	if (pids[0] == 0)
		_exit(probe_child(netns, s, since, p[1]));
	close(p[1]);
	if (pids[0] < 0)
		return READY_TIMEOUT;
	i = proc_wait_first(pids, 2, 0, &run_interrupted, &st);
	if (i == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && read(rd, &since, sizeof(since)) == sizeof(since)) {
		*ret_ms = (double)(util_now_ns() - since) / 1e6;
		return READY;
	}
	if (i == 0)
		return READY_TIMEOUT;
	if (i == 1) {
		server->pid = -1;
		*ret_status = st;
	}
	r = i == 1 ? READY_EXITED : READY_INTERRUPTED;
	kill(pids[0], SIGKILL);
	proc_reap(&pids[0], NULL);
	return r;
}

/* Expand a manifest template: {entry} and {script}. */
static void expand_argv(char *const *tmpl, const char *entry, const char *script, char **out, char store[][PATH_MAX])
{
	size_t i = 0;

	for (; tmpl[i] && i < MAN_MAX_ARGV; i++) {
		const char *t = tmpl[i];

		if (strcmp(t, "{entry}") == 0)
			snprintf(store[i], PATH_MAX, "%s", entry);
		else if (strcmp(t, "{script}") == 0)
			snprintf(store[i], PATH_MAX, "%s", script);
		else
			snprintf(store[i], PATH_MAX, "%s", t);
		out[i] = store[i];
	}
	out[i] = NULL;
}

/* A duet side's environment and runtime arguments (--a-env, --a-arg), after the image's and the scenario's. */
static int side_apply(const struct run_side *side, struct sbx_config *c, char **argv, char store[][PATH_MAX],
		      struct hx_err *err)
{
	size_t n = 0;

	for (size_t i = 0; side && i < side->nenv; i++)
		if (sbx_env_set(c, side->env[i]) < 0)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "too many environment variables at '%s'",
				       side->env[i]);
	if (!side || !side->nargs)
		return 0;
	while (argv[n])
		n++;
	if (n + side->nargs > MAN_MAX_ARGV)
		return hx_fail(err, HX_EXIT_USAGE, E2BIG, "at most %d runtime arguments in all", MAN_MAX_ARGV);
	/* after the runtime's own name: node --flag script, bun --flag script */
	for (size_t j = n - 1; j >= 1; j--)
		memcpy(store[j + side->nargs], store[j], PATH_MAX);
	for (size_t i = 0; i < side->nargs; i++)
		snprintf(store[1 + i], PATH_MAX, "%s", side->args[i]);
	for (size_t i = 0; i < n + side->nargs; i++)
		argv[i] = store[i];
	argv[n + side->nargs] = NULL;
	return 0;
}

/* The sut sandbox: the image, the scenario read-only at /scenario, PORT; with --no-sandbox the same start out
 * of it, its scratch folders in the run folder. A duet's side (NULL in a run) adds its environment and
 * arguments. */
static int sut_config(struct run_env *env, const struct scenario *s, const struct manifest *m,
		      const struct img_status *st, const struct run_side *side, struct sbx_config *c, char **argv,
		      char store[][PATH_MAX], struct hx_err *err)
{
	char script[PATH_MAX], kv[64];
	const char *entry;

	sbx_config_init(c);
	c->netns_fd = env->netns_fd;
	c->bare = env->bare;
	c->bare_dir = env->dir;
	c->rootfs.binds[c->rootfs.nbinds++] = (struct sbx_bind){.src = s->dir, .dst = "/scenario", .rw = false};
	if (s->node_modules[0])
		c->rootfs.binds[c->rootfs.nbinds++] =
			(struct sbx_bind){.src = s->node_modules, .dst = "/scenario/node_modules", .rw = false};
	c->cwd = "/scenario";
	if (img_apply_to_sandbox(m, st, c, err) < 0)
		return -err->errnum;
	snprintf(kv, sizeof(kv), "PORT=%u", s->port);
	sbx_env_set(c, kv);
	if (env->node_env[0]) { /* one mode for every runtime: the environment is built from scratch */
		snprintf(kv, sizeof(kv), "NODE_ENV=%s", env->node_env);
		sbx_env_set(c, kv);
	}
	if (s->workload == SCN_SCRIPT) {
		snprintf(kv, sizeof(kv), "ITERATIONS=%llu", (unsigned long long)s->iterations);
		sbx_env_set(c, kv);
		snprintf(kv, sizeof(kv), "WARMUP=%llu", (unsigned long long)s->warmup_requests);
		sbx_env_set(c, kv);
	}
	if (s->prepare) { /* made by prep_ensure before the first trial; the trial sees it read-only */
		char key[65];

		if (prep_path(s, m, st, env->prepared, sizeof(env->prepared), key, err) < 0)
			return -err->errnum;
		if (!util_exists(env->prepared))
			return hx_fail(err, HX_EXIT_INTERNAL, ENOENT, "scenario %s: %s was not prepared", s->name,
				       env->prepared);
		c->rootfs.binds[c->rootfs.nbinds++] =
			(struct sbx_bind){.src = env->prepared, .dst = "/prepared", .rw = false};
	}
	for (size_t i = 0; (s->fixtures & SCN_FX_POSTGRES) && env->pg && i < HX_ARRAY_SIZE(env->pg->env); i++)
		sbx_env_set(c, env->pg->env[i]);
	if (s->tls) {
		c->rootfs.binds[c->rootfs.nbinds++] =
			(struct sbx_bind){.src = env->tls_dir, .dst = "/opt/tls", .rw = false};
		sbx_env_set(c, "TLS_CERT=/opt/tls/cert.pem");
		sbx_env_set(c, "TLS_KEY=/opt/tls/key.pem");
	}
	entry = strchr(c->env[c->nenv - 1], '=') + 1; /* RUNTIME=, set last by the image */
	for (size_t i = 0; i < c->nenv; i++)
		if (strncmp(c->env[i], "RUNTIME=", 8) == 0)
			entry = c->env[i] + 8;
	snprintf(script, sizeof(script), "/scenario/%s", scn_script_for(s, m));
	expand_argv(m->run, entry, script, argv, store);
	c->argv = argv;
	return side_apply(side, c, argv, store, err);
}

int run_sut_config(struct run_env *env, const struct scenario *s, const struct manifest *m, const struct img_status *st,
		   const struct run_side *side, struct sbx_config *c, char **argv, char store[][PATH_MAX],
		   struct hx_err *err)
{
	return sut_config(env, s, m, st, side, c, argv, store, err);
}

static void stats_into(struct trial_result *t, struct cg_tree *tree, enum cg_slice sl)
{
	struct hx_err err = {0};

	if (cg_slice_stats(tree, sl, &t->slices[sl], &err) == 0)
		t->slices_have |= 1u << sl;
}

/* How waiting for a sandbox ended. */
enum wait_end { WAIT_EXITED, WAIT_CUT, WAIT_SERVER_GONE };

/* A look at the trial's slices for thrashing (thrash.h): one that has is killed, and said in t->thrashed. */
static void thrash_look(struct cg_tree *tree, struct thr_ring *rings, struct trial_result *t)
{
	static const enum cg_slice watched[] = {CG_SLICE_SUT, CG_SLICE_CLIENT, CG_SLICE_FIXTURE};
	uint64_t now = util_now_ns();

	for (size_t i = 0; i < HX_ARRAY_SIZE(watched); i++) {
		enum cg_slice sl = watched[i];
		uint64_t cpu, memory;
		double share;

		if (t->thrashed & (1u << sl) ||
		    !thr_feed(&rings[sl], now, cg_slice_memory_stall_usec(tree, sl), &share))
			continue;
		cg_slice_sample(tree, sl, &cpu, &memory);
		if (thr_at_limit(memory, cg_slice_memory_limit(tree, sl))) {
			t->thrashed |= 1u << sl;
			t->thrash_share[sl] = share;
			cg_slice_kill(tree, sl, &(struct hx_err){0});
		}
	}
}

/* Wait for a sandbox's init to exit (its exit code in *ret_code); when the run is interrupted, the deadline
 * passes or the server (when not NULL) exits first, kill the slice instead. The server's init is our
 * child: once it exits it is reaped here and its pid set to -1, so that nobody signals that PID again.
 * Every second the slices are looked at for thrashing (thrash_look): one that thrashes is ended, and what
 * it ran exits. */
static enum wait_end wait_or_cut(struct cg_tree *tree, enum cg_slice sl, pid_t pid, double deadline, struct sbx *server,
				 struct trial_result *t, int *ret_code)
{
	pid_t pids[2] = {pid, server ? server->pid : -1};
	/* beyond ~500 years the deadline is none */
	unsigned long long end = deadline > 0 && deadline < 1.8e10 ? (unsigned long long)(deadline * 1e9) : 0;
	struct thr_ring rings[CG_NR_SLICES] = {0};
	int status = 0, i;

	for (;;) {
		unsigned long long step = util_now_ns() + 1000000000ull;

		i = proc_wait_first(pids, 2, end && end < step ? end : step, &run_interrupted, &status);
		if (i != -ETIMEDOUT || (end && util_now_ns() >= end))
			break;
		thrash_look(tree, rings, t);
	}
	if (i == 0) {
		*ret_code = util_exit_code(status);
		return WAIT_EXITED;
	}
	if (i == 1)
		server->pid = -1;
	cg_slice_kill(tree, sl, &(struct hx_err){0});
	proc_reap(&pids[0], &status);
	return i == 1 ? WAIT_SERVER_GONE : WAIT_CUT;
}

/* The client's `harness load` command line for an http, ws-chat or ws-rpc trial, in store: requests are the
 * requests in all, or for ws-chat the messages each client sends. */
struct client_args {
	struct cmdline cl;
	bool rows; /* the docstore suite's: its rows printed (a measured load, the memory run's read-back) */
};

static void args_start(struct client_args *a)
{
	cmd_start(&a->cl);
	a->rows = false;
	cmd_arg(&a->cl, "/opt/harness/harness");
	cmd_arg(&a->cl, "load");
}

static unsigned interval_ms(const struct run_env *env)
{
	return env->interval_ms ? env->interval_ms : RUN_INTERVAL_MS;
}

/* A WebSocket client's target, its clients and, but for chat, its window: what --chat, --rpc and --docstore share. */
static void ws_args(const struct scenario *s, bool window, struct client_args *a)
{
	cmd_argf(&a->cl, NULL, "ws://127.0.0.1:%u%s", s->port, s->ready_path);
	cmd_argf(&a->cl, "--clients", "%u", s->clients);
	if (window)
		cmd_argf(&a->cl, "--window", "%u", s->window);
}

static void client_args_for(const struct run_env *env, const struct scenario *s, uint64_t requests,
			    struct client_args *a)
{
	args_start(a);
	if (s->workload == SCN_WS_CHAT) {
		cmd_arg(&a->cl, "--chat");
		ws_args(s, false, a);
		cmd_argf(&a->cl, "--messages", "%llu", (unsigned long long)requests); /* messages each */
	} else if (s->workload == SCN_WS_RPC) {
		/* the document store's suite (load/docstore.h): its scenarios, the pool, the ops and the budget of
		 * each; or the rpc client's echo or counter */
		if (s->docstore[0]) {
			cmd_arg(&a->cl, "--docstore");
			cmd_arg(&a->cl, s->docstore);
		} else {
			cmd_arg(&a->cl, "--rpc");
		}
		ws_args(s, true, a);
		cmd_argf(&a->cl, "-n", "%llu", (unsigned long long)requests);
		if (s->docstore[0]) {
			cmd_argf(&a->cl, "--budget", "%.3fs", s->budget_s);
			cmd_argf(&a->cl, "--payload-kib", "%u", s->payload_kib);
		} else if (s->counter) {
			cmd_arg(&a->cl, "--counter");
		}
	} else {
		cmd_argf(&a->cl, NULL, "%s://127.0.0.1:%u%s", s->tls ? "https" : "http", s->port, s->ready_path);
		cmd_argf(&a->cl, "-c", "%u", s->connections);
		cmd_argf(&a->cl, "-t", "%u", s->threads);
		cmd_argf(&a->cl, "-n", "%llu", (unsigned long long)requests);
		cmd_argf(&a->cl, "--pipeline", "%u", s->pipeline);
		cmd_arg(&a->cl, "--engine");
		cmd_arg(&a->cl, load_engine_names[env->engine]);
		if (s->tls)
			cmd_arg(&a->cl, "-k"); /* the run's own throwaway certificate */
		if (s->check_length)
			cmd_argf(&a->cl, "--expect-length", "%llu", (unsigned long long)s->body_length);
		if (s->body_sha256[0]) {
			cmd_arg(&a->cl, "--expect-sha256");
			cmd_arg(&a->cl, s->body_sha256);
		}
		cmd_argf(&a->cl, "--interval", "%ums", interval_ms(env));
	}
	cmd_argf(&a->cl, "--timeout", "%u", s->timeout_ms);
	cmd_arg(&a->cl, "--json");
}

/* The memory run of the docstore suite on a client's command line: its documents and the trial's seed, so
 * that the read-back after the restart draws the same keys (docs/docstore.md). */
static void docstore_memory_args(const struct scenario *s, const struct trial_result *t, struct client_args *a)
{
	cmd_argf(&a->cl, "--memory-docs", "%llu", (unsigned long long)s->memory_docs);
	cmd_argf(&a->cl, "--memory-seed", "%u", t->trial + 1);
	a->rows = true;
}

/* What harness reads itself after a counter trial with the postgres fixture (docs/scenario.md). */
#define RPC_COUNTER_SQL "SELECT n FROM rpc_counter WHERE id = 1"

/* With the postgres fixture, the counter as Postgres holds it, not as the server reported it: it must
 * be the first read plus the increments acknowledged. */
static int rpc_counter_check(struct run_env *env, const cJSON *rpc, struct hx_err *err)
{
	double before = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rpc, "counter_before"));
	double acked = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rpc, "answered"));
	char v[64] = "", *end;
	double held;

	if (fx_pg_query(env->netns_fd, env->pg->password, RPC_COUNTER_SQL, v, sizeof(v), err) < 0)
		return hx_wrap(err, "reading the counter from postgres");
	held = strtod(v, &end);
	if (!v[0] || *end)
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "counter: postgres holds '%s', not a number", v);
	if (held != before + acked)
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG,
			       "counter: postgres holds %.0f after %.0f acknowledged increments from %.0f "
			       "(%.0f lost or extra updates)",
			       held, acked, before, before + acked - held);
	return 0;
}

/* The docstore suite's contended rows as Postgres holds them (docs/docstore.md): the counter's document and the
 * nested field of the shared one, each read by harness itself, must be the first read plus the increments
 * acknowledged; a store whose memory counted what its rows lost fails here. */
static const struct {
	const char *scenario, *what, *sql;
} ds_pg_reads[] = {
	{"add-counter/contended", DS_COUNTER_KEY, "SELECT v #>> '{}' FROM docs WHERE k = '" DS_COUNTER_KEY "'"},
	{"nested-merge/contended", DS_NESTED_KEY ".stats.hits",
	 "SELECT v #>> '{" DS_NESTED_PATH "}' FROM docs WHERE k = '" DS_NESTED_KEY "'"},
};

static int docstore_pg_check(struct run_env *env, const cJSON *rows, struct hx_err *err)
{
	const cJSON *row;

	cJSON_ArrayForEach (row, rows) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "scenario"));
		double before = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "before"));
		double acked = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "ops"));
		char v[64] = "", *end;
		double held;

		for (size_t i = 0; name && i < HX_ARRAY_SIZE(ds_pg_reads); i++) {
			if (strcmp(name, ds_pg_reads[i].scenario) != 0)
				continue;
			if (fx_pg_query(env->netns_fd, env->pg->password, ds_pg_reads[i].sql, v, sizeof(v), err) < 0)
				return hx_wrap(err, "%s: reading %s from postgres", name, ds_pg_reads[i].what);
			held = strtod(v, &end);
			if (!v[0] || *end || held != before + acked)
				return hx_fail(
					err, HX_EXIT_VERDICT, EBADMSG,
					"%s: postgres holds '%s' at %s after %.0f acknowledged increments from %.0f "
					"(%.0f lost or extra updates)",
					name, v, ds_pg_reads[i].what, acked, before,
					before + acked - (v[0] && !*end ? held : 0));
		}
	}
	return 0;
}

/* The published line of each of the suite's scenarios, as the trial's load measured them. */
static void docstore_lines(const struct scenario *s, const struct trial_result *t, const cJSON *rows)
{
	const cJSON *row;
	char line[256];

	ds_table_header(line, sizeof(line));
	fprintf(stderr, "harness: run: %s %s %s trial %u: %s\n", s->name, t->runtime, t->mode, t->trial, line);
	cJSON_ArrayForEach (row, rows) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(row, "latency_us");
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "scenario"));
		double us[5];
		static const char *const q[5] = {"avg", "p50", "p95", "p99", "max"};

		for (int i = 0; i < 5; i++)
			us[i] = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(l, q[i]));
		ds_table_row(line, sizeof(line), name ? name : "?",
			     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "ops")),
			     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "errors")),
			     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(row, "ops_per_s")), us);
		fprintf(stderr, "harness: run: %s %s %s trial %u: %s\n", s->name, t->runtime, t->mode, t->trial, line);
	}
}

/* The rpc client's checks (docs/load.md): every id answered once, the counter moved by the increments
 * acknowledged; its figures are read as an http load's. */
static int rpc_verdict(struct run_env *env, const struct scenario *s, const char *text, bool measured,
		       const struct trial_result *t, struct hx_err *err)
{
	cJSON *o = cJSON_Parse(text);
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "docstore"), "rows");
	const cJSON *rpc = cJSON_GetObjectItemCaseSensitive(o, "rpc");
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(rpc, "invariant_ok");
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(rpc, "why");
	int rc = 0;

	if (!cJSON_IsBool(ok))
		rc = hx_fail(err, HX_EXIT_INTERNAL, EIO, "the rpc client's output has no verdict: %.200s", text);
	else if (!cJSON_IsTrue(ok))
		rc = hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "rpc invariant broken: %s",
			     cJSON_IsString(why) ? why->valuestring : "(no reason given)");
	else if (s->counter && (s->fixtures & SCN_FX_POSTGRES) && env->pg)
		rc = rpc_counter_check(env, rpc, err);
	else if (s->docstore[0] && (s->fixtures & SCN_FX_POSTGRES) && env->pg)
		rc = docstore_pg_check(env, rows, err);
	if (measured && cJSON_IsArray(rows))
		docstore_lines(s, t, rows);
	cJSON_Delete(o);
	return rc;
}

/* A matrix cell's command line: the route's request and expectations at conns connections for seconds. */
static void cell_args_for(const struct run_env *env, const struct scenario *s, const struct scn_route *r,
			  unsigned conns, double seconds, struct client_args *a)
{
	/* a route's expectations: each an option with the route's text, when the route has it */
	const struct {
		const char *opt, *value;
	} expect[] = {{"--expect-sha256", r->sha256}, {"--expect-encoding", r->encoding}, {"--expect-range", r->range}};

	args_start(a);
	cmd_argf(&a->cl, NULL, "http://127.0.0.1:%u%s", s->port, r->path);
	cmd_argf(&a->cl, "-c", "%u", conns);
	cmd_argf(&a->cl, "-d", "%.3fs", seconds);
	cmd_argf(&a->cl, "--timeout", "%u", s->timeout_ms);
	cmd_arg(&a->cl, "--engine");
	cmd_arg(&a->cl, load_engine_names[env->engine]);
	for (size_t i = 0; i < r->nheaders; i++) {
		cmd_arg(&a->cl, "-H");
		cmd_arg(&a->cl, r->headers[i]);
	}
	cmd_argf(&a->cl, "--expect-status", "%u", r->status);
	if (r->has_length)
		cmd_argf(&a->cl, "--expect-length", "%llu", (unsigned long long)r->length);
	for (size_t i = 0; i < HX_ARRAY_SIZE(expect); i++)
		if (expect[i].value[0]) {
			cmd_arg(&a->cl, expect[i].opt);
			cmd_arg(&a->cl, expect[i].value);
		}
	cmd_argf(&a->cl, "--interval", "%ums", interval_ms(env));
	cmd_arg(&a->cl, "--json");
}

/* HARNESS_LOAD_URING (docs/load.md: the best io_uring mode the client may ask for) reaches every trial's client,
 * whose sandbox starts from an empty environment, so that a run can take and record an older kernel's fallback. */
static void client_uring_limit(struct sbx_config *c)
{
	const char *v = getenv("HARNESS_LOAD_URING");
	char kv[64];

	if (v && v[0] && strlen(v) < sizeof(kv) - 20) {
		snprintf(kv, sizeof(kv), "HARNESS_LOAD_URING=%s", v);
		sbx_env_set(c, kv);
	}
}

/* Run `harness load` in the client slice's sandbox; what it measured lands in t's load or chat. When the
 * server exits first, server->pid is -1 on return. */
static int run_client(struct run_env *env, struct cg_tree *tree, const struct scenario *s,
		      const struct client_args *args, bool measured, double left_s, struct sbx *server,
		      struct trial_result *t, struct hx_err *err)
{
	char *const *argv = args->cl.argv;
	char out[PATH_MAX], errpath[PATH_MAX], tail[1024];
	struct sbx_config c;
	struct sbx x = {.pid = -1, .report_fd = -1};
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1, efd = -1;
	enum wait_end end;
	double t0;
	int code = 0; /* the client's verdict is in its JSON, or on its stderr when it measured nothing */

	snprintf(out, sizeof(out), "%s/client.json", env->dir);
	snprintf(errpath, sizeof(errpath), "%s/client.err", env->dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || efd < 0)
		return hx_syserr(err, "run: %s", out);
	sbx_config_init(&c);
	c.netns_fd = env->netns_fd;
	c.argv = (char **)argv;
	c.out_fd = fd;
	c.err_fd = efd;
	c.rootfs.binds[c.rootfs.nbinds++] = (struct sbx_bind){.src = env->harness, .dst = "/opt/harness/harness"};
	/* the load client (our own code, not the measured runtime) may use io_uring: its engine then costs half
	 * the CPU per request; the runtime's sandbox keeps refusing it unless the run says otherwise */
	c.seccomp.allow_io_uring = true;
	client_uring_limit(&c);
	if (start_timed(tree, CG_SLICE_CLIENT, &c, &x, t, err) < 0) {
		sbx_release(&x);
		return hx_wrap(err, "load client");
	}
	t0 = now_s();
	end = wait_or_cut(tree, CG_SLICE_CLIENT, x.pid, t0 + (left_s > 0 ? left_s : 1e9), server, t, &code);
	if (measured)
		t->measuring_s += now_s() - t0; /* a route matrix measures one load per cell */
	sbx_release(&x);
	if (end == WAIT_SERVER_GONE)
		return hx_fail(err, HX_EXIT_VERDICT, EPIPE, "the server exited during the load");
	if (end == WAIT_CUT && !run_interrupted && now_s() >= env->trial_end_s)
		return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT,
			       "past the trial's deadline of %.0f s (from its load: 10 s, the readiness timeout, a "
			       "response timeout and its requests at %d a second; docs/scenario.md)",
			       run_trial_budget_s(s), RUN_FLOOR_RPS);
	if (end == WAIT_CUT) {
		t->status = run_interrupted ? TRIAL_INTERRUPTED : TRIAL_CUT;
		return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT, "%s",
			       run_interrupted ? "interrupted" : "cut: the scenario's --cap ran out");
	}
	if (util_read_file(out, &text, NULL, err) < 0)
		return -err->errnum;
	if (code != 0 && !text[strspn(text, " \n")]) { /* it stopped before the load: a failed check, or killed */
		util_log_tail(errpath, tail, sizeof(tail));
		if (tail[0] && code < 128) /* a check that failed says why */
			return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "%s", tail);
		return hx_fail(err, HX_EXIT_VERDICT, EIO, "the load client exited with status %d and no figures%s%s",
			       code, tail[0] ? "; its last output: " : "", tail); /* killed: a signal, an OOM kill */
	}
	if (s->workload == SCN_WS_CHAT) {
		if (res_chat_read(text, &t->chat, err) < 0)
			return -err->errnum;
		t->have |= RES_HAVE_CHAT;
		return 0;
	}
	if (res_load_read(text, &t->load, err) < 0)
		return -err->errnum;
	t->have |= RES_HAVE_LOAD;
	if (s->workload == SCN_HTTP) { /* a warm-up's, until the measured load's replaces it (a cell's: run_cells) */
		res_timeline_free(&t->timeline);
		res_timeline_read(text, &t->timeline);
	}
	return s->workload == SCN_WS_RPC ? rpc_verdict(env, s, text, args->rows, t, err) : 0;
}

/* A cell with errors: the route, the connections and the errors by kind. */
static int cell_failed(const struct scn_route *r, unsigned conns, const struct res_load *l, struct hx_err *err)
{
	char kinds[256] = "";
	size_t used = 0;

	for (int k = 0; k < LE_NR; k++)
		if (l->errors[k] && used < sizeof(kinds))
			used += (size_t)snprintf(kinds + used, sizeof(kinds) - used, "%s%s %llu", used ? ", " : "",
						 load_err_names[k], (unsigned long long)l->errors[k]);
	return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "route %s at %u connections: %llu errors (%s)", r->name, conns,
		       (unsigned long long)l->errors_total, kinds);
}

/* The route matrix: every route at every connection count of the sweep, each cell after its own warm-up
 * (whose checked first request and figures are not kept); a cell with errors fails the trial, naming the
 * route, the connections and the errors by kind ("body": a response whose length or digest was not the
 * route's). */
/* A cell's measured load with the server sampled beside it, its timeline in t's until run_cells moves it. */
static int cell_measured(struct run_env *env, struct cg_tree *tree, const struct scenario *s,
			 const struct client_args *args, double deadline, struct sbx *server, struct trial_result *t,
			 struct hx_err *err)
{
	struct smp m;
	bool sampled = smp_start(&m, tree, CG_SLICE_SUT, sbx_payload_pid(server->pid),
				 interval_ms(env) * UINT64_C(1000000), &(struct hx_err){0}) == 0;
	int rc;

	res_timeline_free(&t->timeline); /* the warm-up's */
	rc = run_client(env, tree, s, args, true, deadline - now_s(), server, t, err);
	if (sampled) {
		smp_stop(&m);
		if (t->timeline.n)
			smp_into(&m, &t->timeline);
		smp_free(&m);
	}
	res_timeline_analyse(&t->timeline);
	return rc;
}

static int run_cells(struct run_env *env, struct cg_tree *tree, const struct scenario *s, struct sbx *server,
		     double deadline, struct trial_result *t, struct hx_err *err)
{
	struct client_args args;

	for (size_t k = 0; k < s->nsweep; k++)
		for (size_t i = 0; i < s->nroutes; i++) {
			const struct scn_route *r = &s->routes[i];
			struct res_cell *cell;
			int rc = 0;

			if (s->warmup_s > 0) {
				cell_args_for(env, s, r, s->sweep[k], s->warmup_s, &args);
				rc = run_client(env, tree, s, &args, false, deadline - now_s(), server, t, err);
			}
			if (rc == 0) {
				cell_args_for(env, s, r, s->sweep[k], s->duration_s, &args);
				rc = cell_measured(env, tree, s, &args, deadline, server, t, err);
			}
			t->have &= ~(unsigned)RES_HAVE_LOAD; /* the cell's figures are the cell's, not the trial's */
			if (rc < 0 || !(cell = res_cell_add(t))) {
				res_timeline_free(&t->timeline);
				return rc < 0 ? hx_wrap(err, "route %s at %u connections", r->name, s->sweep[k])
					      : hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
			}
			snprintf(cell->route, sizeof(cell->route), "%s", r->name);
			cell->connections = s->sweep[k];
			cell->load = t->load;
			cell->timeline =
				t->timeline; /* the cell's, moved: a route matrix's trial has none of its own */
			memset(&t->timeline, 0, sizeof(t->timeline));
			if (t->load.errors_total > s->max_errors)
				return cell_failed(r, s->sweep[k], &t->load, err);
			if (server->pid < 0)
				return 0;
		}
	return 0;
}

/* SIGTERM, 2 s to exit, then the slice is killed. */
void run_server_stop(struct cg_tree *tree, enum cg_slice sl, struct sbx *x, struct trial_result *t)
{
	double t0 = now_s();
	int code;

	sbx_stop(tree, sl, x, SIGTERM, 2000, &code);
	res_overhead_add(&t->overhead, RES_PH_STOP, ms_since(t0));
}

static void stop_server(struct cg_tree *tree, struct sbx *x, struct trial_result *t)
{
	run_server_stop(tree, CG_SLICE_SUT, x, t);
}

/* Write 5 to clear_refs (Linux >= 4.0): the process's peak RSS starts again from its current RSS. */
static void reset_hwm(pid_t pid)
{
	char path[64];
	struct hx_err err = {0};

	snprintf(path, sizeof(path), "/proc/%d/clear_refs", (int)pid);
	util_write_file(path, "5", &err);
}

/* The server's memory after the load, and whether it is still there. */
static void server_after_load(struct trial_result *t, pid_t payload)
{
	if ((t->have & (RES_HAVE_LOAD | RES_HAVE_CHAT)) || t->ncells) {
		t->server.peak_rss_kb = (double)proc_status_kb(payload, "VmHWM:");
		t->server.post_load_rss_kb = (double)proc_status_kb(payload, "VmRSS:");
	}
}

/* The measured phase starts once the runtime is ready (before the warm-up, which then absorbs the
 * generator's own set-up): the probe of outside interference on the runtime (pid, or -1 for a startup
 * series), then the neighbour. */
static int noise_begin(struct run_env *env, struct cg_tree *tree, struct run_noise *nz, pid_t pid,
		       const struct trial_result *t, struct hx_err *err)
{
	char tag[256];
	const struct noise_where w = {.netns_fd = env->netns_fd,
				      .harness = env->harness,
				      .io_dir = env->noise_io_dir,
				      .run_dir = env->dir,
				      .tag = tag};

	if (noise_ext_start(pid, &nz->sut_cpus, nz->tree, &nz->probe, err) < 0)
		return -err->errnum;
	if (nz->spec.kind == NOISE_NONE)
		return 0;
	snprintf(tag, sizeof(tag), "%s-%s-%s-%s-%u", t->scenario, t->runtime, t->mode, t->noise, t->trial);
	if (noise_slice_start(tree, &nz->spec, &w, &nz->proc, err) < 0)
		return -err->errnum;
	nz->running = true;
	return 0;
}

/* After the measured phase: the generator stops and reports what it did; a generator that died fails the
 * trial (its noise is not what the trial says). */
static int noise_end(struct cg_tree *tree, struct run_noise *nz, struct trial_result *t, int rc, struct hx_err *err)
{
	struct res_neighbour spare = {0}, *nb = t->neighbour ? t->neighbour : &spare; /* noise_record made it */
	struct hx_err e = {0};
	_cleanup_free_ char *text = NULL;

	if (nz->probe) {
		noise_ext_stop(nz->probe, &t->external);
		nz->probe = NULL;
		t->have |= RES_HAVE_EXTERNAL;
	}
	if (!nz->running)
		return rc;
	nz->running = false;
	stats_into(t, tree, CG_SLICE_NOISE);
	snprintf(nb->log, sizeof(nb->log), "%s", nz->proc.log);
	if (noise_slice_stop(tree, &nz->proc, &text, &e) < 0 ||
	    (res_noise_read(text, &nb->generator, &e) < 0 &&
	     hx_wrap(&e, "the noise generator's output %s", nz->proc.out) < 0)) {
		snprintf(nb->error, sizeof(nb->error), "%s", e.msg);
		if (rc == 0) {
			*err = e;
			rc = -err->errnum;
		}
		return rc;
	}
	nb->have_generator = true;
	return rc;
}

/* Start the server in the sut slice, its output to logfd, and wait until it is ready; on failure nothing
 * is left running and the message has its last output. */
int run_server_start(struct run_env *env, const struct scenario *s, const struct manifest *m,
		     const struct img_status *st, struct cg_tree *tree, const struct run_side *side, int logfd,
		     const char *logpath, struct sbx *x, struct trial_result *t, struct hx_err *err)
{
	enum cg_slice sl = side ? side->slice : CG_SLICE_SUT;
	char *argv[MAN_MAX_ARGV + 1], store[MAN_MAX_ARGV][PATH_MAX], tail[2048], why[64];
	struct sbx_config c;
	enum ready ready;
	double ready_ms = 0, t0;
	int status = 0;

	if (sut_config(env, s, m, st, side, &c, argv, store, err) < 0)
		return -err->errnum;
	c.out_fd = logfd;
	if (start_timed(tree, sl, &c, x, t, err) < 0) {
		sbx_release(x);
		return hx_wrap(err, "server");
	}
	run_stage("readiness");
	t0 = now_s(); /* the payload's execve is behind: start_timed waited for it */
	ready = probe_ready(env->netns_fd, s, x, &status, &ready_ms);
	if (ready == READY) {
		res_overhead_add(&t->overhead, RES_PH_READY, ready_ms);
		if (isnan(t->server.ready_ms)) /* a memory run's restart keeps the first start's */
			t->server.ready_ms = ms_since(t0);
		return 0;
	}
	run_server_stop(tree, sl, x, t);
	sbx_release(x);
	util_log_tail(logpath, tail, sizeof(tail));
	if (ready == READY_EXITED)
		snprintf(why, sizeof(why), "exited with status %d before it was ready", util_exit_code(status));
	else
		snprintf(why, sizeof(why), "%s",
			 ready == READY_INTERRUPTED ? "was interrupted before it was ready" : "was not ready in time");
	return hx_fail(err, HX_EXIT_VERDICT, EIO, "the server %s; its last output: %s", why,
		       tail[0] ? tail : "(nothing)");
}

/* One answer of the server before the load, compared with the run's first runtime's (run/wire.c); it is
 * recorded even when it differs, so that the results show both sides. */
static int wire_at_readiness(struct run_env *env, const struct scenario *s, const struct manifest *m,
			     struct trial_result *t, struct hx_err *err)
{
	int rc;

	if (!wire_wanted(s))
		return 0;
	if (!res_trial_wire(t))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	rc = wire_check(&env->wire, env->netns_fd, s, m->name, t->wire, err);
	if (t->wire->framing[0])
		t->have |= RES_HAVE_WIRE;
	return rc;
}

/* The memory run (the document store's bench), after the trial's figures: the RSS after an idle period
 * that follows the load, the runtime's low-memory hint first when the server takes one (SIGUSR2: it runs
 * its GC), then the RSS of the same server restarted, once ready. */
/* The memory run's second half (docs/docstore.md): the restarted store, which loaded its documents from
 * Postgres, reads 2,000 random ones back, each the version the first half left it at. The trial's figures stay
 * the suite's. */
static int docstore_after_restart(struct run_env *env, struct cg_tree *tree, const struct scenario *s, struct sbx *x,
				  struct trial_result *t, struct hx_err *err)
{
	struct res_load suite = t->load;
	struct client_args args;
	int rc;

	client_args_for(env, s, 1, &args);
	docstore_memory_args(s, t, &args);
	for (size_t i = 0; args.cl.argv[i]; i++)
		if (args.cl.argv[i] == s->docstore) /* its list: the one scenario */
			args.cl.argv[i] = (char *)"memory/after-restart";
	rc = run_client(env, tree, s, &args, false, 0, x, t, err);
	t->load = suite;
	return rc < 0 ? hx_wrap(err, "the memory run after the restart") : 0;
}

static int server_memory(struct run_env *env, const struct scenario *s, const struct manifest *m,
			 const struct img_status *st, struct cg_tree *tree, int logfd, const char *logpath,
			 struct sbx *x, struct smp *smp, struct trial_result *t, struct hx_err *err)
{
	pid_t payload = sbx_payload_pid(x->pid);
	bool hint = scn_memory_hint_for(s, m);
	int status;

	/* the phases on the timeline, which the sampler goes on through (an http trial's) */
	res_timeline_phase(&t->timeline, RES_TL_LOAD, t->timeline.origin_ns);
	res_timeline_phase(&t->timeline, hint ? RES_TL_IDLE_HINT : RES_TL_IDLE, util_now_ns());
	if (hint) {
		kill(payload, SIGUSR2);
		snprintf(t->server.low_memory_hint, sizeof(t->server.low_memory_hint), "SIGUSR2");
	}
	if (proc_wait_first(&x->pid, 1, util_now_ns() + (unsigned long long)(s->memory_idle_s * 1e9), &run_interrupted,
			    &status) == 0)
		return hx_fail(err, HX_EXIT_VERDICT, EPIPE, "the server exited (status %d) while idle after the load",
			       util_exit_code(status));
	t->server.after_idle_rss_kb = (double)proc_status_kb(payload, "VmRSS:");
	if (!s->memory_restart)
		return 0;
	res_timeline_phase(&t->timeline, RES_TL_RESTART, util_now_ns());
	/* no server until the next one is up: its samples' RSS is null, not a zombie's 0 or a reused pid's */
	smp_follow(smp, -1);
	stop_server(tree, x, t);
	sbx_release(x);
	*x = (struct sbx){.pid = -1, .report_fd = -1};
	if (run_server_start(env, s, m, st, tree, NULL, logfd, logpath, x, t, err) < 0)
		return hx_wrap(err, "restart");
	smp_follow(smp, sbx_payload_pid(x->pid));
	res_timeline_phase(&t->timeline, RES_TL_AFTER_RESTART, util_now_ns());
	t->server.after_restart_rss_kb = (double)proc_status_kb(sbx_payload_pid(x->pid), "VmRSS:");
	if (s->docstore[0] && s->memory_docs)
		return docstore_after_restart(env, tree, s, x, t, err);
	return 0;
}

/* Every listener on the scenario's port is the runtime's (run/owner.h): what the load measures is then the
 * runtime, not a process another role planted there. */
static int sut_serves(const struct run_env *env, const struct scenario *s, const struct cg_tree *tree, const char *when,
		      struct hx_err *err)
{
	if (owner_check(env->netns_fd, s->port, tree, CG_SLICE_SUT, "the runtime", err) < 0)
		return hx_wrap(err, "%s", when);
	return 0;
}

/* --warmup auto: warm-up loads of a quarter of the measured requests (at least the scenario's warm-up), each
 * tested as the measured phase is, until one is steady or the cap; a round too short to test makes the next
 * twice as long. */
static int warmup_auto(struct run_env *env, struct cg_tree *tree, const struct scenario *s, double deadline,
		       struct sbx *x, struct trial_result *t, struct hx_err *err)
{
	uint64_t chunk = s->requests / 4 > s->warmup_requests ? s->requests / 4 : s->warmup_requests;
	double t0 = now_s();
	struct client_args args;
	int rc = 0;

	t->warmup_auto = (struct res_warmup){.have = true};
	for (chunk = chunk < 1000 ? 1000 : chunk; rc == 0 && x->pid > 0;) {
		client_args_for(env, s, chunk, &args);
		rc = run_client(env, tree, s, &args, false, deadline - now_s(), x, t, err);
		res_timeline_analyse(&t->timeline);
		t->warmup_auto.rounds++;
		t->warmup_auto.requests += chunk;
		t->warmup_auto.steady = t->timeline.steady.tested && !t->timeline.steady.not_steady;
		if (t->warmup_auto.steady || now_s() - t0 >= RES_WARMUP_MAX_S ||
		    t->warmup_auto.rounds >= RES_WARMUP_MAX_ROUNDS)
			break;
		if (!t->timeline.steady.tested)
			chunk *= 2;
	}
	t->warmup_auto.seconds = now_s() - t0;
	res_timeline_free(&t->timeline);
	return rc;
}

/* The measured load with the server sampled beside it, into m (zeroed by the caller): the sampler goes on
 * until timeline_close, through a memory run when there is one. */
static int measured_client(struct run_env *env, struct cg_tree *tree, const struct scenario *s,
			   const struct client_args *args, pid_t payload, double deadline, struct sbx *x, struct smp *m,
			   struct trial_result *t, struct hx_err *err)
{
	res_timeline_free(&t->timeline); /* the warm-up's */
	if (s->workload == SCN_HTTP &&
	    smp_start(m, tree, CG_SLICE_SUT, payload, interval_ms(env) * UINT64_C(1000000), &(struct hx_err){0}) < 0)
		*m = (struct smp){.sampler = -1};
	return run_client(env, tree, s, args, true, deadline - now_s(), x, t, err);
}

/* The sampler stops; the timeline then says what the client and the samples saw. */
static void timeline_close(struct smp *m, struct trial_result *t)
{
	if (m->sh) {
		smp_stop(m);
		if (t->timeline.n)
			smp_into(m, &t->timeline);
		smp_free(m);
	}
	res_timeline_analyse(&t->timeline);
}

/* Watch the scenario's tree for the files the server opens (run/modules.h): its folder, and its npm
 * dependencies, which the sandbox shows at its node_modules. */
static void modules_arm(const struct scenario *s, struct mods_watch *w)
{
	struct mods_root roots[2];
	size_t n = 0;

	memset(roots, 0, sizeof(roots));
	snprintf(roots[n++].dir, sizeof(roots[0].dir), "%s", s->dir);
	if (s->node_modules[0]) {
		snprintf(roots[n].dir, sizeof(roots[0].dir), "%s", s->node_modules);
		snprintf(roots[n++].as, sizeof(roots[0].as), "node_modules");
	}
	mods_arm(w, roots, n, 0);
}

/* What it opened up to now, as the trial's modules record. */
static int modules_record(struct mods_watch *w, struct trial_result *t, struct hx_err *err)
{
	if (!res_trial_modules(t) || mods_finish(w, t->modules) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	t->have |= RES_HAVE_MODULES;
	return 0;
}

static int trial_http(struct run_env *env, const struct scenario *s, const struct manifest *m,
		      const struct img_status *st, struct cg_tree *tree, struct run_noise *nz, double deadline,
		      struct trial_result *t, struct hx_err *err)
{
	char logpath[PATH_MAX], tail[2048];
	struct sbx x = {.pid = -1, .report_fd = -1};
	struct smp smp = {.sampler = -1};
	_cleanup_close_ int logfd = -1;
	pid_t payload;
	struct mods_watch mods;
	int rc = 0;

	t->have |= RES_HAVE_SERVER;
	snprintf(logpath, sizeof(logpath), "%s/server-%s-%s.log", env->dir, s->name, m->name);
	logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0)
		return hx_syserr(err, "run: %s", logpath);
	snprintf(t->server.log, sizeof(t->server.log), "%s", logpath);
	modules_arm(s, &mods); /* before the sandbox starts: the runtime's first open is seen */
	if (run_server_start(env, s, m, st, tree, NULL, logfd, logpath, &x, t, err) < 0) {
		mods_release(&mods);
		return -err->errnum;
	}
	if (sut_serves(env, s, tree, "at readiness", err) < 0) {
		stop_server(tree, &x, t);
		rc = -err->errnum;
		goto out;
	}
	payload = sbx_payload_pid(x.pid);
	t->server.idle_rss_kb = (double)proc_status_kb(payload, "VmRSS:");
	proc_cpus(payload, t->server.cpus, sizeof(t->server.cpus));
	/* up to the wire's answer, so that the modules the first request loads lazily count */
	rc = wire_at_readiness(env, s, m, t, err);
	if (modules_record(&mods, t, rc < 0 ? &(struct hx_err){0} : err) < 0 && rc == 0)
		rc = -err->errnum;
	if (rc < 0 || noise_begin(env, tree, nz, payload, t, err) < 0) {
		stop_server(tree, &x, t);
		rc = -err->errnum;
		goto out;
	}
	if (s->nroutes) {
		reset_hwm(payload);
		cg_slice_peak_reset(tree, CG_SLICE_SUT, &(struct hx_err){0});
		rc = run_cells(env, tree, s, &x, deadline, t, err);
	} else {
		struct client_args args;

		if (s->workload == SCN_HTTP && env->warmup_auto) {
			run_stage("warmup");
			rc = warmup_auto(env, tree, s, deadline, &x, t, err);
		} else if (s->warmup_requests) { /* every workload's, the same count on every runtime */
			run_stage("warmup");
			client_args_for(env, s, s->warmup_requests, &args);
			rc = run_client(env, tree, s, &args, false, deadline - now_s(), &x, t, err);
			if (rc == 0 && (t->have & RES_HAVE_CHAT) && !t->chat.invariant_ok)
				rc = hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "chat invariant broken in the warm-up: %s",
					     t->chat.why);
		}
		t->have &= ~(unsigned)(RES_HAVE_LOAD | RES_HAVE_CHAT); /* the warm-up's figures are not the trial's */
		if (rc == 0 && x.pid > 0) {
			reset_hwm(payload);
			/* the slice's peak from here too where the kernel allows (v2: 6.12+); else it says it spans
			 * the trial */
			cg_slice_peak_reset(tree, CG_SLICE_SUT, &(struct hx_err){0});
			run_stage("load");
			client_args_for(env, s, s->workload == SCN_WS_CHAT ? s->messages : s->requests, &args);
			args.rows = s->docstore[0] != '\0';
			if (s->docstore[0] && s->memory_docs)
				docstore_memory_args(s, t, &args);
			rc = measured_client(env, tree, s, &args, payload, deadline, &x, &smp, t, err);
			if (!(rc == 0 && x.pid > 0 && s->memory_idle_s > 0))
				timeline_close(&smp, t); /* no memory run: the samples end with the load */
		}
	}
	if (rc == 0 && x.pid > 0)
		rc = sut_serves(env, s, tree, "after the load", err);
	/* the chat's verdict: every client got every message exactly once */
	if (rc == 0 && (t->have & RES_HAVE_CHAT) && !t->chat.invariant_ok)
		rc = hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "chat invariant broken: %s", t->chat.why);
	server_after_load(t, payload);
	if (x.pid < 0 || proc_status_kb(payload, "VmRSS:") < 0) {
		/* whatever the client saw, the server is gone: say so, with what it printed last */
		util_log_tail(logpath, tail, sizeof(tail));
		rc = hx_fail(err, HX_EXIT_VERDICT, EPIPE, "the server exited during the load; its last output: %s",
			     tail[0] ? tail : "(nothing)");
	}
	stats_into(t, tree, CG_SLICE_SUT);
	stats_into(t, tree, CG_SLICE_CLIENT);
	rc = noise_end(tree, nz, t, rc, err);
	if (rc == 0 && x.pid > 0 && s->memory_idle_s > 0)
		rc = server_memory(env, s, m, st, tree, logfd, logpath, &x, &smp, t, err);
	timeline_close(&smp, t); /* after a memory run; else a no-op but for the analysis again */
	if (x.pid > 0)
		stop_server(tree, &x, t);
	else
		cg_slice_kill(tree, CG_SLICE_SUT, &(struct hx_err){0});
out:
	mods_release(&mods); /* its watches long removed: a quick close */
	sbx_release(&x);
	return rc;
}

/* The runtime runs the workload itself and ends with one JSON line of metrics on stdout; the client slice
 * stays idle. */
static int trial_script(struct run_env *env, const struct scenario *s, const struct manifest *m,
			const struct img_status *st, struct cg_tree *tree, struct run_noise *nz, double deadline,
			struct trial_result *t, struct hx_err *err)
{
	char *argv[MAN_MAX_ARGV + 1], store[MAN_MAX_ARGV][PATH_MAX], logpath[PATH_MAX], outpath[PATH_MAX], tail[2048];
	struct sbx_config c;
	struct sbx x = {.pid = -1, .report_fd = -1};
	_cleanup_close_ int logfd = -1, outfd = -1;
	_cleanup_free_ char *out = NULL;
	struct res_process *proc = &t->process;
	double end = now_s() + s->timeout_s, t0;
	enum wait_end how;
	int code;

	snprintf(logpath, sizeof(logpath), "%s/script-%s-%s.log", env->dir, s->name, m->name);
	snprintf(outpath, sizeof(outpath), "%s/script-%s-%s.out", env->dir, s->name, m->name);
	logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	outfd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0 || outfd < 0)
		return hx_syserr(err, "run: %s", logpath);
	if (sut_config(env, s, m, st, NULL, &c, argv, store, err) < 0 || noise_begin(env, tree, nz, -1, t, err) < 0)
		return -err->errnum;
	c.out_fd = outfd;
	c.err_fd = logfd;
	if (start_timed(tree, CG_SLICE_SUT, &c, &x, t, err) < 0) {
		sbx_release(&x);
		return hx_wrap(err, "script");
	}
	t->have |= RES_HAVE_PROCESS;
	proc_cpus(sbx_payload_pid(x.pid), proc->cpus, sizeof(proc->cpus));
	t0 = now_s();
	how = wait_or_cut(tree, CG_SLICE_SUT, x.pid, end < deadline ? end : deadline, NULL, t, &code);
	t->measuring_s = now_s() - t0;
	if (how != WAIT_EXITED)
		code = -1;
	stats_into(t, tree, CG_SLICE_SUT);
	if (noise_end(tree, nz, t, 0, err) < 0) {
		sbx_release(&x);
		return -err->errnum;
	}
	proc->exit = code;
	if ((proc->have_times = x.stamps->exit_ns > x.stamps->exec_ns)) {
		proc->wall_ms = (double)(x.stamps->exit_ns - x.stamps->exec_ns) / 1e6;
		proc->user_ms = (double)x.stamps->utime_us / 1e3;
		proc->system_ms = (double)x.stamps->stime_us / 1e3;
		proc->max_rss_kb = (double)x.stamps->maxrss_kb;
	}
	snprintf(proc->log, sizeof(proc->log), "%s", logpath);
	sbx_release(&x);
	util_log_tail(logpath, tail, sizeof(tail));
	if (how != WAIT_EXITED && (run_interrupted || now_s() > deadline))
		t->status = run_interrupted ? TRIAL_INTERRUPTED : TRIAL_CUT;
	if (code < 0)
		return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT, "%s",
			       run_interrupted	    ? "interrupted"
			       : now_s() > deadline ? "cut: the scenario's --cap ran out"
						    : "the script ran past the scenario's timeout_s");
	if (code != 0)
		return hx_fail(err, HX_EXIT_VERDICT, EIO, "the script exited with %d; its last output: %s", code,
			       tail[0] ? tail : "(nothing)");
	if (util_read_file(outpath, &out, NULL, err) < 0)
		return -err->errnum;
	if (!res_trial_script(t))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (script_parse_metrics(out, s->metrics, s->nmetrics, t->script, err) < 0)
		return -err->errnum;
	t->have |= RES_HAVE_SCRIPT;
	return 0;
}

static int trial_startup(struct run_env *env, const struct scenario *s, const struct manifest *m,
			 const struct img_status *st, struct cg_tree *tree, struct run_noise *nz,
			 struct trial_result *t, struct hx_err *err)
{
	char *argv[MAN_MAX_ARGV + 1], store[MAN_MAX_ARGV][PATH_MAX];
	struct sbx_config c;
	_cleanup_free_ struct startup_record *recs = calloc(s->runs + s->warmup, sizeof(*recs));
	_cleanup_free_ double *ms = calloc(s->runs, sizeof(*ms));
	_cleanup_free_ int *codes = calloc(s->runs, sizeof(*codes));
	struct res_startup *o = &t->startup;

	if (!recs || !ms || !codes)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (sut_config(env, s, m, st, NULL, &c, argv, store, err) < 0)
		return -err->errnum;
	c.quiet = true;
	if (noise_begin(env, tree, nz, -1, t, err) < 0 ||
	    startup_series_in(tree, &c, s->runs, s->warmup, recs, err) < 0 || noise_end(tree, nz, t, 0, err) < 0)
		return -err->errnum;
	for (unsigned i = 0; i < s->runs; i++) {
		const struct startup_record *r = &recs[s->warmup + i];

		ms[i] = (double)r->wall_ns / 1e6;
		t->measuring_s += (double)r->wall_ns / 1e9;
		codes[i] = r->status;
		o->failed_runs += r->status != 0;
		o->user_ms += (double)r->user_us / 1e3 / s->runs;
		o->system_ms += (double)r->sys_us / 1e3 / s->runs;
		o->max_rss_kb = r->maxrss_kb > o->max_rss_kb ? r->maxrss_kb : o->max_rss_kb;
	}
	stats_summarize(ms, s->runs, &o->wall_ms);
	o->expected_cv = s->expected_cv > 0 ? s->expected_cv : RES_EXPECTED_CV;
	if (res_startup_runs(o, ms, codes, s->runs) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	t->have |= RES_HAVE_STARTUP;
	if (o->failed_runs)
		return hx_fail(err, HX_EXIT_VERDICT, EIO, "%u of %u runs exited non-zero", o->failed_runs, s->runs);
	return 0;
}

/* Every listener on the fixture's port is the fixture's postgres (run/owner.h). */
static int fixture_serves(const struct run_env *env, const struct cg_tree *tree, const char *when, struct hx_err *err)
{
	if (owner_check(env->netns_fd, FX_PG_PORT, tree, CG_SLICE_FIXTURE, "the fixture's postgres", err) < 0)
		return hx_wrap(err, "%s", when);
	return 0;
}

/* The trial's own Postgres in the fixture slice; its log is per trial, its record under "fixture". */
static int fixture_start(struct run_env *env, const struct scenario *s, const struct manifest *m, enum cg_cpu_mode mode,
			 struct cg_tree *tree, struct trial_result *t, struct fx_pg *pg, struct hx_err *err)
{
	char logpath[PATH_MAX];

	snprintf(logpath, sizeof(logpath), "%s/postgres-%s-%s-%s-%u.log", env->dir, s->name, m->name,
		 cg_cpu_mode_names[mode], t->trial);
	t->have |= RES_HAVE_FIXTURE;
	snprintf(t->fixture.name, sizeof(t->fixture.name), "postgres");
	if (env->plan[mode].fixture_shared)
		snprintf(t->fixture.shares_cpus_with, sizeof(t->fixture.shares_cpus_with), "%s",
			 cg_slice_names[CG_SLICE_CLIENT]);
	double t0 = now_s();
	int rc = fx_pg_start(env->pg, tree, env->netns_fd, logpath, pg, &t->fixture, err);

	res_overhead_add(&t->overhead, RES_PH_FIXTURE, ms_since(t0));
	if (rc == 0 && (rc = fixture_serves(env, tree, "at readiness", err)) < 0)
		fx_pg_stop(tree, pg, &t->fixture);
	return rc < 0 ? hx_wrap(err, "fixture") : 0;
}

/* After the workload: the fixture's slice stats, then its fast shutdown. A fixture that died during the
 * trial fails it, and is named first: what the workload saw (refused connections, a server that exited) is
 * its consequence. */
static int fixture_stop(const struct run_env *env, struct cg_tree *tree, struct fx_pg *pg, struct trial_result *t,
			int rc, struct hx_err *err)
{
	char tail[2048], then[sizeof(err->msg)] = "";
	int status = 0;
	/* Reaped now if it died (its pid is -1 then). After a failed workload, up to a second for the fixture's
	 * sandbox to report a death the workload may already have seen (refused connections): its init reaps
	 * the server and exits a moment after the kill, and a slow host (a sanitizer build) can stretch that. */
	uint64_t by = util_now_ns() + (rc < 0 ? 1000000000ull : 0);
	bool died = proc_wait_first(&pg->x.pid, 1, by, NULL, &status) == 0;
	double t0;

	if (!died && rc == 0)
		rc = fixture_serves(env, tree, "after the workload", err);

	stats_into(t, tree, CG_SLICE_FIXTURE);
	t0 = now_s();
	fx_pg_stop(tree, pg, &t->fixture);
	res_overhead_add(&t->overhead, RES_PH_FIXTURE, ms_since(t0));
	if (!died)
		return rc;
	if (rc < 0)
		snprintf(then, sizeof(then), "; then: %s", err->msg);
	hx_clear(err);
	util_log_tail(pg->log, tail, sizeof(tail));
	return hx_fail(err, HX_EXIT_VERDICT, EPIPE,
		       "the fixture postgres exited with status %d during the trial; its last output: %s%s",
		       util_exit_code(status), tail[0] ? tail : "(nothing)", then);
}

/* What the trial records of its neighbour before it starts: where the noise slice may run and with whom
 * it shares a physical core. */
static void noise_record(const struct run_env *env, enum cg_cpu_mode mode, const struct noise_spec *n,
			 struct trial_result *t)
{
	const struct cg_slice_plan *p = &env->plan[mode];
	struct res_neighbour *nb;

	noise_spec_format(n, t->noise, sizeof(t->noise));
	if (n->kind == NOISE_NONE || !(nb = res_trial_neighbour(t)))
		return;
	t->have |= RES_HAVE_NEIGHBOUR;
	snprintf(nb->placement, sizeof(nb->placement), "%s",
		 mode != CG_CPU_PINNED ? "anywhere" : cg_noise_placement_names[env->budget[mode].noise_placement]);
	cg_cpus_format(&p->limits[CG_SLICE_NOISE].cpus, nb->cpus, sizeof(nb->cpus));
	nb->cpu_quota_us = p->limits[CG_SLICE_NOISE].cpu_quota_us;
	nb->memory_max = p->limits[CG_SLICE_NOISE].memory_max;
	nb->shares = p->noise_shares & p->slices;
}

/* --isolate: the sut slice's CPUs its own, inside a tree over the CPUs of the trial's slices. */
static int isolate(const struct run_env *env, enum cg_cpu_mode mode, unsigned slices, struct cg_tree *tree,
		   struct trial_result *t, struct hx_err *err)
{
	struct cg_cpus all = {0};

	for (int sl = 0; sl < CG_NR_SLICES; sl++)
		if (slices & (1u << sl))
			cg_cpus_or(&all, &env->plan[mode].limits[sl].cpus);
	if (cg_slice_isolate(tree, CG_SLICE_SUT, &all, err) < 0)
		return -err->errnum;
	t->isolated = true;
	return 0;
}

/* A slice whose memory limit killed a process during the trial (the kernel's oom_kill count: memory.events,
 * v1 memory.oom_control) fails the trial, and its message says so first, with the evidence: from outside an
 * OOM kill looks like something else (a reset connection, a server that exited, a client without figures). */
static int oom_verdict(const struct cg_slice_plan *plan, const struct cg_tree *tree, struct trial_result *t, int rc,
		       struct hx_err *err)
{
	static const struct {
		enum cg_slice sl;
		const char *who, *opt;
	} watch[] = {
		{CG_SLICE_SUT, "the runtime", "--memory"},
		{CG_SLICE_CLIENT, "the load client", "--client-memory"},
		{CG_SLICE_FIXTURE, "the fixture", "--memory"},
	};
	const char *file = strcmp(cg_backend_name(tree), "v1") == 0 ? "memory.oom_control" : "memory.events";

	for (size_t i = 0; i < HX_ARRAY_SIZE(watch); i++) {
		const struct cg_stats *st = &t->slices[watch[i].sl];
		unsigned long long mib = (unsigned long long)(plan->limits[watch[i].sl].memory_max >> 20);
		char then[sizeof(err->msg)] = "";
		bool killed =
			(t->slices_have & (1u << watch[i].sl)) && st->have[CG_STAT_OOM_KILL] && st->v[CG_STAT_OOM_KILL];

		if (!killed && !(t->thrashed & (1u << watch[i].sl)))
			continue;
		if (rc < 0)
			snprintf(then, sizeof(then), "; then: %s", err->msg);
		hx_clear(err);
		if (killed) /* the kernel's own count first, when it has one */
			return hx_fail(err, HX_EXIT_VERDICT, ENOMEM,
				       "OOM: %s was killed by its memory limit of %llu MiB (%s; %s: oom_kill %llu)%s",
				       watch[i].who, mib, watch[i].opt, file,
				       (unsigned long long)st->v[CG_STAT_OOM_KILL], then);
		return hx_fail(
			err, HX_EXIT_VERDICT, ENOMEM,
			"OOM: %s thrashed at its memory limit of %llu MiB (%s; memory.pressure: all its tasks waited "
			"on memory %.0f%% of the last %d s) and harness ended it%s",
			watch[i].who, mib, watch[i].opt, 100 * t->thrash_share[watch[i].sl], THR_WINDOW_S, then);
	}
	return rc;
}

double run_trial_budget_s(const struct scenario *s)
{
	double timeout_s = s->timeout_ms / 1000.0, b;

	if (s->workload != SCN_HTTP)
		return 0; /* a script has timeout_s; startup, chat and rpc series end by their own counts */
	b = 10 + s->ready_timeout_s + timeout_s;
	if (s->nroutes)
		b += (double)(s->nroutes * s->nsweep) * (s->warmup_s + s->duration_s + timeout_s);
	else
		b += (double)(s->requests + s->warmup_requests) / RUN_FLOOR_RPS;
	if (s->memory_idle_s > 0)
		b += s->memory_idle_s + s->ready_timeout_s;
	return b;
}

int run_trial(struct run_env *env, const struct scenario *s, const struct manifest *m, const struct img_status *st,
	      enum cg_cpu_mode mode, const struct noise_spec *noise, double deadline, struct trial_result *trial,
	      struct hx_err *err)
{
	struct cg_tree *tree = NULL;
	struct fx_pg pg = {.x = {.pid = -1, .report_fd = -1}};
	struct run_noise nz = {.spec = *noise, .sut_cpus = env->plan[mode].limits[CG_SLICE_SUT].cpus};
	struct hx_err derr = {0};
	double t0 = now_s(), t1, budget = run_trial_budget_s(s);
	/* the fixture slice only for a scenario that has a fixture, the noise slice only for a noisy trial */
	unsigned slices = env->plan[mode].slices & ~(s->fixtures ? 0u : 1u << CG_SLICE_FIXTURE) &
			  ~(noise->kind != NOISE_NONE ? 0u : 1u << CG_SLICE_NOISE);
	int rc;

	trial->min_duration_s = s->min_duration_s;
	if (scn_adapter_for(s, m))
		snprintf(trial->adapter, sizeof(trial->adapter), "%s", scn_adapter_for(s, m));
	trial->warmup = s->workload == SCN_STARTUP || s->nroutes ? 0 : s->warmup_requests;
	for (int sl = 0; sl < CG_NR_SLICES; sl++)
		if (slices & (1u << sl)) {
			char cpus[RES_CPUS_LEN];

			cg_cpus_format(&env->plan[mode].limits[sl].cpus, cpus, sizeof(cpus));
			if (res_trial_set_cpus(trial, sl, cpus) < 0)
				return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		}
	noise_record(env, mode, noise, trial);
	env->trial_end_s = budget > 0 ? t0 + budget : 1e18;
	if (env->trial_end_s < deadline)
		deadline = env->trial_end_s;
	if (cg_tree_from_plan(&env->plan[mode], slices, NULL, &tree, err) < 0)
		return -err->errnum;
	if (env->isolate && mode == CG_CPU_PINNED && isolate(env, mode, slices, tree, trial, err) < 0) {
		cg_tree_destroy(tree, &derr);
		return -err->errnum;
	}
	res_overhead_add(&trial->overhead, RES_PH_SLICES, ms_since(t0));
	cg_run_id(nz.tree, sizeof(nz.tree), &derr); /* the tree's name: the same for every trial of the run */
	hx_clear(&derr);
	rc = 0;
	if (s->fixtures & SCN_FX_POSTGRES)
		rc = fixture_start(env, s, m, mode, tree, trial, &pg, err);
	if (rc == 0 && s->workload == SCN_STARTUP)
		rc = trial_startup(env, s, m, st, tree, &nz, trial, err);
	else if (rc == 0 && s->workload == SCN_SCRIPT)
		rc = trial_script(env, s, m, st, tree, &nz, deadline, trial, err);
	else if (rc == 0)
		rc = trial_http(env, s, m, st, tree, &nz, deadline, trial, err);
	rc = noise_end(tree, &nz, trial, rc, err); /* when the workload failed with it running */
	if (pg.x.pid > 0)
		rc = fixture_stop(env, tree, &pg, trial, rc, err);
	rc = oom_verdict(&env->plan[mode], tree, trial, rc, err);
	run_stage("teardown");
	t1 = now_s();
	if (cg_tree_destroy(tree, &derr) < 0 && rc == 0) /* a trial that leaves cgroups behind did not end well */
		rc = (*err = derr, hx_wrap(err, "cleanup"));
	res_overhead_add(&trial->overhead, RES_PH_TEARDOWN, ms_since(t1));
	trial->wall_s = now_s() - t0;
	return rc;
}
