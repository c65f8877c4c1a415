/* Startup timing, like hyperfine: run a command N times after W warmups and time each run from just
 * before its execve to its exit, with its rusage. */
#ifndef HX_STARTUP_H
#define HX_STARTUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* One run's measurements. status: exit code, 128+N for a signal, -errno when it could not start. */
struct startup_record {
	uint64_t wall_ns, user_us, sys_us, maxrss_kb;
	int status;
};

/* warmup + runs sandboxed runs of base->argv, cloned by a launcher placed once in tree's sut slice. */
int startup_series_in(struct cg_tree *tree, const struct sbx_config *base, unsigned runs, unsigned warmup,
		      struct startup_record *recs, struct hx_err *err);

/* The same with the launcher in slice sl (a duet's sut-b: harness ab). */
int startup_series_at(struct cg_tree *tree, enum cg_slice sl, const struct sbx_config *base, unsigned runs,
		      unsigned warmup, struct startup_record *recs, struct hx_err *err);

/* warmup + runs runs of argv (NULL-terminated) into recs: each in a fresh sandbox, cloned by a launcher
 * already inside a slice of its own (no cgroup move in any run), or plainly forked here. */
int startup_series(const struct startup_opts *o, char **argv, struct startup_record *recs, struct hx_err *err);

#endif
