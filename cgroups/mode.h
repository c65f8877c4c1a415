/* Which cgroup layout this host has (unified v2, legacy v1, hybrid), where each hierarchy is mounted
 * and which cgroup this process was started in. Detected once and cached. */
#ifndef CG_MODE_H
#define CG_MODE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

enum cg_mode {
	CG_MODE_NONE,	 /* no cgroup file system mounted */
	CG_MODE_UNIFIED, /* cgroup2 at /sys/fs/cgroup */
	CG_MODE_LEGACY,	 /* v1 controllers only */
	CG_MODE_HYBRID,	 /* v1 controllers plus an (empty) cgroup2 tree, usually /sys/fs/cgroup/unified */
};

/* The controllers harness uses; v1 mounts each in its own hierarchy (or several together). */
enum cg_ctrl {
	CG_CTRL_CPUSET,
	CG_CTRL_CPU,
	CG_CTRL_CPUACCT,
	CG_CTRL_MEMORY,
	CG_CTRL_PIDS,
	CG_NR_CTRLS,
};

extern const char *const cg_ctrl_names[CG_NR_CTRLS];
extern const char *const cg_mode_names[];

struct cg_hier {
	bool mounted;
	char mount[PATH_MAX]; /* mount point */
	char root[PATH_MAX];  /* the mount's root within the hierarchy (mountinfo field 4) */
	char self[PATH_MAX];  /* our cgroup within the hierarchy, from /proc/self/cgroup */
};

struct cg_host {
	enum cg_mode mode;
	struct cg_hier v1[CG_NR_CTRLS];
	struct cg_hier unified;
};

/* Fill mounts from /proc/self/mountinfo text. */
int cg_parse_mountinfo(const char *text, struct cg_host *h, struct hx_err *err);
/* Fill our own cgroup paths from /proc/self/cgroup text. */
int cg_parse_proc_cgroup(const char *text, struct cg_host *h, struct hx_err *err);
/* The mode the mounts imply: cgroup2 alone is unified, v1 controllers with or without cgroup2 are
 * legacy or hybrid. */
enum cg_mode cg_mode_from_mounts(const struct cg_host *h);
/* The directory of our own cgroup in a hierarchy: mount + (self relative to the mount's root). */
int cg_hier_dir(const struct cg_hier *hi, char *buf, size_t len, struct hx_err *err);

/* Detect this host once (statfs of /sys/fs/cgroup, mountinfo, /proc/self/cgroup); later calls return
 * the cached answer. */
int cg_host_get(const struct cg_host **ret, struct hx_err *err);

#endif
