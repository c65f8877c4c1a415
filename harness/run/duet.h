/* A duet of two sides of an http scenario (harness ab, docs/ab.md): both servers up at once, each in its
 * own sut slice with the same limits, both warmed, one load client holding connections to both and
 * measuring one side per window in a randomized order; the windows land in an ab_doc as they finish. */
#ifndef HX_DUET_H
#define HX_DUET_H

#include "results/ab.h"
#include "run/run.h"

struct duet_side {
	const struct scenario *s; /* side B's has its own port */
	const struct manifest *m;
	const struct img_status *st;
	struct run_side side;
};

struct duet_opts {
	double window_s, max_time_s;
	/* a server duet's round: --max-time split into rounds of about this (set-up included), both servers started
	 * afresh for each, so that the verdict is on the runtimes and not on two processes (docs/ab.md, "Rounds");
	 * 0, or fewer than PAIRED_MIN_ROUNDS rounds in --max-time: one round */
	double round_s;
	double precision; /* stop once the throughput's CI half-width is within it (two looks in a row) */
	uint64_t seed;
	bool simultaneous; /* a startup duet's runs of A and B at once, on the simultaneous plan's two sets */
};

/* Runs the duet in mode's plan (already made a duet's: cg_plan_duet); d gets every window, the totals and
 * why it stopped. A server that dies or a client that fails ends it with the message. */
int duet_http(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode, const struct duet_opts *o,
	      struct ab_doc *d, struct hx_err *err);

/* The simultaneous duet (docs/ab.md): mode's plan a simultaneous one (cg_budget.simultaneous: sut, sut-b, client,
 * client-b on disjoint sets); both sides' clients started, then blocks of one window each on both sides at once,
 * the sides' (and their clients') CPU sets swapped between blocks; until --precision or --max-time. */
int duet_simultaneous(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode,
		      const struct duet_opts *o, struct ab_doc *d, struct hx_err *err);

/* A startup duet: single runs of A and B alternated, each pair's order drawn from the seed, each run in a fresh
 * sandbox in its side's slice, after the scenario's warm-up runs of each; until --precision or --max-time. With
 * o->simultaneous (mode's plan a simultaneous one with no clients: sut and sut-b on two disjoint sets), each
 * pair's two runs start at once, from a launcher kept in each side's slice, the sets swapped between pairs. */
int duet_startup(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode, const struct duet_opts *o,
		 struct ab_doc *d, struct hx_err *err);

/* A script duet: whole runs of A and B alternated, each pair's order drawn from the seed, each run in a fresh
 * sandbox in its side's slice, its metric the scenario's primary_metric of its line (the first pair the
 * warm-up); until --precision or --max-time. Scenarios with a fixture or a prepare step are refused before. */
int duet_script(struct run_env *env, const struct duet_side sides[2], enum cg_cpu_mode mode, const struct duet_opts *o,
		struct ab_doc *d, struct hx_err *err);

/* The rounds of a server duet: --max-time over --round, one when fewer than PAIRED_MIN_ROUNDS fit. */
unsigned duet_round_count(const struct duet_opts *o);
bool duet_rounds(const struct duet_opts *o);

/* The order of the windows: for each pair, AB or BA by the seed. buf gets 2 * pairs letters. */
void duet_order(uint64_t seed, size_t pairs, char *buf);

#endif
