/* `harness run`: scenarios × runtimes × modes × trials, each trial in fresh slices and sandboxes,
 * interleaved, results written after every trial (docs/results.md). */
#ifndef HX_RUN_H
#define HX_RUN_H

#include <stdbool.h>

#include "base/err.h"
#include "cgroups/plan.h"
#include "image/images.h"
#include "load/load.h"
#include "noise/noise_ext.h"
#include "noise/noise_slice.h"
#include "results/results.h"
#include "run/fixture.h"
#include "run/scenario.h"
#include "run/wire.h"

#define RUN_NODE_ENV_LEN 33
/* The timeline's cadence (run --interval): the load client's intervals and the server's samples. Under 10 ms
 * the sampler's reads (~50 us) pass 0.5% of a CPU; the upper bound still leaves a minute-long load its ten
 * intervals to test. */
#define RUN_INTERVAL_MS	    100
#define RUN_INTERVAL_MIN_MS 10
#define RUN_INTERVAL_MAX_MS 6000
/* The mode every runtime runs its libraries in unless --node-env says otherwise: React's production build
 * on every runtime, as a bundle made for workerd has it (docs/scenario.md). */
#define RUN_NODE_ENV "production"

struct run_env {
	struct cg_budget budget[3]; /* per enum cg_cpu_mode */
	struct cg_slice_plan plan[3];
	int netns_fd;
	char dir[PATH_MAX];		 /* run directory: logs */
	char harness[PATH_MAX];		 /* this binary, bound into the client sandbox */
	double cap_s;			 /* each scenario's wall-time budget; 0: none */
	char tls_dir[PATH_MAX];		 /* the run's throwaway certificate and key, when a scenario wants TLS */
	struct fx_pg_template *pg;	 /* the Postgres fixture, when a scenario wants it */
	char noise_io_dir[PATH_MAX];	 /* where an io neighbour writes: on the run folder's disk */
	bool isolate;			 /* pinned trials: the runtime's CPUs made its own (cg_slice_isolate) */
	enum load_engine engine;	 /* --engine: the load client's on http trials (auto: it picks) */
	char prepared[PATH_MAX];	 /* the current trial's prepared state (a bind's source must outlive it) */
	bool bare;			 /* --no-sandbox: the runtime out of the sandbox, for comparison only */
	double trial_end_s;		 /* the current trial's own deadline (run_trial_budget_s), CLOCK_MONOTONIC s */
	char node_env[RUN_NODE_ENV_LEN]; /* NODE_ENV in every runtime's sandbox (--node-env); "": unset */
	struct wire_refs wire;		 /* each scenario's first answer at readiness in the run */
	bool warmup_auto;		 /* --warmup auto: http warm-ups last until the throughput is steady */
	unsigned interval_ms;		 /* --interval: the timeline's cadence; 0: RUN_INTERVAL_MS */
};

/* A trial's measured phase: its neighbour (NOISE_NONE for a quiet trial) and generator while it runs, and
 * the probe of the interference harness did not make. */
struct run_noise {
	struct noise_spec spec;
	struct noise_proc proc;
	bool running;
	char tree[64]; /* the trial's cgroup tree: its tasks are not foreign */
	struct cg_cpus sut_cpus;
	struct noise_ext_probe *probe;
};

/* What one trial measured, filled into trial (named by res_trial_init); a cut or interrupted trial says
 * so in trial->status. */
int run_trial(struct run_env *env, const struct scenario *s, const struct manifest *m, const struct img_status *st,
	      enum cg_cpu_mode mode, const struct noise_spec *noise, double deadline_s, struct trial_result *trial,
	      struct hx_err *err);

/* A side of a duet (harness ab): the slice its runtime runs in (CG_SLICE_SUT or CG_SLICE_SUT_B) and what
 * it adds to the runtime's start: K=V environment after the image's and the scenario's, and arguments
 * after the runtime's name (a flag's effect). */
struct run_side {
	enum cg_slice slice;
	const char *const *env;
	size_t nenv;
	const char *const *args;
	size_t nargs;
};

struct sbx;
struct sbx_config;
/* The scenario's server in the side's slice (NULL: the sut's, as a run starts it), its output to logfd,
 * ready when this returns 0; on failure nothing is left running and the message has its last output. */
int run_server_start(struct run_env *env, const struct scenario *s, const struct manifest *m,
		     const struct img_status *st, struct cg_tree *tree, const struct run_side *side, int logfd,
		     const char *logpath, struct sbx *x, struct trial_result *t, struct hx_err *err);
/* SIGTERM, 2 s to exit, then the slice sl is killed. */
void run_server_stop(struct cg_tree *tree, enum cg_slice sl, struct sbx *x, struct trial_result *t);
/* The sut sandbox's configuration for s on m, with the side's additions (NULL: none); argv and store
 * (MAN_MAX_ARGV + 1 and MAN_MAX_ARGV entries) hold its command line. */
int run_sut_config(struct run_env *env, const struct scenario *s, const struct manifest *m, const struct img_status *st,
		   const struct run_side *side, struct sbx_config *c, char **argv, char store[][PATH_MAX],
		   struct hx_err *err);

/* The default deadline of one trial of s, in seconds (0: none, for the workloads that bound themselves): for an
 * http load, 10 s + the readiness timeout + one response timeout + its requests (warm-up included) at 100 a
 * second; for a route matrix, each cell's warm-up, duration and a response timeout; plus the memory run's idle
 * period and restart. A trial past it fails with its reason (docs/scenario.md). */
double run_trial_budget_s(const struct scenario *s);

/* HARNESS_STOP_AT=STAGE (plan, prepare, readiness, warmup, load, teardown): harness says so on stderr and
 * stops itself (SIGSTOP) the first time it enters that stage, so that a fault test, or someone inspecting a
 * trial, can act at that exact point: kill it, look into its slices and sandboxes, or let it go on (SIGCONT). */
void run_stage(const char *stage);

/* Set by SIGINT/SIGTERM: the current trial stops, results keep what finished. */
extern volatile int run_interrupted;

#endif
