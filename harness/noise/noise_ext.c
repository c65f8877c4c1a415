/* External noise: counters read at the start and end of the measured phase, and a sampler process for the
 * tasks that were runnable on the runtime's CPUs (a process, not a thread: harness forks sandboxes during the
 * phase, and a fork while another thread holds a libc lock leaves the child stuck on it). */
#include "noise/noise_ext.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"

#define SAMPLE_NS 200000000ull
#define TICK_MS	  10.0 /* USER_HZ is 100 on Linux whatever the kernel's HZ */

int noise_ext_parse_stat(const char *text, const struct cg_cpus *cpus, uint64_t *ret_steal, uint64_t *ret_total,
			 uint64_t *ret_busy)
{
	uint64_t steal = 0, total = 0, busy = 0;
	bool any = false;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long v[10] = {0};
		unsigned cpu;
		int n = sscanf(l, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
			       &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);

		if (n < 9 || cpu >= CG_MAX_CPUS || !cg_cpus_test(cpus, cpu))
			continue;
		any = true;
		/* user nice system idle iowait irq softirq steal [guest guest_nice, already in user and nice] */
		for (int i = 0; i < 8; i++)
			total += v[i];
		busy += v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		steal += v[7];
	}
	if (!any)
		return -ENOENT;
	*ret_steal = steal;
	*ret_total = total;
	*ret_busy = busy;
	return 0;
}

/* "key:<tab>value" at the start of a line of a /proc status file. */
static int status_u64(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long v;

		if (strncmp(l, key, klen) == 0 && sscanf(l + klen, " %llu", &v) == 1) {
			*ret = v;
			return 0;
		}
	}
	return -ENOENT;
}

int noise_ext_parse_ctxt(const char *text, uint64_t *ret_vol, uint64_t *ret_invol)
{
	uint64_t vol, invol;

	if (status_u64(text, "voluntary_ctxt_switches:", &vol) < 0 ||
	    status_u64(text, "nonvoluntary_ctxt_switches:", &invol) < 0)
		return -ENOENT;
	*ret_vol = vol;
	*ret_invol = invol;
	return 0;
}

int noise_ext_parse_migrations(const char *text, uint64_t *ret)
{
	const char *p = strstr(text, "se.nr_migrations");
	unsigned long long v;

	if (!p || sscanf(p, "se.nr_migrations %*[ :] %llu", &v) != 1)
		return -ENOENT;
	*ret = v;
	return 0;
}

int noise_ext_parse_schedstat(const char *text, uint64_t *ret)
{
	unsigned long long on, delay;

	if (sscanf(text, "%llu %llu", &on, &delay) != 2)
		return -EINVAL;
	*ret = delay;
	return 0;
}

#define PF_KTHREAD_FLAG 0x00200000u

int noise_ext_parse_task_stat(const char *text, char *ret_state, int *ret_cpu, bool *ret_kthread)
{
	const char *p = strrchr(text, ')');
	char state;
	unsigned long flags = 0;
	int cpu = -1, field = 3;

	if (!p || sscanf(p + 1, " %c", &state) != 1)
		return -EINVAL;
	/* after ") ": field 3 is the state, 9 the flags, 39 the last CPU */
	for (p += 2; *p && field < 39; p++)
		if (*p == ' ' && ++field == 9 && sscanf(p + 1, "%lu", &flags) != 1)
			return -EINVAL;
	if (field != 39 || sscanf(p, "%d", &cpu) != 1)
		return -EINVAL;
	*ret_state = state;
	*ret_cpu = cpu;
	*ret_kthread = (flags & PF_KTHREAD_FLAG) != 0;
	return 0;
}

/* ---- reading the live system ---- */

struct task_counts {
	bool have;
	uint64_t vol, invol, migrations, run_delay;
};

struct noise_ext_probe {
	pid_t pid;
	struct cg_cpus cpus;
	char tree[128];
	uint64_t t0, steal0, total0, busy0;
	bool have_stat;
	struct task_counts task0;
	pid_t sampler;	 /* -1: none */
	int fd;		 /* its report */
	unsigned *taken; /* samples so far, shared with the sampler (NULL: no shared page) */
};

/* What the sampler reports when told to stop. */
struct sampler_report {
	unsigned samples, runnable_max;
	uint64_t runnable_sum;
};

static bool read_text(const char *path, char **ret)
{
	struct hx_err err = {0};

	return util_read_file(path, ret, NULL, &err) == 0;
}

static int read_stat(const struct cg_cpus *cpus, uint64_t *steal, uint64_t *total, uint64_t *busy)
{
	_cleanup_free_ char *text = NULL;

	return read_text("/proc/stat", &text) ? noise_ext_parse_stat(text, cpus, steal, total, busy) : -EIO;
}

/* The counters of every thread of pid, summed. */
static void read_task(pid_t pid, struct task_counts *c)
{
	char dir[64];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *e;

	*c = (struct task_counts){0};
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	if (pid <= 0 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char path[128];
		_cleanup_free_ char *st = NULL, *sc = NULL, *ss = NULL;
		uint64_t vol, invol, mig, delay;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/status", dir, e->d_name);
		if (read_text(path, &st) && noise_ext_parse_ctxt(st, &vol, &invol) == 0) {
			c->have = true;
			c->vol += vol;
			c->invol += invol;
		}
		snprintf(path, sizeof(path), "%s/%s/sched", dir, e->d_name);
		if (read_text(path, &sc) && noise_ext_parse_migrations(sc, &mig) == 0)
			c->migrations += mig;
		snprintf(path, sizeof(path), "%s/%s/schedstat", dir, e->d_name);
		if (read_text(path, &ss) && noise_ext_parse_schedstat(ss, &delay) == 0)
			c->run_delay += delay;
	}
}

/* User tasks running or runnable now on the runtime's CPUs that are not in the trial's tree. */
static unsigned count_foreign(const struct noise_ext_probe *p)
{
	_cleanup_closedir_ DIR *proc = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;

	while (proc && (e = readdir(proc))) {
		char dir[64], path[128];
		_cleanup_closedir_ DIR *tasks = NULL;
		struct dirent *t;

		/* the sampler and harness, its parent, are the trial's own, like its tree */
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == (int)getpid() ||
		    atoi(e->d_name) == (int)getppid())
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/task", e->d_name);
		if (!(tasks = opendir(dir)))
			continue;
		while ((t = readdir(tasks))) {
			_cleanup_free_ char *st = NULL, *cg = NULL;
			char state;
			int cpu;
			bool kthread;

			if (t->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/stat", dir, t->d_name);
			/* kernel threads are bound to their CPU by design (kworkers, ksoftirqd): not neighbours */
			if (!read_text(path, &st) || noise_ext_parse_task_stat(st, &state, &cpu, &kthread) < 0 ||
			    state != 'R' || kthread || cpu < 0 || !cg_cpus_test(&p->cpus, (unsigned)cpu))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/cgroup", e->d_name);
			/* the trial's own; or gone since its stat was read, so nobody's to count (most often a process
			 * of the trial exiting: the guest's --isolate test once saw one such task in 12 samples) */
			if (!read_text(path, &cg) || strstr(cg, p->tree))
				continue;
			n++;
		}
	}
	return n;
}

static volatile sig_atomic_t sampler_stop;

static void sampler_on_signal(int sig)
{
	(void)sig;
	sampler_stop = 1;
}

/* The sampler process: a sample every 200 ms until SIGTERM (or harness's death), then its report on fd. */
static void sampler_main(const struct noise_ext_probe *p, int fd)
{
	struct sigaction sa = {.sa_handler = sampler_on_signal};
	struct timespec ts = {0, (long)SAMPLE_NS};
	struct sampler_report r = {0};

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!sampler_stop) {
		unsigned n = count_foreign(p);

		r.samples++;
		r.runnable_sum += n;
		if (n > r.runnable_max)
			r.runnable_max = n;
		if (p->taken)
			__atomic_store_n(p->taken, r.samples, __ATOMIC_RELAXED);
		nanosleep(&ts, NULL);
	}
	_exit(write(fd, &r, sizeof(r)) == sizeof(r) ? 0 : 1);
}

static void sampler_start(struct noise_ext_probe *p)
{
	int fds[2];

	p->sampler = -1;
	p->fd = -1;
	p->taken = mmap(NULL, sizeof(*p->taken), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->taken == MAP_FAILED)
		p->taken = NULL;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return;
	p->sampler = fork();
	if (p->sampler == 0) {
		close(fds[0]);
		sampler_main(p, fds[1]);
	}
	close(fds[1]);
	if (p->sampler < 0)
		close(fds[0]);
	else
		p->fd = fds[0];
}

static void sampler_stop_into(struct noise_ext_probe *p, struct noise_ext *x)
{
	struct sampler_report r = {0};
	int status;

	if (p->sampler <= 0)
		return;
	kill(p->sampler, SIGTERM);
	if (read(p->fd, &r, sizeof(r)) == sizeof(r)) {
		x->samples = r.samples;
		x->foreign_runnable_mean = r.samples ? (double)r.runnable_sum / r.samples : 0;
		x->foreign_runnable_max = r.runnable_max;
	}
	close(p->fd);
	while (waitpid(p->sampler, &status, 0) < 0 && errno == EINTR)
		;
}

int noise_ext_start(pid_t pid, const struct cg_cpus *cpus, const char *tree, struct noise_ext_probe **ret,
		    struct hx_err *err)
{
	struct noise_ext_probe *p = calloc(1, sizeof(*p));

	if (!p)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	p->pid = pid;
	p->cpus = *cpus;
	snprintf(p->tree, sizeof(p->tree), "/%s/", tree);
	p->t0 = util_now_ns();
	p->have_stat = read_stat(cpus, &p->steal0, &p->total0, &p->busy0) == 0;
	read_task(pid, &p->task0);
	sampler_start(p);
	*ret = p;
	return 0;
}

void noise_ext_stop(struct noise_ext_probe *p, struct noise_ext *ret)
{
	struct noise_ext x = {0};
	struct task_counts t1;
	uint64_t steal, total, busy;

	if (!p)
		return;
	sampler_stop_into(p, &x);
	x.seconds = (double)(util_now_ns() - p->t0) / 1e9;
	if (p->have_stat && read_stat(&p->cpus, &steal, &total, &busy) == 0 && total >= p->total0) {
		x.have_stat = true;
		x.steal_pct = total > p->total0 ? 100.0 * (double)(steal - p->steal0) / (double)(total - p->total0) : 0;
		x.busy_ms = (double)(busy - p->busy0) * TICK_MS;
	}
	read_task(p->pid, &t1);
	if (p->task0.have && t1.have) {
		x.have_task = true;
		/* threads that ended took their counts with them: never below zero */
		x.ctxt_voluntary = t1.vol > p->task0.vol ? t1.vol - p->task0.vol : 0;
		x.ctxt_involuntary = t1.invol > p->task0.invol ? t1.invol - p->task0.invol : 0;
		x.migrations = t1.migrations > p->task0.migrations ? t1.migrations - p->task0.migrations : 0;
		x.run_delay_ms =
			t1.run_delay > p->task0.run_delay ? (double)(t1.run_delay - p->task0.run_delay) / 1e6 : 0;
	}
	if (p->taken)
		munmap(p->taken, sizeof(*p->taken));
	free(p);
	*ret = x;
}

unsigned noise_ext_samples(const struct noise_ext_probe *p)
{
	return p && p->taken ? __atomic_load_n(p->taken, __ATOMIC_RELAXED) : 0;
}
