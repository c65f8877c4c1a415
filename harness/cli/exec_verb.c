/* `harness exec`: run one command in a fresh sut slice, in a sandbox unless --no-sandbox (with the
 * client set reserved, as in a run), pass its exit status through, and optionally report the slice's
 * stats and where the time went. --client runs a second command in the client slice's own sandbox,
 * in the same network namespace, as a run does with the load client. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/opt.h"
#include "base/pty.h"
#include "base/util.h"
#include "cgroups/cg.h"
#include "cgroups/plan.h"
#include "cli/verbs.h"
#include "host/rootless.h"
#include "image/images.h"
#include "image/spec.h"
#include "results/results.h"
#include "sandbox/sandbox.h"
#include "sandbox/sbx_net.h"

struct exec_opts {
	bool help, stats, json, timing, no_sandbox, allow_io_uring;
	unsigned cpus, client_cpus;
	unsigned pids_max;
	uint64_t memory, tmp_size;
	const char *mode, *cgroup_root, *client, *image;
	struct opt_list binds, envs;
};

static const struct hx_opt exec_tab[] = {
	{"cpus", 0, OPT_UINT, offsetof(struct exec_opts, cpus), "N",
	 .help = "CPUs for the command (default: from the host)", .min = 1, .max = CG_MAX_CPUS},
	{"client-cpus", 0, OPT_UINT, offsetof(struct exec_opts, client_cpus), "N",
	 .help = "CPUs kept for the load client, as in a run (default: from the host)", .min = 1, .max = CG_MAX_CPUS},
	{"memory", 0, OPT_SIZE, offsetof(struct exec_opts, memory), "SIZE",
	 .help = "memory limit, e.g. 512M (no swap; default 2G)", .min = OPT_MEMORY_MIN},
	{"pids-max", 0, OPT_UINT, offsetof(struct exec_opts, pids_max), "N", .help = "process limit (default 4096)",
	 .min = 1, .max = 4194304},
	{"mode", 0, OPT_STR, offsetof(struct exec_opts, mode), "MODE",
	 .help = "pinned (own CPUs), quota (N CPUs of time on every CPU) or none"},
	{"image", 0, OPT_STR, offsetof(struct exec_opts, image), "NAME",
	 .help = "run with this image at /opt/runtime (its entry's folder first on PATH, $RUNTIME its entry)"},
	{"bind", 0, OPT_LIST, offsetof(struct exec_opts, binds), "SRC:DST[:rw]",
	 .help = "make host path SRC visible at DST inside (read-only unless :rw)"},
	{"env", 0, OPT_LIST, offsetof(struct exec_opts, envs), "K=V",
	 .help = "set a variable inside (the environment starts empty)"},
	{"tmp-size", 0, OPT_SIZE, offsetof(struct exec_opts, tmp_size), "SIZE",
	 .help = "size of the sandbox's /tmp (default 256M)", .min = 1 << 20},
	{"allow-io-uring", 0, OPT_FLAG, offsetof(struct exec_opts, allow_io_uring), NULL,
	 .help = "let the command use io_uring (refused by default, as in Docker)"},
	{"client", 0, OPT_STR, offsetof(struct exec_opts, client), "CMD",
	 .help = "also run sh -c CMD in the client slice's sandbox (same network); exit with its status"},
	{"no-sandbox", 0, OPT_FLAG, offsetof(struct exec_opts, no_sandbox), NULL,
	 .help = "the slice only: no namespaces (debugging)"},
	{"stats", 0, OPT_FLAG, offsetof(struct exec_opts, stats), NULL,
	 .help = "print the slice's stats on stderr at exit"},
	{"timing", 0, OPT_FLAG, offsetof(struct exec_opts, timing), NULL,
	 .help = "print where the time went on stderr"},
	{"json", 0, OPT_FLAG, offsetof(struct exec_opts, json), NULL,
	 .help = "print --stats and --timing as one JSON line"},
	{"cgroup-root", 0, OPT_STR, offsetof(struct exec_opts, cgroup_root), "PATH",
	 .help = "create the run's cgroups below this cgroup path instead of our own"},
	{"help", 'h', OPT_FLAG, offsetof(struct exec_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_exec_opts = exec_tab;

struct exec_plan {
	struct cg_budget budget;
	struct cg_slice_plan slices;
	struct sbx_config sbx[2]; /* sut, client */
	struct img_status img;	  /* --image: its tree is bound into sbx[0] */
	char **argv;
	char *client_argv[4];
	bool sandbox, client;
};

/* What one started command left: its pid, its sandbox, its status. */
struct exec_proc {
	pid_t pid;
	struct sbx sbx;
	int status;
	bool done;
};

/* --timing: moments of one exec (CLOCK_MONOTONIC ns), so that its parts add up to the whole wall time. */
struct exec_timing {
	uint64_t start_cpu_ns; /* CPU time before main's work: the execve, the dynamic loader */
	uint64_t main_ns, run_ns, netns_ns, slice_ns, exit_ns, stats_ns, teardown_ns;
};

/* --no-sandbox: the command runs as we do, in the slice only. */
struct exec_bare {
	char **argv;
	int report_fd;
};

static int exec_bare_main(void *arg)
{
	struct exec_bare *b = arg;
	sigset_t none;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	execvp(b->argv[0], b->argv);
	e = errno;
	if (write(b->report_fd, &e, sizeof(e)) < 0)
		_exit(127);
	return e == ENOENT ? 127 : 126;
}

static int exec_sandbox_plan(const struct exec_opts *o, struct exec_plan *p, struct hx_err *err)
{
	for (int i = 0; i < 2; i++) {
		struct sbx_config *c = &p->sbx[i];

		sbx_config_init(c);
		c->seccomp.allow_io_uring = o->allow_io_uring;
		if (o->tmp_size)
			c->rootfs.tmp_size = o->tmp_size;
		for (size_t b = 0; b < o->binds.n; b++) {
			if (c->rootfs.nbinds == SBX_MAX_BINDS)
				return hx_fail(err, HX_EXIT_USAGE, E2BIG, "exec: at most %d --bind", SBX_MAX_BINDS);
			if (sbx_parse_bind(o->binds.items[b], &c->rootfs.binds[c->rootfs.nbinds++], err) < 0)
				return -err->errnum;
		}
		for (size_t e = 0; e < o->envs.n; e++) {
			int r = sbx_env_set(c, o->envs.items[e]);

			if (r < 0)
				return hx_fail(err, HX_EXIT_USAGE, -r, "exec: --env takes K=V, not '%s'%s",
					       o->envs.items[e], r == -E2BIG ? " (too many)" : "");
		}
	}
	p->sbx[0].argv = p->argv;
	p->sbx[1].argv = p->client_argv;
	if (o->image) {
		struct img_cache cache = {.lock_fd = -1};
		struct manifest m;
		char note[512];
		int r;

		if (img_spec_load(o->image, &m, note, sizeof(note), err) < 0)
			return strchr(o->image, '/') || strchr(o->image, '@')
				       ? -err->errnum
				       : verb_suggest(err, img_manifest_dir(), ".json", o->image);
		if (note[0])
			fprintf(stderr, "harness: exec: %s\n", note);
		r = img_cache_open(&cache, err);
		if (r == 0)
			r = img_status(&cache, &m, false, &p->img, err);
		if (r == 0)
			r = img_apply_to_sandbox(&m, &p->img, &p->sbx[0], err);
		img_cache_close(&cache);
		man_free(&m);
		if (r < 0)
			return r;
	}
	return 0;
}

static int exec_make_plan(const struct exec_opts *o, char **argv, struct exec_plan *p, struct hx_err *err)
{
	p->argv = argv;
	p->sandbox = !o->no_sandbox;
	p->client = o->client != NULL;
	p->client_argv[0] = (char *)"/bin/sh";
	p->client_argv[1] = (char *)"-c";
	p->client_argv[2] = (char *)o->client;
	if ((p->client || o->image) && !p->sandbox)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "exec: --client and --image need the sandbox (drop --no-sandbox)");
	p->budget.cpus = o->cpus;
	p->budget.client_cpus = o->client_cpus;
	p->budget.no_client = !o->client; /* quota: the command alone may use every CPU */
	p->budget.memory_max = o->memory;
	p->budget.pids_max = o->pids_max ? o->pids_max : 4096;
	if (o->mode && cg_cpu_mode_parse(o->mode, &p->budget.mode) < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "exec: --mode takes pinned, quota or none, not '%s'",
			       o->mode);
	if (exec_sandbox_plan(o, p, err) < 0)
		return -err->errnum;
	return cg_plan_host(&p->budget, &p->slices, err);
}

/* Start one command in a slice: sandboxed, or bare with an exec-failure pipe. Waits for its execve. */
static int exec_start(const struct exec_plan *p, struct cg_tree *tree, enum cg_slice s, struct exec_proc *proc,
		      struct hx_err *err)
{
	const struct sbx_config *c = &p->sbx[s == CG_SLICE_SUT ? 0 : 1];
	struct exec_bare bare = {.argv = p->argv};
	int report[2], e = 0;

	proc->pid = -1;
	proc->sbx.report_fd = -1;
	if (p->sandbox) {
		if (sbx_start(tree, s, c, &proc->sbx, err) < 0)
			return -err->errnum;
		proc->pid = proc->sbx.pid;
		return sbx_wait_exec(&proc->sbx, c->argv[0], err);
	}
	if (pipe2(report, O_CLOEXEC) < 0)
		return hx_syserr(err, "exec: pipe");
	bare.report_fd = report[1];
	if (cg_spawn(tree, s, 0, exec_bare_main, &bare, &proc->pid, err) < 0) {
		close(report[0]);
		close(report[1]);
		return -err->errnum;
	}
	close(report[1]);
	if (read(report[0], &e, sizeof(e)) != sizeof(e))
		e = 0;
	close(report[0]);
	if (e)
		return hx_fail(err, HX_EXIT_USAGE, e, "cannot run '%s': %s", p->argv[0], strerror(e));
	return 0;
}

static void exec_reap(struct exec_proc *procs, int n)
{
	int status;
	pid_t pid;

	/* we are a child subreaper: orphans of the commands come back to us and are reaped here too */
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (int i = 0; i < n; i++)
			if (procs[i].pid == pid) {
				procs[i].status = status;
				procs[i].done = true;
			}
}

/* Wait until procs[want] is done or timeout_ms passes (-1: forever). The first termination signal
 * goes to procs[fwd]; a second one kills the slices. Returns 0 when done, -ETIMEDOUT otherwise. */
static int exec_wait(int sfd, struct exec_proc *procs, int n, int want, int fwd, struct cg_tree *tree, int timeout_ms,
		     int *signals)
{
	uint64_t deadline = timeout_ms < 0 ? 0 : util_now_ns() + (uint64_t)timeout_ms * 1000000u;

	exec_reap(procs, n);
	while (!procs[want].done) {
		struct pollfd pfd = {.fd = sfd, .events = POLLIN};
		struct signalfd_siginfo si;
		int left = -1;

		if (timeout_ms >= 0) {
			uint64_t now = util_now_ns();

			if (now >= deadline)
				return -ETIMEDOUT;
			left = (int)((deadline - now) / 1000000u) + 1;
		}
		if (poll(&pfd, 1, left) <= 0 || read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGCHLD) {
			exec_reap(procs, n);
		} else if ((*signals)++ == 0) {
			kill(procs[fwd].pid, (int)si.ssi_signo);
		} else {
			struct hx_err ignored = {0};

			for (int s = 0; s < CG_NR_SLICES; s++)
				cg_slice_kill(tree, (enum cg_slice)s, &ignored);
		}
	}
	return 0;
}

/* This process's CPU time so far: at the verb's start, what the execve and the dynamic loader took (a start
 * does not wait, so its CPU time is its wall time, less the few µs the parent's fork side ran before it). */
static uint64_t exec_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* start + plan + netns + slice + prepare + clone_to_execve + execve_to_exit + stats + teardown = total (bare:
 * spawn_to_exit instead of prepare to execve_to_exit); clone_to_child and sandbox_setup split clone_to_execve. */
static cJSON *exec_timing_json(const struct exec_timing *tm, uint64_t move_ns, const struct sbx_stamps *st)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "start_ms", ms(tm->start_cpu_ns));
	cJSON_AddNumberToObject(j, "plan_ms", ms(tm->run_ns - tm->main_ns));
	cJSON_AddNumberToObject(j, "netns_ms", ms(tm->netns_ns - tm->run_ns));
	cJSON_AddNumberToObject(j, "slice_ms", ms(tm->slice_ns - tm->netns_ns));
	cJSON_AddNumberToObject(j, "cgroup_move_ms", ms(move_ns));
	if (st && st->exec_ns) {
		cJSON_AddNumberToObject(j, "prepare_ms", ms(st->clone_ns - tm->slice_ns));
		cJSON_AddNumberToObject(j, "clone_to_child_ms", ms(st->child_ns - st->clone_ns));
		cJSON_AddNumberToObject(j, "sandbox_setup_ms", ms(st->exec_ns - st->child_ns));
		cJSON_AddNumberToObject(j, "clone_to_execve_ms", ms(st->exec_ns - st->clone_ns));
		cJSON_AddNumberToObject(j, "execve_to_exit_ms", ms(tm->exit_ns - st->exec_ns));
	} else {
		cJSON_AddNumberToObject(j, "spawn_to_exit_ms", ms(tm->exit_ns - tm->slice_ns));
	}
	cJSON_AddNumberToObject(j, "stats_ms", ms(tm->stats_ns - tm->exit_ns));
	cJSON_AddNumberToObject(j, "teardown_ms", ms(tm->teardown_ns - tm->stats_ns));
	cJSON_AddNumberToObject(j, "total_ms", ms(tm->start_cpu_ns + tm->teardown_ns - tm->main_ns));
	return j;
}

/* What --stats and --json report, read while the slices are there; the timing is added after the teardown. */
static cJSON *exec_report(const struct exec_opts *o, const struct exec_plan *p, struct cg_tree *tree,
			  const struct exec_proc *procs, int code)
{
	char cpus[CG_MAX_CPUS * 5], client[CG_MAX_CPUS * 5];
	cJSON *j = cJSON_CreateObject();
	struct cg_stats st;
	struct hx_err err = {0};

	cg_cpus_format(&p->slices.limits[CG_SLICE_SUT].cpus, cpus, sizeof(cpus));
	cg_cpus_format(&p->slices.limits[CG_SLICE_CLIENT].cpus, client, sizeof(client));
	cJSON_AddStringToObject(j, "slice", "sut");
	cJSON_AddStringToObject(j, "mode", cg_cpu_mode_names[p->budget.mode]);
	cJSON_AddStringToObject(j, "cgroup_backend", cg_backend_name(tree));
	cJSON_AddBoolToObject(j, "sandbox", p->sandbox);
	if (p->sandbox) {
		struct sbx_seccomp_desc sd;

		sbx_seccomp_describe(&p->sbx[0].seccomp, &sd);
		cJSON_AddItemToObject(j, "seccomp", res_seccomp_json(&sd));
	}
	cJSON_AddNumberToObject(j, "cpu_budget", p->slices.cpus);
	cJSON_AddStringToObject(j, "cpus", cpus);
	cJSON_AddStringToObject(j, "client_cpus", client);
	cJSON_AddNumberToObject(j, "memory_max_bytes", (double)p->slices.limits[CG_SLICE_SUT].memory_max);
	cJSON_AddNumberToObject(j, "pids_max", (double)p->slices.limits[CG_SLICE_SUT].pids_max);
	cJSON_AddNumberToObject(j, "exit_status", code);
	cJSON_AddNumberToObject(j, "cgroup_move_usec", (double)cg_last_move_ns(tree) / 1000.0);
	if (o->stats && cg_slice_stats(tree, CG_SLICE_SUT, &st, &err) == 0) {
		cJSON_AddItemToObject(j, "stats", res_stats_json(&st));
		if (!o->json) {
			fprintf(stderr,
				"harness: slice sut (cgroup %s, mode %s, on CPUs %s; client on CPUs %s), exit status "
				"%d:\n",
				cg_backend_name(tree), cg_cpu_mode_names[p->budget.mode], cpus, client, code);
			res_stats_print(stderr, &st);
		}
	}
	if (p->client && procs[1].done)
		cJSON_AddNumberToObject(j, "server_exit_status", util_exit_code(procs[0].status));
	return j;
}

static void exec_report_print(const struct exec_opts *o, cJSON *j, cJSON *timing)
{
	if (o->timing && !o->json) {
		const cJSON *e;

		fprintf(stderr, "harness: timing:");
		cJSON_ArrayForEach (e, timing)
			fprintf(stderr, " %s %.3f", e->string, e->valuedouble);
		fprintf(stderr, "\n");
	}
	if (o->timing)
		cJSON_AddItemToObject(j, "timing", timing);
	else
		cJSON_Delete(timing);
	if (o->json) {
		_cleanup_free_ char *s = cJSON_PrintUnformatted(j);

		fprintf(stderr, "%s\n", s);
	}
	cJSON_Delete(j);
}

/* With --client: the client's exit ends the run; the server gets SIGTERM and 2 s before the kill. */
static int exec_supervise(const struct exec_plan *p, int sfd, struct exec_proc *procs, struct cg_tree *tree)
{
	int signals = 0, n = p->client ? 2 : 1, want = p->client ? 1 : 0;

	exec_wait(sfd, procs, n, want, want, tree, -1, &signals);
	if (p->client && !procs[0].done) {
		kill(procs[0].pid, SIGTERM);
		exec_wait(sfd, procs, n, 0, 0, tree, 2000, &signals);
	}
	return util_exit_code(procs[want].status);
}

static int exec_run(const struct exec_opts *o, const struct exec_plan *p, struct exec_timing *tm, struct hx_err *err)
{
	struct exec_proc procs[2] = {{.pid = -1, .sbx.report_fd = -1}, {.pid = -1, .sbx.report_fd = -1}};
	struct cg_tree *tree = NULL;
	struct sbx_stamps stamps = {0};
	cJSON *report = NULL;
	uint64_t move_ns = 0;
	struct pty_relay tty = {.master = -1, .saved = {-1, -1, -1}, .stop = {-1, -1}};
	_cleanup_close_ int sfd = -1;
	int netns = -1, code = -1;
	sigset_t block;
	struct hx_err derr = {0};

	sigemptyset(&block);
	for (int s = 0; s < 5; s++)
		sigaddset(&block, (int[]){SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}[s]);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sfd = signalfd(-1, &block, SFD_CLOEXEC);
	/* Orphaned descendants come back to us, so none outlives the run unnoticed. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (sfd < 0)
		return hx_syserr(err, "exec: signalfd");
	/* on a terminal, the command gets a pty of its own: nothing it does to its terminal outlives it */
	if (pty_relay_start(&tty, err) < 0)
		return hx_report(err);
	tm->run_ns = util_now_ns();
	/* alone, the command's sandbox makes its network namespace in its own clone; with --client both join one */
	if (p->sandbox && p->client && sbx_net_prepare(&netns, err) < 0)
		goto out;
	tm->netns_ns = util_now_ns();
	for (int i = 0; i < 2; i++)
		((struct sbx_config *)&p->sbx[i])->netns_fd = p->client ? netns : SBX_NET_OWN;
	/* the client's CPUs stay out of the command's set (the plan); its slice is made only for --client */
	if (cg_tree_from_plan(&p->slices, p->client ? p->slices.slices : 1u << CG_SLICE_SUT, o->cgroup_root, &tree,
			      err) < 0)
		goto out;
	tm->slice_ns = util_now_ns();
	if (exec_start(p, tree, CG_SLICE_SUT, &procs[0], err) < 0 ||
	    (p->client && exec_start(p, tree, CG_SLICE_CLIENT, &procs[1], err) < 0)) {
		code = err->errnum == ENOENT && err->exit == HX_EXIT_USAGE ? 127
		       : err->exit == HX_EXIT_USAGE			   ? 126
									   : -1;
		goto out;
	}
	/* the relay's thread only now: no process is cloned while harness has a second thread (pty.h) */
	if (pty_relay_run(&tty, err) < 0)
		goto out;
	code = exec_supervise(p, sfd, procs, tree);
	tm->exit_ns = util_now_ns();
	pty_relay_stop(&tty);
	if (o->stats || o->timing) {
		report = exec_report(o, p, tree, procs, code);
		move_ns = cg_last_move_ns(tree);
		if (procs[0].sbx.stamps)
			stamps = *procs[0].sbx.stamps;
	}
	tm->stats_ns = util_now_ns();
out:
	pty_relay_stop(&tty);
	if (cg_tree_destroy(tree, &derr) < 0)
		hx_report(&derr);
	for (int i = 0; i < 2; i++)
		sbx_release(&procs[i].sbx);
	sbx_net_cleanup(&netns);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	tm->teardown_ns = util_now_ns();
	if (report)
		exec_report_print(o, report, o->timing ? exec_timing_json(tm, move_ns, &stamps) : NULL);
	if (code < 0)
		return hx_report(err);
	if (err->msg[0])
		fprintf(stderr, "harness: exec: %s\n", err->msg);
	return code;
}

int verb_exec(int argc, char **argv)
{
	struct exec_timing tm = {.main_ns = util_now_ns(), .start_cpu_ns = exec_cpu_ns()};
	struct exec_opts o = {0};
	struct exec_plan p = {0};
	struct hx_err err = {0};
	int npos, rc;

	if (opt_parse("exec", exec_tab, &o, argc, argv, true, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout, "harness exec [OPTIONS] -- CMD [ARG...]",
			"Run CMD in a sandbox in a fresh sut slice: pinned CPUs (the client's set stays reserved, as\n"
			"in a run), a memory and a process limit, new namespaces, a read-only root, no privileges,\n"
			"a seccomp filter, an environment built from scratch. Exits with CMD's status (128+N when\n"
			"killed by signal N; 127 when CMD is not found), or 2/3/4 when harness itself fails.",
			exec_tab);
		return HX_EXIT_OK;
	}
	if (npos == 0) {
		fprintf(stderr, "harness: exec: no command given (usage: harness exec [OPTIONS] -- CMD [ARG...])\n");
		return HX_EXIT_USAGE;
	}
	argv[1 + npos] = NULL;
	rc = exec_make_plan(&o, argv + 1, &p, &err) < 0 || rootless_enter("exec", &err) < 0
		     ? hx_report(&err)
		     : exec_run(&o, &p, &tm, &err);
	sbx_config_release(&p.sbx[0]);
	sbx_config_release(&p.sbx[1]);
	return rc;
}
