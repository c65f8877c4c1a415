/* `harness run`: scenarios × runtimes × modes × trials, each trial in fresh slices and sandboxes,
 * interleaved, results written after every trial (docs/results.md). */
#ifndef HX_RUN_H
#define HX_RUN_H

#include <stdbool.h>

#include "cgroups/plan.h"
#include "base/err.h"
#include "run/fixture.h"
#include "image/images.h"
#include "load/load.h"
#include "report/results.h"
#include "run/scenario.h"
#include "noise/noise_ext.h"
#include "noise/noise_slice.h"

struct run_env {
	struct cg_budget budget[3]; /* per enum cg_cpu_mode */
	struct cg_slice_plan plan[3];
	int netns_fd;
	char dir[PATH_MAX];	     /* run directory: logs */
	char harness[PATH_MAX];	     /* this binary, bound into the client sandbox */
	double cap_s;		     /* each scenario's wall-time budget; 0: none */
	char tls_dir[PATH_MAX];	     /* the run's throwaway certificate and key, when a scenario wants TLS */
	struct fx_pg_template *pg;   /* the Postgres fixture, when a scenario wants it */
	char noise_io_dir[PATH_MAX]; /* where an io neighbour writes: on the run folder's disk */
	bool isolate;		     /* pinned trials: the runtime's CPUs made its own (cg_slice_isolate) */
	enum load_engine engine;     /* --engine: the load client's on http trials (auto: it picks) */
	char prepared[PATH_MAX];     /* the current trial's prepared state (a bind's source must outlive it) */
	bool bare;		     /* --no-sandbox: the runtime out of the sandbox, for comparison only */
	bool warmup_auto;	     /* --warmup auto: http warm-ups last until the throughput is steady */
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

/* HARNESS_STOP_AT=STAGE (plan, prepare, readiness, warmup, load, teardown): harness says so on stderr and
 * stops itself (SIGSTOP) the first time it enters that stage, so that a fault test, or someone inspecting a
 * trial, can act at that exact point: kill it, look into its slices and sandboxes, or let it go on (SIGCONT). */
void run_stage(const char *stage);

/* Set by SIGINT/SIGTERM: the current trial stops, results keep what finished. */
extern volatile int run_interrupted;

#endif
