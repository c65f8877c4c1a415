/* `harness run`: a pure plan (everything validated), a named prepare (pulls, npm, folders, namespace,
 * fixture template, certificate), then interleaved trials with the results rewritten after each. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/esc.h"
#include "base/opt.h"
#include "base/procfs.h"
#include "base/util.h"
#include "base/valid.h"
#include "cli/verbs.h"
#include "host/doctor.h"
#include "host/rootless.h"
#include "image/deps.h"
#include "image/spec.h"
#include "image/unpack.h"
#include "load/load.h"
#include "load/uring.h"
#include "noise/noise.h"
#include "report/report.h"
#include "results/adcost.h"
#include "results/precision.h"
#include "run/adapter.h"
#include "run/bundle.h"
#include "run/prepare.h"
#include "run/run.h"
#include "run/rundir.h"
#include "run/shard.h"
#include "run/tlscert.h"
#include "sandbox/sbx_net.h"
#include "sandbox/sbx_seccomp.h"
#include "sandbox/sbx_userns.h"

#define RUN_MAX_SCN    16
#define RUN_MAX_RT     16
#define RUN_MAX_NOISE  8
#define RUN_MAX_REPEAT 30 /* --precision's default --max-repeat */

struct run_opts {
	bool help, keep, isolate, no_sandbox, allow_prepare_network, no_adapter_cost;
	const char *runtimes, *mode, *profile, *out, *format, *noise, *noise_placement, *shard, *engine, *node_env,
		*warmup;
	unsigned cpus, client_cpus, repeat, connections, requests, max_repeat, interval;
	uint64_t memory, client_memory;
	double cap, precision;
};

static const struct hx_opt run_tab[] = {
	{"runtimes", 0, OPT_STR, offsetof(struct run_opts, runtimes), "LIST",
	 .help = "runtimes to run, comma-separated: shipped names (node24), manifest files, npm specs (node@26.10.0, "
		 "node@22) or local builds' paths (./out/Release/node) (default: every shipped runtime image but "
		 "wrangler, "
		 "pulled when absent)"},
	{"cpus", 0, OPT_UINT, offsetof(struct run_opts, cpus), "N",
	 .help = "CPU budget of the runtime (default: from the host, at most 4)", .min = 1, .max = CG_MAX_CPUS},
	{"client-cpus", 0, OPT_UINT, offsetof(struct run_opts, client_cpus), "N",
	 .help = "CPUs of the load client (default: from the host)", .min = 1, .max = CG_MAX_CPUS},
	{"memory", 0, OPT_SIZE, offsetof(struct run_opts, memory), "SIZE",
	 .help = "memory limit of the runtime (default 2G)", .min = OPT_MEMORY_MIN},
	{"client-memory", 0, OPT_SIZE, offsetof(struct run_opts, client_memory), "SIZE",
	 .help = "memory limit of the load client (default 1G)", .min = OPT_MEMORY_MIN},
	{"mode", 0, OPT_STR, offsetof(struct run_opts, mode), "LIST",
	 .help = "pinned, quota, none, comma-separated (default pinned)"},
	{"noise", 0, OPT_STR, offsetof(struct run_opts, noise), "LIST",
	 .help = "neighbours, comma-separated: none, cpu[:N], cache[:SIZE], membw[:SIZE], io[:SIZE], alloc[:SIZE] "
		 "(default none; docs/noise.md)"},
	{"noise-placement", 0, OPT_STR, offsetof(struct run_opts, noise_placement), "WHERE",
	 .help = "pinned mode: apart (default; never on the runtime's cores) or sibling (its SMT siblings)"},
	{"repeat", 0, OPT_UINT, offsetof(struct run_opts, repeat), "N",
	 .help = "trials per scenario, runtime and mode (default: the scenario's)", .min = 1, .max = 10000},
	{"connections", 0, OPT_UINT, offsetof(struct run_opts, connections), "N",
	 .help = "http scenarios: open N connections instead of the scenario's (a slow or small machine)", .min = 1,
	 .max = 100000},
	{"requests", 0, OPT_UINT, offsetof(struct run_opts, requests), "N",
	 .help = "http and ws-rpc scenarios: N measured requests per trial instead of the profile's share (warm-up in "
		 "proportion)",
	 .min = 1},
	{"warmup", 0, OPT_STR, offsetof(struct run_opts, warmup), "auto",
	 .help = "http scenarios: warm up until the throughput is steady (at most 60 s), not for the scenario's "
		 "warmup_requests; each trial records what it took (warmup)"},
	{"interval", 0, OPT_UINT, offsetof(struct run_opts, interval), "MS",
	 .help = "http scenarios: the timeline's cadence, the load client's intervals and harness's samples of the "
		 "server alike (default 100); recorded as config.interval_ms and each trial's timeline.interval_ms",
	 .min = RUN_INTERVAL_MIN_MS, .max = RUN_INTERVAL_MAX_MS},
	{"engine", 0, OPT_STR, offsetof(struct run_opts, engine), "ENGINE",
	 .help = "http scenarios: the load client's engine, auto (io_uring where the kernel allows it, else epoll), "
		 "epoll or io_uring; each trial records the one that ran (load.engine)"},
	{"node-env", 0, OPT_STR, offsetof(struct run_opts, node_env), "VALUE",
	 .help = "NODE_ENV in every runtime's sandbox (default production, the mode a bundle has; '' leaves it "
		 "unset); recorded as config.node_env"},
	{"shard", 0, OPT_STR, offsetof(struct run_opts, shard), "I/N",
	 .help = "run the I-th of N deterministic parts of the trial plan, balanced by expected time (harness merge)"},
	{"precision", 0, OPT_PERCENT, offsetof(struct run_opts, precision), "P%",
	 .help = "after the repeat, add rounds of interleaved trials until every cell's median is known to within P "
		 "(a CI of the median judged at 10, 15, 20, 30, 50 and 100 trials), or --max-repeat or --cap is "
		 "reached (docs/statistics.md)",
	 .min = 0.01, .max = 50},
	{"max-repeat", 0, OPT_UINT, offsetof(struct run_opts, max_repeat), "N",
	 .help = "with --precision: at most N trials per cell (default 30)", .min = 1, .max = 10000},
	{"profile", 0, OPT_STR, offsetof(struct run_opts, profile), "NAME",
	 .help = "quick (x0.25), standard or full (x3): scales requests and runs"},
	{"out", 'o', OPT_STR, offsetof(struct run_opts, out), "FILE",
	 .help = "results file (default results/harness-<time>.json)", .check = OPT_CHECK_OUT_FILE},
	{"format", 0, OPT_STR, offsetof(struct run_opts, format), "FMT",
	 .help = "table, md or json on stdout (default table)"},
	{"cap", 0, OPT_DURATION, offsetof(struct run_opts, cap), "SECONDS",
	 .help = "wall-time budget of each scenario; later trials are cut", .min = 1},
	{"isolate", 0, OPT_FLAG, offsetof(struct run_opts, isolate), NULL,
	 .help = "pinned mode: make the runtime's CPUs its own (cgroup v2 partitions; exit 3 where the host cannot: "
		 "harness doctor says why)"},
	{"allow-prepare-network", 0, OPT_FLAG, offsetof(struct run_opts, allow_prepare_network), NULL,
	 .help = "let a scenario whose prepare step declares it (\"prepare\": \"network\") reach the host's network "
		 "(config.prepare_network)"},
	{"no-sandbox", 0, OPT_FLAG, offsetof(struct run_opts, no_sandbox), NULL,
	 .help = "for comparison only: the runtime out of the sandbox, in the same slice, network namespace, "
		 "environment and user, without namespaces, root or seccomp filter of its own; the results say so "
		 "(docs/sandbox.md)"},
	{"no-adapter-cost", 0, OPT_FLAG, offsetof(struct run_opts, no_adapter_cost), NULL,
	 .help = "do not measure what a scenario's adapter costs a request on a null handler (by default a duet of "
		 "about 5 s per scenario and runtime that runs through one: docs/scenario.md, Adapters)"},
	{"keep", 0, OPT_FLAG, offsetof(struct run_opts, keep), NULL,
	 .help = "keep the run folder (server logs, the TLS key) in /tmp; by default it is removed at the end"},
	{"help", 'h', OPT_FLAG, offsetof(struct run_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_run_opts = run_tab;

#define RUN_MAX_ARGS 128

struct run_plan {
	char *cmd[RUN_MAX_ARGS];    /* the command line as given, for the results (opt_parse reorders argv) */
	bool allow_prepare_network; /* --allow-prepare-network */
	bool adapter_cost;	    /* not --no-adapter-cost: each adapter's cost is measured after the trials */
	int ncmd;
	struct scenario scn[RUN_MAX_SCN];
	size_t nscn;
	struct manifest img[RUN_MAX_RT];
	struct img_status st[RUN_MAX_RT];
	size_t nimg;
	enum cg_cpu_mode modes[3];
	size_t nmodes;
	struct noise_spec noise[RUN_MAX_NOISE];
	size_t nnoise;
	enum cg_noise_placement noise_placement;
	enum scn_profile profile;
	enum report_format format;
	double precision;    /* --precision as a fraction; 0: the repeat only */
	unsigned max_repeat; /* with precision */
	char out[PATH_MAX];
	bool runtimes_named;	 /* --runtimes: an image that cannot be pulled is an error, not a note */
	bool unsaved;		 /* the last write of the results file failed (a full disk): retried */
	unsigned shard, nshards; /* --shard I/N (1-based); 0/0: the whole plan */
	/* the Postgres fixture, when a scenario asks for it */
	bool pg, pg_loaded;
	struct manifest pg_img;
	struct img_status pg_st;
	struct fx_pg_template pg_tmpl;
	/* the prepared entries this run uses, each held (a shared flock) until it ends: images gc keeps them */
	int prepared_held[RUN_MAX_SCN * RUN_MAX_RT];
	size_t nprepared_held;
};

/* The signal is kept: the run exits 128+N, as the shell reports a process the signal killed. */
static void on_signal(int sig)
{
	run_interrupted = sig;
}

/* --noise: the kinds of neighbour, each a dimension value like a mode. */
static int plan_noise_kinds(const struct run_opts *o, struct run_plan *p, struct hx_err *err)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", o->noise ? o->noise : "none");
	for (char *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		if (p->nnoise == RUN_MAX_NOISE)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "run: at most %d kinds of --noise", RUN_MAX_NOISE);
		if (noise_spec_parse(n, &p->noise[p->nnoise], err) < 0)
			return hx_wrap(err, "run: --noise");
		p->nnoise++;
	}
	if (o->isolate) {
		char why[1024];

		if (!cg_isolation_possible(why, sizeof(why)))
			return hx_fail(err, HX_EXIT_HOST, ENOTSUP, "run: --isolate is not possible here: %s", why);
	}
	p->noise_placement = CG_NOISE_APART;
	if (o->noise_placement && strcmp(o->noise_placement, "sibling") == 0)
		p->noise_placement = CG_NOISE_SIBLING;
	else if (o->noise_placement && strcmp(o->noise_placement, "apart") != 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "run: --noise-placement takes apart or sibling, not '%s'",
			       o->noise_placement);
	return 0;
}

/* Noise levels that default from the plan (cpu: as many threads as the runtime has CPUs), then the noise
 * slice's size in every mode: the busiest kind's threads, the hungriest kind's memory and 64M. */
static void plan_noise_budget(struct run_plan *p, struct run_env *env)
{
	unsigned threads = 0;
	uint64_t memory = 0, llc = noise_llc_bytes("/sys");

	for (size_t i = 0; i < p->nnoise; i++) {
		noise_spec_resolve(&p->noise[i], env->plan[p->modes[0]].cpus, llc);
		if (noise_threads(&p->noise[i]) > threads)
			threads = noise_threads(&p->noise[i]);
		if (noise_memory_need(&p->noise[i]) > memory)
			memory = noise_memory_need(&p->noise[i]);
	}
	for (size_t k = 0; k < p->nmodes; k++) {
		env->budget[p->modes[k]].noise_cpus = threads;
		env->budget[p->modes[k]].noise_placement = p->noise_placement;
		env->budget[p->modes[k]].noise_memory_max = threads ? memory + ((uint64_t)64 << 20) : 0;
	}
}

static int plan_modes(const struct run_opts *o, struct run_plan *p, struct run_env *env, struct hx_err *err)
{
	char buf[64], *save = NULL;

	p->nmodes = 0;
	snprintf(buf, sizeof(buf), "%s", o->mode ? o->mode : "pinned");
	for (char *m = strtok_r(buf, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
		enum cg_cpu_mode mode;

		if (cg_cpu_mode_parse(m, &mode) < 0 || p->nmodes == 3)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "run: --mode takes pinned, quota and none, comma-separated, not '%s'", m);
		p->modes[p->nmodes++] = mode;
		env->budget[mode] = (struct cg_budget){.mode = mode,
						       .cpus = o->cpus,
						       .client_cpus = o->client_cpus,
						       .memory_max = o->memory ? o->memory : (uint64_t)2 << 30,
						       .client_memory_max = o->client_memory,
						       .pids_max = 4096,
						       .fixture = p->pg,
						       .fixture_memory_max = o->memory ? o->memory : (uint64_t)2 << 30};
		if (cg_plan_host(&env->budget[mode], &env->plan[mode], err) < 0)
			return -err->errnum;
	}
	/* the noise slice is placed after the others: planning again leaves theirs as they were */
	plan_noise_budget(p, env);
	for (size_t k = 0; k < p->nmodes && env->budget[p->modes[k]].noise_cpus; k++)
		if (cg_plan_host(&env->budget[p->modes[k]], &env->plan[p->modes[k]], err) < 0)
			return hx_wrap(err, "run: the noise slice in %s mode", cg_cpu_mode_names[p->modes[k]]);
	return 0;
}

/* Two local builds of one file name (a/out/Release/node, b/out/Release/node) are node and node-2 in the results. */
static void plan_unique_name(const struct run_plan *p, struct manifest *m)
{
	char base[64];

	snprintf(base, sizeof(base), "%s", m->name);
	for (unsigned n = 2; n < 100; n++) {
		bool taken = false;

		for (size_t i = 0; i + 1 < p->nimg; i++)
			taken |= strcmp(p->img[i].name, m->name) == 0;
		if (!taken || !m->spec[0])
			return;
		snprintf(m->name, sizeof(m->name), "%.58s-%u", base, n);
	}
}

/* The runtimes: those named (shipped names, manifests, local builds, npm specs), or every shipped runtime image
 * but wrangler (its packages are 228 MB, and a default run is the CI suite's); their manifests only (prepare
 * pulls). */
static int plan_images(const struct run_opts *o, struct run_plan *p, struct hx_err *err)
{
	static const char *const defaults[] = {"node20", "node22", "node24", "node26", "bun", "deno", "workerd"};
	char buf[1024], note[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", o->runtimes ? o->runtimes : "");
	for (size_t i = 0; !o->runtimes && i < HX_ARRAY_SIZE(defaults); i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? "," : "", defaults[i]);
	p->runtimes_named = o->runtimes != NULL;
	for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		struct manifest *m = &p->img[p->nimg];

		if (p->nimg == RUN_MAX_RT)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "run: at most %d runtimes", RUN_MAX_RT);
		if (img_spec_load(name, m, note, sizeof(note), err) < 0)
			return name[0] && !strchr(name, '/') && !strchr(name, '@')
				       ? verb_suggest(err, img_manifest_dir(), ".json", name)
				       : hx_wrap(err, "run: --runtimes");
		if (note[0])
			fprintf(stderr, "harness: run: %s\n", note);
		p->nimg++;
		plan_unique_name(p, m);
		if (m->kind != MAN_RUNTIME)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL, "run: %s is a fixture, not a runtime", name);
	}
	return 0;
}

/* --connections and --requests: the same load shape, sized for the machine; the trials record what ran. */
static void scn_override_load(struct scenario *s, const struct run_opts *o)
{
	if (s->workload == SCN_WS_RPC && o->requests) {
		uint64_t n = o->requests < s->clients ? s->clients : o->requests; /* one request per client at least */

		s->warmup_requests = s->warmup_requests ? s->warmup_requests * n / s->requests : 0;
		if (s->warmup_requests && s->warmup_requests < s->clients)
			s->warmup_requests = s->clients;
		s->requests = n;
		return;
	}
	if (s->workload != SCN_HTTP)
		return;
	if (o->connections)
		s->connections = o->connections;
	if (o->connections && s->nroutes) { /* a route matrix at that one connection count */
		s->sweep[0] = o->connections;
		s->nsweep = 1;
	}
	if (o->requests) {
		s->warmup_requests = s->requests ? s->warmup_requests * o->requests / s->requests : 0;
		s->requests = o->requests;
	}
	if (s->connections > s->requests)
		s->connections = (unsigned)s->requests; /* a connection with nothing to send */
}

static int plan_scenarios(char **names, int n, const struct run_opts *o, struct run_plan *p, struct hx_err *err)
{
	static const char *const defaults[] = {"startup", "http-hello"};

	for (int i = 0; i < (n ? n : 2); i++) {
		struct scenario *s = &p->scn[p->nscn];

		if (p->nscn == RUN_MAX_SCN)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "run: at most %d scenarios", RUN_MAX_SCN);
		if (scn_load(scn_dir(), n ? names[i] : defaults[i], s, err) < 0)
			return verb_suggest(err, scn_dir(), "", n ? names[i] : defaults[i]);
		scn_scale(s, p->profile);
		if (o->repeat)
			s->repeat = o->repeat;
		scn_override_load(s, o);
		p->pg |= (s->fixtures & SCN_FX_POSTGRES) != 0;
		p->nscn++;
	}
	if (p->pg && man_load(img_manifest_dir(), "postgres15", &p->pg_img, err) < 0)
		return -err->errnum;
	p->pg_loaded = p->pg;
	return 0;
}

/* --engine: the load client's, for every http trial; a forced io_uring must be able to run every one of them. */
static int plan_engine(const struct run_opts *o, const struct run_plan *p, struct run_env *env, struct hx_err *err)
{
	int e = load_engine_parse(o->engine ? o->engine : "auto");
	const char *why;

	if (e < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "run: --engine takes auto, epoll or io_uring, not '%s'",
			       o->engine);
	env->engine = (enum load_engine)e;
	if (env->engine != LOAD_ENGINE_URING)
		return 0;
	for (size_t i = 0; i < p->nscn; i++)
		if (p->scn[i].workload == SCN_HTTP && p->scn[i].tls)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "run: --engine io_uring: %s is https, which the load client runs on epoll only "
				       "(use --engine auto)",
				       p->scn[i].name);
	if ((why = uring_unsupported()))
		return hx_fail(err, HX_EXIT_HOST, ENOTSUP,
			       "run: --engine io_uring cannot be used here: %s (use --engine auto or epoll)", why);
	return 0;
}

/* --out (checked as it was parsed), or results/harness-<time>.json, whose folder prepare makes when absent: the
 * folder it would be made in must take it before anything runs. */
static int plan_out(const struct run_opts *o, struct run_plan *p, struct hx_err *err)
{
	time_t t = time(NULL);
	struct tm tm;

	if (o->out) {
		snprintf(p->out, sizeof(p->out), "%s", o->out);
		return 0;
	}
	gmtime_r(&t, &tm);
	strftime(p->out, sizeof(p->out), "results/harness-%Y%m%d-%H%M%S.json", &tm);
	return opt_check_out_file("run", "out", util_exists("results") ? p->out : "results", err);
}

/* --no-sandbox: a scenario's npm dependencies are a bind over its node_modules, and a runtime's packages a bind
 * at IMG_PACKAGES, which only a sandbox shows. */
static int plan_bare(const struct run_plan *p, const struct run_env *env, struct hx_err *err)
{
	/* rootless, the sandbox user is the caller: out of the sandbox the runtime would have the caller's files */
	if (env->bare && geteuid() != 0)
		return hx_fail(
			err, HX_EXIT_USAGE, EPERM,
			"run: --no-sandbox needs root: run rootless, the runtime would run as you, with your files "
			"(drop --no-sandbox)");
	for (size_t i = 0; env->bare && i < p->nscn; i++) {
		char lock[PATH_MAX];

		snprintf(lock, sizeof(lock), "%s/package-lock.json", p->scn[i].dir);
		if (util_exists(lock))
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "run: --no-sandbox: scenario %s has npm dependencies, which only the sandbox "
				       "shows at its node_modules: run it without --no-sandbox",
				       p->scn[i].name);
	}
	for (size_t i = 0; env->bare && i < p->nimg; i++)
		if (p->img[i].packages[0])
			return hx_fail(
				err, HX_EXIT_USAGE, EINVAL,
				"run: --no-sandbox: runtime %s has packages, which only the sandbox shows at %s: "
				"run it without --no-sandbox",
				p->img[i].name, IMG_PACKAGES);
	return 0;
}

/* The cells of the plan a scenario runs on a runtime; with say, each it cannot run on and why: every one when
 * the runtimes were named, else those the scenario names (a version too old, its "skip"): a default run does
 * not list every family a scenario lacks. */
static size_t plan_cells(const struct run_plan *p, bool say)
{
	size_t cells = 0;

	for (size_t i = 0; i < p->nscn; i++)
		for (size_t k = 0; k < p->nimg; k++) {
			const struct scenario *s = &p->scn[i];
			char why[512], shown[ESC_LEN];

			if (!scn_why_not(s, &p->img[k], why, sizeof(why))) {
				cells++;
				continue;
			}
			if (say && (p->runtimes_named || scn_names(s, &p->img[k]))) /* the scenario file's words */
				fprintf(stderr, "harness: run: %s skips %s: %s\n", s->name, p->img[k].name,
					esc_term(why, shown, sizeof(shown)));
		}
	return cells;
}

/* A run in which nothing would run is a request that cannot match: exit 2, after the lines that say why. At
 * plan time (say false) only then are the lines printed; prepare, which knows a local build's version, says
 * them all. */
static int note_skips(const struct run_plan *p, bool say, struct hx_err *err)
{
	if (plan_cells(p, say) > 0)
		return 0;
	if (!say)
		plan_cells(p, true);
	return hx_fail(err, HX_EXIT_USAGE, EINVAL,
		       "run: no scenario of the run runs on any of its runtimes (the lines above say why): name "
		       "runtimes of the scenarios' families");
}

static bool plan_needs_bundle(const struct run_plan *p, const struct scenario *s);

/* --node-env: one mode for every runtime; a bundle defines NODE_ENV in itself, so a run whose mode is not
 * the bundle's would compare two builds of the same libraries. */
static int plan_node_env(const struct run_opts *o, const struct run_plan *p, struct run_env *env, struct hx_err *err)
{
	const char *v = o->node_env ? o->node_env : RUN_NODE_ENV;

	if (strlen(v) >= sizeof(env->node_env) ||
	    (v[0] && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(v)))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "run: --node-env takes [a-z0-9._-], at most %zu characters (production, development, "
			       "or '' for none), not '%s'",
			       sizeof(env->node_env) - 1, v);
	snprintf(env->node_env, sizeof(env->node_env), "%s", v);
	for (size_t i = 0; i < p->nscn; i++) {
		const struct scn_bundle *b = &p->scn[i].bundle;

		if (plan_needs_bundle(p, &p->scn[i]) && strcmp(bundle_node_env(b), v) != 0)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "run: --node-env '%s': scenario %s runs %s from a bundle built with "
				       "NODE_ENV=%s; the other runtimes would run another build (use --node-env %s, "
				       "or leave %s out of --runtimes)",
				       v, p->scn[i].name, b->for_runtime, bundle_node_env(b), bundle_node_env(b),
				       b->for_runtime);
	}
	return 0;
}

/* Everything the run will do, validated, with no side effect: options, scenarios, modes and their CPU
 * plans, runtime manifests, the results file's folder. */
static int run_plan(const struct run_opts *o, char **names, int n, struct run_plan *p, struct run_env *env,
		    struct hx_err *err)
{
	int prof = o->profile ? -1 : SCN_STANDARD;

	for (int i = 0; o->profile && i < 3; i++)
		if (strcmp(o->profile, scn_profile_names[i]) == 0)
			prof = i;
	if (prof < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "run: --profile takes quick, standard or full, not '%s'",
			       o->profile);
	p->profile = (enum scn_profile)prof;
	if (o->shard && shard_parse(o->shard, &p->shard, &p->nshards, err) < 0)
		return -err->errnum;
	if (report_format_parse(o->format ? o->format : "table", &p->format) < 0 || p->format >= RPT_CSV)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "run: --format takes table, md or json, not '%s'",
			       o->format);
	if (plan_out(o, p, err) < 0 || plan_noise_kinds(o, p, err) < 0 || plan_scenarios(names, n, o, p, err) < 0 ||
	    plan_engine(o, p, env, err) < 0 || plan_images(o, p, err) < 0 || note_skips(p, false, err) < 0 ||
	    plan_modes(o, p, env, err) < 0 || plan_node_env(o, p, env, err) < 0)
		return -err->errnum;
	env->cap_s = o->cap;
	p->precision = o->precision;
	p->max_repeat = o->max_repeat ? o->max_repeat : RUN_MAX_REPEAT;
	p->allow_prepare_network = o->allow_prepare_network;
	p->adapter_cost = !o->no_adapter_cost;
	if (p->precision && p->nshards)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "run: --precision adds trials as the results come in, --shard splits a fixed plan: "
			       "use one or the other");
	env->isolate = o->isolate;
	env->bare = o->no_sandbox;
	if (o->warmup && strcmp(o->warmup, "auto") != 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "run: --warmup takes auto, not '%s'", o->warmup);
	env->warmup_auto = o->warmup != NULL;
	env->interval_ms = o->interval ? o->interval : RUN_INTERVAL_MS;
	if (plan_bare(p, env, err) < 0)
		return -err->errnum;
	for (size_t k = 0; o->isolate && k < p->nmodes; k++)
		if (p->modes[k] == CG_CPU_PINNED)
			return 0;
	if (o->isolate)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "run: --isolate makes pinned CPUs exclusive: add --mode pinned");
	return 0;
}

/* A local build, before the first trial: its version command runs in its sandbox (the bind, the loader, its
 * libraries: what a trial needs); named by path, what it prints is its version, so that a scenario's min_version
 * applies (a manifest says its own). */
static int prepare_local(struct manifest *m, struct img_status *st, struct hx_err *err)
{
	const char *what = m->spec[0] ? m->spec : m->name;
	char version[64];

	if (!st->present)
		return hx_fail(err, HX_EXIT_USAGE, ENOENT, "run: runtime %s: %s is gone or not executable", what,
			       m->entry);
	if (img_binary_version_strict(m, st, err) < 0) {
		err->exit = HX_EXIT_USAGE;
		return hx_wrap(err, "run: runtime %s does not run in the sandbox (bound at %s)", what, st->bind_dst);
	}
	img_version_of(st->binary_version, version, sizeof(version));
	if (m->spec[0] && (!version[0] || valid_label(version)))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "run: runtime %s: its version command printed '%.60s', which names no version", what,
			       st->binary_version);
	if (m->spec[0])
		snprintf(m->version, sizeof(m->version), "%s", version);
	fprintf(stderr, "harness: run: %s is %s %s (a local build at %s, sha256 %.12s…, %.1f MB)\n", what,
		m->family[0] ? m->family : "a runtime", m->version, st->bind_dst, st->digest + 7,
		(double)st->size / 1e6);
	return 0;
}

/* Absent runtime images are pulled; one that cannot be is an error when named, else skipped with a note. */
static int prepare_images(struct run_plan *p, struct hx_err *err)
{
	struct img_cache cache = {.lock_fd = -1};
	size_t kept = 0;
	int rc = 0;

	if (img_cache_open(&cache, err) < 0)
		return -err->errnum;
	for (size_t i = 0; i < p->nimg; i++) {
		struct manifest *m = &p->img[i];
		struct img_status *st = &p->st[i];
		struct hx_err pe = {0};

		img_status(&cache, m, true, st, err);
		if (rc == 0 && ((!st->present && (img_spec_pin(m, &pe) < 0 || dep_img_pull(&cache, m, &pe) < 0 ||
						  img_status(&cache, m, true, st, &pe) < 0)) ||
				(st->present && img_spec_pin(m, &pe) < 0))) {
			if (p->runtimes_named) {
				*err = pe;
				rc = hx_wrap(err, "run: runtime %s", m->name);
			} else {
				char shown[ESC_LEN * 4];

				fprintf(stderr, "harness: run: skipping %s: %s\n", m->name,
					esc_term_lines(pe.msg, shown, sizeof(shown)));
			}
			man_free(m);
			continue;
		}
		if (man_is_local(m) && (rc = prepare_local(m, st, err)) < 0) {
			man_free(m);
			continue;
		}
		if (!man_is_local(m))
			img_binary_version(m, st);
		p->img[kept] = *m;
		p->st[kept++] = *st;
	}
	p->nimg = kept;
	img_cache_close(&cache);
	if (rc == 0 && p->nimg == 0)
		rc = hx_fail(err, HX_EXIT_HOST, ENOENT, "run: no runtime image is present (harness images pull --all)");
	return rc;
}

/* Out of the sandbox, the runtime's own user runs the image's entry from where it is on the host. */
static int prepare_bare_images(const struct run_plan *p, const struct run_env *env, struct hx_err *err)
{
	char blocker[PATH_MAX];

	for (size_t i = 0; env->bare && i < p->nimg; i++) {
		const struct img_status *st = &p->st[i];
		int r = sbx_bare_can_reach(st->entry, blocker, sizeof(blocker));

		if (r == -EACCES)
			return hx_fail(err, HX_EXIT_USAGE, EACCES,
				       "run: --no-sandbox: the runtime's own user cannot reach %s's %s (others may not "
				       "search %s): %s, or drop --no-sandbox",
				       p->img[i].name, st->entry, blocker,
				       st->tree[0] ? "keep the image cache where others can (HARNESS_CACHE_DIR)"
						   : "name a binary in the manifest that others can reach");
		if (r < 0)
			return hx_fail(err, HX_EXIT_HOST, -r, "run: --no-sandbox: %s's %s: %s", p->img[i].name,
				       st->entry, strerror(-r));
	}
	return 0;
}

/* The fixture image: present or pulled (from npm, or the host's server in a user's manifest); else the
 * scenarios that need it are skipped with the reason, and the modes planned again without a fixture slice. */
static int prepare_fixture(const struct run_opts *o, struct run_plan *p, struct run_env *env, struct hx_err *err)
{
	struct img_cache cache = {.lock_fd = -1};
	struct sbx_userns_map map;
	struct hx_err fe = {0};
	char shown[ESC_LEN * 4];
	size_t kept = 0;
	int rc = 0;

	if (!p->pg)
		return 0;
	if (img_cache_open(&cache, err) < 0)
		return -err->errnum;
	if (sbx_userns_active(&map)) /* initdb and postgres check the uid */
		rc = hx_fail(&fe, HX_EXIT_HOST, EPERM, "%s (run harness as root)",
			     map.roles ? "the postgres fixture needs a root-started run: its template would stay in "
					 "your cache owned by one of your subordinate ids"
				       : "the postgres fixture refuses to run as root, which a rootless run's sandbox "
					 "user is");
	else if (img_status(&cache, &p->pg_img, true, &p->pg_st, &fe) < 0)
		rc = -fe.errnum;
	else if (!p->pg_st.present && img_pull(&cache, &p->pg_img, &fe) < 0)
		rc = hx_wrap(&fe, "it needs the postgres15 fixture (harness images pull postgres15)");
	else if (!p->pg_st.present)
		rc = img_status(&cache, &p->pg_img, true, &p->pg_st, &fe);
	img_cache_close(&cache);
	if (rc == 0)
		return 0;
	for (size_t i = 0; i < p->nscn; i++)
		if (p->scn[i].fixtures & SCN_FX_POSTGRES)
			fprintf(stderr, "harness: run: skipping scenario %s: %s\n", p->scn[i].name,
				esc_term_lines(fe.msg, shown, sizeof(shown)));
		else
			p->scn[kept++] = p->scn[i];
	p->nscn = kept;
	p->pg = false;
	return plan_modes(o, p, env, err);
}

/* npm dependencies, installed once per lock file; a scenario whose cannot be is skipped with the reason. */
static int prepare_deps(struct run_plan *p, struct hx_err *err)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->nscn; i++) {
		struct scenario *s = &p->scn[i];

		if (dep_ensure(&(struct dep_src){s->name, s->dir}, s->node_modules, sizeof(s->node_modules), err) < 0) {
			if (err->exit != HX_EXIT_HOST)
				return -err->errnum;
			char shown[ESC_LEN * 4];

			fprintf(stderr, "harness: run: skipping scenario %s: %s\n", s->name,
				esc_term_lines(err->msg, shown, sizeof(shown)));
			hx_clear(err);
			continue;
		}
		if (kept != i)
			p->scn[kept] = *s;
		kept++;
	}
	p->nscn = kept;
	return 0;
}

/* Every port a server of the run listens on, kept out of the namespace's ephemeral range. */
static int reserve_ports(const struct run_plan *p, int netns_fd, struct hx_err *err)
{
	unsigned ports[RUN_MAX_SCN * 2 + 1];
	size_t n = 0;

	for (size_t i = 0; i < p->nscn; i++) {
		if (p->scn[i].workload == SCN_HTTP || p->scn[i].workload == SCN_WS_CHAT)
			ports[n++] = p->scn[i].port;
		if (p->adapter_cost && p->scn[i].adapter_cost.adapter[0] && n < RUN_MAX_SCN * 2)
			ports[n++] = p->scn[i].port + 1; /* the adapter's side of its duet (run/adapter.c) */
	}
	if (p->pg)
		ports[n++] = FX_PG_PORT;
	return sbx_net_reserve_ports(netns_fd, ports, n, err);
}

/* The scenario's bundle is for a runtime of the run that runs it. */
static bool plan_needs_bundle(const struct run_plan *p, const struct scenario *s)
{
	for (size_t i = 0; i < p->nimg; i++)
		if (scn_bundle_for(s, &p->img[i]) && scn_supports(s, &p->img[i]))
			return true;
	return false;
}

/* The run folder (logs, staged scenarios, the TLS key), the network namespace, the fixture's template and
 * the throwaway certificate. */
static int prepare_run_dir(struct run_plan *p, struct run_env *env, struct hx_err *err)
{
	if (!util_self_exe())
		return hx_syserr(err, "run: setup");
	snprintf(env->harness, sizeof(env->harness), "%s", util_self_exe());
	if (rundir_create(env->dir, sizeof(env->dir), err) < 0)
		return -err->errnum;
	/* out of the sandbox, its user (and only it: the group is its own) reaches the staged scenario, the
	 * certificate and its scratch folders by their paths in here (none can be listed) */
	if (env->bare && (chown(env->dir, 0, SBX_BARE_GID) < 0 || chmod(env->dir, 0710) < 0))
		return hx_syserr(err, "run: %s", env->dir);
	/* an io neighbour writes on the disk under the run folder, as the sandbox user */
	snprintf(env->noise_io_dir, sizeof(env->noise_io_dir), "%s/noise-io", env->dir);
	if (mkdir(env->noise_io_dir, 0700) < 0 ||
	    chown(env->noise_io_dir, sbx_role_uid(SBX_ROLE_NOISE), sbx_role_gid(SBX_ROLE_NOISE)) < 0)
		return hx_syserr(err, "run: %s", env->noise_io_dir);
	if (sbx_net_prepare(&env->netns_fd, err) < 0 || reserve_ports(p, env->netns_fd, err) < 0)
		return -err->errnum;
	for (size_t i = 0; i < p->nscn; i++) {
		struct scenario *s = &p->scn[i];
		char staged[PATH_MAX], blocker[PATH_MAX];

		/* A copy with a node_modules folder to mount the installed dependencies on, or one the sandbox
		 * user can read when the user's own folder is private (mktemp -d makes it 0700); out of the
		 * sandbox, also when a folder above it is (a home folder). */
		if (s->node_modules[0] || s->bundle.for_runtime[0] || !dep_readable_by_all(s->dir) ||
		    (env->bare && sbx_bare_can_reach(s->dir, blocker, sizeof(blocker)) < 0)) {
			if (dep_stage(&(struct dep_src){s->name, s->dir}, env->dir, staged, sizeof(staged), err) < 0)
				return -err->errnum;
			snprintf(s->dir, sizeof(s->dir), "%s", staged);
		}
		if (plan_needs_bundle(p, s) && bundle_make(s, env->dir, env->netns_fd, err) < 0)
			return -err->errnum;
		for (size_t k = 0; s->prepare && k < p->nimg; k++) {
			char dir[PATH_MAX], key[65];

			if (scn_supports(s, &p->img[k]) &&
			    prep_ensure(s, &p->img[k], &p->st[k], p->allow_prepare_network, dir, sizeof(dir), key,
					&p->prepared_held[p->nprepared_held], err) < 0)
				return -err->errnum;
			if (scn_supports(s, &p->img[k]))
				p->nprepared_held++;
		}
	}
	if (p->pg) {
		env->pg = &p->pg_tmpl;
		if (fx_pg_prepare(&p->pg_img, &p->pg_st, env->budget[p->modes[0]].memory_max, env->netns_fd, env->pg,
				  err) < 0)
			return -err->errnum;
		env->pg->interrupted = &run_interrupted;
	}
	for (size_t i = 0; i < p->nscn && !env->tls_dir[0]; i++)
		if (p->scn[i].tls) {
			snprintf(env->tls_dir, sizeof(env->tls_dir), "%s/tls", env->dir);
			if (tls_make_selfsigned(env->tls_dir, err) < 0)
				return -err->errnum;
		}
	return 0;
}

/* The side effects the plan asks for, before the first trial: pulls, npm, the results folder, the run
 * folder, the network namespace, the fixture's template, certificates. */
static int run_prepare(const struct run_opts *o, struct run_plan *p, struct run_env *env, struct hx_err *err)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* a closed terminal or ssh session: clean up as for Ctrl-C */
	/* `run ... 2>&1 | head -1`: a reader gone is an end like Ctrl-C, not a death that leaves the run folder */
	sigaction(SIGPIPE, &sa, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (prepare_images(p, err) < 0 || prepare_bare_images(p, env, err) < 0 || prepare_deps(p, err) < 0 ||
	    prepare_fixture(o, p, env, err) < 0)
		return -err->errnum;
	if (p->nscn == 0)
		return hx_fail(err, HX_EXIT_HOST, ENOENT, "run: no scenario can run here (see the messages above)");
	if (note_skips(p, true, err) < 0)
		return -err->errnum;
	if (!o->out && util_mkdir_p("results", 0755) < 0)
		return hx_syserr(err, "run: results/");
	if (prepare_run_dir(p, env, err) < 0)
		return -err->errnum;
	run_stage("prepare"); /* all made: the run folder, the namespace, the fixture's template */
	return 0;
}

/* What prepare made, undone: the namespace, and the run folder unless --keep. */
static void run_cleanup(const struct run_opts *o, struct run_plan *p, struct run_env *env)
{
	sbx_net_cleanup(&env->netns_fd);
	for (size_t i = 0; i < p->nprepared_held; i++)
		close(p->prepared_held[i]);
	if (env->dir[0] && !o->keep)
		unpack_remove_tree(env->dir);
	else if (env->dir[0])
		fprintf(stderr, "harness: run: logs kept in %s\n", env->dir);
	for (size_t i = 0; i < p->nimg; i++)
		man_free(&p->img[i]);
	if (p->pg)
		fx_pg_template_free(&p->pg_tmpl);
	if (p->pg_loaded)
		man_free(&p->pg_img);
}

/* The fixture's settings under config.fixtures.postgres. */
static void pg_config(const struct run_plan *p, const struct fx_pg_template *t, struct res_pg_config *ret)
{
	struct fx_pg_setting set[16];

	ret->nsettings = fx_pg_settings(t, set);
	for (size_t i = 0; i < ret->nsettings; i++) {
		ret->name[i] = set[i].name;
		snprintf(ret->value[i], sizeof(ret->value[i]), "%s", set[i].value);
	}
	ret->data_size_bytes = fx_pg_data_size(t);
	ret->memory_max_bytes = t->memory_max;
	ret->user = FX_PG_USER;
	ret->database = FX_PG_DATABASE;
	ret->image = &p->pg_img;
	ret->status = &p->pg_st;
}

static void run_config(const struct run_plan *p, const struct run_env *env, struct res_config *c,
		       struct res_pg_config *pg)
{
	const struct cg_slice_plan *first = &env->plan[p->modes[0]];
	struct sbx_userns_map map = {0};

	c->profile = scn_profile_names[p->profile];
	c->engine = load_engine_names[env->engine];
	c->interval_ms = env->interval_ms;
	c->logs = env->dir;
	c->cpus = first->cpus;
	cg_cpus_format(&first->limits[CG_SLICE_CLIENT].cpus, c->client_cpus, sizeof(c->client_cpus));
	c->memory_max_bytes = env->budget[p->modes[0]].memory_max;
	c->client_memory_max_bytes = first->limits[CG_SLICE_CLIENT].memory_max;
	c->cap_s = env->cap_s;
	c->nmodes = p->nmodes;
	for (size_t i = 0; i < p->nmodes; i++) {
		const struct cg_slice_plan *plan = &env->plan[p->modes[i]];
		struct res_mode *m = &c->modes[i];

		m->name = cg_cpu_mode_names[p->modes[i]];
		m->slices = plan->slices;
		for (int s = 0; s < CG_NR_SLICES; s++)
			cg_cpus_format(&plan->limits[s].cpus, m->cpus[s], sizeof(m->cpus[s]));
		m->sut_cpu_quota_us = plan->limits[CG_SLICE_SUT].cpu_quota_us;
		m->sut_shares_client = plan->sut_shares_client;
	}
	if (env->pg)
		pg_config(p, env->pg, pg);
	c->pg = env->pg ? pg : NULL;
	c->nnoise = p->nnoise;
	for (size_t i = 0; i < p->nnoise && i < HX_ARRAY_SIZE(c->noise); i++)
		noise_spec_format(&p->noise[i], c->noise[i], sizeof(c->noise[i]));
	c->noise_placement = cg_noise_placement_names[p->noise_placement];
	c->noise_io_dir = env->noise_io_dir;
	c->sandbox = !env->bare;
	c->rootless = sbx_userns_active(&map);
	snprintf(c->uid_map, sizeof(c->uid_map), "%s", map.uid_map);
	snprintf(c->gid_map, sizeof(c->gid_map), "%s", map.gid_map);
	c->userns_roles = map.roles;
	snprintf(c->userns_shared_why, sizeof(c->userns_shared_why), "%s", map.why_shared);
}

/* config.bundles: per scenario, what bundled which module for which runtime, and the bundle's digest. */
static void bundles_record(const struct run_plan *p, struct res_doc *d)
{
	cJSON *all = NULL;

	for (size_t i = 0; i < p->nscn; i++) {
		const struct scn_bundle *b = &p->scn[i].bundle;
		cJSON *o;

		if (!b->made)
			continue;
		if (!all)
			all = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "bundles");
		o = cJSON_AddObjectToObject(all, p->scn[i].name);
		cJSON_AddStringToObject(o, "for", b->for_runtime);
		cJSON_AddStringToObject(o, "with", b->with);
		cJSON_AddStringToObject(o, "command", strcmp(b->with, "bun") == 0 ? "bun build" : "deno bundle");
		cJSON_AddStringToObject(o, "version", b->version);
		cJSON_AddStringToObject(o, "entry", b->entry);
		cJSON_AddStringToObject(o, "out", b->out);
		cJSON_AddStringToObject(o, "sha256", b->sha256);
		cJSON_AddNumberToObject(o, "bytes", (double)b->bytes);
	}
}

/* config.prepared: per scenario and runtime, the cache entry its trials saw at /prepared. */
static void prepared_record(const struct run_plan *p, struct res_doc *d)
{
	cJSON *all = NULL;

	for (size_t i = 0; i < p->nscn; i++) {
		cJSON *o = NULL;

		for (size_t k = 0; p->scn[i].prepare && k < p->nimg; k++) {
			const struct scenario *s = &p->scn[i];
			char dir[PATH_MAX], key[65], v[80];
			struct hx_err ignored = {0};

			if (!scn_supports(s, &p->img[k]) ||
			    prep_path(s, &p->img[k], &p->st[k], dir, sizeof(dir), key, &ignored) < 0)
				continue;
			if (!all) {
				cJSON *config = cJSON_GetObjectItemCaseSensitive(d->head, "config");

				all = cJSON_AddObjectToObject(config, "prepared");
				cJSON_AddBoolToObject(config, "prepare_network", p->allow_prepare_network);
			}
			if (!o)
				o = cJSON_AddObjectToObject(all, p->scn[i].name);
			snprintf(v, sizeof(v), "sha256-%s", key);
			cJSON_AddStringToObject(o, p->img[k].name, v);
		}
	}
}

/* config.dependencies: per scenario with npm dependencies, the lock file they were installed from and the
 * packages its package.json names at the versions installed (warm-install's npm: the tool it times). */
static void dependencies_record(const struct run_plan *p, struct res_doc *d)
{
	_cleanup_free_ struct dep_direct *dd = calloc(1, sizeof(*dd));
	cJSON *all = NULL;

	for (size_t i = 0; dd && i < p->nscn; i++) {
		struct hx_err ignored = {0};
		cJSON *o, *pkgs;

		if (!p->scn[i].node_modules[0] || dep_lock_read(p->scn[i].dir, dd, &ignored) < 0 || !dd->lock[0])
			continue;
		if (!all)
			all = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(d->head, "config"),
						      "dependencies");
		o = cJSON_AddObjectToObject(all, p->scn[i].name);
		cJSON_AddStringToObject(o, "lock", dd->lock);
		pkgs = cJSON_AddObjectToObject(o, "packages");
		for (size_t k = 0; k < dd->n; k++)
			cJSON_AddStringToObject(pkgs, dd->name[k], dd->version[k]);
	}
}

/* config.modes.<quota|none>.client_as_pinned: whether the client (and fixture) have pinned mode's CPUs at this
 * budget, so that the modes differ in the runtime's CPU limit alone; false where pinned mode does not fit. */
static void placement_record(const struct run_plan *p, const struct run_env *env, struct res_doc *d)
{
	cJSON *modes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "modes");

	for (size_t k = 0; k < p->nmodes; k++) {
		cJSON *m = cJSON_GetObjectItemCaseSensitive(modes, cg_cpu_mode_names[p->modes[k]]);

		if (m && p->modes[k] != CG_CPU_PINNED)
			cJSON_AddBoolToObject(m, "client_as_pinned", env->plan[p->modes[k]].client_as_pinned);
	}
}

/* What describes the run, ahead of the trials: host, config, seccomp, images. */
static int results_head(const struct run_plan *p, const struct run_env *env, struct res_doc *d, struct hx_err *err)
{
	_cleanup_free_ struct res_config *c = calloc(1, sizeof(*c));
	_cleanup_free_ struct res_pg_config *pg = calloc(1, sizeof(*pg));
	_cleanup_free_ char *host = NULL;
	struct sbx_seccomp_opts sec = {0};
	struct sbx_seccomp_desc secd;
	struct hx_err herr = {0};
	char why[512];
	int pinned;

	if (!c || !pg)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (res_doc_init(d, hx_version, hx_commit, err) < 0 || res_doc_run(d, p->ncmd, p->cmd, err) < 0)
		return -err->errnum;
	doctor_probe("/sys", &host, &pinned, why, sizeof(why), &herr); /* without it, the head has no host */
	run_config(p, env, c, pg);
	sbx_seccomp_describe(&sec, &secd);
	if (res_doc_head(d, host, c, &secd, p->img, p->st, p->nimg, err) < 0)
		return -err->errnum;
	bundles_record(p, d);
	prepared_record(p, d);
	dependencies_record(p, d);
	cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "node_env", env->node_env);
	placement_record(p, env, d);
	return 0;
}

/* One trial of scenario sc on image i in mode k with noise j, recorded into t; the returned value is
 * run_trial's. */
static int run_one(struct run_plan *p, struct run_env *env, struct scenario *sc, size_t i, size_t k, size_t j,
		   double deadline, struct trial_result *t, struct hx_err *terr)
{
	int r, e = 0;

	if ((double)util_now_ns() / 1e9 > deadline) {
		t->status = TRIAL_CUT;
		r = hx_fail(terr, HX_EXIT_VERDICT, ETIMEDOUT, "cut: the scenario's --cap ran out");
	} else {
		r = run_trial(env, sc, &p->img[i], &p->st[i], p->modes[k], &p->noise[j], deadline, t, terr);
	}
	t->status = res_trial_status(r, run_interrupted, t->status == TRIAL_CUT);
	/* what the signal caused (a server gone, a probe stopped) is not why the trial ended */
	if (r < 0 && t->status == TRIAL_INTERRUPTED)
		e = res_trial_set_error(t, "interrupted by SIG%s", sigabbrev_np(run_interrupted));
	else if (r < 0)
		e = res_trial_set_error(t, "%s", terr->msg);
	return e < 0 ? hx_fail(terr, HX_EXIT_INTERNAL, -e, "out of memory for a trial's error") : r;
}

static void progress(bool tty, unsigned done, unsigned total, const struct scenario *sc, const char *rt,
		     const char *mode, unsigned t, double start)
{
	double now = (double)util_now_ns() / 1e9;

	if (tty)
		fprintf(stderr, "\r\033[K[%u/%u] %s %s %s trial %u/%u, ETA %.0fs", done + 1, total, sc->name, rt, mode,
			t, sc->repeat, done ? (now - start) / done * (total - done) : 0.0);
	else
		fprintf(stderr, "harness: run: [%u/%u] %s %s %s trial %u/%u\n", done + 1, total, sc->name, rt, mode, t,
			sc->repeat);
}

/* The mode, and the noise when the run has any: "quota", "quota cpu:1". */
static void run_label(const struct run_plan *p, size_t k, size_t j, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "%s", cg_cpu_mode_names[p->modes[k]]);

	if ((p->nnoise > 1 || p->noise[0].kind != NOISE_NONE) && at + 1 < len) {
		buf[at++] = ' ';
		noise_spec_format(&p->noise[j], buf + at, len - at);
	}
}

/* Where run_all is: the trial of a scenario, the image, mode and noise, and the counts. */
struct run_pos {
	size_t s, i, k, j;
	unsigned t, order, done, total;
	double start;
	bool tty;
};

/* The results file after each trial. A write that fails (a full disk) does not end the run nor lose a
 * trial: they stay in memory, the write is tried again after the next trial, and the user is told. */
static void save_partial(const struct res_doc *d, struct run_plan *p)
{
	struct hx_err werr = {0};

	if (res_write(d, p->out, &werr) == 0) {
		if (p->unsaved)
			fprintf(stderr, "harness: run: results: %s written again, %zu trials\n", p->out, d->ntrials);
		p->unsaved = false;
		return;
	}
	if (!p->unsaved)
		fprintf(stderr,
			"harness: run: cannot write the results (%s); the trials are kept and the write is tried "
			"again after each trial\n",
			werr.msg);
	p->unsaved = true;
}

/* The final write failed: the finished trials go to a file in $TMPDIR (or /tmp) rather than be lost; exit 3,
 * the host could not take the file where it was asked for. */
static int save_fallback(const struct res_doc *d, const struct run_plan *p, struct hx_err *err)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	char why[sizeof(err->msg)];
	struct hx_err ferr = {0};

	snprintf(why, sizeof(why), "%s", err->msg);
	snprintf(path, sizeof(path), "%s/harness-results-%d.json", tmp && tmp[0] ? tmp : "/tmp", (int)getpid());
	if (res_write(d, path, &ferr) < 0)
		return hx_fail(err, HX_EXIT_HOST, ferr.errnum, "run: the results are lost: %s; the fallback: %s", why,
			       ferr.msg);
	fprintf(stderr, "harness: run: cannot write the results (%s); all %zu trials are kept in %s instead\n", why,
		d->ntrials, path);
	return hx_fail(err, HX_EXIT_HOST, err->errnum ? err->errnum : EIO,
		       "run: results: %s, not %s (free space there, then move it)", path, p->out);
}
/* harness's own open files and memory as a trial ends: flat from trial to trial, or something leaks. */
static void soak_evidence(struct trial_result *t)
{
	int fds = proc_self_fds();
	long rss = proc_status_kb(getpid(), "VmRSS:");

	t->harness_fds = fds >= 0 ? fds : NAN;
	t->harness_rss_kb = rss >= 0 ? (double)rss : NAN;
}

/* "errors in the load: body 200" (the kinds that are not 0: which check failed). */
static const char *load_errors(const struct trial_result *t, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "errors in the load");
	const char *sep = ":";

	for (int k = 0; k < LE_NR && (t->have & RES_HAVE_LOAD) && at < len; k++)
		if (t->load.errors[k]) {
			at += (size_t)snprintf(buf + at, len - at, "%s %s %llu", sep, load_err_names[k],
					       (unsigned long long)t->load.errors[k]);
			sep = ",";
		}
	return buf;
}

/* One trial at q, into d (*bad set when its verdict failed), and the results file written again. */
static int run_at(struct run_plan *p, struct run_env *env, struct res_doc *d, struct run_pos *q, double deadline,
		  bool *bad, struct hx_err *err)
{
	struct scenario *sc = &p->scn[q->s];
	struct trial_result *tr = res_doc_add(d);
	struct hx_err terr = {0};
	char label[64], why[256], shown[sizeof(terr.msg) * 4];
	int r;

	if (!tr)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	run_label(p, q->k, q->j, label, sizeof(label));
	res_trial_init(tr, sc->name, p->img[q->i].name, cg_cpu_mode_names[p->modes[q->k]], q->t, q->order);
	snprintf(tr->workload, sizeof(tr->workload), "%s", scn_workload_names[sc->workload]);
	progress(q->tty, q->done, q->total, sc, p->img[q->i].name, label, q->t, q->start);
	r = run_one(p, env, sc, q->i, q->k, q->j, deadline, tr, &terr);
	soak_evidence(tr);
	if (tr->status == TRIAL_INTERRUPTED) {
		fprintf(stderr, "%sharness: run: %s %s %s trial %u: %s\n", q->tty ? "\n" : "", sc->name,
			p->img[q->i].name, label, q->t, res_trial_error(tr));
	} else if (!res_trial_passed(tr, sc->max_errors)) {
		*bad = true;
		if (!q->tty || r < 0)
			fprintf(stderr, "%sharness: run: %s %s %s trial %u: %s\n", q->tty ? "\n" : "", sc->name,
				p->img[q->i].name, label, q->t,
				r < 0 ? esc_term_lines(terr.msg, shown, sizeof(shown))
				      : load_errors(tr, why, sizeof(why)));
	}
	q->done++;
	save_partial(d, p);
	return 0;
}

/* What a trial of a scenario is expected to take, in seconds: only the proportions between trials matter
 * (they balance the shards), so a rough model of each workload does. */
static double trial_cost(const struct scenario *s)
{
	double c = s->fixtures ? 3 : 0;

	switch (s->workload) {
	case SCN_STARTUP:
		return c + 1 + 0.1 * (s->runs + s->warmup);
	case SCN_HTTP:
		return c + 2 + (double)(s->requests + s->warmup_requests) / 20000;
	case SCN_WS_CHAT:
		return c + 2 + (double)s->clients * s->messages / 20000;
	case SCN_WS_RPC:
		return c + 2 + (double)s->requests / 20000;
	default:
		return c + 5 + (double)s->iterations / 1000;
	}
}

/* The plan in the order trials run: for each scenario, trial i of every runtime, mode and noise before
 * trial i+1; (q).order is the body's position in the plan (0-based). */
#define RUN_PLAN_FOREACH(p, q)                                                                                         \
	for ((q).s = 0; (q).s < (p)->nscn; (q).s++)                                                                    \
		for ((q).t = 1; (q).t <= (p)->scn[(q).s].repeat; (q).t++)                                              \
			for ((q).i = 0; (q).i < (p)->nimg; (q).i++)                                                    \
				for ((q).k = 0;                                                                        \
				     (q).k < (p)->nmodes && scn_supports(&(p)->scn[(q).s], &(p)->img[(q).i]); (q).k++) \
					for ((q).j = 0; (q).j < (p)->nnoise; (q).j++, (q).order++)

/* Which trials of the plan are this run's (all of them without --shard); *ret is malloc'd, a shard
 * number per position (0-based), *ret_n the plan's length. */
static int plan_shards(const struct run_plan *p, unsigned **ret, size_t *ret_n, struct hx_err *err)
{
	struct run_pos q = {0};
	double *cost;
	size_t n = 0;

	RUN_PLAN_FOREACH(p, q)
	n++;
	cost = calloc(n + 1, sizeof(*cost));
	*ret = calloc(n + 1, sizeof(**ret));
	if (!cost || !*ret) {
		free(cost);
		free(*ret);
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	}
	q = (struct run_pos){0};
	RUN_PLAN_FOREACH(p, q)
	cost[q.order] = trial_cost(&p->scn[q.s]);
	shard_assign(cost, n, p->nshards ? p->nshards : 1, *ret);
	free(cost);
	*ret_n = n;
	return 0;
}

/* config.shard: which part of which plan this file holds; the plan's digest (of every trial's scenario,
 * runtime, mode, noise and number, in order) lets merge refuse parts of different plans. */
static int shard_record(const struct run_plan *p, struct res_doc *d, unsigned mine, size_t n, struct hx_err *err)
{
	struct run_pos q = {0};
	cJSON *o = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "shard");
	_cleanup_free_ char *keys = NULL;
	size_t len = 0, cap = 0;
	char hex[65], label[64], key[256];

	RUN_PLAN_FOREACH(p, q)
	{
		int k;

		run_label(p, q.k, q.j, label, sizeof(label));
		k = snprintf(key, sizeof(key), "%s/%s/%s/%u\n", p->scn[q.s].name, p->img[q.i].name, label, q.t);
		if (len + (size_t)k + 1 > cap) {
			char *grown = realloc(keys, cap = 2 * cap + (size_t)k + 4096);

			if (!grown)
				return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
			keys = grown;
		}
		memcpy(keys + len, key, (size_t)k + 1);
		len += (size_t)k;
	}
	if (!o || util_sha256_hex(keys ? keys : "", len, hex, sizeof(hex)) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	cJSON_AddNumberToObject(o, "index", p->shard);
	cJSON_AddNumberToObject(o, "count", p->nshards);
	cJSON_AddNumberToObject(o, "trials", mine);
	cJSON_AddNumberToObject(o, "plan_trials", (double)n);
	cJSON_AddStringToObject(o, "plan", hex);
	return 0;
}

/* With --precision, whether to run round t (after the repeat) of scenario sc: until every cell converged,
 * --max-repeat or the --cap. */
static bool another_round(const struct run_plan *p, const struct res_doc *d, const struct scenario *sc, unsigned t,
			  double deadline)
{
	_cleanup_free_ struct prec_cell *cells = NULL;
	struct hx_err err = {0};
	size_t n = 0;

	if (!p->precision || t > p->max_repeat || (double)util_now_ns() / 1e9 > deadline || run_interrupted)
		return false;
	return prec_check(d, sc->name, p->precision, &cells, &n, &err) == 0 && !prec_converged(cells, n);
}

/* With --precision: the cells of sc whose median is not known to within it, and why. */
static void precision_report(const struct run_plan *p, const struct res_doc *d, const struct scenario *sc)
{
	_cleanup_free_ struct prec_cell *cells = NULL;
	struct hx_err err = {0};
	size_t n = 0;

	if (!p->precision || prec_check(d, sc->name, p->precision, &cells, &n, &err) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char why[256];

		if (cells[i].converged)
			continue;
		prec_why(&cells[i], why, sizeof(why));
		fprintf(stderr, "%sharness: run: %s %s %s%s%s did not converge to ±%g%%: %s\n",
			isatty(2) ? "\r\033[K" : "", cells[i].scenario, cells[i].runtime, cells[i].mode,
			strcmp(cells[i].noise, "none") ? " " : "", strcmp(cells[i].noise, "none") ? cells[i].noise : "",
			p->precision * 100, why);
	}
}

/* --precision: after the plan, rounds t = repeat+1.. of each scenario, interleaved over runtimes, modes and noise
 * as the plan's, each after the last; the scenario's --cap counts from its first extra round. */
static int run_extra(struct run_plan *p, struct run_env *env, struct res_doc *d, struct run_pos *q, bool *bad,
		     struct hx_err *err)
{
	for (q->s = 0; q->s < p->nscn && p->precision; q->s++) {
		const struct scenario *sc = &p->scn[q->s];
		double deadline = env->cap_s > 0 ? (double)util_now_ns() / 1e9 + env->cap_s : 1e18;

		for (q->t = sc->repeat + 1; another_round(p, d, sc, q->t, deadline); q->t++)
			for (q->i = 0; q->i < p->nimg && !run_interrupted; q->i++)
				for (q->k = 0; q->k < p->nmodes && scn_supports(sc, &p->img[q->i]); q->k++)
					for (q->j = 0; q->j < p->nnoise && !run_interrupted; q->j++) {
						q->order++;
						if (run_at(p, env, d, q, deadline, bad, err) < 0)
							return -err->errnum;
					}
		precision_report(p, d, sc);
	}
	return 0;
}

/* This run's trials of the plan, in its order; a trial's order is its position in the whole plan, so
 * that shards merge into what one run would have written. */
static int run_all(struct run_plan *p, struct run_env *env, struct res_doc *d, struct hx_err *err)
{
	struct run_pos q = {.tty = isatty(2), .start = (double)util_now_ns() / 1e9};
	unsigned mine = p->nshards ? p->shard - 1 : 0;
	_cleanup_free_ unsigned *shard = NULL;
	double deadline = 0;
	size_t n = 0, scn = SIZE_MAX;
	bool bad = false;

	if (plan_shards(p, &shard, &n, err) < 0)
		return -err->errnum;
	for (size_t k = 0; k < n; k++)
		q.total += shard[k] == mine;
	if (p->nshards && shard_record(p, d, q.total, n, err) < 0)
		return -err->errnum;
	/* what this file should hold: a reader can say how much of it an interrupted run left */
	cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(d->head, "config"), "planned_trials", q.total);
	RUN_PLAN_FOREACH(p, q)
	{
		if (run_interrupted || shard[q.order] != mine)
			continue;
		if (q.s != scn) { /* the scenario's first trial here: its --cap starts */
			scn = q.s;
			deadline = env->cap_s > 0 ? (double)util_now_ns() / 1e9 + env->cap_s : 1e18;
		}
		q.order++; /* run_at records 1-based positions */
		if (run_at(p, env, d, &q, deadline, &bad, err) < 0)
			return -err->errnum;
		q.order--;
	}
	q.order = (unsigned)n; /* extra rounds follow the whole plan */
	if (run_extra(p, env, d, &q, &bad, err) < 0)
		return -err->errnum;
	if (q.tty)
		fprintf(stderr, "\r\033[K");
	return bad ? 1 : 0;
}

/* The first of the run's modes in which a trial of scenario s on runtime m passed; -1: none did. */
static int adapter_mode(const struct run_plan *p, const struct res_doc *d, const struct scenario *s,
			const struct manifest *m)
{
	for (size_t k = 0; k < p->nmodes; k++)
		for (size_t i = 0; i < d->ntrials; i++) {
			const struct trial_result *t = &d->trials[i];

			if (t->status == TRIAL_OK && !strcmp(t->scenario, s->name) && !strcmp(t->runtime, m->name) &&
			    !strcmp(t->mode, cg_cpu_mode_names[p->modes[k]]))
				return (int)p->modes[k];
		}
	return -1;
}

/* After the trials, once for each scenario with "adapter_cost" and runtime of it that runs through its adapter
 * (and had a trial pass here): the adapter's duet on a null handler, recorded in adapter_costs (docs/results.md).
 * A measurement that fails is recorded with its reason; the run's verdict is its trials'. */
static void adapter_costs(struct run_plan *p, struct run_env *env, struct res_doc *d)
{
	for (size_t i = 0; p->adapter_cost && i < p->nscn; i++)
		for (size_t k = 0; p->scn[i].adapter_cost.adapter[0] && k < p->nimg && !run_interrupted; k++) {
			const struct scenario *s = &p->scn[i];
			int mode = scn_adapter_for(s, &p->img[k]) ? adapter_mode(p, d, s, &p->img[k]) : -1;
			struct adc_cost c = {0};
			struct hx_err e = {0};

			if (mode < 0)
				continue;
			fprintf(stderr,
				"harness: run: %s on %s: the adapter's cost on a null handler (a %.0f s duet)\n",
				s->name, p->img[k].name, ADAPTER_TIME_S);
			if (adapter_measure(env, s, &p->img[k], &p->st[k], (enum cg_cpu_mode)mode, &c, &e) < 0) {
				snprintf(c.error, sizeof(c.error), "%s", e.msg);
				fprintf(stderr, "harness: run: %s on %s: the adapter's cost not measured: %s\n",
					s->name, p->img[k].name, e.msg);
			}
			if (adc_record(d, &c) < 0)
				fprintf(stderr, "harness: run: out of memory for the adapter's cost\n");
		}
}

/* started_ns: when the verb began, so that the run's wall time covers its preparation too. */
static int run_execute(struct run_plan *p, struct run_env *env, uint64_t started_ns, struct hx_err *err)
{
	struct res_doc results = {0};
	int verdict;

	if (results_head(p, env, &results, err) < 0)
		return -err->errnum;
	verdict = run_all(p, env, &results, err);
	if (verdict < 0) {
		res_doc_free(&results);
		return verdict;
	}
	adapter_costs(p, env, &results);
	results.finished = true;
	res_time_now(results.finished_at, sizeof(results.finished_at));
	results.wall_s = (double)(util_now_ns() - started_ns) / 1e9;
	results.interrupted = run_interrupted;
	results.verdict_ok = !verdict && !run_interrupted;
	if (res_write(&results, p->out, err) < 0) {
		save_fallback(&results, p, err);
		report_render(&results, p->format, stdout, &(struct hx_err){0});
		res_doc_free(&results);
		return -err->errnum;
	}
	if (report_render(&results, p->format, stdout, err) < 0) {
		res_doc_free(&results);
		return -err->errnum;
	}
	fprintf(stderr, "harness: results: %s\n", p->out);
	res_doc_free(&results);
	if (run_interrupted)
		return 128 + run_interrupted;
	return verdict ? HX_EXIT_VERDICT : HX_EXIT_OK;
}

int verb_run(int argc, char **argv)
{
	struct run_opts o = {0};
	struct hx_err err = {0};
	_cleanup_free_ struct run_plan *p = calloc(1, sizeof(*p));
	_cleanup_free_ struct run_env *env = calloc(1, sizeof(*env));
	uint64_t started_ns = util_now_ns();
	int npos, rc;

	if (!p || !env)
		return HX_EXIT_INTERNAL;
	env->netns_fd = -1;
	p->cmd[p->ncmd++] = (char *)"harness";
	for (int i = 0; i < argc && p->ncmd < RUN_MAX_ARGS; i++)
		p->cmd[p->ncmd++] = argv[i];
	if (opt_parse("run", run_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout, "harness run [SCENARIO...] [OPTIONS]",
			"Run scenarios (default: startup and http-hello) on every runtime of a family they support\n"
			"(default runtimes: every shipped runtime image, pulled when absent) in sandboxed, pinned\n"
			"slices (--no-sandbox: out of the sandbox, for comparison); interleave the trials; print a\n"
			"table and write the results file after every trial. Exit 1 when a trial failed or had\n"
			"errors.",
			run_tab);
		return HX_EXIT_OK;
	}
	run_stage("plan");
	rc = run_plan(&o, argv + 1, npos, p, env, &err);
	if (rc == 0)
		rc = rootless_enter("run", &err);
	if (rc == 0)
		rc = run_prepare(&o, p, env, &err);
	if (rc == 0)
		rc = run_execute(p, env, started_ns, &err);
	run_cleanup(&o, p, env);
	return rc < 0 ? hx_report(&err) : rc;
}
