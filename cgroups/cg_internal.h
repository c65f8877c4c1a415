/* Shared between the cgroup front (cg.c) and its backends (cg_v1.c, cg_v2.c); not a public header. */
#ifndef CG_INTERNAL_H
#define CG_INTERNAL_H

#include <limits.h>

#include "cgroups/cg.h"

/* Every cgroup file harness touches, named once: the v2 name and the v1 name with its controller. */
enum cg_file {
	CG_F_CPUS,
	CG_F_MEMS,
	CG_F_CPU_QUOTA,
	CG_F_CPU_PERIOD,
	CG_F_MEMORY_MAX,
	CG_F_MEMORY_HIGH,
	CG_F_SWAP_MAX,
	CG_F_PIDS_MAX,
	CG_F_CPU_STAT,
	CG_F_CPU_USER,
	CG_F_CPU_SYSTEM,
	CG_F_MEMORY_CURRENT,
	CG_F_MEMORY_PEAK,
	CG_F_MEMORY_EVENTS,
	CG_F_PIDS_CURRENT,
	CG_F_PIDS_PEAK,
	CG_F_PARTITION,
	CG_F_CPU_EXCLUSIVE,
	CG_NR_FILES,
};

struct cg_file_def {
	const char *what; /* for messages: "memory limit" */
	enum cg_ctrl ctrl;
	const char *v2; /* NULL: v2 has no such file */
	const char *v1; /* NULL: v1 has no such file */
};

extern const struct cg_file_def cg_files[CG_NR_FILES];

struct cg_backend {
	const char *name;
	int (*create)(struct cg_tree *t, struct hx_err *err);
	/* what the versions write differently (CPU quota, swap); cg_slice_apply writes the rest */
	int (*apply)(struct cg_tree *t, enum cg_slice s, const struct cg_limits *l, struct hx_err *err);
	int (*attach)(struct cg_tree *t, enum cg_slice s, pid_t pid, struct hx_err *err);
	void (*stats)(struct cg_tree *t, enum cg_slice s, struct cg_stats *st);
	int (*peak_reset)(struct cg_tree *t, enum cg_slice s); /* -errno when the kernel cannot */
	/* after every slice is empty: rmdir leaf-first; the first failure in err, the rest still tried */
	int (*destroy)(struct cg_tree *t, struct hx_err *err);
};

extern const struct cg_backend cg_backend_v1;
extern const struct cg_backend cg_backend_v2;

struct cg_tree {
	const struct cg_host *host;
	const struct cg_backend *be;
	char run_id[64];
	unsigned slices;		  /* bit per enum cg_slice asked for */
	unsigned created;		  /* bit per enum cg_slice whose cgroups exist */
	char base[CG_NR_CTRLS][PATH_MAX]; /* v1: our cgroup in each controller's hierarchy; "" if none */
	char ubase[PATH_MAX];		  /* the unified tree's cgroup we start from; "" if none */
	bool have_unified;		  /* v2, or a hybrid mirror that was created */
	unsigned unified_killed;	  /* bit per slice whose unified cgroup had cgroup.kill written */
	/* v2 only */
	unsigned added_ctrls;	 /* controllers we enabled in the parent's subtree_control */
	bool in_supervisor_leaf; /* we moved ourselves into harness-<id>/supervisor */
	uint64_t last_move_ns;
	unsigned peak_reset;	   /* bit per slice whose memory peak was reset since its start */
	int peak_fd[CG_NR_SLICES]; /* v2: the memory.peak written to (its reads give the peak since); 0: none */
};

/* "<base>/<run id>[/<slice>][/<file>]" into buf. */
int cg_path(const struct cg_tree *t, const char *base, int slice, const char *file, char *buf, size_t len,
	    struct hx_err *err);
/* The path of a file of a slice (or of the tree itself with slice -1) in the hierarchy that holds it;
 * refuses, naming the knob, when this host has no such file. */
int cg_file_path(const struct cg_tree *t, int slice, enum cg_file f, char *buf, size_t len, struct hx_err *err);
int cg_write_file(const struct cg_tree *t, int slice, enum cg_file f, const char *value, struct hx_err *err);
/* Read a whole file of a slice; -ENOENT when the host lacks it. */
int cg_read_file(const struct cg_tree *t, int slice, enum cg_file f, char **ret);
/* Write a pid to <dir>/cgroup.procs. */
int cg_move_pid(const char *dir, pid_t pid, struct hx_err *err);
/* rmdir, retrying while the kernel still counts exiting tasks (EBUSY); ENOENT is success. */
int cg_rmdir(const char *path);
/* Read PSI (cpu/memory/io.pressure) of a unified cgroup dir. */
void cg_read_psi(const char *dir, struct cg_stats *st);
void cg_stat_set(struct cg_stats *st, enum cg_stat k, uint64_t v);

#endif
