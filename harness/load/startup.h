/* Startup timing, like hyperfine: run a command N times after W warmups and time each run from just
 * before its execve to its exit, with its rusage. */
#ifndef HX_STARTUP_H
#define HX_STARTUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "base/err.h"
#include "cgroups/alloc.h"

struct startup_opts {
	unsigned runs, warmup;
	bool sandbox, json, show_output;
	const char *export_hyperfine;
	const char *const *binds; /* SRC:DST[:rw] for the sandbox */
	size_t nbinds;
};

struct cg_tree;
struct sbx_config;

/* One run's measurements. status: exit code, 128+N for a signal, -errno when it could not start. exec_ns: the
 * CLOCK_MONOTONIC time of a sandboxed run's execve (0 for a plain run). */
struct startup_record {
	uint64_t wall_ns, user_us, sys_us, maxrss_kb, exec_ns;
	int status;
};

/* warmup + runs sandboxed runs of base->argv, cloned by a launcher placed once in tree's sut slice. */
int startup_series_in(struct cg_tree *tree, const struct sbx_config *base, unsigned runs, unsigned warmup,
		      struct startup_record *recs, struct hx_err *err);

/* The same with the launcher in slice sl (a duet's sut-b: harness ab). */
int startup_series_at(struct cg_tree *tree, enum cg_slice sl, const struct sbx_config *base, unsigned runs,
		      unsigned warmup, struct startup_record *recs, struct hx_err *err);

/* A launcher kept in slice sl for a simultaneous duet (harness ab --duet simultaneous): each byte written to its
 * gate (startup_gate_go) starts one sandboxed run of base->argv at once, whose record is then read from it by
 * the deadline or until *stop (startup_gate_read: -errno with the reason; the caller ends a run past it); closing ends the
 * launcher. Two launchers gated back to back start their runs within microseconds of each other, with no cgroup
 * move in either. A launcher opened after another holds that one's gate too, so shut every gate of the duet
 * (startup_gate_shut) before waiting for any launcher (startup_gate_close). */
struct startup_gate {
	pid_t launcher;
	int gate, out;
	uint64_t go_ns; /* when the last run was started */
};
int startup_gate_open(struct cg_tree *tree, enum cg_slice sl, const struct sbx_config *base, struct startup_gate *g,
		      struct hx_err *err);
int startup_gate_go(struct startup_gate *g, struct hx_err *err);
int startup_gate_read(struct startup_gate *g, uint64_t deadline_ns, volatile sig_atomic_t *stop,
		      struct startup_record *rec, struct hx_err *err);
void startup_gate_shut(struct startup_gate *g);
void startup_gate_close(struct startup_gate *g);

/* warmup + runs runs of argv (NULL-terminated) into recs: each in a fresh sandbox, cloned by a launcher
 * already inside a slice of its own (no cgroup move in any run), or plainly forked here. */
int startup_series(const struct startup_opts *o, char **argv, struct startup_record *recs, struct hx_err *err);

#endif
