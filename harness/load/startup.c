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
	if (sbx_start_here(CG_SLICE_SUT, &s->sbx, &x, &err) < 0) {
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
	return startup_series_at(tree, CG_SLICE_SUT, base, runs, warmup, recs, err);
}

int startup_series_at(struct cg_tree *tree, enum cg_slice sl, const struct sbx_config *base, unsigned runs,
		      unsigned warmup, struct startup_record *recs, struct hx_err *err)
{
	struct series s = {.argv = (char **)base->argv, .runs = runs, .warmup = warmup, .sbx = *base};
	int p[2] = {-1, -1}, rc = 0;
	unsigned got = 0;
	pid_t launcher = -1;

	if (pipe2(p, O_CLOEXEC) < 0)
		return hx_syserr(err, "startup: pipe");
	s.out_fd = p[1];
	if (cg_spawn(tree, sl, 0, launcher_main, &s, &launcher, err) < 0) {
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

static int series_sandboxed_in(struct series *s, const struct startup_opts *o, struct run_record *recs,
			       struct hx_err *err)
{
	struct cg_budget b = {.mode = CG_CPU_PINNED, .pids_max = 4096};
	struct cg_slice_plan plan;
	struct cg_tree *tree = NULL;
	int netns = -1, rc = 0;
	struct hx_err derr = {0};

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
	if (cg_tree_from_plan(&plan, 1u << CG_SLICE_SUT | 1u << CG_SLICE_CLIENT, NULL, &tree, err) < 0)
		rc = -err->errnum;
	else
		rc = startup_series_in(tree, &s->sbx, s->runs, s->warmup, recs, err);
	if (cg_tree_destroy(tree, &derr) < 0 && rc == 0)
		rc = (*err = derr, hx_wrap(err, "startup: cleanup"));
	sbx_net_cleanup(&netns);
	return rc;
}

static int series_sandboxed(struct series *s, const struct startup_opts *o, struct run_record *recs, struct hx_err *err)
{
	int rc = series_sandboxed_in(s, o, recs, err);

	sbx_config_release(&s->sbx);
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

int startup_series(const struct startup_opts *o, char **argv, struct startup_record *recs, struct hx_err *err)
{
	struct series s = {.argv = argv, .runs = o->runs, .warmup = o->warmup, .quiet = !o->show_output};

	return o->sandbox ? series_sandboxed(&s, o, recs, err) : series_plain(&s, recs, err);
}
