/* Scenarios (scenarios/<name>/scenario.json): what a benchmark runs, parsed strictly into a plan with
 * no side effects (docs/scenario.md). */
#ifndef HX_SCENARIO_H
#define HX_SCENARIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "image/manifest.h"

#define SCN_MAX_RUNTIMES 16
/* The default minimum of a measured phase: below a second, a start-up hiccup or one GC is the figure. */
#define SCN_MIN_DURATION_S 1.0

enum scn_workload { SCN_STARTUP, SCN_HTTP, SCN_WS_CHAT, SCN_SCRIPT, SCN_WS_RPC };
/* Fixtures a scenario may ask for: one bit each. */
enum scn_fixture { SCN_FX_POSTGRES = 1u << 0 };

#define SCN_MAX_METRICS 8
/* "prepare_size": what a script's prepare step may leave in /prepared (its tmpfs's size), by default and at most:
 * the prepare slice's 2 GiB of memory hold that tmpfs and the step itself */
#define SCN_PREPARE_SIZE     (1ull << 30)
#define SCN_PREPARE_SIZE_MAX (1536ull << 20)

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

#define SCN_MAX_INHERENT 8

/* A difference of the wire at readiness that is the runtime's own (run/wire.c): a header name (lowercase)
 * or "body"; the runs flag it with why instead of failing. */
struct scn_inherent {
	char what[32];
	char why[160];
};

/* A runtime the scenario does not run on, and why (printed when the run skips it). */
struct scn_skip {
	char runtime[64];
	char why[160];
};

/* The oldest version of a family the scenario runs on, and why (node 22.5: node:sqlite). */
struct scn_min_version {
	char family[16];
	char version[32];
	char why[160];
};

struct scn_script {
	char runtime[64]; /* a family or an image name; "" for the default */
	char path[256];	  /* relative to the scenario folder */
};

struct scenario {
	char name[64];
	char description[256];
	char dir[PATH_MAX]; /* the scenario folder on the host */
	enum scn_workload workload;
	char runtimes[SCN_MAX_RUNTIMES][64]; /* the families it supports, or image names (the older form) */
	size_t nruntimes;
	struct scn_min_version min_versions[4];
	size_t nmin_versions;
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
	unsigned memory_no_hint;	    /* a bit per runtimes[] entry: no hint for it (it has none) */
	uint64_t requests, warmup_requests; /* ws-chat: warmup_requests is the messages each client sends first */
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
	struct scn_inherent inherent[SCN_MAX_INHERENT]; /* "wire": {"inherent": {...}} */
	size_t ninherent;
	struct scn_skip adapters[SCN_MAX_RUNTIMES]; /* "adapter": runtime -> the code between it and the app */
	size_t nadapters;
	/* "adapter_cost": the adapter and the runtime's plain server, each on a null handler ("": not measured) */
	struct {
		char adapter[256], plain[256];
	} adapter_cost;
	/* ws-chat; ws-rpc: clients, each with window requests in flight (of requests in all) */
	unsigned clients, messages, window;
	bool counter; /* ws-rpc: increments of a counter that must move by the increments acknowledged */
	/* ws-rpc: the document store's suite (load/docstore.h): its scenarios ("all" or names, "" when none), each
	 * one's wall-time cap, payload-Nkb's documents (by profile) */
	char docstore[512];
	double budget_s;
	unsigned payload_kib;
	uint64_t memory_docs; /* the suite's memory run: its documents, 0 for none */
	/* startup */
	unsigned runs, warmup;
	double expected_cv; /* of a trial's runs; 0: the default (results.h) */
	/* script: the runtime runs the workload and prints one JSON line of metrics */
	uint64_t iterations; /* ITERATIONS in its environment */
	double timeout_s;
	char metrics[SCN_MAX_METRICS][32]; /* required beyond ops, seconds and ops_per_s */
	size_t nmetrics;
	char primary_metric[32]; /* harness ab's metric of the line ("primary_metric", default ops_per_s) */
	bool primary_higher;	 /* a higher primary_metric is better ("primary_better", or from its name) */
	unsigned fixtures;	 /* enum scn_fixture bits */
	bool prepare;		 /* script: run once per runtime with PREPARE=1 first (run/prepare.h) */
	bool prepare_network; /* "prepare": "network": that step needs the host's network (and run --allow-prepare-network) */
	uint64_t prepare_size; /* bytes the prepare step may leave in /prepared (its tmpfs's size) */
	/* every workload but startup: a measured phase shorter than this is flagged short (results.h) */
	double min_duration_s;
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
/* The script a runtime runs: the one for its image's name, else for its family, else the default ("" when
 * the scenario has none for it). */
const char *scn_script_for(const struct scenario *s, const struct manifest *m);
/* Why the scenario cannot run on m (its "skip" reason, a family it has no script for, a version older than its
 * min_version), written into buf; NULL when it runs on m. A version not known yet (a local build before its
 * version command ran) passes the version check. */
const char *scn_why_not(const struct scenario *s, const struct manifest *m, char *buf, size_t len);
bool scn_supports(const struct scenario *s, const struct manifest *m);
/* A script metric's direction from its name (harness ab's default): 1 a rate or a count (ops, *_per_s: higher is
 * better), 0 a time or a size (seconds, *_ms, *_us, *_ns, *_s, *_kb, *_mb, *_bytes: lower is), -1 unknown. */
int scn_metric_direction(const char *name);
/* The scenario names m: its image's name or family is among its runtimes or in its "skip". */
bool scn_names(const struct scenario *s, const struct manifest *m);
/* The memory run sends the runtime the low-memory hint. */
bool scn_memory_hint_for(const struct scenario *s, const struct manifest *m);
/* The scenario's bundle is for m (bundle.for names its image or its family). */
bool scn_bundle_for(const struct scenario *s, const struct manifest *m);
/* Why a difference of the wire (a header name or "body") is the runtimes' own, or NULL when it is not. */
const char *scn_inherent_why(const struct scenario *s, const char *what);
/* The adapter the runtime runs the scenario's app through ("adapter" in scenario.json: by image name or
 * family), or NULL when none. */
const char *scn_adapter_for(const struct scenario *s, const struct manifest *m);
/* The profile's share of the scenario's counts: requests, runs, iterations (at least 1). */
void scn_scale(struct scenario *s, enum scn_profile p);
const char *scn_dir(void);

#endif
