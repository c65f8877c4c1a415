/* Startup timing: a series of runs of one command, each timed from just before its execve (stamped by
 * the child) to its exit (stamped where it is reaped), with rusage. Sandboxed runs are cloned by a
 * launcher that sits inside the sut slice for the whole series, so no run pays a cgroup move. */
#include "load/startup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
	int out_fd;  /* launcher -> parent: one run_record per run */
	int gate_fd; /* a gated launcher (startup_gate_open): a run per byte read from it, until its end; else -1 */
	int gate_wr; /* the gate's other end, which the launcher must not hold (it would never see the end) */
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
		rec->exec_ns = x.stamps->exec_ns;
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

	if (s->gate_fd >= 0)
		close(s->gate_wr);
	for (unsigned i = 0; s->gate_fd >= 0 || i < s->warmup + s->runs; i++) {
		struct run_record rec;
		char go;

		if (s->gate_fd >= 0) {
			ssize_t n;

			while ((n = read(s->gate_fd, &go, 1)) < 0 && errno == EINTR)
				;
			if (n != 1)
				return 0; /* the gate closed: the duet is over */
		}

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
	struct series s = {.argv = (char **)base->argv, .runs = runs, .warmup = warmup, .sbx = *base, .gate_fd = -1};
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

int startup_gate_open(struct cg_tree *tree, enum cg_slice sl, const struct sbx_config *base, struct startup_gate *g,
		      struct hx_err *err)
{
	struct series s = {.argv = (char **)base->argv, .sbx = *base};
	int gate[2], out[2];

	*g = (struct startup_gate){.launcher = -1, .gate = -1, .out = -1};
	if (pipe2(gate, O_CLOEXEC) < 0)
		return hx_syserr(err, "startup: pipe");
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(gate[0]);
		close(gate[1]);
		return hx_syserr(err, "startup: pipe");
	}
	s.gate_fd = gate[0];
	s.gate_wr = gate[1];
	s.out_fd = out[1];
	/* the launcher is a fork: s is its own copy, the pipes' ends it needs are open there */
	if (cg_spawn(tree, sl, 0, launcher_main, &s, &g->launcher, err) < 0) {
		close(gate[0]);
		close(gate[1]);
		close(out[0]);
		close(out[1]);
		return -err->errnum;
	}
	close(gate[0]);
	close(out[1]);
	g->gate = gate[1];
	g->out = out[0];
	return 0;
}

int startup_gate_go(struct startup_gate *g, struct hx_err *err)
{
	g->go_ns = util_now_ns();
	if (write(g->gate, "g", 1) != 1)
		return hx_syserr(err, "startup: the launcher's gate");
	return 0;
}

int startup_gate_read(struct startup_gate *g, uint64_t deadline_ns, volatile sig_atomic_t *stop,
		      struct startup_record *rec, struct hx_err *err)
{
	size_t got = 0;

	while (got < sizeof(*rec)) {
		struct pollfd p = {.fd = g->out, .events = POLLIN};
		uint64_t now = util_now_ns();
		ssize_t n;

		if (stop && *stop)
			return hx_fail(err, HX_EXIT_VERDICT, EINTR, "interrupted");
		if (now >= deadline_ns)
			return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT, "a run did not end within %llu s",
				       (unsigned long long)((deadline_ns - g->go_ns) / 1000000000u));
		if (poll(&p, 1, (int)((deadline_ns - now) / 1000000 + 1)) < 0 && errno != EINTR)
			return hx_syserr(err, "startup: poll");
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		if ((n = read(g->out, (char *)rec + got, sizeof(*rec) - got)) <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return hx_fail(err, HX_EXIT_INTERNAL, EIO, "startup: the launcher ended");
		}
		got += (size_t)n;
	}
	if (rec->status < 0)
		return hx_fail(err, HX_EXIT_USAGE, -rec->status, "startup: a run cannot start: %s",
			       strerror(-rec->status));
	return 0;
}

void startup_gate_shut(struct startup_gate *g)
{
	if (g->gate >= 0)
		close(g->gate); /* the launcher's next read ends it */
	if (g->out >= 0)
		close(g->out);
	g->gate = g->out = -1;
}

void startup_gate_close(struct startup_gate *g)
{
	startup_gate_shut(g);
	if (g->launcher > 0)
		while (waitpid(g->launcher, NULL, 0) < 0 && errno == EINTR)
			;
	g->launcher = -1;
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
	struct series s = {.argv = argv, .runs = o->runs, .warmup = o->warmup, .quiet = !o->show_output, .gate_fd = -1};

	return o->sandbox ? series_sandboxed(&s, o, recs, err) : series_plain(&s, recs, err);
}
