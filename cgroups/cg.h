/* The cgroup front API: a run's tree of slices, their limits, processes, stats and teardown, over a
 * v2 or a v1 (with hybrid mirror) backend chosen once from the host's mode. */
#ifndef CG_CG_H
#define CG_CG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "cgroups/alloc.h"
#include "cgroups/cpus.h"
#include "cgroups/mode.h"

struct cg_limits {
	struct cg_cpus cpus;	/* required: every slice gets a CPU set (all usable CPUs when unpinned) */
	struct cg_cpus mems;	/* NUMA nodes; empty means the parent's */
	uint64_t cpu_quota_us;	/* 0: no quota */
	uint64_t cpu_period_us; /* with a quota; 100000 when 0 */
	uint64_t memory_max;	/* bytes; 0: no limit (swap is then not limited either) */
	uint64_t pids_max;	/* 0: no limit */
};

enum cg_stat {
	CG_STAT_CPU_USER_USEC,
	CG_STAT_CPU_SYSTEM_USEC,
	CG_STAT_NR_PERIODS,
	CG_STAT_NR_THROTTLED,
	CG_STAT_THROTTLED_USEC,
	CG_STAT_MEMORY_CURRENT,
	CG_STAT_MEMORY_PEAK,
	CG_STAT_OOM,
	CG_STAT_OOM_KILL,
	CG_STAT_PIDS_CURRENT,
	CG_STAT_PIDS_PEAK,
	CG_NR_STATS,
};

enum cg_psi_res { CG_PSI_CPU, CG_PSI_MEMORY, CG_PSI_IO, CG_NR_PSI };

struct cg_psi {
	bool have, have_full;
	double some_avg10, full_avg10;
	uint64_t some_total_usec, full_total_usec;
};

enum cg_peak_since {
	CG_PEAK_SINCE_UNKNOWN, /* not said (results of an older harness) */
	CG_PEAK_SINCE_START,   /* the slice's start: the warm-up included */
	CG_PEAK_SINCE_RESET,   /* cg_slice_peak_reset: the measurement only */
};

struct cg_stats {
	uint64_t v[CG_NR_STATS];
	bool have[CG_NR_STATS]; /* false: the host cannot tell (never reported as zero) */
	struct cg_psi psi[CG_NR_PSI];
	enum cg_peak_since peak_since; /* what memory_peak_bytes counts from */
};

extern const char *const cg_stat_names[CG_NR_STATS];
extern const char *const cg_psi_names[CG_NR_PSI];

struct cg_tree;

/* A run id that names its owner: "harness-<pid>-<start time in clock ticks>", or
 * "harness-<tag>-<pid>-<start>" when HARNESS_RUN_TAG is set (tests name their own trees with it). */
#define CG_TAG_MAX 24
int cg_run_id(char *buf, size_t len, struct hx_err *err);
/* HARNESS_RUN_TAG, checked (exit 2 when malformed); *ret is NULL when unset. */
int cg_run_tag(const char **ret, struct hx_err *err);
void cg_run_id_format(char *buf, size_t len, const char *tag, pid_t pid, unsigned long long start);
/* Whether run id name's harness process is gone (or its pid is another process's now); with a tag, only a
 * run id of that tag can be. False for what is not a run id. */
bool cg_run_id_orphaned(const char *name, const char *only_tag);
/* Split a run id; ret_tag gets "" when untagged. -EINVAL when name is not a run id. */
int cg_run_id_parse(const char *name, char *ret_tag, size_t tag_len, pid_t *ret_pid, unsigned long long *ret_start);
/* Create harness-<run-id>/ and the slices in `slices` (a bit per enum cg_slice) under the cgroup we
 * were started in, or under root_override (a cgroup path such as "/bench") when not NULL. */
int cg_tree_create(const char *run_id, const char *root_override, unsigned slices, struct cg_tree **ret,
		   struct hx_err *err);
int cg_slice_apply(struct cg_tree *t, enum cg_slice s, const struct cg_limits *l, struct hx_err *err);
/* Start fn(arg) in a new child process that is inside the slice from its first instruction, in the
 * new namespaces that clone_flags ask for (CLONE_NEW*); the child _exits with fn's return value. */
int cg_spawn(struct cg_tree *t, enum cg_slice s, unsigned long clone_flags, int (*fn)(void *), void *arg,
	     pid_t *ret_pid, struct hx_err *err);
int cg_slice_stats(struct cg_tree *t, enum cg_slice s, struct cg_stats *ret, struct hx_err *err);
/* A timeline's sample: the slice's CPU time (user + system, µs) and memory.current (v1: usage_in_bytes), only
 * those files read; UINT64_MAX for what the host cannot tell. Safe beside the owner's thread while it waits. */
void cg_slice_sample(const struct cg_tree *t, enum cg_slice s, uint64_t *ret_cpu_usec, uint64_t *ret_memory);
/* The slice's memory.pressure "full" total (v2, or the hybrid mirror: PSI counts a task in its unified cgroup
 * whichever hierarchy limits it): µs in which all its tasks waited on memory; UINT64_MAX when the host cannot
 * tell. Only that file is read (a trial looks every second). */
uint64_t cg_slice_memory_stall_usec(const struct cg_tree *t, enum cg_slice s);
/* The memory the slice may use before the kernel reclaims from it: the lower of memory.max and memory.high (v1:
 * memory.limit_in_bytes); UINT64_MAX when it has none or the host cannot tell. */
uint64_t cg_slice_memory_limit(const struct cg_tree *t, enum cg_slice s);
/* Start the slice's memory peak again from its usage now (between a warm-up and the measurement):
 * v2 writes memory.peak (Linux 6.12+) and keeps that descriptor, whose reads give the peak since; v1
 * resets memory.max_usage_in_bytes. -EOPNOTSUPP (or the errno) when the kernel cannot: the peak then
 * covers the slice's whole life, and its stats say so. */
int cg_slice_peak_reset(struct cg_tree *t, enum cg_slice s, struct hx_err *err);
/* The processes in the slice now (each hierarchy's cgroup.procs, each pid once), up to max: how many. None
 * for a slice the tree does not have. */
size_t cg_slice_pids(const struct cg_tree *t, enum cg_slice s, pid_t *ret, size_t max);
/* Kill every process in the slice and wait until it is empty. */
int cg_slice_kill(struct cg_tree *t, enum cg_slice s, struct hx_err *err);
/* Kill, remove every cgroup of the tree leaf-first, free it, whatever fails on the way; the first
 * failure is returned (the library never prints: the caller says it). Safe on NULL. */
int cg_tree_destroy(struct cg_tree *t, struct hx_err *err);
/* Nanoseconds the last process move into a slice took (0 when clone3 placed it directly). */
uint64_t cg_last_move_ns(const struct cg_tree *t);
const char *cg_backend_name(const struct cg_tree *t);
/* Whether the slice's unified cgroup (v2, or the hybrid mirror) has a file: "cgroup.kill", ... */
bool cg_slice_has(const struct cg_tree *t, enum cg_slice s, const char *file);

/* Whether a run can make the runtime's CPUs its own here (--isolate), and why not: v2 needs the cpuset
 * controller and a start cgroup that is a partition root; v1's cpuset.cpu_exclusive keeps only sibling
 * cpusets apart, never the tasks of the ancestors. Returns 1 or 0; why says which. */
int cg_isolation_possible(char *why, size_t len);
/* Make slice s's CPUs exclusive (v2): the tree becomes a partition root over tree_cpus (the run's CPUs, of
 * which one must stay outside for the rest of the host), then the slice a partition root of its own, so no
 * task outside the slice is scheduled on its CPUs. Exit 3 with the kernel's reason when it refuses. */
int cg_slice_isolate(struct cg_tree *t, enum cg_slice s, const struct cg_cpus *tree_cpus, struct hx_err *err);

/* Remove trees whose owning harness process has exited (only those of HARNESS_RUN_TAG's tag when it is
 * set); *ret_removed counts them. */
int cg_gc(const char *root_override, unsigned *ret_removed, struct hx_err *err);

/* Our own CPU constraints: the effective cpuset of the cgroup we run in (all CPUs when the host
 * does not say) and our sched affinity. */
int cg_own_cpuset(struct cg_cpus *ret, struct hx_err *err);
int cg_own_affinity(struct cg_cpus *ret, struct hx_err *err);

#endif
