/* `harness gc`: remove cgroup trees whose owning harness process has died. */
#include <stdio.h>

#include "cgroups/cg.h"
#include "base/opt.h"
#include "cli/verbs.h"
#include "run/rundir.h"

struct gc_opts {
	bool help;
	const char *cgroup_root;
};

static const struct hx_opt gc_tab[] = {
	{"cgroup-root", 0, OPT_STR, offsetof(struct gc_opts, cgroup_root), "PATH",
	 .help = "look below this cgroup path instead of our own"},
	{"help", 'h', OPT_FLAG, offsetof(struct gc_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_gc_opts = gc_tab;

int verb_gc(int argc, char **argv)
{
	struct gc_opts o = {0};
	struct hx_err err = {0};
	unsigned removed = 0, folders = 0;
	int npos;

	if (opt_parse("gc", gc_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout, "harness gc [--cgroup-root PATH]",
			"Remove the cgroup trees (harness-<pid>-<start>) of harness processes that are gone,\n"
			"killing whatever still runs in them, and their run folders (" RUNDIR_PARENT "/harness-run-*,\n"
			"known by the owner file in each). What belongs to live harness processes is left alone.",
			gc_tab);
		return HX_EXIT_OK;
	}
	if (npos > 0) {
		fprintf(stderr, "harness: gc: unexpected argument '%s' (see 'harness gc --help')\n", argv[1]);
		return HX_EXIT_USAGE;
	}
	if (cg_gc(o.cgroup_root, &removed, &err) < 0)
		return hx_report(&err);
	printf("removed %u orphaned cgroup tree%s\n", removed, removed == 1 ? "" : "s");
	/* the run folders of killed runs (their logs, staged scenarios, TLS key), said only when there were any */
	if (rundir_gc(NULL, &folders, &err) < 0)
		return hx_report(&err);
	if (folders)
		printf("removed %u run folder%s of dead runs in %s\n", folders, folders == 1 ? "" : "s", RUNDIR_PARENT);
	return HX_EXIT_OK;
}
