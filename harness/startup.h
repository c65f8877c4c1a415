/* Startup timing, like hyperfine: run a command N times after W warmups and time each run from just
 * before its execve to its exit, with its rusage. */
#ifndef HX_STARTUP_H
#define HX_STARTUP_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

struct startup_opts {
	unsigned runs, warmup;
	bool sandbox, json, show_output;
	const char *export_hyperfine;
	const char *const *binds; /* SRC:DST[:rw] for the sandbox */
	size_t nbinds;
};

/* The --startup part of `harness load`: argv[0..argc) is the command. Sandboxed runs each get a fresh
 * sandbox, cloned by a launcher that is already inside the slice (no cgroup move in any run). */
int startup_verb(const struct startup_opts *o, int argc, char **argv, struct hx_err *err);

#endif
