/* harness's samples of a server while it is measured, for the trial's timeline (docs/results.md): the sut
 * slice's CPU time and memory.current and the server tree's RSS, read from outside the sandbox on a thread of
 * harness's own at the load client's cadence. The runtime pays only the kernel's side of the reads. */
#ifndef HX_SAMPLER_H
#define HX_SAMPLER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "cgroups/cg.h"
#include "report/res_timeline.h"

#define SMP_MAX 8192 /* beyond, every other sample goes and the interval doubles */

struct smp_sample {
	uint64_t t_ns, cpu_usec, memory, rss_kb; /* UINT64_MAX: not read */
};

struct smp {
	const struct cg_tree *tree;
	enum cg_slice slice;
	pid_t pid; /* the server's payload: its tree's RSS */
	uint64_t interval_ns;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool running, stop;
	unsigned n;
	struct smp_sample *s;
};

/* Start sampling now and every interval_ns; -errno when the thread cannot start (the trial goes on
 * without server samples). */
int smp_start(struct smp *m, const struct cg_tree *tree, enum cg_slice slice, pid_t pid, uint64_t interval_ns,
	      struct hx_err *err);
/* One last sample, then the thread joins. */
void smp_stop(struct smp *m);
/* The samples into t's server columns, in ms from t->origin_ns; -ENOMEM. */
int smp_into(const struct smp *m, struct res_timeline *t);
void smp_free(struct smp *m);
/* Resident KB of pid and its descendants (at most 256 processes); UINT64_MAX when pid is gone. */
uint64_t smp_tree_rss_kb(pid_t pid);

#endif
