/* Scenarios (scenarios/<name>/scenario.json): what a benchmark runs, parsed strictly into a plan with
 * no side effects (docs/scenario.md). */
#ifndef HX_SCENARIO_H
#define HX_SCENARIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define SCN_MAX_RUNTIMES 16

enum scn_workload { SCN_STARTUP, SCN_HTTP, SCN_WS_CHAT, SCN_SCRIPT, SCN_WS_RPC };
/* Fixtures a scenario may ask for: one bit each. */
enum scn_fixture { SCN_FX_POSTGRES = 1u << 0 };

#define SCN_MAX_METRICS 8

extern const char *const scn_workload_names[5];
enum scn_profile { SCN_QUICK, SCN_STANDARD, SCN_FULL };

extern const char *const scn_profile_names[3];
extern const double scn_profile_scale[3];

#define SCN_MAX_ROUTES	8
#define SCN_MAX_SWEEP	8
#define SCN_MAX_HEADERS 4

/* One route of an http scenario's matrix: the request, and what every response must be (docs/scenario.md). */
struct scn_route {
	char name[32];			    /* the table's column */
	char path[256];			    /* "/api/version" */
	char headers[SCN_MAX_HEADERS][160]; /* "Name: value" */
	size_t nheaders;
	unsigned status; /* default 200 */
	bool has_length;
	uint64_t length;   /* body bytes on the wire */
	char sha256[65];   /* of the body with its Content-Encoding undone; "": not checked */
	char encoding[32]; /* the Content-Encoding it must come with; "": none */
	char range[128];   /* the Content-Range it must come with; "": not checked */
};

/* A runtime the scenario does not run on, and why (printed when the run skips it). */
struct scn_skip {
	char runtime[64];
	char why[160];
};

struct scn_script {
	char runtime[64]; /* "" for the default */
	char path[256];	  /* relative to the scenario folder */
};

struct scenario {
	char name[64];
	char description[256];
	char dir[PATH_MAX]; /* the scenario folder on the host */
	enum scn_workload workload;
	char runtimes[SCN_MAX_RUNTIMES][64]; /* the ones it supports */
	size_t nruntimes;
	struct scn_script scripts[SCN_MAX_RUNTIMES + 1];
	size_t nscripts;
	/* http */
	bool tls; /* the server terminates TLS with the run's throwaway certificate */
	unsigned port;
	char ready_path[256];
	unsigned ready_status;
	double ready_timeout_s;
	unsigned connections, threads, pipeline;
	unsigned timeout_ms; /* a response later than this is an error */
	/* the memory run after the load: idle this long (0: none), the low-memory hint first, then a restart */
	double memory_idle_s;
	bool memory_hint, memory_restart;
	unsigned memory_no_hint; /* a bit per runtimes[] entry: no hint for it (it has none) */
	uint64_t requests, warmup_requests;
	/* every response's body: this many bytes, this SHA-256 (64 hex digits); "" and checked false: not checked */
	bool check_length;
	uint64_t body_length;
	char body_sha256[65];
	/* the route x concurrency matrix: with routes, a trial measures each route at each sweep entry for
	 * duration_s (after warmup_s unmeasured) instead of one load of requests */
	struct scn_route routes[SCN_MAX_ROUTES];
	size_t nroutes;
	unsigned sweep[SCN_MAX_SWEEP];
	size_t nsweep;
	double duration_s, warmup_s;
	struct scn_skip skips[SCN_MAX_RUNTIMES];
	size_t nskips;
	/* ws-chat; ws-rpc: clients, each with window requests in flight (of requests in all) */
	unsigned clients, messages, window;
	bool counter; /* ws-rpc: increments of a counter that must move by the increments acknowledged */
	/* startup */
	unsigned runs, warmup;
	double expected_cv; /* of a trial's runs; 0: the default (results.h) */
	/* script: the runtime runs the workload and prints one JSON line of metrics */
	uint64_t iterations; /* ITERATIONS in its environment */
	double timeout_s;
	char metrics[SCN_MAX_METRICS][32]; /* required beyond ops, seconds and ops_per_s */
	size_t nmetrics;
	unsigned fixtures; /* enum scn_fixture bits */
	bool prepare;	   /* script: run once per runtime with PREPARE=1 first (run/prepare.h) */
	bool prepare_network; /* "prepare": "network": that step needs the host's network (and run --allow-prepare-network) */
	/* both */
	unsigned repeat;
	uint64_t max_errors;
	/* a module bundled at prepare time for one runtime that cannot resolve npm packages itself (workerd):
	 * with is the bundling runtime ("bun": bun build, "deno": deno bundle); for[0] == '\0' when none */
	struct scn_bundle {
		char for_runtime[64], with[64], entry[256], out[256];
		/* filled by the run when it made the bundle: the bundler's version line, the output's digest */
		bool made;
		char version[96], sha256[65];
		uint64_t bytes;
	} bundle;
	/* filled by the run, not the parser: the installed npm dependencies, "" when none */
	char node_modules[PATH_MAX];
};

int scn_parse(const char *file, const char *text, struct scenario *ret, struct hx_err *err);
/* scenarios/<name>/scenario.json under dir, or a path to a scenario.json or its folder. */
int scn_load(const char *dir, const char *name, struct scenario *ret, struct hx_err *err);
/* The script a runtime runs ("" when the scenario has none for it). */
const char *scn_script_for(const struct scenario *s, const char *runtime);
bool scn_supports(const struct scenario *s, const char *runtime);
/* The memory run sends runtime the low-memory hint. */
bool scn_memory_hint_for(const struct scenario *s, const char *runtime);
/* Why the scenario skips runtime, or NULL when it does not. */
const char *scn_skip_reason(const struct scenario *s, const char *runtime);
/* The profile's share of the scenario's counts: requests, runs, iterations (at least 1). */
void scn_scale(struct scenario *s, enum scn_profile p);
const char *scn_dir(void);

#endif
