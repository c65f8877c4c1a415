/* The server sampler (sampler.h): a thread that wakes at absolute times on CLOCK_MONOTONIC (the load
 * client's clock: its intervals and these samples share an origin) and reads a few small files. */
#include "run/sampler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"

#define TREE_MAX 256

/* The children of every thread of pid ("/proc/PID/task/TID/children", Linux 4.2+), appended to pids. */
static void add_children(pid_t pid, pid_t *pids, unsigned *n)
{
	char path[64];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d)) && *n < TREE_MAX) {
		char cpath[320], buf[4096];
		_cleanup_close_ int fd = -1;
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", (int)pid, e->d_name);
		if ((fd = open(cpath, O_RDONLY | O_CLOEXEC)) < 0 || (len = read(fd, buf, sizeof(buf) - 1)) <= 0)
			continue;
		buf[len] = '\0';
		for (char *p = buf, *end; *n < TREE_MAX; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			pids[(*n)++] = (pid_t)c;
		}
	}
}

static uint64_t statm_rss_kb(pid_t pid)
{
	char path[64], buf[128];
	_cleanup_close_ int fd = -1;
	unsigned long long size, resident;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || (len = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return UINT64_MAX;
	buf[len] = '\0';
	if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
		return UINT64_MAX;
	return resident * (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
}

uint64_t smp_tree_rss_kb(pid_t pid)
{
	pid_t pids[TREE_MAX];
	unsigned n = 1;
	uint64_t sum = statm_rss_kb(pid);

	if (sum == UINT64_MAX)
		return UINT64_MAX;
	pids[0] = pid;
	for (unsigned i = 0; i < n; i++) {
		uint64_t kb;

		add_children(pids[i], pids, &n);
		if (i > 0 && (kb = statm_rss_kb(pids[i])) != UINT64_MAX)
			sum += kb;
	}
	return sum;
}

static void smp_take(const struct smp *m, struct smp_shared *sh)
{
	struct smp_sample *x;

	if (sh->n == SMP_MAX) { /* keep every other one: the cadence halves, the span stays whole */
		for (unsigned i = 0; i < SMP_MAX / 2; i++)
			sh->s[i] = sh->s[2 * i];
		sh->n = SMP_MAX / 2;
		sh->interval_ns *= 2;
	}
	x = &sh->s[sh->n];
	x->t_ns = util_now_ns();
	cg_slice_sample(m->tree, m->slice, &x->cpu_usec, &x->memory);
	x->rss_kb = smp_tree_rss_kb(__atomic_load_n(&sh->pid, __ATOMIC_RELAXED));
	__atomic_store_n(&sh->n, sh->n + 1, __ATOMIC_RELEASE);
}

/* The sampling process: only fresh opens of /proc and cgroup files, so every inherited descriptor goes
 * (a pipe's write end kept here would hold off its reader's end of file); it dies with harness. */
static _Noreturn void smp_main(const struct smp *m)
{
	struct timespec at;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (getppid() == 1)
		_exit(0);
	syscall(SYS_close_range, 3u, ~0u, 0u); /* Linux 5.9+; before, the descriptors stay */
	clock_gettime(CLOCK_MONOTONIC, &at);
	for (;;) {
		uint64_t ns = (uint64_t)at.tv_nsec + m->sh->interval_ns;

		smp_take(m, m->sh);
		at.tv_sec += (time_t)(ns / 1000000000u);
		at.tv_nsec = (long)(ns % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
	}
}

int smp_start(struct smp *m, const struct cg_tree *tree, enum cg_slice slice, pid_t pid, uint64_t interval_ns,
	      struct hx_err *err)
{
	memset(m, 0, sizeof(*m));
	m->tree = tree;
	m->slice = slice;
	m->sampler = -1;
	m->sh = mmap(NULL, sizeof(*m->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m->sh == MAP_FAILED) {
		m->sh = NULL;
		return hx_syserr(err, "run: the sampler's memory");
	}
	m->sh->interval_ns = interval_ns ? interval_ns : TL_DEFAULT_NS;
	m->sh->pid = pid;
	fflush(NULL); /* nothing buffered is written twice */
	m->sampler = fork();
	if (m->sampler == 0)
		smp_main(m);
	if (m->sampler < 0) {
		smp_free(m);
		return hx_syserr(err, "run: the sampler's process");
	}
	return 0;
}

void smp_follow(struct smp *m, pid_t pid)
{
	if (m->sh)
		__atomic_store_n(&m->sh->pid, pid, __ATOMIC_RELAXED);
}

void smp_stop(struct smp *m)
{
	int status;

	if (m->sampler <= 0)
		return;
	kill(m->sampler, SIGTERM);
	while (waitpid(m->sampler, &status, 0) < 0 && errno == EINTR)
		;
	m->sampler = -1;
	smp_take(m, m->sh);
}

static double kb_or_nan(uint64_t v, uint64_t div)
{
	return v == UINT64_MAX ? NAN : (double)(v / div);
}

int smp_into(const struct smp *m, struct res_timeline *t)
{
	unsigned n = m->sh ? m->sh->n : 0;

	if (!n || res_timeline_samples(t, n) < 0)
		return n ? -ENOMEM : 0;
	t->sample_ms = (double)m->sh->interval_ns / 1e6;
	for (unsigned i = 0; i < n; i++) {
		const struct smp_sample *x = &m->sh->s[i], *prev = i ? &m->sh->s[i - 1] : NULL;

		t->t_ms[i] = ((double)x->t_ns - (double)t->origin_ns) / 1e6;
		t->cpu_ms[i] = !prev || x->cpu_usec == UINT64_MAX || prev->cpu_usec == UINT64_MAX
				       ? NAN
				       : (double)(x->cpu_usec - prev->cpu_usec) / 1e3;
		t->memory_kb[i] = kb_or_nan(x->memory, 1024);
		t->rss_kb[i] = kb_or_nan(x->rss_kb, 1);
	}
	return 0;
}

void smp_free(struct smp *m)
{
	smp_stop(m);
	if (m->sh)
		munmap(m->sh, sizeof(*m->sh));
	m->sh = NULL;
}
