/* The results of a duet (harness ab, docs/ab.md): the typed document of kind harness-ab/1 — both sides,
 * every window in the order it ran, the pairs they make — its paired analysis per metric and its JSON both ways
 * (report/ab_report.h renders it). */
#ifndef HX_AB_H
#define HX_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "results/results.h"
#include "stats/paired.h"

#define AB_KIND	       "harness-ab/1"
#define AB_MAX_WINDOWS 262144 /* 3,600 s (--max-time's most) of 0.02 s windows (--window's least), and more */
#define AB_IDLE_SHARE  0.05   /* a side busier than this share of a CPU during the other's windows is flagged */
#define AB_DEFAULT_TH  0.02
/* The default window of an interleaved duet and block of a simultaneous one, in seconds (docs/ab.md, "Windows") */
#define AB_WINDOW_S    0.05
#define AB_WS_WINDOW_S 0.1 /* a ws-rpc or ws-chat duet's: 0.05 s bought it nothing (docs/ab.md, "Windows") */
#define AB_BLOCK_S     0.5
/* The default round of an interleaved server duet, in seconds (docs/ab.md, "Rounds") */
#define AB_ROUND_S 5.0
/* A pair whose two windows saw foreign CPU time on the sides' CPUs differing by more than this share of a
 * window, and by more than AB_NOISY_MIN_MS (three of /proc/stat's 10 ms ticks), is noisy: left out of the
 * verdicts and counted (docs/ab.md). */
#define AB_NOISY_SHARE	0.05
#define AB_NOISY_MIN_MS 30.0
/* A duet in rounds whose servers measured this much more in the last third of a round's counted pairs than in its
 * first third (both sides, over the rounds with AB_WARMING_PAIRS counted pairs or more) was still warming up: said,
 * with the fix (docs/ab.md, "Rounds"). */
#define AB_WARMING	 0.10
#define AB_WARMING_PAIRS 6

struct ab_window {
	unsigned pair;
	unsigned round; /* the servers' processes it ran on: a round's are started for it (docs/ab.md, "Rounds") */
	char side;	/* 'A' or 'B' */
	bool warmup;	/* the first pair: the connections' first windows, not counted */
	double start_s, duration_s;
	uint64_t requests, errors, reconnects;
	uint64_t drained; /* of the requests, those answered in the drain after the sending time (load_window) */
	double mean_us, p50_us, p90_us, p99_us, max_us, drain_ms;
	double idle_cpu_ms; /* the other side's slice CPU time from the end of the last window to this one's */
	double own_cpu_ms;  /* the measured side's slice CPU time, the same span */
	double foreign_ms;  /* CPU time on the sides' CPUs that neither side's slice used (/proc/stat), the same span */
	double startup_ms;  /* a startup duet: this window is one run, from its execve to its exit */
	double value;	    /* a script duet: this window is one run, its metric (ab_doc.metric_name); 0: none */
	/* the side's server memory: an http duet's at the window's end (the server tree's RSS, the slice's
	 * memory.current: the trial sampler's reads); a script duet's run's peak RSS (its rusage); NAN: not read (a
	 * startup duet's runs); a document read back has NAN for what it did not hold (no value is 0) */
	double rss_kb, memory_kb;
	/* a simultaneous duet: a window is one side's half of a block; foreign_ms is then on this side's CPUs only,
	 * idle_cpu_ms NAN (no side is idle) */
	char cpus[64];	 /* the side's CPU set in this block */
	bool smt_shared; /* the two sides' sets of this block share SMT siblings */
};

struct ab_side {
	char runtime[64], scenario[64], slice[16], cpus[64];
	char args[256], env[256]; /* --a-arg / --a-env as given, space-separated */
	unsigned port;
};

enum ab_metric { AB_RPS, AB_P50, AB_P99, AB_STARTUP, AB_SCRIPT, AB_MEMORY, AB_NR_METRICS };
extern const char *const ab_metric_names[AB_NR_METRICS];

struct ab_doc {
	char scenario[64], workload[16], mode[16], engine[16], stopped[32], started[32], version[32], commit[16],
		cpu_model[128];
	char duet[16];			      /* "interleaved" (a file without it) or "simultaneous" */
	char metric_name[32];		      /* a script duet's metric of the script's line (AB_SCRIPT) */
	bool metric_higher;		      /* a higher metric_name is better */
	struct res_engine_setup engine_setup; /* what the clients' engine got from the kernel (their last line) */
	struct ab_side side[2];
	double threshold, precision, max_time_s, window_s, wall_s, client_cpu_s;
	double round_s; /* an interleaved server duet's rounds' length; 0: one round */
	uint64_t seed, reconnects, errors;
	unsigned connections, threads;
	struct ab_window *w;
	size_t nw, cap;
	/* derived by ab_analyze, never read back */
	struct paired_result metric[AB_NR_METRICS];
	double idle_share[2]; /* the busiest share of a CPU each side used during the other's windows */
	bool idle_busy[2];
	size_t pairs, noisy_pairs; /* the headline metric's pairs counted, and those left out as noisy */
	/* a duet in rounds: the headline metric in the last third of a round's counted pairs over the first third,
	 * minus 1, better as positive (the geometric mean over rounds of AB_WARMING_PAIRS pairs or more; NAN: no such
	 * round), and whether it is above AB_WARMING */
	double warming;
	bool still_warming;
};

struct ab_window *ab_window_add(struct ab_doc *d);
/* A simultaneous duet: both sides loaded at once in each block (docs/ab.md). */
bool ab_simultaneous(const struct ab_doc *d);
void ab_free(struct ab_doc *d);
/* Whether the pair of windows x, y is noisy (AB_NOISY_SHARE). */
bool ab_pair_noisy(const struct ab_window *x, const struct ab_window *y);
/* Metric m of one window (throughput: its requests per second); NAN when it has none. */
double ab_value(const struct ab_window *w, enum ab_metric m);
/* How a complete pair is used: in the verdicts, or left out as the warm-up pair or as noisy. */
enum ab_pair_use { AB_PAIR_COUNTED, AB_PAIR_WARMUP, AB_PAIR_NOISY, AB_NR_PAIR_USES };
extern const char *const ab_pair_use_names[AB_NR_PAIR_USES]; /* "counted", "warmup", "noisy" */
/* Whether windows i and i + 1 (i even) are a complete pair, one A and one B of one pair number: its two windows
 * and its use. */
bool ab_pair_at(const struct ab_doc *d, size_t i, const struct ab_window **ret_a, const struct ab_window **ret_b,
		enum ab_pair_use *ret_use);
/* The complete pairs of metric m (the warm-up pairs and noisy pairs left out), in the order run: a[i] side A's
 * value, b[i] B's, carry[i] the pair's carry-over (whether B's window followed one of A's, minus whether A's
 * followed one of B's; 0 in a simultaneous duet), round[i] its round. */
struct ab_pairset {
	double *a, *b, *carry;
	unsigned *round;
	size_t n;
};
int ab_pairs(const struct ab_doc *d, enum ab_metric m, struct ab_pairset *ret);
void ab_pairset_free(struct ab_pairset *p);
/* Each side's geometric mean of metric m over those pairs (NAN: none), and their number. */
int ab_side_means(const struct ab_doc *d, enum ab_metric m, double *ret_a, double *ret_b, size_t *ret_n);
/* The paired analysis of every metric and the idle sides' evidence. */
int ab_analyze(struct ab_doc *d);
/* The metric of the first line and the exit code: startup for a startup duet, the script's metric for a script
 * duet, else throughput. */
enum ab_metric ab_headline(const struct ab_doc *d);
/* Whether the duet's workload has metric m (http: throughput, p50, p99, memory; startup: startup; script: the
 * script's metric and memory). */
bool ab_has_metric(const struct ab_doc *d, enum ab_metric m);
/* Whether a higher m is better for B (throughput; a script's metric that is a rate); else it is a cost. */
bool ab_higher_better(const struct ab_doc *d, enum ab_metric m);
/* m's name in the table and the JSON's verdicts: a script duet's metric is its own name. */
const char *ab_metric_label(const struct ab_doc *d, enum ab_metric m);
/* The verdict's word for m: memory is "larger" or "smaller", the others "slower" or "faster". */
const char *ab_verdict_name(enum ab_metric m, enum paired_verdict v);
/* 1 when a metric is significantly worse for B beyond the threshold (the exit code's verdict). */
bool ab_regressed(const struct ab_doc *d);

/* The document's JSON text (malloc'd; NULL when out of memory), as ab_write writes it. */
char *ab_json_text(const struct ab_doc *d);
int ab_write(const struct ab_doc *d, const char *path, struct hx_err *err);
int ab_read(const char *path, struct ab_doc *d, struct hx_err *err);
/* Whether the file is a harness-ab document (its kind), without reading the rest. */
bool ab_is_file(const char *path);
/* The cost ratio B/A of metric m's verdict and its CI (above 1: B slower): a time as it is, a throughput (or a
 * script's rate) inverted (the time per request); the first line's figures. */
void ab_cost(const struct ab_doc *d, enum ab_metric m, double *ret_c, double *ret_low, double *ret_high);

#endif
