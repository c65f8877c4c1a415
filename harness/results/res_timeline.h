/* A trial's timeline (docs/results.md, timeline): the load client's intervals and harness's samples of the
 * server at the same cadence, as column arrays, with what they say: whether the throughput was steady over
 * the measured phase, and how the server's memory grew per 1,000 requests. */
#ifndef HX_RES_TIMELINE_H
#define HX_RES_TIMELINE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "load/timeline.h"

/* Not steady (docs/results.md, timeline): over the measured phase's intervals (its first RES_STEADY_LEAD_MS,
 * and the last, partial, left out; tested from RES_STEADY_MIN), the throughput's first and
 * last thirds are apart (the first third's RES_STEADY_APART quantile beyond the last's opposite one: a move of
 * the whole, not one slow stretch), their medians differ by more than RES_STEADY_CHANGE of the phase's
 * median, and Mann-Kendall, its variance allowing for the intervals' autocorrelation (trend.h), gives
 * p < RES_STEADY_ALPHA, or they differ by more than RES_STEADY_LARGE (a level that moved by half is not the
 * intervals' noise at any correlation, where strongly correlated intervals leave Mann-Kendall few to count). */
#define RES_STEADY_ALPHA  0.01
#define RES_STEADY_LARGE  0.50
#define RES_STEADY_CHANGE 0.10
#define RES_STEADY_APART  0.10
#define RES_STEADY_MIN	  10
/* The measured phase's lead-in, never tested: the client's connections set up, and the server's answer to a
 * new client after the warm-up's went away, which no warm-up removes since the warm-up's end causes it (node20
 * on timeline-steady: some 25 functions deoptimised as the warm-up's connections close and 40 optimised again
 * over the next 200 ms, on the server's one CPU, at a third to a half of its throughput). */
#define RES_STEADY_LEAD_MS 300.0
/* A leak: the server's RSS grew per 1,000 requests with a 95% CI above 0 and a slope of at least this many
 * bytes (100 bytes a request: a steady runtime's heap settles after the warm-up; the runtime suite's leak
 * kept 3.5-4 KB a request). */
#define RES_LEAK_MIN_BYTES_PER_1K 100000.0
#define RES_GROWTH_MIN_SAMPLES	  10
#define RES_GROWTH_LATE_MIN	  5 /* samples in the phase's last half, for its own slope */
/* samples of the phase for a leak: in a shorter one (2 s at 100 ms) a heap sizing up looks like one */
#define RES_LEAK_MIN_SAMPLES 20

struct res_steady {
	bool tested;
	unsigned intervals;
	double median_rps, slope_rps_per_s, slope_low, slope_high;
	double first_rps, last_rps, change; /* the thirds' medians; change: last - first, / median_rps */
	double tau, p, rho, var_factor;	    /* p: with var_factor for the lag-1 autocorrelation rho */
	bool apart, not_steady;
};

struct res_growth {
	bool tested;
	unsigned samples;
	double rss, rss_low, rss_high;		/* bytes per 1,000 requests, Theil-Sen with Sen's 95% CI */
	double memory, memory_low, memory_high; /* memory.current likewise; NAN when not sampled */
	/* RSS over the phase's last half alone: NAN below RES_GROWTH_LATE_MIN samples there */
	double rss_late, rss_late_low, rss_late_high;
	bool leak; /* the whole phase's slope and its last half's: growth that lasts, not a heap sizing up */
};

/* --warmup auto (docs/results.md, warmup): warm-up loads until one is steady, at most RES_WARMUP_MAX_S. */
#define RES_WARMUP_MAX_S      60.0
#define RES_WARMUP_MAX_ROUNDS 12
struct res_warmup {
	bool have, steady; /* steady: the last round was; false: the cap ended it */
	unsigned rounds;
	uint64_t requests;
	double seconds;
};
cJSON *res_warmup_json(const struct res_warmup *w);
void res_warmup_parse(const cJSON *o, struct res_warmup *ret);

/* The phases of a memory run on the timeline (docs/scenario.md, memory; docs/results.md): each from its t_ms
 * (from the client's first interval) to the next one's; the samples go on through them. */
enum res_tl_phase {
	RES_TL_LOAD,	      /* the measured load */
	RES_TL_IDLE,	      /* idle after the load, no hint */
	RES_TL_IDLE_HINT,     /* idle after the load and the low-memory hint sent as it began */
	RES_TL_RESTART,	      /* the server stopped and started again, until ready */
	RES_TL_AFTER_RESTART, /* the restarted server, ready */
	RES_TL_NR_PHASES,
};
extern const char *const res_tl_phase_names[RES_TL_NR_PHASES];
#define RES_TL_MAX_PHASES 8
struct res_tl_mark {
	enum res_tl_phase phase;
	double t_ms;
};

struct res_timeline {
	/* the client's intervals; origin_ns (CLOCK_MONOTONIC) is where the first begins */
	double interval_ms;
	uint64_t origin_ns;
	unsigned n;
	uint64_t *requests, *errors, *bytes;
	double *p50_us, *p99_us;
	/* harness's samples of the server: ms from origin, CPU ms since the sample before, memory.current and
	 * the server tree's RSS in KB (NAN: not read) */
	double sample_ms;
	unsigned ns;
	double *t_ms, *cpu_ms, *memory_kb, *rss_kb;
	struct res_tl_mark phases[RES_TL_MAX_PHASES]; /* in order; none without a memory run */
	unsigned nphases;
	struct res_steady steady;
	struct res_growth growth;
};

/* A startup series' runs in order: their Mann-Kendall trend, and hyperfine's "first run slower" check (the
 * first run's modified z-score, 0.6745 (x - median) / MAD, above RES_FIRST_RUN_Z: caches the first run filled).
 * Computed from the runs as the file keeps them (µs); an object from 3 runs, else NULL. */
#define RES_FIRST_RUN_Z 14.0
cJSON *res_startup_trend_json(const double *runs_ms, unsigned n);

/* The load's timeline; -ENOMEM. ret is empty when the load kept none. */
int res_timeline_from_tl(const struct tl *t, struct res_timeline *ret);
/* Room for n samples of the server; -ENOMEM. */
int res_timeline_samples(struct res_timeline *t, unsigned n);
/* Phase ph begins at now_ns (CLOCK_MONOTONIC); nothing once RES_TL_MAX_PHASES are marked or before the origin
 * is known. */
void res_timeline_phase(struct res_timeline *t, enum res_tl_phase ph, uint64_t now_ns);
/* The intervals at the start of t that the steady test leaves out: RES_STEADY_LEAD_MS, at least one. */
unsigned res_steady_lead(const struct res_timeline *t);
/* steady and growth from the columns. */
void res_timeline_analyse(struct res_timeline *t);
void res_timeline_free(struct res_timeline *t);
/* The client's columns (with origin_ns: the load client's output); the server's samples, steady and growth
 * when present. */
cJSON *res_timeline_json(const struct res_timeline *t, bool with_origin);
/* -EINVAL when o is not a timeline; -ENOMEM. */
int res_timeline_parse(const cJSON *o, struct res_timeline *ret);
/* The "timeline" of the load client's JSON output; -EINVAL when it has none. */
int res_timeline_read(const char *text, struct res_timeline *ret);

#endif
