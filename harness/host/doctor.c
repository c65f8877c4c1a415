/* `harness doctor`: probes cgroups, CPUs and topology, kernel facilities and runtimes, and says
 * whether a pinned run is possible, naming the fix when it is not. */
#include "host/doctor.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cgroups/cg.h"
#include "cgroups/plan.h"
#include "cgroups/topo.h"
#include "base/cleanup.h"
#include "base/opt.h"
#include "base/util.h"
#include "host/rootless.h"

static void json_cpus(cJSON *o, const char *key, const struct cg_cpus *s)
{
	char buf[CG_MAX_CPUS * 5];

	cg_cpus_format(s, buf, sizeof(buf));
	cJSON_AddStringToObject(o, key, buf);
}

/* A one-line file as a JSON string, or null when unreadable. */
static void json_file_line(cJSON *o, const char *key, const char *path)
{
	struct hx_err err = {0};
	_cleanup_free_ char *v = NULL;

	if (util_read_line(path, &v, &err) == 0)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void probe_kernel(cJSON *root)
{
	struct utsname u;
	cJSON *k = cJSON_AddObjectToObject(root, "kernel");

	if (uname(&u) == 0) {
		cJSON_AddStringToObject(k, "release", u.release);
		cJSON_AddStringToObject(k, "version", u.version);
		cJSON_AddStringToObject(k, "machine", u.machine);
	}
}

static void cpu_model(char *buf, size_t len)
{
	struct hx_err err = {0};
	_cleanup_free_ char *text = NULL;
	const char *p;

	snprintf(buf, len, "unknown");
	if (util_read_file("/proc/cpuinfo", &text, NULL, &err) < 0 || !(p = strstr(text, "model name")))
		return;
	p = strchr(p, ':');
	if (p)
		sscanf(p + 1, " %255[^\n]", buf);
}

static int probe_cpus(cJSON *root, const char *sysfs, unsigned *ret_usable, struct hx_err *err)
{
	_cleanup_free_ struct cg_topo *t = calloc(1, sizeof(*t));
	struct cg_cpus cpuset, affinity, usable;
	cJSON *c = cJSON_AddObjectToObject(root, "cpus");
	cJSON *list;
	char model[256], path[PATH_MAX];

	if (!t)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (cg_topo_read(sysfs, t, err) < 0 || cg_own_cpuset(&cpuset, err) < 0 || cg_own_affinity(&affinity, err) < 0)
		return -err->errnum;
	cg_usable_cpus(t, &cpuset, &affinity, &usable);
	cg_cpus_and(&cpuset, &t->online);
	cg_cpus_and(&affinity, &t->online);
	cpu_model(model, sizeof(model));
	cJSON_AddStringToObject(c, "model", model);
	json_cpus(c, "online", &t->online);
	json_cpus(c, "cpuset", &cpuset);
	json_cpus(c, "affinity", &affinity);
	json_cpus(c, "isolated", &t->isolated);
	json_cpus(c, "usable", &usable);
	cJSON_AddNumberToObject(c, "usable_count", cg_cpus_count(&usable));
	cJSON_AddNumberToObject(c, "packages", t->nr_packages);
	cJSON_AddNumberToObject(c, "cores", t->nr_cores);
	cJSON_AddNumberToObject(c, "threads_per_core", t->threads_per_core);
	cJSON_AddNumberToObject(c, "numa_nodes", t->nr_nodes);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cpufreq/scaling_governor", sysfs);
	json_file_line(c, "governor", path);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/intel_pstate/no_turbo", sysfs);
	if (util_exists(path))
		json_file_line(c, "intel_no_turbo", path);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpufreq/boost", sysfs);
	json_file_line(c, "boost", path);
	list = cJSON_AddArrayToObject(c, "topology");
	CG_CPUS_FOREACH (cpu, &t->online) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "cpu", cpu);
		cJSON_AddNumberToObject(e, "package", t->cpu[cpu].package);
		cJSON_AddNumberToObject(e, "die", t->cpu[cpu].die);
		cJSON_AddNumberToObject(e, "core", t->cpu[cpu].core);
		cJSON_AddNumberToObject(e, "node", t->cpu[cpu].node);
		cJSON_AddNumberToObject(e, "smt_rank", t->cpu[cpu].smt_rank);
		cJSON_AddBoolToObject(e, "usable", cg_cpus_test(&usable, (unsigned)cpu));
		cJSON_AddItemToArray(list, e);
	}
	*ret_usable = cg_cpus_count(&usable);
	return 0;
}

static const char *ctrl_fix(enum cg_mode mode, int c)
{
	if (mode == CG_MODE_UNIFIED)
		return c == CG_CTRL_CPUACCT ? "cgroup v2 accounts CPU time in cpu.stat; nothing to do"
					    : "delegate the controller to harness's cgroup: systemd-run --scope -p "
					      "Delegate=yes harness ...";
	return "mount the v1 hierarchy, e.g. mount -t cgroup -o <controller> cgroup /sys/fs/cgroup/<controller>";
}

/* Per controller: where it lives and whether harness can use it; returns whether cpuset is usable. */
static bool probe_controllers(cJSON *cg, const struct cg_host *h, bool created)
{
	bool cpuset_ok = false;

	cJSON *list = cJSON_AddArrayToObject(cg, "controllers");
	struct hx_err err = {0};
	_cleanup_free_ char *avail = NULL;

	if (h->mode == CG_MODE_UNIFIED) {
		char dir[PATH_MAX], path[PATH_MAX];

		if (cg_hier_dir(&h->unified, dir, sizeof(dir), &err) == 0) {
			snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
			util_read_line(path, &avail, &err);
		}
	}
	for (int c = 0; c < CG_NR_CTRLS; c++) {
		cJSON *e = cJSON_CreateObject();
		bool present;

		if (h->mode == CG_MODE_UNIFIED)
			present = c == CG_CTRL_CPUACCT || (avail && strstr(avail, cg_ctrl_names[c]));
		else
			present = h->v1[c].mounted;
		cJSON_AddStringToObject(e, "name", cg_ctrl_names[c]);
		cJSON_AddStringToObject(e, "hierarchy", h->mode == CG_MODE_UNIFIED ? "v2" : "v1");
		if (h->mode != CG_MODE_UNIFIED && h->v1[c].mounted)
			cJSON_AddStringToObject(e, "mount", h->v1[c].mount);
		cJSON_AddBoolToObject(e, "usable", present && created);
		if (c == CG_CTRL_CPUSET)
			cpuset_ok = present && created;
		if (!present)
			cJSON_AddStringToObject(e, "fix", ctrl_fix(h->mode, c));
		cJSON_AddItemToArray(list, e);
	}
	return cpuset_ok;
}

static int probe_cgroups(cJSON *root, bool *ret_cpuset_ok, char *why, size_t why_len, struct hx_err *err)
{
	const struct cg_host *h;
	cJSON *cg = cJSON_AddObjectToObject(root, "cgroup");
	struct cg_tree *t = NULL;
	struct hx_err terr = {0};
	char id[64];
	bool created;

	if (cg_host_get(&h, err) < 0 || cg_run_id(id, sizeof(id), err) < 0)
		return -err->errnum;
	cJSON_AddStringToObject(cg, "mode", cg_mode_names[h->mode]);
	if (h->unified.mounted)
		cJSON_AddStringToObject(cg, "unified_mount", h->unified.mount);
	created = cg_tree_create(id, NULL, 1u << CG_SLICE_SUT, &t, &terr) == 0;
	cJSON_AddBoolToObject(cg, "can_create", created);
	if (!created) {
		cJSON_AddStringToObject(cg, "create_error", terr.msg);
		snprintf(why, why_len, "%s", terr.msg);
	} else {
		cJSON *u = cJSON_AddObjectToObject(cg, "unified_features");

		cJSON_AddStringToObject(cg, "backend", cg_backend_name(t));
		cJSON_AddBoolToObject(u, "kill", cg_slice_has(t, CG_SLICE_SUT, "cgroup.kill"));
		cJSON_AddBoolToObject(u, "freeze", cg_slice_has(t, CG_SLICE_SUT, "cgroup.freeze"));
		cJSON_AddBoolToObject(u, "psi", cg_slice_has(t, CG_SLICE_SUT, "cpu.pressure"));
		cJSON_AddBoolToObject(u, "clone_into_cgroup", h->mode == CG_MODE_UNIFIED);
	}
	if (cg_tree_destroy(t, &terr) < 0)
		cJSON_AddStringToObject(cg, "destroy_error", terr.msg);
	*ret_cpuset_ok = probe_controllers(cg, h, created);
	if (created && !*ret_cpuset_ok)
		snprintf(why, why_len, "the cpuset controller is not available to harness (%s)",
			 ctrl_fix(h->mode, CG_CTRL_CPUSET));
	return 0;
}

static void probe_memory(cJSON *root)
{
	struct hx_err err = {0};
	_cleanup_free_ char *text = NULL;
	cJSON *m = cJSON_AddObjectToObject(root, "memory");
	unsigned long long total, avail;
	const char *p;

	if (util_read_file("/proc/meminfo", &text, NULL, &err) < 0)
		return;
	if ((p = strstr(text, "MemTotal:")) && sscanf(p, "MemTotal: %llu kB", &total) == 1)
		cJSON_AddNumberToObject(m, "total_bytes", (double)total * 1024);
	if ((p = strstr(text, "MemAvailable:")) && sscanf(p, "MemAvailable: %llu kB", &avail) == 1)
		cJSON_AddNumberToObject(m, "available_bytes", (double)avail * 1024);
}

static void probe_security(cJSON *root)
{
	struct hx_err err = {0};
	_cleanup_free_ char *actions = NULL, *maxns = NULL;
	cJSON *s = cJSON_AddObjectToObject(root, "seccomp");
	cJSON *u = cJSON_AddObjectToObject(root, "user_namespaces");
	bool sec = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
		   util_read_line("/proc/sys/kernel/seccomp/actions_avail", &actions, &err) == 0;
	uint64_t max = 0;

	cJSON_AddBoolToObject(s, "supported", sec);
	if (sec)
		cJSON_AddStringToObject(s, "actions", actions);
	else
		cJSON_AddStringToObject(s, "fix", "use a kernel built with CONFIG_SECCOMP_FILTER=y");
	hx_clear(&err);
	if (util_read_line("/proc/sys/user/max_user_namespaces", &maxns, &err) == 0)
		util_parse_u64(maxns, &max);
	cJSON_AddBoolToObject(u, "supported", max > 0);
	cJSON_AddNumberToObject(u, "max", (double)max);
	if (max == 0)
		cJSON_AddStringToObject(u, "fix", "sysctl -w user.max_user_namespaces=15000");
}

static void probe_runtimes(cJSON *root)
{
	static const char *const names[] = {"node", "bun", "deno", "workerd"};
	cJSON *list = cJSON_AddArrayToObject(root, "runtimes");
	const char *path_env = getenv("PATH");
	glob_t g;

	for (size_t i = 0; i < HX_ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *paths = strdup(path_env ? path_env : "/usr/bin:/bin");
		char *save = NULL;

		for (char *dir = strtok_r(paths, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
			char p[PATH_MAX];

			snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
			if (access(p, X_OK) == 0) {
				cJSON *e = cJSON_CreateObject();

				cJSON_AddStringToObject(e, "name", names[i]);
				cJSON_AddStringToObject(e, "path", p);
				cJSON_AddItemToArray(list, e);
				break;
			}
		}
	}
	if (glob("/usr/lib/postgresql/*/bin/postgres", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "name", "postgres");
			cJSON_AddStringToObject(e, "path", g.gl_pathv[i]);
			cJSON_AddItemToArray(list, e);
		}
		globfree(&g);
	}
}

/* Whether --isolate can make the runtime's CPUs its own here, and why not. */
/* The rootless facts in doctor's document. */
static cJSON *rootless_json(const char *proc_root, const char *cgroup_root, uid_t uid)
{
	_cleanup_free_ struct rootless_facts *f = calloc(1, sizeof(*f));
	cJSON *o = cJSON_CreateObject(), *list;

	if (!f || !o)
		return o;
	rootless_probe(proc_root, cgroup_root, uid, f);
	cJSON_AddNumberToObject(o, "uid", f->uid);
	if (f->cgroup[0])
		cJSON_AddStringToObject(o, "cgroup", f->cgroup);
	/* each role a user of its own, from the caller's subordinate ids, or every role the caller */
	cJSON_AddBoolToObject(o, "role_uids", f->roles.ok);
	if (f->roles.ok)
		cJSON_AddNumberToObject(o, "role_uid_start", (double)f->roles.uid_start);
	else
		cJSON_AddStringToObject(o, "role_uids_why", f->roles.why);
	list = cJSON_AddArrayToObject(o, "missing");
	for (size_t i = 0; i < f->nmissing; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "what", f->missing[i].what);
		cJSON_AddStringToObject(e, "fix", f->missing[i].fix);
		cJSON_AddItemToArray(list, e);
	}
	cJSON_AddBoolToObject(o, "possible", f->possible);
	return o;
}

static void probe_isolation(cJSON *root)
{
	char why[1024];
	cJSON *o = cJSON_AddObjectToObject(root, "isolation");

	cJSON_AddBoolToObject(o, "possible", cg_isolation_possible(why, sizeof(why)) == 1);
	cJSON_AddStringToObject(o, "why", why);
}

/* The largest pinned budget this host gives the runtime with the client's default CPU kept: what a CI job that
 * lands on a runner of unknown size should ask for (0: none). */
static unsigned max_pinned_cpus(unsigned usable)
{
	for (unsigned n = usable; n >= 1; n--) {
		struct cg_budget b = {.mode = CG_CPU_PINNED, .cpus = n};
		struct cg_slice_plan plan;
		struct hx_err e = {0};

		if (cg_plan_host(&b, &plan, &e) == 0)
			return n;
	}
	return 0;
}

int doctor_probe(const char *sysfs_root, char **ret_json, int *ret_pinned_ok, char *why, size_t why_len,
		 struct hx_err *err)
{
	cJSON *root = cJSON_CreateObject();
	unsigned usable = 0;
	bool cpuset_ok = false;

	why[0] = '\0';
	probe_kernel(root);
	if (probe_cgroups(root, &cpuset_ok, why, why_len, err) < 0 || probe_cpus(root, sysfs_root, &usable, err) < 0) {
		cJSON_Delete(root);
		return -err->errnum;
	}
	probe_memory(root);
	probe_security(root);
	cJSON_AddItemToObject(root, "rootless", rootless_json("/proc", "/sys/fs/cgroup", geteuid()));
	probe_runtimes(root);
	probe_isolation(root);
	if (!why[0] && usable < 2)
		snprintf(why, why_len,
			 "this host has %u usable CPU: pinned mode needs one for the runtime and one for the client "
			 "(quota and none modes still work)",
			 usable);
	*ret_pinned_ok = !why[0];
	cJSON_AddBoolToObject(root, "pinned_possible", *ret_pinned_ok);
	cJSON_AddNumberToObject(root, "max_pinned_cpus", *ret_pinned_ok ? max_pinned_cpus(usable) : 0);
	if (why[0])
		cJSON_AddStringToObject(root, "reason", why);
	*ret_json = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return *ret_json ? 0 : hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
}
