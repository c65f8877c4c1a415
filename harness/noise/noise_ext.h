/* Interference harness did not make, measured over a trial's measured phase: steal time and the CPU time
 * spent on the runtime's CPUs (/proc/stat), the runtime's context switches, migrations and run-queue delay
 * (/proc/<pid>/task/<tid>/{status,sched,schedstat}), and other runnable tasks on its CPUs, sampled every
 * 200 ms by a child process (docs/noise.md). The parsers are pure, for the unit tests. */
#ifndef HX_NOISE_EXT_H
#define HX_NOISE_EXT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "cgroups/cpus.h"

struct noise_ext {
	double seconds;
	bool have_stat;
	double steal_pct; /* steal of the runtime's CPUs' time, in % */
	double busy_ms;	  /* CPU time spent on the runtime's CPUs by anyone (user, system, irq, steal ...) */
	bool have_task;	  /* the runtime's own counters (not for a startup series: many short processes) */
	uint64_t ctxt_voluntary, ctxt_involuntary, migrations;
	double run_delay_ms; /* time its threads were runnable but waited for a CPU */
	unsigned samples;
	double foreign_runnable_mean; /* user tasks outside the trial running or runnable on the runtime's CPUs */
	unsigned foreign_runnable_max;
};

/* Per-CPU lines of /proc/stat, summed over cpus: steal, all and busy (not idle or iowait) ticks. */
int noise_ext_parse_stat(const char *text, const struct cg_cpus *cpus, uint64_t *ret_steal, uint64_t *ret_total,
			 uint64_t *ret_busy);
/* voluntary_ctxt_switches and nonvoluntary_ctxt_switches of a /proc/.../status. */
int noise_ext_parse_ctxt(const char *text, uint64_t *ret_vol, uint64_t *ret_invol);
/* se.nr_migrations of a /proc/.../sched (needs CONFIG_SCHED_DEBUG: -ENOENT without it). */
int noise_ext_parse_migrations(const char *text, uint64_t *ret);
/* The run delay (ns) of a /proc/.../schedstat: "<on cpu ns> <run delay ns> <timeslices>". */
int noise_ext_parse_schedstat(const char *text, uint64_t *ret);
/* State, last CPU and whether it is a kernel thread (PF_KTHREAD), from a /proc/.../stat line (the command may
 * hold spaces and parentheses). */
int noise_ext_parse_task_stat(const char *text, char *ret_state, int *ret_cpu, bool *ret_kthread);

struct noise_ext_probe;

/* Start measuring: pid is the runtime (-1: none), cpus its CPU set, tree the name of the trial's cgroup tree
 * (a task whose cgroup path holds it is the trial's own). */
int noise_ext_start(pid_t pid, const struct cg_cpus *cpus, const char *tree, struct noise_ext_probe **ret,
		    struct hx_err *err);
/* Stop, fill ret with the deltas since the start, free the probe. Safe on NULL (ret untouched). */
void noise_ext_stop(struct noise_ext_probe *p, struct noise_ext *ret);
/* How many samples the sampler has taken so far (0 on NULL): a caller can wait for them with a deadline. */
unsigned noise_ext_samples(const struct noise_ext_probe *p);

#endif
