/* The results document (docs/results.md): typed trials that the engines fill, the verdict, and the JSON
 * at the edge (results_json.c): trial -> JSON, summaries, the atomic write, and a file read back into the
 * same structs. */
#ifndef HX_RESULTS_H
#define HX_RESULTS_H

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "cgroups/cg.h"
#include "image/images.h"
#include "load/chat.h"
#include "load/load.h"
#include "noise/noise.h"
#include "noise/noise_ext.h"
#include "results/res_timeline.h"
#include "sandbox/sbx_seccomp.h"
#include "stats/stats.h"

#define RES_SCHEMA "harness-results/1"
/* A CPU list as the kernel or cg_cpus_format writes it: the sets harness plans are ranges of whole cores, some
 * 40 ranges fit. The slices' planned sets are held on the heap, sized to their text (res_trial_set_cpus): seven
 * of these in every trial were a fifth of a trial's memory (docs/results.md). */
#define RES_CPUS_LEN 256
/* A trial's error is kept to this many bytes, its NUL included (res_trial_set_error). */
#define RES_ERROR_LEN 1024
/* A log's path: in the run folder, /tmp/harness-run-XXXXXX/<kind>-<scenario>-<runtime>[-<mode>-<n>].log, with
 * names of at most 63 characters (valid_name), under 200 characters. */
#define RES_LOG_LEN	256
#define RES_MAX_METRICS 64
/* A client thread at least this busy may measure itself, not the server: against bun and deno on
 * http-hello it was 0.80-0.90 busy while the server still had headroom (a 0.9 rule let their lead pass as
 * measured); run --client-cpus and a scenario's load.threads add client capacity. */
#define RES_SATURATED 0.8

enum trial_status { TRIAL_OK, TRIAL_FAILED, TRIAL_CUT, TRIAL_INTERRUPTED, TRIAL_SKIPPED, TRIAL_NR_STATUS };
extern const char *const res_status_names[TRIAL_NR_STATUS];

/* Latency percentiles of a histogram, in µs. */
struct res_latency {
	double mean, stddev, min, p50, p75, p90, p95, p99, p999, max;
};

/* `harness load --json` (docs/load.md). */
/* What the load client's engine got from the kernel (docs/load.md, engine_setup): a trial's, a duet's. */
struct res_engine_setup {
	char ring_flags[64]; /* io_uring: comma-separated ("single_issuer,defer_taskrun"); "" for epoll */
	bool buffer_ring, multishot_recv;
	char fallback[24]; /* "none", "coop_taskrun", "default_taskrun", "epoll"; "": not recorded */
	char why[160];	   /* what refused the better one ("" without a fallback) */
};

struct res_load {
	uint64_t requests, bytes, reconnects, errors_total, errors[LE_NR];
	bool no_body_count; /* read from a file written before the body check: written back without "body" */
	double duration_s, rps;
	char engine[16]; /* the client's event engine: "epoll" or "io_uring"; "": before it was recorded */
	struct res_engine_setup setup;
	struct res_latency latency_us, latency_uncorrected_us; /* uncorrected: open loop only */
	struct {
		double cpu_s, cpu_us_per_request, max_thread_busy;
		bool saturated;
		char cpus[RES_CPUS_LEN]; /* "": unknown */
	} client;
	struct {
		bool open, tls;
		unsigned connections, threads, pipeline, timeout_ms;
		double rate, duration_s; /* rate: open loop; duration_s: when requests is 0 */
		uint64_t requests;
	} config;
};

/* One cell of a route matrix: a route loaded at one connection count for a fixed duration. */
struct res_cell {
	char route[32];
	unsigned connections;
	struct res_load load;
	struct res_timeline timeline; /* the cell's measured load, as a trial's (owned: res_trial_free) */
};

/* `harness load --chat --json`. */
struct res_chat {
	unsigned clients, messages_per_client;
	uint64_t deliveries_expected, deliveries, lost, duplicated;
	double duration_s, deliveries_per_s;
	struct res_latency rtt_us;
	bool invariant_ok;
	char why[256];
};

struct res_startup {
	struct stats_summary wall_ms;
	double user_ms, system_ms;
	uint64_t max_rss_kb;
	unsigned failed_runs;
	double expected_cv; /* of the runs, from the scenario: more is noise (RES_NOISY_SPREAD); NAN or 0: no rule */
	/* every measured run in order (wall ms, exit code), for the report's strip chart and hyperfine's times[];
	 * malloc'd, owned by the trial (res_trial_free); nruns 0 in files written before they were kept */
	double *runs_ms;
	int *runs_exit;
	unsigned nruns;
};

/* A script's metrics line, in the order printed. */
struct res_script {
	size_t n;
	char name[RES_MAX_METRICS][32];
	double value[RES_MAX_METRICS];
};

/* The server of an http or ws-chat trial; NAN: not measured. */
struct res_server {
	char log[RES_LOG_LEN];
	double idle_rss_kb, peak_rss_kb, post_load_rss_kb;
	double ready_ms; /* from its execve to the readiness probe that saw it ready: its own start, to serving */
	/* the memory run (scenario "memory"): after the idle period, after a restart; the hint sent, "" none */
	double after_idle_rss_kb, after_restart_rss_kb;
	char low_memory_hint[16];
	char cpus[RES_CPUS_LEN];
};

/* One response of the server captured at readiness, before the load (run/wire.c; docs/scenario.md, "The
 * wire"): what every runtime of a scenario must answer alike. */
struct res_wire {
	char path[256];
	unsigned status;
	char framing[16];	/* content-length, chunked or close */
	uint64_t header_bytes;	/* the head: status line to the empty line */
	uint64_t body_bytes;	/* the body as the application sent it (chunks undone) */
	char headers[512];	/* the header names, lowercase, in the order sent, comma-separated */
	char content_type[128]; /* "": none */
	char body_sha256[65];
	char differs[512]; /* a difference from the run's first runtime that the scenario declares inherent */
};

/* The files of the scenario's folder and its node_modules that the server opened from its start to its answer
 * at readiness (run/modules.c; docs/scenario.md, "The modules"): the code each runtime loaded. */
#define RES_MODULES_LISTED \
	64 /* paths kept in the record (64 paths are ~3 KB a trial in the file); files counts them all */
struct res_modules {
	unsigned files;	 /* distinct files opened */
	char sha256[65]; /* over the sorted paths, each with its content's SHA-256 */
	char **paths;	 /* the first RES_MODULES_LISTED in sorted order, malloc'd with the record */
	unsigned npaths;
	char not_recorded[256]; /* why there is no record; "" when there is */
};

/* The process of a script trial. */
struct res_process {
	int exit;
	bool have_times;
	double wall_ms, user_ms, system_ms, max_rss_kb;
	char cpus[RES_CPUS_LEN];
	char log[RES_LOG_LEN];
};

struct res_fixture {
	char name[32], shares_cpus_with[16];
	bool started; /* slice, cpus, ready_ms, log */
	char slice[16], cpus[RES_CPUS_LEN], log[RES_LOG_LEN];
	double ready_ms;
	bool stopped; /* stop_ms, clean_shutdown */
	double stop_ms;
	bool clean_shutdown;
};

/* The neighbour of a noisy trial (docs/noise.md): where the noise slice could run, with whom it shared a
 * physical core, and what its generator did. */
struct res_neighbour {
	char placement[16]; /* apart, sibling (pinned), anywhere (quota, none) */
	char cpus[RES_CPUS_LEN];
	uint64_t cpu_quota_us, memory_max;
	unsigned shares; /* bit per enum cg_slice */
	bool have_generator;
	struct noise_result generator;
	char log[RES_LOG_LEN];
	char error[512]; /* "": none */
};

enum {
	RES_HAVE_SERVER = 1u << 0,
	RES_HAVE_LOAD = 1u << 1,
	RES_HAVE_CHAT = 1u << 2,
	RES_HAVE_STARTUP = 1u << 3,
	RES_HAVE_SCRIPT = 1u << 4,
	RES_HAVE_PROCESS = 1u << 5,
	RES_HAVE_FIXTURE = 1u << 6,
	RES_HAVE_NEIGHBOUR = 1u << 7,
	RES_HAVE_EXTERNAL = 1u << 8,
	RES_HAVE_WIRE = 1u << 9,
	RES_HAVE_MODULES = 1u << 10,
};

/* What a trial cost beyond its workload, ms by phase (docs/results.md: overhead_ms): the trial's cgroup tree;
 * sandboxes from clone to exec (server, clients, a script); readiness, from the last probe that failed (or
 * the first probe's start) to the one that saw the server ready: at most what polling added; stopping the
 * server (SIGTERM to exit); teardown (the tree removed). The fixture, apart and out of the total: Postgres's
 * start to its first login, and its stop (docs/fixtures.md). The runtime's boot and the load are in none. */
enum res_phase {
	RES_PH_SLICES,
	RES_PH_SANDBOXES,
	RES_PH_READY,
	RES_PH_STOP,
	RES_PH_TEARDOWN,
	RES_PH_FIXTURE,
	RES_NR_PHASES
};
extern const char *const res_phase_names[RES_NR_PHASES];

struct res_overhead {
	unsigned have; /* bit per enum res_phase */
	double ms[RES_NR_PHASES];
};

/* Add ms to phase p. */
void res_overhead_add(struct res_overhead *o, enum res_phase p, double ms);
/* The phases' sum but the fixture's: the harness's own fixed cost of the trial. */
double res_overhead_total(const struct res_overhead *o);

struct trial_result {
	char scenario[64], runtime[64], mode[16];
	char workload[16]; /* the scenario's (scn_workload_names); "" in files from before it was kept */
	char noise[32];	   /* the neighbour's kind and level ("cpu:2"); "none" for a quiet trial */
	bool isolated;	   /* --isolate made the runtime's CPUs its own */
	unsigned trial, order;
	enum trial_status status;
	char *error; /* why it failed, malloc'd (res_trial_set_error); NULL: none (res_trial_error says "") */
	double wall_s;
	/* harness's own open files and resident memory as the trial ended (NAN: not measured): a soak's
	 * evidence that trials leak neither */
	double harness_fds, harness_rss_kb;
	double measuring_s; /* of wall_s, the measured phase: the load (no warm-up), the script, the startup runs */
	/* the unmeasured warm-up before it: requests (ws-chat: messages each client sent; a script: WARMUP
	 * iterations), 0 when none; and the scenario's minimum of the measured phase (0: none), below which
	 * the trial is flagged short */
	uint64_t warmup;
	double min_duration_s;
	char adapter[160]; /* the code between the runtime and the scenario's app (scenario "adapter"); "": none */
	struct res_overhead overhead;
	unsigned have;			 /* RES_HAVE_*: the sub-results present */
	unsigned cpus_have, slices_have; /* bit per enum cg_slice */
	char *cpus[CG_NR_SLICES];	 /* the CPU set each slice was planned, malloc'd; NULL where none */
	struct cg_stats slices[CG_NR_SLICES];
	struct res_server server;
	struct res_wire *wire;	     /* an http trial's answer at readiness; NULL when none (res_trial_wire) */
	struct res_modules *modules; /* a server's files opened up to readiness; NULL when none (res_trial_modules) */
	struct res_load load;
	struct res_chat chat;
	struct res_startup startup;
	struct res_script *script; /* a script trial's metrics; NULL for the others (res_trial_script) */
	struct res_process process;
	struct res_fixture fixture;
	struct res_neighbour *neighbour; /* a noisy trial's; NULL for a quiet one (res_trial_neighbour) */
	struct noise_ext external;	 /* interference harness did not make, over the measured phase */
	/* a route matrix (docs/scenario.md): malloc'd, owned by the trial (res_trial_free) */
	struct res_cell *cells;
	unsigned ncells;
	struct res_timeline timeline;  /* an http trial's measured load; owned by the trial (res_trial_free) */
	struct res_warmup warmup_auto; /* --warmup auto: what the warm-up took (JSON warmup_auto) */
	/* the slices harness ended as they thrashed at their memory limit (run/thrash.h; a bit per enum cg_slice)
	 * and the share of the last window each stalled: said in the trial's OOM error */
	unsigned thrashed;
	double thrash_share[CG_NR_SLICES];
};

/* Clear t and name it; every measurement starts absent. */
void res_trial_init(struct trial_result *t, const char *scenario, const char *runtime, const char *mode, unsigned trial,
		    unsigned order);
/* The trial's error; "" when none. */
const char *res_trial_error(const struct trial_result *t);
/* Set the trial's error (printf-like), kept to RES_ERROR_LEN - 1 bytes; -ENOMEM. */
int res_trial_set_error(struct trial_result *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record the CPU set slice sl was planned ("0-3") and its bit in cpus_have; -ENOMEM. */
int res_trial_set_cpus(struct trial_result *t, int sl, const char *cpus);
/* A trial's status from how it ended: rc 0 is ok; otherwise interrupted, cut (the --cap ran out), or
 * failed. */
enum trial_status res_trial_status(int rc, bool interrupted, bool cut);
/* The verdict: the trial ran to the end and its errors (the load's, or a script's own count) are
 * within max_errors. */
bool res_trial_passed(const struct trial_result *t, uint64_t max_errors);
/* Why a trial may have measured more than its runtime (docs/statistics.md): noisy trials are reported and
 * counted, never dropped. Throttling of a pinned runtime (it has its CPUs to itself: any throttling is a
 * misconfigured budget); CPU pressure on the runtime's slice for more than RES_NOISY_PRESSURE of the trial
 * (measured here: 3-45% on a quiet host, 43-77% while other work loaded it); a saturated load client; a
 * stall: one request (or chat round trip) waited at least RES_STALL_FRACTION of the load's duration and at
 * least RES_STALL_MIN_S (a workerd trial's max of 9.0 s in a 9.1 s load: the server stopped answering for most
 * of the trial; the floor keeps a sub-second quick load's first slow answer out). */
enum res_noisy {
	RES_NOISY_THROTTLED,
	RES_NOISY_CPU_PRESSURE,
	RES_NOISY_CLIENT_SATURATED,
	RES_NOISY_STALL,
	RES_NOISY_STEAL,
	RES_NOISY_FOREIGN,
	RES_NOISY_SPREAD,
	RES_NOISY_CONTENDED,
	RES_NOISY_SHORT,
	RES_NOISY_NOT_STEADY, /* the throughput still moved over the measured phase (res_timeline.h) */
	RES_NR_NOISY
};
#define RES_NOISY_PRESSURE 0.5
#define RES_STALL_FRACTION 0.25
#define RES_STALL_MIN_S	   1.0
/* Steal: a hypervisor took more than this share (%) of the runtime's CPUs' time over a measured phase of at
 * least RES_EXT_MIN_S (/proc/stat counts in 10 ms ticks: a shorter window's share is too coarse). Foreign: on
 * average at least this many tasks outside the trial were running or runnable on the runtime's CPUs, over at
 * least RES_EXT_MIN_SAMPLES samples (one run here beside other work: 0-0.3 in most trials, 1-2 in those
 * that shared their CPUs with it). Spread: a startup trial's runs varied more than its scenario's
 * expected_cv (default RES_EXPECTED_CV; a trial's runs varied 3-15% here). */
#define RES_STEAL_PCT	    5.0
#define RES_FOREIGN_MEAN    0.5
#define RES_EXPECTED_CV	    0.2
#define RES_EXT_MIN_S	    1.0
#define RES_EXT_MIN_SAMPLES 5
/* Contended: none of the runtime's tasks could run while one of them waited for a CPU (its slice's PSI cpu
 * `full`) for more than this share of the trial: something outside the slice held its CPUs. The runtime's
 * own threads competing for its CPUs are `some`, not `full`. http-hello trials of bun and node24 on one
 * pinned CPU, 10 each: 0-1% on a quiet host, 4-17% in 117 of 120 trials of six runs beside builds and tests
 * (of which the foreign sampler flagged 5). */
#define RES_CONTENDED 0.03
/* Short: the measured phase (the load, the chat, a script's own seconds; a matrix's shortest cell) lasted
 * less than the scenario's min_duration_s: ws-chat's 16 x 80 messages took 0.15-0.23 s here, where one GC
 * pause or a JIT tier-up is the figure. */
extern const char *const res_noisy_names[RES_NR_NOISY];
/* The reasons, a bit per enum res_noisy; 0: nothing suggests noise. */
unsigned res_trial_noisy(const struct trial_result *t);
/* One reason in words with its evidence, for a reader of the results ("stall: a request waited 9.0 s of a
 * 9.1 s load (the rule: at least 1 s and a quarter of the load)"). */
void res_noisy_reason(const struct trial_result *t, enum res_noisy r, char *buf, size_t len);
/* The number a script printed under name; NAN when it did not. */
double res_script_value(const struct res_script *s, const char *name); /* NAN when s is NULL or lacks it */

void res_latency_from(const struct hist *h, struct res_latency *ret);
void res_load_from(const struct load_config *c, const struct load_result *r, const char *cpus, struct res_load *ret);
void res_chat_from(const struct chat_result *r, struct res_chat *ret);

/* Per scenario × runtime × mode: statistics of each metric over the trials that passed. */
enum res_metric {
	RES_M_STARTUP_MEDIAN_MS,
	RES_M_RPS,
	RES_M_P99_US,
	RES_M_IDLE_RSS_KB,
	RES_M_PEAK_RSS_KB,
	RES_M_POST_LOAD_RSS_KB,
	RES_M_ERRORS,
	RES_M_CLIENT_CPU_US_PER_REQUEST,
	RES_M_DELIVERIES_PER_S,
	RES_M_RTT_P99_US,
	RES_M_LOST,
	RES_M_OPS_PER_S,
	RES_M_SCRIPT_P50_MS,
	RES_M_SCRIPT_P99_MS,
	RES_M_SCRIPT_ERRORS,
	RES_M_SCRIPT_MAX_RSS_KB,
	RES_M_FIXTURE_READY_MS,
	RES_M_NOISE_OPS_PER_S,
	RES_M_SUT_SLICE_PEAK_KB, /* the sut slice's memory peak: the server's whole process tree, its page cache too */
	RES_NR_METRICS
};
extern const char *const res_metric_names[RES_NR_METRICS];
/* The metric's value in one trial; NAN when the trial has none. */
double res_metric(const struct trial_result *t, enum res_metric m);

/* A noisy group against its quiet twin (same scenario, runtime, mode): the shift of the workload's main
 * metric (report/isolation.c). */
struct res_shift {
	bool have;
	enum res_metric metric;
	bool lower_is_better;
	unsigned quiet_trials, noisy_trials;
	double quiet_median, noisy_median;
	double ratio, ci95_low, ci95_high; /* noisy / quiet; the CI NAN when it cannot be had */
	double p;	/* Wilcoxon signed-rank on the pairs when paired, else Mann-Whitney; two-sided; NAN likewise */
	bool paired;	/* ratio, CI and p from the pairs: quiet and noisy trial of one index, both passed */
	unsigned pairs; /* such pairs */
	char placement[16], noise_cpus[RES_CPUS_LEN];
	unsigned shares; /* bit per enum cg_slice */
};

/* A group against its pinned twin of the same run, paired by trial index (report/twin.c). */
struct res_twin {
	bool have, paired, significant; /* significant: p < 0.05 and the CI excludes 1 */
	enum res_metric metric;
	unsigned pairs;			   /* trial indices where both passed */
	double ratio, ci95_low, ci95_high; /* this / pinned, medians; the CI NAN when it cannot be had */
	double p;			   /* Wilcoxon signed-rank when paired, else Mann-Whitney; two-sided */
};

struct res_summary {
	char scenario[64], runtime[64], mode[16], noise[32];
	unsigned trials;
	bool failed, client_saturated;
	unsigned noisy_trials; /* trials with a res_trial_noisy reason */
	unsigned have;	       /* bit per enum res_metric */
	struct stats_summary metric[RES_NR_METRICS];
	struct res_shift shift;
	struct res_twin vs_pinned;
};

/* Whether trial t is of group g: its scenario, runtime, mode and noise. */
bool res_in_group(const struct trial_result *t, const struct res_summary *g);
/* The groups, in the order their first trial ran, each with its shift; *ret is malloc'd (caller frees). */
int res_summarize(const struct trial_result *trials, size_t n, struct res_summary **ret, size_t *ret_n,
		  struct hx_err *err);
/* The shift of group g from its quiet twin, from the trials ts (its own and its twin's, at least; results_shift.c);
 * ret->have is false for a quiet group, or when either side has no trial that passed. -ENOMEM when out of memory. */
int res_shift_of(const struct trial_result *const *ts, size_t n, const struct res_summary *g, struct res_shift *ret);
/* Group g against its pinned twin of the same run (same scenario and runtime, quiet), paired by trial index
 * (results_twin.c); ret->have is false for a pinned or noisy group, a group without a twin, or when either side
 * has no trial that passed. -ENOMEM when out of memory. */
#define RES_TWIN_ALPHA 0.05
int res_twin_of(const struct trial_result *const *ts, size_t n, const struct res_summary *g, struct res_twin *ret);
/* A summary's median of metric m; NAN when absent. */
double res_median(const struct res_summary *s, enum res_metric m);

/* A whole results file. head holds what describes the run (schema, harness, host, config, seccomp,
 * images) as written; trials are typed. */
struct res_doc {
	cJSON *head;
	struct trial_result *trials;
	size_t ntrials, cap;
	bool finished; /* interrupted and verdict are set */
	bool interrupted, verdict_ok;
	char finished_at[32]; /* RFC 3339 UTC, written into head's "run" when set */
	double wall_s; /* the run's wall time, > 0 when known: "run" gets it, the trials' measuring_s and the share */
};

/* Of the run's wall time, the trials' measured phases (Σ measuring_s / wall_s); NAN when the wall is unknown. */
double res_doc_measuring_share(const struct res_doc *d, double *ret_measuring_s);

/* An empty document: schema and harness version; the caller adds the rest of the head. */
int res_doc_init(struct res_doc *d, const char *version, const char *commit, struct hx_err *err);
/* The run's own facts in the head: "run": {"command": [argv...], "started_at": now (RFC 3339, UTC)}. */
int res_doc_run(struct res_doc *d, int argc, char *const *argv, struct hx_err *err);
/* Now as RFC 3339 UTC: "2026-11-30T18:05:28Z". */
void res_time_now(char *buf, size_t len);
/* Room for one more trial, initialised by res_trial_init; NULL when out of memory. */
struct trial_result *res_doc_add(struct res_doc *d);
void res_doc_free(struct res_doc *d);
/* What a trial owns on the heap (res_doc_free does it for its trials). */
void res_trial_free(struct trial_result *t);
/* The trial's script metrics or neighbour, allocated (zeroed) the first time: the rare big parts of a trial are
 * not in every trial of a 100,000-trial file. NULL when out of memory. */
struct res_script *res_trial_script(struct trial_result *t);
/* The trial's wire record, allocated zeroed on first use (1.5 KB most trials never need); NULL: out of memory. */
struct res_wire *res_trial_wire(struct trial_result *t);
/* The trial's modules record, allocated zeroed on first use; NULL: out of memory. */
struct res_modules *res_trial_modules(struct trial_result *t);
/* Add path to the record's list (past RES_MODULES_LISTED it is only counted by files); -ENOMEM. */
int res_modules_add(struct res_modules *m, const char *path);
struct res_neighbour *res_trial_neighbour(struct trial_result *t);
/* Room for one more matrix cell, zeroed; NULL when out of memory. */
struct res_cell *res_cell_add(struct trial_result *t);
/* Keep a copy of the n runs of a startup trial; -ENOMEM when out of memory. */
int res_startup_runs(struct res_startup *s, const double *ms, const int *exit, unsigned n);

cJSON *res_trial_json(const struct trial_result *t);
/* The value at a dotted path ("host.kernel") below o, or NULL when any step is missing (or over 127 characters). */
const cJSON *res_json_at(const cJSON *o, const char *path);
int res_trial_parse(const cJSON *o, struct trial_result *ret, struct hx_err *err);
void res_engine_setup_from(const struct load_setup *s, struct res_engine_setup *ret);
/* "engine_setup" added to o (the ring's flags as an array of names); nothing when it was not recorded. */
void res_engine_setup_json(cJSON *o, const struct res_engine_setup *s);
/* From o's "engine_setup"; fallback "" when there is none (a file from before it was recorded). */
void res_engine_setup_parse(const cJSON *o, struct res_engine_setup *ret);
cJSON *res_load_json(const struct res_load *l);
int res_load_parse(const cJSON *o, struct res_load *ret);
cJSON *res_chat_json(const struct res_chat *c);
int res_chat_parse(const cJSON *o, struct res_chat *ret);
cJSON *res_stats_json(const struct cg_stats *st);
/* A noise generator's JSON line (`harness noise`), both ways: a usage error when it is not one. */
cJSON *res_noise_json(const struct noise_result *r);
int res_noise_parse(const cJSON *o, struct noise_result *ret, struct hx_err *err);
int res_noise_read(const char *text, struct noise_result *ret, struct hx_err *err);
/* "name value" lines, for people. */
void res_stats_print(FILE *f, const struct cg_stats *st);
cJSON *res_summary_json(const struct stats_summary *s, double scale);
/* The load client's JSON output, as `harness run` reads it back from its sandbox. */
int res_load_read(const char *text, struct res_load *ret, struct hx_err *err);
int res_chat_read(const char *text, struct res_chat *ret, struct hx_err *err);

/* What describes a run, ahead of its trials (docs/results.md: config). */
struct res_mode {
	const char *name;
	unsigned slices; /* bit per enum cg_slice planned */
	char cpus[CG_NR_SLICES][RES_CPUS_LEN];
	uint64_t sut_cpu_quota_us; /* 0: none */
	bool sut_shares_client;	   /* quota: too few CPUs to keep the client out of the runtime's set */
};

struct res_pg_config {
	size_t nsettings;
	const char *name[16];
	char value[16][32];
	uint64_t data_size_bytes, memory_max_bytes;
	const char *user, *database;
	const struct manifest *image;
	const struct img_status *status;
};

struct res_config {
	const char *profile, *logs;
	const char *engine;   /* --engine as asked: auto, epoll or io_uring (each trial's load.engine: what ran) */
	unsigned interval_ms; /* --interval: the timelines' cadence; 0: not a run's (not recorded) */
	unsigned cpus;
	char client_cpus[RES_CPUS_LEN];
	uint64_t memory_max_bytes;
	uint64_t client_memory_max_bytes; /* the load client's slice */
	double cap_s;
	size_t nmodes;
	struct res_mode modes[3];
	const struct res_pg_config *pg; /* NULL: no scenario has the fixture */
	size_t nnoise;
	char noise[8][32];	       /* --noise, each formatted ("cpu:2") */
	const char *noise_placement;   /* apart or sibling */
	const char *noise_io_dir;      /* "": none */
	bool sandbox;		       /* false: run --no-sandbox, the runtime out of the sandbox */
	bool rootless;		       /* started unprivileged: harness in a user namespace of its own */
	char uid_map[64], gid_map[64]; /* rootless: the namespace's maps ("0 1000 1, 2147479552 100000 6") */
	bool userns_roles;	       /* rootless: every role a user of its own (a subordinate range mapped) */
	char userns_shared_why[256];   /* rootless without: why every role is the caller */
};

/* The head: host (doctor's JSON text; NULL when it could not be had), config, the seccomp policy and the
 * runtime images. */
int res_doc_head(struct res_doc *d, const char *host_json, const struct res_config *c,
		 const struct sbx_seccomp_desc *sec, const struct manifest *img, const struct img_status *st,
		 size_t nimg, struct hx_err *err);
cJSON *res_image_json(const struct manifest *m, const struct img_status *st);
cJSON *res_seccomp_json(const struct sbx_seccomp_desc *d);

/* The document as JSON, with the summaries computed from the trials. */
cJSON *res_doc_json(const struct res_doc *d, struct hx_err *err);
/* Temp file, fsync, rename: a crash keeps the last complete document. */
int res_write(const struct res_doc *d, const char *path, struct hx_err *err);
/* A results file of this schema (any harness-results/1 writer) into typed trials. */
int res_read(const char *path, struct res_doc *ret, struct hx_err *err);

#endif
