/* harness: the command line entry point; dispatches verbs from a table. */
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/opt.h"
#include "base/util.h"
#include "cli/verbs.h"

#ifndef HX_VERSION
#define HX_VERSION "0.0.0"
#endif
#ifndef HX_COMMIT
#define HX_COMMIT "unknown"
#endif

const char *const hx_version = HX_VERSION;
const char *const hx_commit = HX_COMMIT;

#ifdef __SANITIZE_ADDRESS__
/* An AddressSanitizer build (make asan-integration). LeakSanitizer needs ptrace, which the sandbox's seccomp
 * filter forbids: a harness inside a sandbox (the load client of a run, a noise neighbour; their environment
 * is built from scratch) would end in "LeakSanitizer has encountered a fatal error". So it is off by default
 * and ASAN_OPTIONS=detect_leaks=1 turns it on for the harness outside, which runs every exit path. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

static const struct verb_info verbs[] = {
	{"run", verb_run, "run scenarios on runtimes in sandboxed, pinned slices; write results", NULL, &verb_run_opts},
	{"exec", verb_exec, "run one command in a fresh slice (pinned CPUs, memory limit), print its stats", NULL,
	 &verb_exec_opts},
	{"load", verb_load, "HTTP/WebSocket load generator and startup timer", NULL, &verb_load_opts},
	{"noise", verb_noise, "noise generators (cpu, cache, membw, io, alloc): the neighbours of a noisy trial", NULL,
	 &verb_noise_opts},
	{"images", verb_images, "list, pull, verify and remove runtime images", "ls pull verify rm gc path",
	 &verb_images_opts},
	{"scenarios", verb_scenarios, "list the scenarios", "ls", &verb_scenarios_opts},
	{"report", verb_report, "re-render a results file (md, json, csv, html, gab, hyperfine)", NULL,
	 &verb_report_opts},
	{"compare", verb_compare, "compare two results files: a verdict per row, exit 1 on a regression", NULL,
	 &verb_compare_opts},
	{"ab", verb_ab, "a duet: A and B up at once, the load alternated in short windows; a paired verdict", NULL,
	 &verb_ab_opts},
	{"merge", verb_merge, "join the shards of one plan (run --shard I/N) into one results file", NULL,
	 &verb_merge_opts},
	{"doctor", verb_doctor, "report what this host offers (cgroups, CPUs, kernel facilities) and why", NULL,
	 &verb_doctor_opts},
	{"gc", verb_gc, "remove cgroup trees left behind by harness processes that died", NULL, &verb_gc_opts},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: harness VERB [OPTIONS] [ARGS]\n"
		   "       harness --help | --version\n\n"
		   "A reproducible, sandboxed benchmark harness for JavaScript runtimes.\n\nVerbs:\n");
	for (size_t i = 0; i < HX_ARRAY_SIZE(verbs); i++)
		fprintf(f, "  %-10s %s%s\n", verbs[i].name, verbs[i].synopsis, verbs[i].fn ? "" : " (not built yet)");
	fprintf(f, "\n'harness VERB --help' describes a verb.\n\n"
		   "Exit codes:\n"
		   "  0  ok\n"
		   "  1  the benchmark ran but its verdict failed (errors, a broken invariant)\n"
		   "  2  bad usage or input\n"
		   "  3  this host cannot do what was asked (not enough CPUs, no cgroup delegation, ...)\n"
		   "  4  internal failure\n"
		   "harness exec exits with its command's status instead (128+N when killed by signal N).\n");
}

/* One line, with the verb a typo away when there is one ("rnu": run). */
static int unknown_verb(const char *name)
{
	const char *names[HX_ARRAY_SIZE(verbs)], *near;

	for (size_t i = 0; i < HX_ARRAY_SIZE(verbs); i++)
		names[i] = verbs[i].name;
	near = opt_suggest(name, names, HX_ARRAY_SIZE(verbs));
	if (name[0] == '-')
		fprintf(stderr, "harness: unknown option '%s' (see 'harness --help')\n", name);
	else if (near)
		fprintf(stderr, "harness: unknown verb '%s'; did you mean '%s'? (see 'harness --help' for the verbs)\n",
			name, near);
	else
		fprintf(stderr, "harness: unknown verb '%s' (see 'harness --help' for the verbs)\n", name);
	return HX_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;

	if (!name) {
		usage(stderr);
		return HX_EXIT_USAGE;
	}
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
		usage(stdout);
		return HX_EXIT_OK;
	}
	if (strcmp(name, "--dump") == 0) /* hidden: the build's man page and completions */
		return argc == 3 && verb_docgen(argv[2], verbs, HX_ARRAY_SIZE(verbs), stdout) == 0 ? HX_EXIT_OK
												   : HX_EXIT_USAGE;
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
		printf("harness %s (commit %s)\n", HX_VERSION, HX_COMMIT);
		return HX_EXIT_OK;
	}
	for (size_t i = 0; i < HX_ARRAY_SIZE(verbs); i++) {
		if (strcmp(name, verbs[i].name) != 0)
			continue;
		if (!verbs[i].fn && argc > 2 && strcmp(argv[2], "--help") == 0) {
			printf("Usage: harness %s ...\n\n%s.\nThis verb is not built yet in this version.\n", name,
			       verbs[i].synopsis);
			return HX_EXIT_OK;
		}
		if (!verbs[i].fn) {
			fprintf(stderr, "harness: '%s' is not built yet in this version\n", name);
			return HX_EXIT_INTERNAL;
		}
		return verbs[i].fn(argc - 1, argv + 1);
	}
	return unknown_verb(name);
}
