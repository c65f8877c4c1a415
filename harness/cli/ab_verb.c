/* `harness ab A B [SCENARIO]`: a duet (docs/ab.md). A pure plan (the two sides, the scenario, the CPU plan
 * with sut-b given the sut's limits), a prepare (images, npm, the run folder, the namespace), the duet, then
 * the paired verdict: the first line, the table, the harness-ab/1 document; exit 1 when B is slower beyond
 * the threshold. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/opt.h"
#include "base/util.h"
#include "cli/verbs.h"
#include "host/rootless.h"
#include "image/deps.h"
#include "image/spec.h"
#include "image/unpack.h"
#include "report/ab_report.h"
#include "run/duet.h"
#include "run/rundir.h"
#include "sandbox/sbx_net.h"

struct ab_opts {
	bool help, keep;
	const char *mode, *profile, *out, *format, *engine, *a_scenario, *b_scenario, *duet;
	unsigned cpus, connections;
	uint64_t memory, seed;
	double threshold, precision, max_time, window, round;
	struct opt_list a_args, b_args, a_env, b_env;
};

static const struct hx_opt ab_tab[] = {
	{"cpus", 0, OPT_UINT, offsetof(struct ab_opts, cpus), "N",
	 .help = "CPU budget of each side (the same CPU set for both; default: from the host)", .min = 1,
	 .max = CG_MAX_CPUS},
	{"memory", 0, OPT_SIZE, offsetof(struct ab_opts, memory), "SIZE",
	 .help = "memory limit of each side (default 2G)", .min = OPT_MEMORY_MIN},
	{"mode", 0, OPT_STR, offsetof(struct ab_opts, mode), "MODE", .help = "pinned (default), quota or none"},
	{"duet", 0, OPT_STR, offsetof(struct ab_opts, duet), "KIND",
	 .help = "interleaved (default: one client alternating the sides on one CPU set) or simultaneous (both sides "
		 "loaded at once on two CPU sets, swapped between blocks; needs 4 CPUs or more, a startup duet 2)"},
	{"threshold", 0, OPT_PERCENT, offsetof(struct ab_opts, threshold), "P%",
	 .help = "the smallest change that matters (default 2%)", .min = 0.1, .max = 50},
	{"precision", 0, OPT_PERCENT, offsetof(struct ab_opts, precision), "P%",
	 .help = "add pairs until the throughput ratio's 95% CI half-width is within P (default: half the threshold)",
	 .min = 0.05, .max = 50},
	{"max-time", 0, OPT_DURATION, offsetof(struct ab_opts, max_time), "T",
	 .help = "the duet's longest measuring time (default 120s)", .min = 5, .max = 3600},
	{"window", 0, OPT_DURATION, offsetof(struct ab_opts, window), "SECONDS",
	 .help = "each side's window (default 0.05s; ws-rpc and ws-chat: 0.1s; --duet simultaneous: 0.5s)", .min = 0.02,
	 .max = 60},
	{"round", 0, OPT_DURATION, offsetof(struct ab_opts, round), "T",
	 .help = "a server duet's round: both servers started afresh for each (default 5s; as long as --max-time: "
		 "one pair of processes)",
	 .min = 1, .max = 3600},
	{"seed", 0, OPT_SIZE, offsetof(struct ab_opts, seed), "N",
	 .help = "the seed of the windows' order and of the bootstrap (default: from the clock; recorded)"},
	{"connections", 0, OPT_UINT, offsetof(struct ab_opts, connections), "N",
	 .help = "connections per side instead of the scenario's", .min = 1, .max = 10000},
	{"engine", 0, OPT_STR, offsetof(struct ab_opts, engine), "ENGINE",
	 .help = "the load client's engine: auto, epoll or io_uring"},
	{"a-arg", 0, OPT_LIST, offsetof(struct ab_opts, a_args), "ARG", .help = "a runtime argument of side A only"},
	{"b-arg", 0, OPT_LIST, offsetof(struct ab_opts, b_args), "ARG", .help = "a runtime argument of side B only"},
	{"a-env", 0, OPT_LIST, offsetof(struct ab_opts, a_env), "K=V", .help = "an environment variable of side A"},
	{"b-env", 0, OPT_LIST, offsetof(struct ab_opts, b_env), "K=V", .help = "an environment variable of side B"},
	{"a-scenario", 0, OPT_STR, offsetof(struct ab_opts, a_scenario), "DIR",
	 .help = "side A's scenario folder (an app change: one runtime, two versions of the app)"},
	{"b-scenario", 0, OPT_STR, offsetof(struct ab_opts, b_scenario), "DIR", .help = "side B's scenario folder"},
	{"profile", 0, OPT_STR, offsetof(struct ab_opts, profile), "NAME",
	 .help = "quick, standard or full: the warm-up's share"},
	{"out", 'o', OPT_STR, offsetof(struct ab_opts, out), "FILE",
	 .help = "the harness-ab/1 document (default results/ab-<time>.json)", .check = OPT_CHECK_OUT_FILE},
	{"format", 0, OPT_STR, offsetof(struct ab_opts, format), "FMT", .help = "table (default), md or json"},
	{"keep", 0, OPT_FLAG, offsetof(struct ab_opts, keep), NULL, .help = "keep the run folder (servers' logs)"},
	{"help", 'h', OPT_FLAG, offsetof(struct ab_opts, help), NULL, .help = "show this help"},
	OPT_END,
};

/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_ab_opts = ab_tab;

struct ab_plan {
	struct manifest m[2];
	struct img_status st[2];
	struct scenario s[2];
	bool loaded[2];
	bool simultaneous;
	enum cg_cpu_mode mode;
	enum report_format format;
	char out[PATH_MAX];
	struct duet_opts duet;
	struct duet_side sides[2];
};

static void on_signal(int sig)
{
	(void)sig;
	run_interrupted = 1;
}

static int plan_side(const struct ab_opts *o, const char *runtime, const char *scn, const char *dir, int k,
		     struct ab_plan *p, struct hx_err *err)
{
	struct scenario *s = &p->s[k];
	int prof = SCN_STANDARD;

	char note[512];

	/* anything --runtimes takes: a shipped name, a manifest, a local build's path, an npm spec */
	if (img_spec_load(runtime, &p->m[k], note, sizeof(note), err) < 0)
		return hx_wrap(err, "ab: side %c", "AB"[k]);
	if (note[0])
		fprintf(stderr, "harness: ab: side %c: %s\n", "AB"[k], note);
	p->loaded[k] = true;
	if (p->m[k].kind != MAN_RUNTIME)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "ab: %s is a fixture, not a runtime", runtime);
	if (scn_load(scn_dir(), dir ? dir : scn, s, err) < 0)
		return hx_wrap(err, "ab: side %c", "AB"[k]);
	for (int i = 0; o->profile && i < 3; i++)
		if (strcmp(o->profile, scn_profile_names[i]) == 0)
			prof = i;
	scn_scale(s, (enum scn_profile)prof);
	if (o->connections && (s->workload == SCN_WS_RPC || s->workload == SCN_WS_CHAT))
		s->clients = o->connections; /* a WebSocket client is one connection */
	else if (o->connections)
		s->connections = o->connections;
	if (s->workload == SCN_SCRIPT && (s->fixtures || s->prepare))
		return hx_fail(err, HX_EXIT_USAGE, ENOTSUP,
			       "ab: %s needs %s, which harness ab does not set up: measure it with harness run and "
			       "compare",
			       s->name, s->fixtures ? "the Postgres fixture" : "a prepare step");
	if ((s->workload == SCN_STARTUP || s->workload == SCN_SCRIPT) && !s->fixtures && !s->prepare)
		return scn_supports(s, &p->m[k]) ? 0
						 : hx_fail(err, HX_EXIT_USAGE, ENOTSUP,
							   "ab: scenario %s does not run on %s", s->name, p->m[k].name);
	/* an rpc duet: echo requests by windows (its memory run is a trial's, not the duet's) */
	if (s->workload == SCN_WS_RPC && (s->counter || s->docstore[0] || s->fixtures || s->prepare))
		return hx_fail(err, HX_EXIT_USAGE, ENOTSUP,
			       "ab: %s is a ws-rpc scenario with %s; harness ab measures echo requests (try ws-rpc): "
			       "measure it with harness run and compare",
			       s->name,
			       s->counter	? "a counter (its invariant needs the whole run)"
			       : s->docstore[0] ? "the document store's suite"
						: "a fixture or a prepare step");
	if (s->workload == SCN_WS_CHAT && (s->tls || s->fixtures || s->prepare))
		return hx_fail(err, HX_EXIT_USAGE, ENOTSUP,
			       "ab: %s is a ws-chat scenario with %s, which the chat duet does not set up: measure it "
			       "with harness run and compare",
			       s->name, s->tls ? "TLS" : "a fixture or a prepare step");
	if (s->workload == SCN_WS_RPC || s->workload == SCN_WS_CHAT)
		return scn_supports(s, &p->m[k]) ? 0
						 : hx_fail(err, HX_EXIT_USAGE, ENOTSUP,
							   "ab: scenario %s does not run on %s", s->name, p->m[k].name);
	if (s->workload != SCN_HTTP || s->tls || s->nroutes || s->fixtures || s->prepare || s->memory_idle_s > 0)
		return hx_fail(err, HX_EXIT_USAGE, ENOTSUP,
			       "ab: %s is neither a startup, a script, a ws-rpc, a ws-chat nor a plain http scenario; "
			       "harness ab measures those (http without TLS, routes, fixtures or a memory run: try "
			       "http-hello, ws-rpc, ws-chat or startup)",
			       s->name);
	if (!scn_supports(s, &p->m[k]))
		return hx_fail(err, HX_EXIT_USAGE, ENOTSUP, "ab: scenario %s does not run on %s", s->name,
			       p->m[k].name);
	return 0;
}

static int plan_out(const struct ab_opts *o, struct ab_plan *p)
{
	if (o->out) {
		snprintf(p->out, sizeof(p->out), "%s", o->out);
	} else {
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(p->out, sizeof(p->out), "results/ab-%Y%m%d-%H%M%S.json", &tm);
	}
	return 0;
}

static int plan_budget(const struct ab_opts *o, struct ab_plan *p, struct run_env *env, struct hx_err *err)
{
	if (cg_cpu_mode_parse(o->mode ? o->mode : "pinned", &p->mode) < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "ab: --mode takes one of pinned, quota, none, not '%s'",
			       o->mode);
	if (o->duet && strcmp(o->duet, "interleaved") != 0 && strcmp(o->duet, "simultaneous") != 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "ab: --duet takes interleaved or simultaneous, not '%s'",
			       o->duet);
	p->simultaneous = o->duet && strcmp(o->duet, "simultaneous") == 0;
	if (p->simultaneous && p->s[0].workload == SCN_SCRIPT)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "ab: --duet simultaneous runs http and startup scenarios; a script duet alternates "
			       "whole runs (drop --duet, or use --duet interleaved)");
	if (p->simultaneous && (p->s[0].workload == SCN_WS_RPC || p->s[0].workload == SCN_WS_CHAT))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "ab: --duet simultaneous runs http and startup scenarios; a ws-rpc or ws-chat duet is "
			       "interleaved (drop --duet, or use --duet interleaved)");
	env->budget[p->mode] = (struct cg_budget){.mode = p->mode,
						  .cpus = o->cpus,
						  .memory_max = o->memory ? o->memory : (uint64_t)2 << 30,
						  .pids_max = 4096,
						  .simultaneous = p->simultaneous,
						  /* a simultaneous startup duet's sides have no load clients */
						  .no_client = p->simultaneous && p->s[0].workload == SCN_STARTUP};
	if (cg_plan_host(&env->budget[p->mode], &env->plan[p->mode], err) < 0)
		return -err->errnum;
	if (!p->simultaneous) /* the simultaneous plan has each side's own set already */
		cg_plan_duet(&env->plan[p->mode]);
	return 0;
}

static int ab_plan(const struct ab_opts *o, char **pos, int npos, struct ab_plan *p, struct run_env *env,
		   struct hx_err *err)
{
	const char *scn = npos > 2 ? pos[2] : "http-hello";
	int e = load_engine_parse(o->engine ? o->engine : "auto");

	if (npos < 2 || npos > 3)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "ab: give two runtimes and at most one scenario: harness ab A B [SCENARIO]");
	if (report_format_parse(o->format ? o->format : "table", &p->format) < 0 || p->format > RPT_JSON)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "ab: --format takes table, md or json, not '%s'", o->format);
	if (e < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "ab: --engine takes auto, epoll or io_uring, not '%s'",
			       o->engine);
	env->engine = (enum load_engine)e;
	if (plan_side(o, pos[0], scn, o->a_scenario, 0, p, err) < 0 ||
	    plan_side(o, pos[1], scn, o->b_scenario, 1, p, err) < 0 || plan_budget(o, p, env, err) < 0)
		return -err->errnum;
	if (p->s[0].workload != p->s[1].workload)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "ab: --a-scenario and --b-scenario must be the same workload");
	if (p->s[0].workload == SCN_SCRIPT && (strcmp(p->s[0].primary_metric, p->s[1].primary_metric) != 0 ||
					       p->s[0].primary_higher != p->s[1].primary_higher))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "ab: --a-scenario and --b-scenario must have one primary_metric (%s, %s)",
			       p->s[0].primary_metric, p->s[1].primary_metric);
	p->s[1].port = p->s[0].port + 1; /* the same namespace and loopback, a port of its own */
	plan_out(o, p);
	p->duet = (struct duet_opts){
		.window_s = o->window > 0							? o->window
			    : p->simultaneous							? AB_BLOCK_S
			    : p->s[0].workload == SCN_WS_RPC || p->s[0].workload == SCN_WS_CHAT ? AB_WS_WINDOW_S
												: AB_WINDOW_S,
		.max_time_s = o->max_time > 0 ? o->max_time : 120,
		/* rounds are a server duet's, interleaved or simultaneous: single runs are each a fresh process
		 * already (docs/ab.md, "Rounds") */
		.round_s = p->s[0].workload == SCN_STARTUP || p->s[0].workload == SCN_SCRIPT ? 0
			   : o->round > 0						     ? o->round
											     : AB_ROUND_S,
		.precision = o->precision > 0 ? o->precision : (o->threshold > 0 ? o->threshold : AB_DEFAULT_TH) / 2,
		.seed = o->seed ? o->seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32),
		.simultaneous = p->simultaneous};
	for (int k = 0; k < 2; k++) {
		const struct opt_list *args = k ? &o->b_args : &o->a_args, *envs = k ? &o->b_env : &o->a_env;

		for (size_t i = 0; i < envs->n; i++)
			if (!strchr(envs->items[i], '=') || envs->items[i][0] == '=')
				return hx_fail(err, HX_EXIT_USAGE, EINVAL, "ab: --%c-env takes K=V, not '%s'", "ab"[k],
					       envs -> items[i]);
		p->sides[k] = (struct duet_side){
			.s = &p->s[k],
			.m = &p->m[k],
			.st = &p->st[k],
			.side = {.slice = k ? CG_SLICE_SUT_B : CG_SLICE_SUT,
				 .env = envs->items,
				 .nenv = envs->n,
				 .args = args->items,
				 .nargs = args->n},
		};
	}
	return 0;
}

static int prepare_side(struct ab_plan *p, int k, struct run_env *env, struct hx_err *err)
{
	struct img_cache cache = {.lock_fd = -1};
	struct scenario *s = &p->s[k];
	int rc = 0;

	if (img_cache_open(&cache, err) < 0)
		return -err->errnum;
	if (img_spec_pin(&p->m[k], err) < 0 || img_status(&cache, &p->m[k], true, &p->st[k], err) < 0 ||
	    (!p->st[k].present &&
	     (dep_img_pull(&cache, &p->m[k], err) < 0 || img_status(&cache, &p->m[k], true, &p->st[k], err) < 0)))
		rc = hx_wrap(err, "ab: runtime %s", p->m[k].name);
	img_cache_close(&cache);
	if (rc < 0)
		return rc;
	img_binary_version(&p->m[k], &p->st[k]);
	if (dep_ensure(&(struct dep_src){s->name, s->dir}, s->node_modules, sizeof(s->node_modules), err) < 0)
		return hx_wrap(err, "ab: scenario %s", s->name);
	if (s->node_modules[0] || !dep_readable_by_all(s->dir)) {
		char staged[PATH_MAX];

		if (dep_stage(&(struct dep_src){s->name, s->dir}, env->dir, staged, sizeof(staged), err) < 0)
			return -err->errnum;
		snprintf(s->dir, sizeof(s->dir), "%s", staged);
	}
	return 0;
}

static int ab_prepare(struct ab_plan *p, struct run_env *env, struct hx_err *err)
{
	struct sigaction sa = {.sa_handler = on_signal};
	unsigned ports[2] = {p->s[0].port, p->s[1].port};

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN); /* a simultaneous duet's client that died is an EPIPE on its gate, said as such */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (!util_self_exe())
		return hx_syserr(err, "ab: setup");
	snprintf(env->harness, sizeof(env->harness), "%s", util_self_exe());
	if (rundir_create(env->dir, sizeof(env->dir), err) < 0)
		return -err->errnum;
	if (prepare_side(p, 0, env, err) < 0 || prepare_side(p, 1, env, err) < 0)
		return -err->errnum;
	if (!strchr(p->out, '/') || strncmp(p->out, "results/", 8) == 0)
		util_mkdir_p("results", 0755);
	if (sbx_net_prepare(&env->netns_fd, err) < 0 || sbx_net_reserve_ports(env->netns_fd, ports, 2, err) < 0)
		return -err->errnum;
	return 0;
}

static void side_text(const struct opt_list *l, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < l->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", l->items[i]);
}

static void doc_head(const struct ab_opts *o, const struct ab_plan *p, struct ab_doc *d)
{
	time_t t = time(NULL);
	struct tm tm;
	char model[128] = "";
	FILE *f = fopen("/proc/cpuinfo", "re");

	gmtime_r(&t, &tm);
	strftime(d->started, sizeof(d->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	while (f && fgets(model, sizeof(model), f) && strncmp(model, "model name", 10) != 0)
		model[0] = '\0';
	if (f)
		fclose(f);
	snprintf(d->cpu_model, sizeof(d->cpu_model), "%s", strchr(model, ':') ? strchr(model, ':') + 2 : "");
	d->cpu_model[strcspn(d->cpu_model, "\n")] = '\0';
	snprintf(d->version, sizeof(d->version), "%s", hx_version);
	snprintf(d->commit, sizeof(d->commit), "%s", hx_commit);
	snprintf(d->scenario, sizeof(d->scenario), "%s", p->s[0].name);
	snprintf(d->mode, sizeof(d->mode), "%s", cg_cpu_mode_names[p->mode]);
	snprintf(d->workload, sizeof(d->workload), "%s",
		 p->s[0].workload == SCN_STARTUP   ? "startup"
		 : p->s[0].workload == SCN_SCRIPT  ? "script"
		 : p->s[0].workload == SCN_WS_RPC  ? "ws-rpc"
		 : p->s[0].workload == SCN_WS_CHAT ? "ws-chat"
						   : "http");
	if (p->s[0].workload == SCN_SCRIPT) {
		snprintf(d->metric_name, sizeof(d->metric_name), "%s", p->s[0].primary_metric);
		d->metric_higher = p->s[0].primary_higher;
	}
	for (int k = 0; k < 2; k++) {
		struct ab_side *s = &d->side[k];

		snprintf(s->runtime, sizeof(s->runtime), "%s", p->m[k].name);
		snprintf(s->scenario, sizeof(s->scenario), "%s", p->s[k].dir);
		snprintf(s->slice, sizeof(s->slice), "%s", cg_slice_names[k ? CG_SLICE_SUT_B : CG_SLICE_SUT]);
		side_text(k ? &o->b_args : &o->a_args, s->args, sizeof(s->args));
		side_text(k ? &o->b_env : &o->a_env, s->env, sizeof(s->env));
		s->port = p->s[k].port;
	}
	d->threshold = o->threshold > 0 ? o->threshold : AB_DEFAULT_TH;
	d->precision = p->duet.precision;
	d->max_time_s = p->duet.max_time_s;
	d->window_s = p->duet.window_s;
	d->round_s = duet_rounds(&p->duet) ? p->duet.round_s : 0;
	d->seed = p->duet.seed;
	d->connections = p->s[0].workload == SCN_WS_RPC || p->s[0].workload == SCN_WS_CHAT ? p->s[0].clients
											   : p->s[0].connections;
	d->threads = p->s[0].threads;
}

static int ab_execute(const struct ab_opts *o, struct ab_plan *p, struct run_env *env, struct hx_err *err)
{
	struct ab_doc d = {0};
	int rc;

	doc_head(o, p, &d);
	if (p->s[0].workload == SCN_STARTUP)
		rc = duet_startup(env, p->sides, p->mode, &p->duet, &d, err);
	else if (p->s[0].workload == SCN_SCRIPT)
		rc = duet_script(env, p->sides, p->mode, &p->duet, &d, err);
	else if (p->simultaneous)
		rc = duet_simultaneous(env, p->sides, p->mode, &p->duet, &d, err);
	else
		rc = duet_http(env, p->sides, p->mode, &p->duet, &d, err);
	if (rc == 0 && ab_analyze(&d) < 0)
		rc = hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (d.nw && ab_write(&d, p->out, rc < 0 ? &(struct hx_err){0} : err) < 0 && rc == 0)
		rc = -err->errnum;
	if (rc == 0) {
		ab_print(stdout, &d, p->format);
		if (p->format != RPT_JSON)
			printf("\nresults: %s\n", p->out);
		rc = ab_regressed(&d) ? HX_EXIT_VERDICT : HX_EXIT_OK;
	}
	ab_free(&d);
	return rc;
}

static void ab_cleanup(const struct ab_opts *o, struct ab_plan *p, struct run_env *env)
{
	sbx_net_cleanup(&env->netns_fd);
	if (env->dir[0] && !o->keep)
		unpack_remove_tree(env->dir);
	else if (env->dir[0])
		fprintf(stderr, "harness: ab: logs kept in %s\n", env->dir);
	for (int k = 0; k < 2; k++)
		if (p->loaded[k])
			man_free(&p->m[k]);
}

int verb_ab(int argc, char **argv)
{
	struct ab_opts o = {0};
	struct hx_err err = {0};
	_cleanup_free_ struct ab_plan *p = calloc(1, sizeof(*p));
	_cleanup_free_ struct run_env *env = calloc(1, sizeof(*env));
	int npos, rc;

	if (!p || !env)
		return HX_EXIT_INTERNAL;
	env->netns_fd = -1;
	if (opt_parse("ab", ab_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout, "harness ab A B [SCENARIO] [OPTIONS]",
			"A duet: both sides' servers up at once on the same CPUs and limits, one load client\n"
			"alternating between them in short windows of randomized order (a startup or script scenario:\n"
			"single runs of A and B alternated; --duet simultaneous: both loaded at once on two CPU sets, "
			"a\n"
			"client each, the sets swapped between blocks; a startup duet's two runs of a pair at once);\n"
			"the verdict from the per-pair ratios B/A (docs/ab.md).\n"
			"Exit 1 when B is slower beyond the threshold.",
			ab_tab);
		return HX_EXIT_OK;
	}
	rc = ab_plan(&o, argv + 1, npos, p, env, &err);
	if (rc == 0)
		rc = rootless_enter("ab", &err);
	if (rc == 0)
		rc = ab_prepare(p, env, &err);
	if (rc == 0)
		rc = ab_execute(&o, p, env, &err);
	ab_cleanup(&o, p, env);
	return rc < 0 ? hx_report(&err) : rc;
}
