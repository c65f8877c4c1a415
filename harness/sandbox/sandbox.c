/* The sandbox: the child's setup is a checklist of the facility modules' apply_in_child steps; any
 * failure goes to the parent as {step, errno} over a close-on-exec pipe, never printed in the child. A bare
 * start (run --no-sandbox) takes the same steps but those of the namespaces, the root and the filter. */
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/proc.h"
#include "sandbox/sandbox_internal.h"
#include "sandbox/sbx_caps.h"
#include "sandbox/sbx_fds.h"
#include "sandbox/sbx_out.h"
#include "sandbox/sbx_net.h"
#include "sandbox/sbx_userns.h"
#include "base/util.h"

#define SBX_CLONE_FLAGS (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS)

struct sbx_report {
	char step[48];
	int errnum;
};

struct sbx_child {
	const struct sbx_config *c;
	const struct sbx_bare *bare; /* NULL: sandboxed */
	void *seccomp_ctx;
	int report_fd;
	struct sbx_stamps *stamps;
	uid_t uid; /* the role's user (sbx_role_uid) */
	gid_t gid;
};

void sbx_config_init(struct sbx_config *c)
{
	static const char *const base[] = {"PATH=/usr/local/bin:/usr/bin:/bin",
					   "HOME=" SBX_HOME,
					   "USER=" SBX_USER,
					   "LOGNAME=" SBX_USER,
					   "LANG=C.UTF-8",
					   "TZ=UTC"};

	memset(c, 0, sizeof(*c));
	c->netns_fd = -1;
	c->out_fd = -1;
	c->err_fd = -1;
	c->in_fd = -1;
	c->cwd = SBX_HOME;
	c->rootfs.tmp_size = 256 << 20;
	c->rootfs.home_size = 64 << 20;
	for (size_t i = 0; i < HX_ARRAY_SIZE(base); i++)
		snprintf(c->env[c->nenv++], SBX_ENV_LEN, "%s", base[i]);
}

int sbx_env_set(struct sbx_config *c, const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t klen;

	if (!eq || eq == kv)
		return -EINVAL;
	if (strlen(kv) >= SBX_ENV_LEN)
		return -E2BIG;
	klen = (size_t)(eq - kv) + 1;
	for (size_t i = 0; i < c->nenv; i++)
		if (strncmp(c->env[i], kv, klen) == 0) {
			snprintf(c->env[i], SBX_ENV_LEN, "%s", kv);
			return 0;
		}
	if (c->nenv == SBX_MAX_ENV)
		return -E2BIG;
	snprintf(c->env[c->nenv++], SBX_ENV_LEN, "%s", kv);
	return 0;
}

int sbx_parse_bind(const char *spec, struct sbx_bind *b, struct hx_err *err)
{
	_cleanup_free_ char *copy = strdup(spec);
	char *dst, *mode;
	struct stat st;

	if (!copy)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	dst = strchr(copy, ':');
	if (!dst)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "--bind takes SRC:DST[:rw], not '%s'", spec);
	*dst++ = '\0';
	mode = strchr(dst, ':');
	if (mode)
		*mode++ = '\0';
	b->rw = mode && strcmp(mode, "rw") == 0;
	if (mode && !b->rw && strcmp(mode, "ro") != 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "--bind %s: the mode is ro or rw, not '%s'", spec, mode);
	if (copy[0] != '/' || dst[0] != '/' || strcmp(dst, "/") == 0 || strstr(dst, "..") ||
	    strncmp(dst, "/proc", 5) == 0 || strncmp(dst, "/dev", 4) == 0 ||
	    strncmp(dst, SBX_OLD_ROOT, strlen(SBX_OLD_ROOT)) == 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "--bind %s: SRC and DST must be absolute, DST not /, /proc, /dev, " SBX_OLD_ROOT
			       " or with '..'",
			       spec);
	if (stat(copy, &st) < 0)
		return hx_fail(err, HX_EXIT_USAGE, errno, "--bind %s: %s: %s", spec, copy, strerror(errno));
	b->dst = dst;
	b->src = b->owned = steal_pointer(&copy); /* dst points into it: both live until sbx_config_release */
	return 0;
}

void sbx_config_release(struct sbx_config *c)
{
	for (size_t i = 0; i < c->rootfs.nbinds; i++) {
		free(c->rootfs.binds[i].owned);
		c->rootfs.binds[i] = (struct sbx_bind){0};
	}
	c->rootfs.nbinds = 0;
}

/* In a child: tell the parent which step failed and end. */
static __attribute__((noreturn)) void child_fail(int fd, const char *step, int errnum)
{
	struct sbx_report r = {.errnum = errnum};

	snprintf(r.step, sizeof(r.step), "%s", step);
	if (write(fd, &r, sizeof(r)) < 0)
		_exit(125);
	_exit(125);
}

/* The child's output pipes (each sandbox child has its own copy of this memory; the parent never uses it). */
static struct sbx_out sbx_child_out;

/* The payload: PID 2 of the sandbox, forked by init with the payload's user and no privileges already. A
 * session of its own, only fds 0-2 pass execve, seccomp comes last. */

static __attribute__((noreturn)) void payload(struct sbx_child *x)
{
	char *envp[SBX_MAX_ENV + 1];
	pid_t init = getppid();
	sigset_t none;
	int r;

	/* no controlling terminal: TIOCSTI into the caller's shell needs one (bubblewrap's CVE-2017-5226) */
	if (setsid() < 0)
		child_fail(x->report_fd, "setsid", errno);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* bare, no PID namespace ends it with init: it goes with init (a fork clears the parent-death signal) */
	if (x->bare && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_fail(x->report_fd, "pdeathsig", errno);
	if (x->bare && getppid() != init) /* init died before the signal was armed: it will not come */
		_exit(137);
	if (chdir(x->bare ? x->bare->cwd : x->c->cwd) < 0)
		child_fail(x->report_fd, "chdir", errno);
	if (x->c->in_fd >= 0 && dup2(x->c->in_fd, 0) < 0)
		child_fail(x->report_fd, "redirect input", errno);
	if (sbx_child_out.n && (r = sbx_out_apply_in_payload(&sbx_child_out)) < 0)
		child_fail(x->report_fd, "redirect output", -r);
	if (!sbx_child_out.n && x->c->quiet) {
		int out = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (out < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			child_fail(x->report_fd, "redirect output", errno);
	}
	/* whatever harness inherited (a `3</` from its caller) would let the payload fchdir out */
	if ((r = sbx_fds_cloexec_from_3()) < 0)
		child_fail(x->report_fd, "close inherited descriptors", -r);
	if (!x->bare && (r = sbx_seccomp_apply_in_child(x->seccomp_ctx)) < 0)
		child_fail(x->report_fd, "seccomp", -r);
	for (size_t i = 0; i < x->c->nenv; i++)
		envp[i] = x->bare ? (char *)x->bare->env[i] : (char *)x->c->env[i];
	envp[x->c->nenv] = NULL;
	environ = envp;
	x->stamps->exec_ns = util_now_ns();
	execvp(x->bare ? x->bare->argv[0] : x->c->argv[0], x->bare ? x->bare->argv : x->c->argv);
	child_fail(x->report_fd, "execve", errno);
}

static volatile pid_t init_payload_pid;

static void init_forward(int sig)
{
	if (init_payload_pid > 0)
		kill(init_payload_pid, sig);
}

static void init_on_child(int sig)
{
	(void)sig; /* only to interrupt ppoll */
}

/* Reap what has exited (waiting when flags is 0); true once the payload has, its status in *code. */
static bool init_reap(pid_t child, struct sbx_stamps *stamps, int *code, int flags)
{
	for (;;) {
		struct rusage ru;
		int status;
		pid_t p = wait4(-1, &status, flags, &ru);

		if (p < 0 && errno == EINTR)
			continue;
		if (p <= 0)
			return false;
		if (p == child) {
			stamps->exit_ns = util_now_ns();
			stamps->utime_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
			stamps->stime_us = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
			stamps->maxrss_kb = (uint64_t)ru.ru_maxrss;
			*code = util_exit_code(status);
			return true;
		}
	}
}

/* Until the payload exits: copy its output as it comes, reap as children exit. SIGCHLD is blocked but
 * inside ppoll, so an exit between the reap and the poll still wakes it. */
static void init_pump(pid_t child, struct sbx_stamps *stamps, int *code, struct sbx_out *out)
{
	struct sigaction sa = {.sa_handler = init_on_child};
	struct pollfd pfd[2];
	sigset_t chld, none;

	sigemptyset(&none);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_SETMASK, &chld, NULL);
	for (int i = 0; i < out->n; i++)
		pfd[i] = (struct pollfd){.fd = out->s[i].rd, .events = POLLIN};
	while (!init_reap(child, stamps, code, WNOHANG)) {
		if (ppoll(pfd, (nfds_t)out->n, NULL, &none) < 0 && errno != EINTR)
			return;
		for (int i = 0; i < out->n; i++)
			if (pfd[i].revents && !sbx_out_pump(out, i))
				pfd[i].fd = -1; /* closed by every writer; the payload may still run */
	}
}

/* Bare, init is no PID 1 whose exit ends a namespace (and kill(-1) would reach every process of the sandbox
 * user on the host): it kills its children until none is left, what the payload left behind among them (init
 * is their subreaper). A stack buffer: init allocates nothing. */
static void init_end_bare(void)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	for (;;) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			return; /* what is left goes with the slice */
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		for (char *p = buf, *end; *p; p = end) {
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			kill((pid_t)pid, SIGKILL);
		}
		if (waitpid(-1, NULL, 0) < 0 && errno != EINTR)
			return; /* ECHILD: none is left */
	}
}

/* PID 1 of the sandbox: forwards termination signals, reaps everything, exits with the payload's
 * status (128+N for a signal), and its exit takes every other process of the namespace with it. */
static int init_loop(pid_t child, struct sbx_stamps *stamps, struct sbx_out *out, bool bare)
{
	static const int fwd[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
	struct sigaction sa = {.sa_handler = init_forward};
	sigset_t none;
	int code = 0;

	init_payload_pid = child;
	sigemptyset(&none);
	for (size_t i = 0; i < HX_ARRAY_SIZE(fwd); i++)
		sigaction(fwd[i], &sa, NULL);
	if (out->n) {
		init_pump(child, stamps, &code, out);
	} else {
		sigprocmask(SIG_SETMASK, &none, NULL);
		while (!init_reap(child, stamps, &code, 0) && errno != ECHILD)
			;
	}
	if (bare) {
		init_end_bare();
	} else {
		kill(-1, SIGKILL);
		while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
			;
	}
	sbx_out_finish(out); /* every writer is gone */
	return code;
}

/* The namespaces' part of the checklist: the cgroup namespace, the root, the hostname. Bare, none of them;
 * init becomes the subreaper of what the payload starts, as PID 1 is. */
static void child_enclose(struct sbx_child *x)
{
	const char *step = NULL;
	int r;

	if (x->bare) {
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
			child_fail(x->report_fd, "subreaper", errno);
		return;
	}
	/* after the slice is ours: the cgroup namespace is rooted at the slice */
	if (unshare(CLONE_NEWCGROUP) < 0)
		child_fail(x->report_fd, "unshare cgroup namespace", errno);
	if ((r = sbx_mount_apply_in_child(&x->c->rootfs, x->uid, x->gid, &step)) < 0)
		child_fail(x->report_fd, step, -r);
	if (sethostname("harness", 7) < 0)
		child_fail(x->report_fd, "sethostname", errno);
}

/* The sandbox's first process, already in its slice and new namespaces: the setup checklist. */
static int sbx_child_main(void *arg)
{
	struct sbx_child *x = arg;
	const char *step = NULL;
	int keep[1 + 2 * HX_ARRAY_SIZE(sbx_child_out.s)];
	size_t nkeep = 0;
	pid_t child;
	int r;

	x->stamps->child_ns = util_now_ns();
	/* Not dumpable from the first instruction: /proc/1/mem (and environ, fd/) of init are then its owner's only
	 * with CAP_SYS_PTRACE, which no payload has. Rootless, init keeps uid 0 of the namespace, the payload's uid,
	 * and a dumpable init's memory (the stamps page harness reads) would be the payload's to rewrite. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		child_fail(x->report_fd, "not dumpable", errno);
	/* a killed harness leaves no sandbox running (getppid() is 0 here: the parent is outside our
	 * PID namespace, so a death before this point is left to the slice's teardown or harness gc) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_fail(x->report_fd, "pdeathsig", errno);
	if ((r = sbx_net_apply_in_child(x->c->netns_fd)) < 0)
		child_fail(x->report_fd,
			   x->c->netns_fd == SBX_NET_OWN ? "bring up lo" : "join the run's network namespace", -r);
	child_enclose(x);
	if ((r = sbx_out_open(&sbx_child_out, x->c->out_fd, x->c->err_fd, x->c->out_max)) < 0)
		child_fail(x->report_fd, "output pipes", -r);
	/* Init takes the payload's user before the fork, and the payload inherits it: one change of user on the
	 * sandbox's start, not one in each (the two share the slice's CPUs until the payload's execve). */
	if ((r = sbx_caps_apply_in_child(x->uid, x->gid, &step)) < 0)
		child_fail(x->report_fd, step, -r);
	/* Changing the user clears the parent-death signal (prctl(2): any change of the effective or fs uid/gid): set it
	 * again, or a SIGKILLed harness would leave the sandbox running. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_fail(x->report_fd, "pdeathsig", errno);
	/* A change of uid sets dumpable to fs.suid_dumpable, which a host may have at 1: 0 again, after the last one. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		child_fail(x->report_fd, "not dumpable", errno);
	child = fork();
	if (child < 0)
		child_fail(x->report_fd, "fork payload", errno);
	if (child == 0)
		payload(x);
	/* init, running as the payload's user, keeps nothing of harness's either */
	keep[nkeep++] = x->report_fd;
	sbx_out_init_side(&sbx_child_out, keep, &nkeep);
	if ((r = sbx_fds_close_except(keep, nkeep)) < 0) {
		kill(child, SIGKILL);
		child_fail(x->report_fd, "close inherited descriptors", -r);
	}
	close(x->report_fd);
	return init_loop(child, x->stamps, &sbx_child_out, x->bare != NULL);
}

/* What the child needs, made in the parent: the seccomp filter, or bare, the host paths and scratch folder. */
static int sbx_prepare(const struct sbx_config *c, struct sbx *out, struct sbx_bare **ret_bare, struct hx_err *err)
{
	if (!c->bare)
		return sbx_seccomp_prepare(&c->seccomp, &out->seccomp_ctx, err);
	if (sbx_bare_prepare(c, ret_bare, err) < 0)
		return -err->errnum;
	snprintf(out->scratch, sizeof(out->scratch), "%s", (*ret_bare)->scratch);
	return 0;
}

/* Whom a sandbox of slice s runs as (docs/sandbox.md, "One user per role"). */
static enum sbx_role sbx_role_of(const struct sbx_config *c, enum cg_slice s)
{
	static const enum sbx_role of_slice[CG_NR_SLICES] = {
		[CG_SLICE_SUT] = SBX_ROLE_SUT,	       [CG_SLICE_CLIENT] = SBX_ROLE_CLIENT,
		[CG_SLICE_FIXTURE] = SBX_ROLE_FIXTURE, [CG_SLICE_NOISE] = SBX_ROLE_NOISE,
		[CG_SLICE_PREPARE] = SBX_ROLE_PREPARE, [CG_SLICE_SUT_B] = SBX_ROLE_SUT, /* a duet's B: a runtime too */
		[CG_SLICE_CLIENT_B] = SBX_ROLE_CLIENT,
	};
	enum sbx_role r = c->role != SBX_ROLE_OF_SLICE ? c->role : of_slice[s];

	return c->bare && r == SBX_ROLE_SUT ? SBX_ROLE_BARE : r;
}

static int sbx_start_in(struct cg_tree *t, enum cg_slice s, const struct sbx_config *c, struct sbx *ret,
			struct hx_err *err)
{
	enum sbx_role role = sbx_role_of(c, s);
	struct sbx_child x = {.c = c, .uid = sbx_role_uid(role), .gid = sbx_role_gid(role)};
	struct sbx out = {.pid = -1, .report_fd = -1};
	struct sbx_bare *bare = NULL;
	unsigned long flags = c->bare ? 0 : SBX_CLONE_FLAGS;
	int report[2];

	if (c->netns_fd == SBX_NET_OWN && !c->bare)
		flags |= CLONE_NEWNET;
	else if (c->netns_fd < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, EINVAL, "sandbox: no network namespace");
	out.stamps = mmap(NULL, sizeof(*out.stamps), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out.stamps == MAP_FAILED)
		return hx_syserr(err, "sandbox: mmap");
	x.stamps = out.stamps;
	if (sbx_prepare(c, &out, &bare, err) < 0) {
		sbx_release(&out);
		return -err->errnum;
	}
	x.seccomp_ctx = out.seccomp_ctx;
	x.bare = bare;
	if (pipe2(report, O_CLOEXEC) < 0) {
		sbx_bare_free(bare);
		sbx_release(&out);
		return hx_syserr(err, "sandbox: pipe");
	}
	x.report_fd = report[1];
	out.stamps->clone_ns = util_now_ns();
	if (!t) {
		out.pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
		if (out.pid == 0)
			_exit(sbx_child_main(&x));
		if (out.pid < 0)
			hx_syserr(err, "clone");
	}
	if (t && cg_spawn(t, s, flags, sbx_child_main, &x, &out.pid, err) < 0)
		out.pid = -1;
	sbx_bare_free(bare); /* the child has its copy */
	if (out.pid < 0) {
		close(report[0]);
		close(report[1]);
		sbx_release(&out);
		return hx_wrap(err, "sandbox");
	}
	close(report[1]);
	out.report_fd = report[0];
	*ret = out;
	return 0;
}

int sbx_start(struct cg_tree *t, enum cg_slice s, const struct sbx_config *c, struct sbx *ret, struct hx_err *err)
{
	if (!t) /* every sandbox is in a slice: a caller outside one makes a prepare slice (sbx_run.h) */
		return hx_fail(err, HX_EXIT_INTERNAL, EINVAL, "sandbox: no slice to start in");
	return sbx_start_in(t, s, c, ret, err);
}

int sbx_start_here(enum cg_slice s, const struct sbx_config *c, struct sbx *ret, struct hx_err *err)
{
	return sbx_start_in(NULL, s, c, ret, err);
}

static const char *sbx_fix(const char *step, int errnum)
{
	if (errnum == EPERM && (strstr(step, "namespace") || strstr(step, "mount") || strstr(step, "pivot")))
		return " (the sandbox needs root, or CAP_SYS_ADMIN with user namespaces: run harness as root)";
	if (errnum == EINVAL && strstr(step, "pivot_root"))
		return " (harness cannot pivot from a chroot: run it from a real root)";
	return "";
}

int sbx_wait_exec(struct sbx *x, const char *what, struct hx_err *err)
{
	struct sbx_report r;
	ssize_t n;

	do
		n = read(x->report_fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	close(x->report_fd);
	x->report_fd = -1;
	if (n != sizeof(r))
		return 0; /* EOF: execve closed the pipe */
	r.step[sizeof(r.step) - 1] = '\0';
	if (strcmp(r.step, "execve") == 0)
		return hx_fail(err, HX_EXIT_USAGE, r.errnum, "cannot run '%s': %s", what, strerror(r.errnum));
	return hx_fail(err, HX_EXIT_INTERNAL, r.errnum, "sandbox: %s: %s%s", r.step, strerror(r.errnum),
		       sbx_fix(r.step, r.errnum));
}

void sbx_release(struct sbx *x)
{
	if (x->report_fd >= 0)
		close(x->report_fd);
	x->report_fd = -1;
	if (x->scratch[0])
		sbx_bare_remove(x->scratch);
	x->scratch[0] = '\0';
	sbx_seccomp_cleanup(&x->seccomp_ctx);
	if (x->stamps && x->stamps != MAP_FAILED)
		munmap(x->stamps, sizeof(*x->stamps));
	x->stamps = NULL;
}

/* The payload (PID 2 in the sandbox) as the host sees it: the only child of the sandbox's init. */
pid_t sbx_payload_pid(pid_t init)
{
	char path[64];
	_cleanup_free_ char *text = NULL;
	struct hx_err err = {0};

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)init, (int)init);
	if (util_read_file(path, &text, NULL, &err) < 0)
		return -1;
	return (pid_t)atoi(text);
}

bool sbx_stop(struct cg_tree *t, enum cg_slice s, struct sbx *x, int sig, int wait_ms, int *ret_code)
{
	int status = 0;
	bool exited = false;

	*ret_code = -1;
	if (x->pid <= 0) { /* reaped already: only its slice is left to empty */
		cg_slice_kill(t, s, &(struct hx_err){0});
		return false;
	}
	kill(x->pid, sig);
	exited = proc_wait_first(&x->pid, 1, util_now_ns() + (unsigned long long)wait_ms * 1000000, NULL, &status) == 0;
	cg_slice_kill(t, s, &(struct hx_err){0});
	if (!exited)
		proc_reap(&x->pid, &status); /* the slice is empty: its init is gone */
	else
		*ret_code = util_exit_code(status);
	return exited;
}
