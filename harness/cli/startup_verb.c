/* `harness load --startup`: a series of runs of one command, timed like hyperfine; text, JSON, or
 * hyperfine's export format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "cli/verbs.h"
#include "load/startup.h"
#include "results/results.h"
#include "stats/stats.h"

static void command_line(char **argv, int argc, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", argv[i]);
}

static int write_hyperfine(const char *path, const char *cmd, const struct stats_summary *w, double user_s,
			   double sys_s, const double *times, const struct startup_record *recs, unsigned n,
			   struct hx_err *err)
{
	cJSON *root = cJSON_CreateObject(), *res = cJSON_AddArrayToObject(root, "results"), *r = cJSON_CreateObject();
	cJSON *t = cJSON_AddArrayToObject(r, "times"), *codes;
	_cleanup_free_ char *text = NULL;
	int rc;

	cJSON_AddItemToArray(res, r);
	cJSON_AddStringToObject(r, "command", cmd);
	cJSON_AddNumberToObject(r, "mean", w->mean);
	cJSON_AddNumberToObject(r, "stddev", w->stddev);
	cJSON_AddNumberToObject(r, "median", w->median);
	cJSON_AddNumberToObject(r, "user", user_s);
	cJSON_AddNumberToObject(r, "system", sys_s);
	cJSON_AddNumberToObject(r, "min", w->min);
	cJSON_AddNumberToObject(r, "max", w->max);
	codes = cJSON_AddArrayToObject(r, "exit_codes");
	for (unsigned i = 0; i < n; i++) {
		cJSON_AddItemToArray(t, cJSON_CreateNumber(times[i]));
		cJSON_AddItemToArray(codes, cJSON_CreateNumber(recs[i].status));
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	rc = util_write_atomic(path, text, strlen(text), err);
	return rc < 0 ? hx_wrap(err, "startup: --export-hyperfine") : 0;
}

static void print_text(const char *cmd, const struct stats_summary *w, double user_s, double sys_s, uint64_t maxrss_kb,
		       bool sandbox)
{
	printf("Benchmark: %s%s\n", cmd, sandbox ? " (sandboxed)" : "");
	printf("  Time (mean ± σ):   %8.2f ms ± %6.2f ms    [User: %.2f ms, System: %.2f ms]\n", w->mean * 1e3,
	       w->stddev * 1e3, user_s * 1e3, sys_s * 1e3);
	printf("  Range (min … max): %8.2f ms … %6.2f ms    %zu runs\n", w->min * 1e3, w->max * 1e3, w->n);
	printf("  Median %.2f ms (95%% CI %.2f … %.2f), max RSS %.1f MiB\n", w->median * 1e3, w->ci95_low * 1e3,
	       w->ci95_high * 1e3, (double)maxrss_kb / 1024);
	if (w->outliers)
		printf("  Warning: %zu statistical outlier(s) (MAD-based): the machine may be noisy; run again, or "
		       "pin CPUs\n",
		       w->outliers);
}

/* The sandbox shows the host's system folders read-only, a fresh /tmp and its own home as the working folder: an
 * argument naming a host file anywhere else would be missing inside, and every run would fail. */
static bool sandbox_shows(const char *path, const struct startup_opts *o)
{
	static const char *const shown[] = {"/usr/",   "/bin/", "/sbin/", "/lib/", "/lib32/",
					    "/lib64/", "/etc/", "/dev/",  "/proc/"};

	for (size_t i = 0; i < HX_ARRAY_SIZE(shown); i++)
		if (strncmp(path, shown[i], strlen(shown[i])) == 0)
			return true;
	for (size_t i = 0; i < o->nbinds; i++) {
		const char *dst = strchr(o->binds[i], ':');
		size_t len = dst ? strcspn(dst + 1, ":") : 0;

		if (dst && len && strncmp(path, dst + 1, len) == 0 && (path[len] == '/' || !path[len]))
			return true;
	}
	return false;
}

static int check_paths_seen(const struct startup_opts *o, int argc, char **argv, struct hx_err *err)
{
	struct stat st;

	for (int i = 0; o->sandbox && i < argc; i++) {
		const char *a = argv[i];

		if (a[0] == '-' || (i == 0 && !strchr(a, '/')) || stat(a, &st) < 0)
			continue; /* an option, a command found on PATH, or no host file */
		if (a[0] != '/')
			return hx_fail(err, HX_EXIT_USAGE, ENOENT,
				       "load: --startup: '%s' is in this folder, which the sandbox does not show (it "
				       "starts in its own home): add --bind \"$PWD:/src\" and name /src/%s, or time "
				       "it out of the sandbox with --no-sandbox",
				       a, a);
		if (!sandbox_shows(a, o))
			return hx_fail(err, HX_EXIT_USAGE, ENOENT,
				       "load: --startup: the sandbox does not show '%s' (only the system folders and "
				       "what --bind adds): add --bind SRC:DST for its folder, or use --no-sandbox",
				       a);
	}
	return 0;
}

int verb_load_startup(const struct startup_opts *o, int argc, char **argv, struct hx_err *err)
{
	unsigned runs = o->runs, warmup = o->warmup;
	bool sandbox = o->sandbox, json = o->json;
	const char *export_hyperfine = o->export_hyperfine;
	_cleanup_free_ struct startup_record *recs = calloc(runs + warmup, sizeof(*recs));
	_cleanup_free_ double *times = calloc(runs, sizeof(*times));
	struct stats_summary w;
	double user = 0, sys = 0;
	uint64_t maxrss = 0;
	unsigned failed = 0;
	char cmd[4096];

	if (argc < 1)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: --startup needs a command: harness load --startup -- CMD");
	if (!recs || !times)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	argv[argc] = NULL;
	command_line(argv, argc, cmd, sizeof(cmd));
	if (check_paths_seen(o, argc, argv, err) < 0 || startup_series(o, argv, recs, err) < 0)
		return -err->errnum;
	for (unsigned i = 0; i < runs; i++) {
		const struct startup_record *r = &recs[warmup + i];

		times[i] = (double)r->wall_ns / 1e9;
		user += (double)r->user_us / 1e6 / runs;
		sys += (double)r->sys_us / 1e6 / runs;
		maxrss = r->maxrss_kb > maxrss ? r->maxrss_kb : maxrss;
		failed += r->status != 0;
	}
	if (failed == runs) /* the time it takes to fail is not a startup time */
		return hx_fail(err, HX_EXIT_VERDICT, EIO,
			       "load: all %u runs of '%s' exited non-zero (the last: status %d): no timings; "
			       "--show-output shows what it printed",
			       runs, cmd, recs[warmup + runs - 1].status);
	stats_summarize(times, runs, &w);
	if (export_hyperfine &&
	    write_hyperfine(export_hyperfine, cmd, &w, user, sys, times, recs + warmup, runs, err) < 0)
		return -err->errnum;
	if (json) {
		cJSON *j = cJSON_CreateObject(), *t = cJSON_AddArrayToObject(j, "times_ms");
		_cleanup_free_ char *text = NULL;

		cJSON_AddStringToObject(j, "command", cmd);
		cJSON_AddBoolToObject(j, "sandbox", sandbox);
		cJSON_AddNumberToObject(j, "runs", runs);
		cJSON_AddNumberToObject(j, "warmup", warmup);
		cJSON_AddItemToObject(j, "wall_ms", res_summary_json(&w, 1e3));
		cJSON_AddNumberToObject(j, "user_ms", user * 1e3);
		cJSON_AddNumberToObject(j, "system_ms", sys * 1e3);
		cJSON_AddNumberToObject(j, "max_rss_kb", (double)maxrss);
		cJSON_AddNumberToObject(j, "failed_runs", failed);
		for (unsigned i = 0; i < runs; i++)
			cJSON_AddItemToArray(t, cJSON_CreateNumber(times[i] * 1e3));
		text = cJSON_Print(j);
		printf("%s\n", text);
		cJSON_Delete(j);
	} else {
		print_text(cmd, &w, user, sys, maxrss, sandbox);
	}
	if (failed)
		fprintf(stderr, "harness: load: %u of %u runs of '%s' exited non-zero\n", failed, runs, cmd);
	return failed ? HX_EXIT_VERDICT : HX_EXIT_OK;
}
