/* harness's samples of a server while it is measured, for the trial's timeline (docs/results.md): the sut
 * slice's CPU time and memory.current and the server tree's RSS, read from outside the sandbox by a small
 * process of harness's own at the load client's cadence. The runtime pays only the kernel's side of the reads.
 * A process, not a thread: harness spawns the client's sandbox with clone(2) meanwhile, and a child cloned
 * while another thread held a lock (malloc's) would inherit it held and wait forever. */
#ifndef HX_SAMPLER_H
#define HX_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "cgroups/cg.h"
#include "results/res_timeline.h"

#define SMP_MAX 8192 /* beyond, every other sample goes and the interval doubles */

struct smp_sample {
	uint64_t t_ns, cpu_usec, memory, rss_kb; /* UINT64_MAX: not read */
};

/* Shared with the sampling process (MAP_SHARED): it appends, the parent reads once it has stopped. */
struct smp_shared {
	uint64_t interval_ns;
	pid_t pid; /* the server's payload, whose tree's RSS is read (smp_follow moves it) */
	unsigned n;
	struct smp_sample s[SMP_MAX];
};

struct smp {
	const struct cg_tree *tree;
	enum cg_slice slice;
	pid_t sampler; /* the sampling process; -1: none */
	struct smp_shared *sh;
};

/* Start sampling now and every interval_ns; -errno when the process cannot start (the trial goes on
 * without server samples). */
int smp_start(struct smp *m, const struct cg_tree *tree, enum cg_slice slice, pid_t pid, uint64_t interval_ns,
	      struct hx_err *err);
/* From now on the tree of pid (a restarted server's payload) is the one whose RSS is read. */
void smp_follow(struct smp *m, pid_t pid);
/* The sampling process ends (SIGTERM, reaped), then one last sample here. */
void smp_stop(struct smp *m);
/* The samples into t's server columns, in ms from t->origin_ns; -ENOMEM. */
int smp_into(const struct smp *m, struct res_timeline *t);
void smp_free(struct smp *m);
/* Resident KB of pid and its descendants (at most 256 processes); UINT64_MAX when pid is gone. */
uint64_t smp_tree_rss_kb(pid_t pid);

#endif
