/* Startup timing: a series of runs of one command, each timed from just before its execve (stamped by
 * the child) to its exit (stamped where it is reaped), with rusage. Sandboxed runs are cloned by a
 * launcher that sits inside the sut slice for the whole series, so no run pays a cgroup move. */
#include "load/startup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroups/cg.h"
#include "cgroups/plan.h"
#include "base/cleanup.h"
#include "load/load.h"
#include "sandbox/sandbox.h"
#include "sandbox/sbx_net.h"
#include "report/stats.h"
#include "base/util.h"

#define run_record startup_record

struct series {
	char **argv;
	unsigned runs, warmup;
	bool quiet;
	struct sbx_config sbx;
	int out_fd; /* launcher -> parent: one run_record per run */
};

/* One run without sandbox: the child stamps the clock into a close-on-exec pipe right before execve. */
static void run_plain(char **argv, bool quiet, struct run_record *rec)
{
	int p[2];
	uint64_t stamp[2] = {0, 0}; /* time, errno */
	struct rusage ru;
	int status = 0;
	pid_t pid;

	memset(rec, 0, sizeof(*rec));
	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		rec->status = -errno;
		return;
	}
	if (pid == 0) {
		int null = quiet ? open("/dev/null", O_RDWR) : -1;

		close(p[0]);
		if (null >= 0 && (dup2(null, 1) < 0 || dup2(null, 2) < 0))
			_exit(127);
		stamp[0] = util_now_ns();
		if (write(p[1], stamp, sizeof(stamp)) < 0)
			_exit(127);
		execvp(argv[0], argv);
		stamp[1] = (uint64_t)errno;
		if (write(p[1], stamp, sizeof(stamp)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	rec->wall_ns = util_now_ns();
	if (read(p[0], stamp, sizeof(stamp)) == sizeof(stamp) && read(p[0], stamp, sizeof(stamp)) == sizeof(stamp)) {
		rec->status = -(int)stamp[1];
	} else {
		rec->status = util_exit_code(status);
	}
	close(p[0]);
	rec->wall_ns -= stamp[0];
	rec->user_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
	rec->sys_us = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
	rec->maxrss_kb = (uint64_t)ru.ru_maxrss;
}

/* One run in a fresh sandbox cloned from here (we are inside the slice). */
static void run_sandboxed(struct series *s, struct run_record *rec)
{
	struct hx_err err = {0};
	struct sbx x = {.pid = -1, .report_fd = -1};
	int status = 0;

	memset(rec, 0, sizeof(*rec));
	if (sbx_start(NULL, CG_SLICE_SUT, &s->sbx, &x, &err) < 0) {
		rec->status = -(err.errnum ? err.errnum : EIO);
		return;
	}
	if (sbx_wait_exec(&x, s->argv[0], &err) < 0)
		rec->status = -(err.errnum ? err.errnum : EIO);
	while (waitpid(x.pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rec->status == 0) {
		rec->status = util_exit_code(status);
		rec->wall_ns = x.stamps->exit_ns - x.stamps->exec_ns;
		rec->user_us = x.stamps->utime_us;
		rec->sys_us = x.stamps->stime_us;
		rec->maxrss_kb = x.stamps->maxrss_kb;
	}
	sbx_release(&x);
}

/* The launcher: the first process of the series inside the slice; it clones every run. */
static int launcher_main(void *arg)
{
	struct series *s = arg;

	for (unsigned i = 0; i < s->warmup + s->runs; i++) {
		struct run_record rec;

		run_sandboxed(s, &rec);
		if (write(s->out_fd, &rec, sizeof(rec)) != sizeof(rec))
			return 1;
		if (rec.status < 0)
			return 0; /* it cannot start: no use trying again */
	}
	return 0;
}

int startup_series_in(struct cg_tree *tree, const struct sbx_config *base, unsigned runs, unsigned warmup,
		      struct startup_record *recs, struct hx_err *err)
{
	struct series s = {.argv = (char **)base->argv, .runs = runs, .warmup = warmup, .sbx = *base};
	int p[2] = {-1, -1}, rc = 0;
	unsigned got = 0;
	pid_t launcher = -1;

	if (pipe2(p, O_CLOEXEC) < 0)
		return hx_syserr(err, "startup: pipe");
	s.out_fd = p[1];
	if (cg_spawn(tree, CG_SLICE_SUT, 0, launcher_main, &s, &launcher, err) < 0) {
		close(p[0]);
		close(p[1]);
		return -err->errnum;
	}
	close(p[1]);
	while (got < warmup + runs) {
		ssize_t n = read(p[0], &recs[got], sizeof(*recs));

		if (n != sizeof(*recs)) {
			if (n < 0 && errno == EINTR)
				kill(launcher, SIGKILL); /* a signal for us (Ctrl-C): the series ends now */
			break;
		}
		if (recs[got++].status < 0)
			break;
	}
	close(p[0]);
	while (waitpid(launcher, NULL, 0) < 0 && errno == EINTR)
		;
	if (got && recs[got - 1].status < 0)
		rc = hx_fail(err, HX_EXIT_USAGE, -recs[got - 1].status, "startup: cannot run '%s': %s", s.argv[0],
			     strerror(-recs[got - 1].status));
	else if (got < warmup + runs)
		rc = hx_fail(err, HX_EXIT_INTERNAL, EIO, "startup: the launcher stopped after %u runs", got);
	return rc;
}

static int series_sandboxed(struct series *s, const struct startup_opts *o, struct run_record *recs, struct hx_err *err)
{
	struct cg_budget b = {.mode = CG_CPU_PINNED, .pids_max = 4096};
	struct cg_slice_plan plan;
	struct cg_tree *tree = NULL;
	int netns = -1, rc = 0;
	char id[64];

	sbx_config_init(&s->sbx);
	s->sbx.argv = s->argv;
	s->sbx.quiet = s->quiet;
	for (size_t i = 0; i < o->nbinds; i++) {
		if (i == (size_t)SBX_MAX_BINDS)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "load: at most %d --bind", SBX_MAX_BINDS);
		if (sbx_parse_bind(o->binds[i], &s->sbx.rootfs.binds[s->sbx.rootfs.nbinds++], err) < 0)
			return -err->errnum;
	}
	if (cg_plan_host(&b, &plan, err) < 0 || sbx_net_prepare(&netns, err) < 0)
		return -err->errnum;
	s->sbx.netns_fd = netns;
	if (cg_run_id(id, sizeof(id), err) < 0 || cg_tree_create(id, NULL, plan.slices, &tree, err) < 0 ||
	    cg_slice_apply(tree, CG_SLICE_SUT, &plan.limits[CG_SLICE_SUT], err) < 0 ||
	    cg_slice_apply(tree, CG_SLICE_CLIENT, &plan.limits[CG_SLICE_CLIENT], err) < 0)
		rc = -err->errnum;
	else
		rc = startup_series_in(tree, &s->sbx, s->runs, s->warmup, recs, err);
	cg_tree_destroy(tree);
	sbx_net_cleanup(&netns);
	return rc;
}

static int series_plain(struct series *s, struct run_record *recs, struct hx_err *err)
{
	for (unsigned i = 0; i < s->warmup + s->runs; i++) {
		run_plain(s->argv, s->quiet, &recs[i]);
		if (recs[i].status < 0)
			return hx_fail(err, HX_EXIT_USAGE, -recs[i].status, "startup: cannot run '%s': %s", s->argv[0],
				       strerror(-recs[i].status));
	}
	return 0;
}

static void command_line(char **argv, int argc, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", argv[i]);
}

static int write_hyperfine(const char *path, const char *cmd, const struct stats_summary *w, double user_s,
			   double sys_s, const double *times, const struct run_record *recs, unsigned n,
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

int startup_verb(const struct startup_opts *o, int argc, char **argv, struct hx_err *err)
{
	unsigned runs = o->runs, warmup = o->warmup;
	bool sandbox = o->sandbox, json = o->json;
	const char *export_hyperfine = o->export_hyperfine;
	struct series s = {.argv = argv, .runs = runs, .warmup = warmup, .quiet = !o->show_output};
	_cleanup_free_ struct run_record *recs = calloc(runs + warmup, sizeof(*recs));
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
	if ((sandbox ? series_sandboxed(&s, o, recs, err) : series_plain(&s, recs, err)) < 0)
		return -err->errnum;
	for (unsigned i = 0; i < runs; i++) {
		const struct run_record *r = &recs[warmup + i];

		times[i] = (double)r->wall_ns / 1e9;
		user += (double)r->user_us / 1e6 / runs;
		sys += (double)r->sys_us / 1e6 / runs;
		maxrss = r->maxrss_kb > maxrss ? r->maxrss_kb : maxrss;
		failed += r->status != 0;
	}
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
		cJSON_AddItemToObject(j, "wall_ms", stats_json(&w, 1e3));
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
