/* What harness needs to run without root, and what is missing: a cgroup v2 subtree delegated to the user
 * (what systemd's Delegate= gives: the cgroup chowned with its cgroup.procs, cgroup.subtree_control and
 * cgroup.threads) and user namespaces an unprivileged process may create (docs/doctor.md). */
#ifndef HX_ROOTLESS_H
#define HX_ROOTLESS_H

#include <cjson/cJSON.h>
#include <sys/types.h>

/* The facts for uid, read below proc_root ("/proc": self/cgroup and the sysctls) and cgroup_root (the
 * cgroup2 mount, "/sys/fs/cgroup"), as {"possible", "cgroup", "missing": [{"what", "fix"}]}. Pure reads:
 * testable on a fixture tree. */
cJSON *rootless_probe(const char *proc_root, const char *cgroup_root, uid_t uid);

#endif
