/* `harness exec`: run one command in a fresh sut slice (with the client set reserved, as in a run),
 * pass its exit status through, and optionally report the slice's stats. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../cgroups/cg.h"
#include "../cgroups/plan.h"
#include "cleanup.h"
#include "opt.h"
#include "stats_json.h"
#include "util.h"
#include "verbs.h"

struct exec_opts {
	bool help, stats, json;
	unsigned cpus, client_cpus;
	uint64_t memory, pids_max;
	const char *mode;
	const char *cgroup_root;
};

static const struct hx_opt exec_tab[] = {
	{"cpus", 0, OPT_UINT, offsetof(struct exec_opts, cpus), "N", "CPUs for the command (default: from the host)"},
	{"client-cpus", 0, OPT_UINT, offsetof(struct exec_opts, client_cpus), "N",
	 "CPUs kept for the load client, as in a run (default: from the host)"},
	{"memory", 0, OPT_SIZE, offsetof(struct exec_opts, memory), "SIZE", "memory limit, e.g. 512M (no swap)"},
	{"pids-max", 0, OPT_UINT, offsetof(struct exec_opts, pids_max), "N", "process limit (default 4096)"},
	{"mode", 0, OPT_STR, offsetof(struct exec_opts, mode), "MODE",
	 "pinned (own CPUs), quota (N CPUs of time on every CPU) or none"},
	{"stats", 0, OPT_FLAG, offsetof(struct exec_opts, stats), NULL, "print the slice's stats on stderr at exit"},
	{"json", 0, OPT_FLAG, offsetof(struct exec_opts, json), NULL, "print the stats as JSON"},
	{"cgroup-root", 0, OPT_STR, offsetof(struct exec_opts, cgroup_root), "PATH",
	 "create the run's cgroups below this cgroup path instead of our own"},
	{"help", 'h', OPT_FLAG, offsetof(struct exec_opts, help), NULL, "show this help"},
	OPT_END,
};

struct exec_plan {
	struct cg_budget budget;
	struct cg_slice_plan slices;
	char **argv;
};

struct exec_child {
	char **argv;
	sigset_t mask;
	int report_fd; /* close-on-exec: EOF means execve succeeded */
};

static int exec_child_main(void *arg)
{
	struct exec_child *c = arg;
	int e;

	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &c->mask, NULL);
	execvp(c->argv[0], c->argv);
	e = errno;
	if (write(c->report_fd, &e, sizeof(e)) < 0)
		_exit(127);
	return e == ENOENT ? 127 : 126;
}

static int exec_make_plan(const struct exec_opts *o, char **argv, struct exec_plan *p, struct hx_err *err)
{
	_cleanup_free_ struct cg_topo *t = calloc(1, sizeof(*t));
	struct cg_cpus cpuset, affinity, usable;

	if (!t)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	p->argv = argv;
	p->budget.cpus = o->cpus;
	p->budget.client_cpus = o->client_cpus;
	p->budget.memory_max = o->memory;
	p->budget.pids_max = o->pids_max ? o->pids_max : 4096;
	if (o->mode && cg_cpu_mode_parse(o->mode, &p->budget.mode) < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "exec: --mode takes pinned, quota or none, not '%s'",
			       o->mode);
	if (o->memory && o->memory < (4u << 20))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "exec: --memory must be at least 4M");
	if (cg_topo_read("/sys", t, err) < 0 || cg_own_cpuset(&cpuset, err) < 0 || cg_own_affinity(&affinity, err) < 0)
		return -err->errnum;
	cg_usable_cpus(t, &cpuset, &affinity, &usable);
	return cg_plan_slices(t, &usable, &p->budget, &p->slices, err);
}

/* Wait for the main child, forwarding termination signals; returns its wait status. */
static int exec_wait(int sfd, pid_t main_pid, struct cg_tree *tree)
{
	int status = 0, signals = 0;

	for (;;) {
		struct signalfd_siginfo si;
		pid_t pid;

		if (read(sfd, &si, sizeof(si)) != sizeof(si)) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (si.ssi_signo != SIGCHLD) {
			/* The first signal is the command's to handle; a second one ends the slice. */
			if (signals++ == 0) {
				kill(main_pid, (int)si.ssi_signo);
			} else {
				struct hx_err err = {0};

				cg_slice_kill(tree, CG_SLICE_SUT, &err);
			}
			continue;
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			if (pid == main_pid)
				return status;
	}
	waitpid(main_pid, &status, 0);
	return status;
}

static void exec_print_stats(const struct exec_opts *o, const struct exec_plan *p, struct cg_tree *tree,
			     const struct cg_stats *st, int code)
{
	char cpus[CG_MAX_CPUS * 5], client[CG_MAX_CPUS * 5];

	cg_cpus_format(&p->slices.limits[CG_SLICE_SUT].cpus, cpus, sizeof(cpus));
	cg_cpus_format(&p->slices.limits[CG_SLICE_CLIENT].cpus, client, sizeof(client));
	if (o->json) {
		cJSON *j = cJSON_CreateObject();
		_cleanup_free_ char *s = NULL;

		cJSON_AddStringToObject(j, "slice", "sut");
		cJSON_AddStringToObject(j, "mode", cg_cpu_mode_names[p->budget.mode]);
		cJSON_AddStringToObject(j, "cgroup_backend", cg_backend_name(tree));
		cJSON_AddNumberToObject(j, "cpu_budget", p->slices.cpus);
		cJSON_AddStringToObject(j, "cpus", cpus);
		cJSON_AddStringToObject(j, "client_cpus", client);
		if (p->budget.memory_max)
			cJSON_AddNumberToObject(j, "memory_max_bytes", (double)p->budget.memory_max);
		cJSON_AddNumberToObject(j, "exit_status", code);
		cJSON_AddNumberToObject(j, "cgroup_move_usec", (double)cg_last_move_ns(tree) / 1000.0);
		cJSON_AddItemToObject(j, "stats", res_stats_json(st));
		s = cJSON_PrintUnformatted(j);
		fprintf(stderr, "%s\n", s);
		cJSON_Delete(j);
		return;
	}
	fprintf(stderr, "harness: slice sut (cgroup %s, mode %s, on CPUs %s; client on CPUs %s), exit status %d:\n",
		cg_backend_name(tree), cg_cpu_mode_names[p->budget.mode], cpus, client, code);
	res_stats_print(stderr, st);
}

static int exec_run(const struct exec_opts *o, const struct exec_plan *p, struct hx_err *err)
{
	struct exec_child child = {.argv = p->argv, .report_fd = -1};
	struct cg_tree *tree = NULL;
	struct cg_stats st;
	_cleanup_close_ int sfd = -1;
	int report[2] = {-1, -1};
	sigset_t block;
	char id[64];
	pid_t pid = -1;
	int status, code = HX_EXIT_INTERNAL, child_errno = 0;

	sigemptyset(&block);
	for (int s = 0; s < 5; s++)
		sigaddset(&block, (int[]){SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}[s]);
	sigprocmask(SIG_BLOCK, &block, &child.mask);
	sfd = signalfd(-1, &block, SFD_CLOEXEC);
	/* Orphaned descendants come back to us, so none outlives the run unnoticed. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (sfd < 0 || pipe2(report, O_CLOEXEC) < 0)
		return hx_syserr(err, "exec: setup");
	child.report_fd = report[1];
	if (cg_run_id(id, sizeof(id), err) < 0 || cg_tree_create(id, o->cgroup_root, p->slices.slices, &tree, err) < 0)
		goto out;
	for (int s = 0; s < CG_NR_SLICES; s++)
		if ((p->slices.slices & (1u << s)) &&
		    cg_slice_apply(tree, (enum cg_slice)s, &p->slices.limits[s], err) < 0)
			goto out;
	if (cg_spawn(tree, CG_SLICE_SUT, exec_child_main, &child, &pid, err) < 0)
		goto out;
	close(report[1]);
	report[1] = -1;
	if (read(report[0], &child_errno, sizeof(child_errno)) == sizeof(child_errno)) {
		waitpid(pid, NULL, 0);
		code = hx_fail(err, child_errno == ENOENT ? HX_EXIT_USAGE : HX_EXIT_USAGE, child_errno,
			       "exec: cannot run '%s': %s", p->argv[0], strerror(child_errno));
		code = child_errno == ENOENT ? 127 : 126;
		goto out;
	}
	status = exec_wait(sfd, pid, tree);
	code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	if (o->stats && cg_slice_stats(tree, CG_SLICE_SUT, &st, err) == 0)
		exec_print_stats(o, p, tree, &st, code);
out:
	if (report[0] >= 0)
		close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
	cg_tree_destroy(tree);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (err->msg[0])
		fprintf(stderr, "harness: %s\n", err->msg);
	return err->msg[0] && child_errno == 0 ? (int)err->exit : code;
}

int verb_exec(int argc, char **argv)
{
	struct exec_opts o = {0};
	struct exec_plan p = {0};
	struct hx_err err = {0};
	int npos;

	if (opt_parse("exec", exec_tab, &o, argc, argv, true, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout, "harness exec [OPTIONS] -- CMD [ARG...]",
			"Run CMD in a fresh sut slice: pinned CPUs (the client's set stays reserved, as in a run),\n"
			"a memory limit and a process limit. Exits with CMD's status (128+N when killed by\n"
			"signal N; 127 when CMD is not found), or 2/3/4 when harness itself fails.",
			exec_tab);
		return HX_EXIT_OK;
	}
	if (npos == 0) {
		fprintf(stderr, "harness: exec: no command given (usage: harness exec [OPTIONS] -- CMD [ARG...])\n");
		return HX_EXIT_USAGE;
	}
	argv[1 + npos] = NULL;
	if (exec_make_plan(&o, argv + 1, &p, &err) < 0)
		return hx_report(&err);
	return exec_run(&o, &p, &err);
}
