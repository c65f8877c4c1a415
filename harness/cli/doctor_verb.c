/* The doctor verb: renders doctor_probe's facts as text or JSON and sets the exit code. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "host/doctor.h"
#include "base/opt.h"
#include "base/util.h"
#include "cli/verbs.h"

struct doctor_opts {
	bool help;
	bool json;
	const char *sysfs_root;
};

static const struct hx_opt doctor_tab[] = {
	{"json", 0, OPT_FLAG, offsetof(struct doctor_opts, json), NULL, .help = "print the facts as one JSON document"},
	{"sysfs-root", 0, OPT_STR, offsetof(struct doctor_opts, sysfs_root), "DIR",
	 .help = "read CPU topology below DIR instead of /sys (for tests)", .check = OPT_CHECK_DIR},
	{"help", 'h', OPT_FLAG, offsetof(struct doctor_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_doctor_opts = doctor_tab;

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "unknown";
}

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *yes(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k)) ? "yes" : "no";
}

static void print_cgroups(const cJSON *cg)
{
	const cJSON *c, *u = cJSON_GetObjectItem(cg, "unified_features");

	printf("cgroups      mode %s", jstr(cg, "mode"));
	if (cJSON_GetObjectItem(cg, "unified_mount"))
		printf(", cgroup2 at %s", jstr(cg, "unified_mount"));
	if (cJSON_GetObjectItem(cg, "backend"))
		printf(", backend %s", jstr(cg, "backend"));
	printf("\n");
	cJSON_ArrayForEach (c, cJSON_GetObjectItem(cg, "controllers")) {
		printf("  %-10s %s %-8s %s%s\n", jstr(c, "name"), jstr(c, "hierarchy"),
		       cJSON_IsTrue(cJSON_GetObjectItem(c, "usable")) ? "usable" : "missing",
		       cJSON_GetObjectItem(c, "mount") ? jstr(c, "mount") : "",
		       cJSON_GetObjectItem(c, "fix") ? jstr(c, "fix") : "");
	}
	printf("  %-10s %s\n", "create",
	       cJSON_IsTrue(cJSON_GetObjectItem(cg, "can_create")) ? "yes, below the cgroup harness was started in"
								   : jstr(cg, "create_error"));
	if (u)
		printf("  %-10s cgroup.kill %s, cgroup.freeze %s, PSI %s, clone into cgroup %s\n", "unified",
		       yes(u, "kill"), yes(u, "freeze"), yes(u, "psi"), yes(u, "clone_into_cgroup"));
}

static void print_cpus(const cJSON *c)
{
	const cJSON *e;

	printf("cpus         %d usable: %s (online %s, cpuset %s, affinity %s", (int)jnum(c, "usable_count"),
	       jstr(c, "usable"), jstr(c, "online"), jstr(c, "cpuset"), jstr(c, "affinity"));
	if (jstr(c, "isolated")[0])
		printf(", isolated %s", jstr(c, "isolated"));
	printf(")\n  %-10s %s\n", "model", jstr(c, "model"));
	printf("  %-10s %d package(s), %d core(s), %d thread(s) per core, %d NUMA node(s)\n", "topology",
	       (int)jnum(c, "packages"), (int)jnum(c, "cores"), (int)jnum(c, "threads_per_core"),
	       (int)jnum(c, "numa_nodes"));
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(c, "topology")) {
		printf("  cpu %-6d package %d die %d core %d node %d thread %d%s\n", (int)jnum(e, "cpu"),
		       (int)jnum(e, "package"), (int)jnum(e, "die"), (int)jnum(e, "core"), (int)jnum(e, "node"),
		       (int)jnum(e, "smt_rank"), cJSON_IsTrue(cJSON_GetObjectItem(e, "usable")) ? "" : " (not usable)");
	}
	printf("  %-10s %s\n", "governor",
	       cJSON_IsString(cJSON_GetObjectItem(c, "governor")) ? jstr(c, "governor") : "not exposed (no cpufreq)");
	if (cJSON_IsString(cJSON_GetObjectItem(c, "governor")) && strcmp(jstr(c, "governor"), "performance") != 0)
		printf("  %-10s frequency scaling adds noise: cpupower frequency-set -g performance\n", "hint");
}

/* As root nothing of it is needed; as a user, each missing piece with its fix. */
static void print_rootless(const cJSON *rl)
{
	const cJSON *e;

	if (cJSON_IsTrue(cJSON_GetObjectItem(rl, "possible"))) {
		printf("rootless     possible: %s is delegated to uid %d, user namespaces allowed\n",
		       jstr(rl, "cgroup"), (int)jnum(rl, "uid"));
		if (cJSON_IsTrue(cJSON_GetObjectItem(rl, "role_uids")))
			printf("  roles      a uid each: subordinate ids from %.0f (/etc/subuid)\n",
			       jnum(rl, "role_uid_start"));
		else
			printf("  roles      one uid for all, apart by namespaces only: %s\n",
			       jstr(rl, "role_uids_why"));
		return;
	}
	printf("rootless     %s\n",
	       jnum(rl, "uid") == 0 ? "not needed (root); as a user it would lack:" : "not possible:");
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(rl, "missing"))
		printf("  %s\n    fix: %s\n", jstr(e, "what"), jstr(e, "fix"));
}

static void print_text(const cJSON *r)
{
	const cJSON *k = cJSON_GetObjectItem(r, "kernel"), *m = cJSON_GetObjectItem(r, "memory");
	const cJSON *s = cJSON_GetObjectItem(r, "seccomp"), *u = cJSON_GetObjectItem(r, "user_namespaces");
	const cJSON *e;

	printf("kernel       %s %s\n", jstr(k, "release"), jstr(k, "machine"));
	print_cgroups(cJSON_GetObjectItem(r, "cgroup"));
	print_cpus(cJSON_GetObjectItem(r, "cpus"));
	printf("memory       %.1f GiB total, %.1f GiB available\n", jnum(m, "total_bytes") / (1 << 30),
	       jnum(m, "available_bytes") / (1 << 30));
	printf("seccomp      %s%s%s\n", yes(s, "supported"), cJSON_GetObjectItem(s, "fix") ? ": " : "",
	       cJSON_GetObjectItem(s, "fix") ? jstr(s, "fix") : "");
	printf("user ns      %s (max %d)%s%s\n", yes(u, "supported"), (int)jnum(u, "max"),
	       cJSON_GetObjectItem(u, "fix") ? ": " : "", cJSON_GetObjectItem(u, "fix") ? jstr(u, "fix") : "");
	print_rootless(cJSON_GetObjectItem(r, "rootless"));
	printf("runtimes    ");
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(r, "runtimes"))
		printf(" %s (%s)", jstr(e, "name"), jstr(e, "path"));
	printf("\npinned run   %s\n",
	       cJSON_IsTrue(cJSON_GetObjectItem(r, "pinned_possible")) ? "possible" : jstr(r, "reason"));
	{
		const cJSON *iso = cJSON_GetObjectItem(r, "isolation");

		printf("isolation    %s: %s\n",
		       cJSON_IsTrue(cJSON_GetObjectItem(iso, "possible")) ? "possible" : "not possible",
		       jstr(iso, "why"));
	}
}

int verb_doctor(int argc, char **argv)
{
	struct doctor_opts o = {.sysfs_root = "/sys"};
	struct hx_err err = {0};
	cJSON *report = NULL;
	_cleanup_free_ char *text = NULL;
	char why[1024];
	int npos, pinned_ok;

	if (opt_parse("doctor", doctor_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout, "harness doctor [--json]",
			"Report what this host offers a benchmark run: cgroup mode and controllers, usable CPUs\n"
			"and their topology, kernel facilities, runtimes. Exits 0 when a pinned run is possible,\n"
			"3 when not (with the reason and the fix).",
			doctor_tab);
		return HX_EXIT_OK;
	}
	if (npos > 0) {
		fprintf(stderr, "harness: doctor: unexpected argument '%s' (see 'harness doctor --help')\n", argv[1]);
		return HX_EXIT_USAGE;
	}
	if (doctor_probe(o.sysfs_root, &text, &pinned_ok, why, sizeof(why), &err) < 0)
		return hx_report(&err);
	report = cJSON_Parse(text);
	if (o.json) {
		_cleanup_free_ char *s = cJSON_Print(report);

		printf("%s\n", s);
	} else {
		print_text(report);
	}
	cJSON_Delete(report);
	return pinned_ok ? HX_EXIT_OK : HX_EXIT_HOST;
}
