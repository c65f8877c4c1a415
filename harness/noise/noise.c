/* The noise kinds, their levels, and the run of a generator: worker threads that count what they do,
 * stopped by a deadline or a signal. The workers themselves are in noise_gen.c. */
#include "noise/noise.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "noise/noise_internal.h"

const char *const noise_kind_names[NOISE_NR_KINDS] = {"none", "cpu", "cache", "membw", "io", "alloc"};

#define MIB ((uint64_t)1 << 20)

int noise_spec_parse(const char *s, struct noise_spec *ret, struct hx_err *err)
{
	const char *colon = strchr(s, ':');
	size_t klen = colon ? (size_t)(colon - s) : strlen(s);
	struct noise_spec n = {.kind = NOISE_NR_KINDS};

	for (int k = 0; k < NOISE_NR_KINDS; k++)
		if (strlen(noise_kind_names[k]) == klen && strncmp(s, noise_kind_names[k], klen) == 0)
			n.kind = (enum noise_kind)k;
	if (n.kind == NOISE_NR_KINDS)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "noise: '%s' is not a kind: none, cpu[:THREADS], cache[:SIZE], membw[:SIZE], io[:SIZE], "
			       "alloc[:SIZE]",
			       s);
	if (!colon) {
		*ret = n;
		return 0;
	}
	if (n.kind == NOISE_NONE)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "noise: 'none' takes no level, not '%s'", s);
	if (n.kind == NOISE_CPU ? util_parse_u64(colon + 1, &n.level) < 0 || n.level > 1024
				: util_parse_size(colon + 1, &n.level) < 0 || n.level < 4096)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "noise: bad level in '%s': %s", s,
			       n.kind == NOISE_CPU ? "cpu takes a thread count, 1..1024 (cpu:2)"
						   : "a size of at least 4k (cache:64M)");
	if (n.level == 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "noise: bad level in '%s': at least 1 thread (cpu:1)", s);
	*ret = n;
	return 0;
}

void noise_spec_format(const struct noise_spec *s, char *buf, size_t len)
{
	static const char units[] = "kMGT";
	uint64_t v = s->level;
	int u = -1;

	if (s->kind == NOISE_NONE || !s->level || s->kind == NOISE_CPU) {
		snprintf(buf, len, s->level && s->kind != NOISE_NONE ? "%s:%llu" : "%s", noise_kind_names[s->kind],
			 (unsigned long long)v);
		return;
	}
	while (u < 3 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%s:%llu", noise_kind_names[s->kind], (unsigned long long)v);
	else
		snprintf(buf, len, "%s:%llu%c", noise_kind_names[s->kind], (unsigned long long)v, units[u]);
}

void noise_spec_resolve(struct noise_spec *s, unsigned cpus, uint64_t llc_bytes)
{
	if (s->level)
		return;
	switch (s->kind) {
	case NOISE_CPU:
		s->level = cpus ? cpus : 1;
		break;
	case NOISE_CACHE:
		/* twice the LLC: most loads miss it whatever the replacement policy */
		s->level = llc_bytes ? 2 * llc_bytes : 64 * MIB;
		break;
	case NOISE_MEMBW:
		s->level = 256 * MIB;
		break;
	case NOISE_IO:
		s->level = MIB;
		break;
	case NOISE_ALLOC:
		s->level = 64 * MIB;
		break;
	case NOISE_NONE:
	case NOISE_NR_KINDS:
		break;
	}
}

unsigned noise_threads(const struct noise_spec *s)
{
	if (s->kind == NOISE_NONE)
		return 0;
	return s->kind == NOISE_CPU ? (unsigned)s->level : 1;
}

uint64_t noise_memory_need(const struct noise_spec *s)
{
	switch (s->kind) {
	case NOISE_CACHE:
		return s->level + s->level / 8; /* the walk's order is built in an index array */
	case NOISE_MEMBW:
	case NOISE_ALLOC:
		return s->level;
	case NOISE_IO: /* the file wraps at 64M or its level: on a tmpfs the slice is charged for it */
		return (s->level > 64 * MIB ? s->level : 64 * MIB) + 2 * MIB;
	default:
		return 0;
	}
}

uint64_t noise_llc_bytes(const char *sysfs_root)
{
	uint64_t best = 0;

	for (int i = 0; i < 8; i++) {
		char path[PATH_MAX];
		_cleanup_free_ char *size = NULL;
		struct hx_err err = {0};
		uint64_t b;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cache/index%d/size", sysfs_root, i);
		/* sysfs writes "32768K": a size util_parse_size reads */
		if (util_read_line(path, &size, &err) == 0 && util_parse_size(size, &b) == 0 && b > best)
			best = b;
	}
	return best;
}

static int noise_wait(const struct noise_opts *o, const sigset_t *set)
{
	struct timespec ts = {.tv_sec = (time_t)o->duration_s,
			      .tv_nsec = (long)((o->duration_s - (double)(time_t)o->duration_s) * 1e9)};
	uint64_t end = util_now_ns() + (uint64_t)(o->duration_s * 1e9);

	for (;;) {
		int sig = o->duration_s > 0 ? sigtimedwait(set, NULL, &ts) : sigwaitinfo(set, NULL);
		uint64_t now = util_now_ns();

		if (sig > 0 || (sig < 0 && errno == EAGAIN))
			return 0;
		if (o->duration_s > 0) { /* EINTR: wait for what is left */
			if (now >= end)
				return 0;
			ts.tv_sec = (time_t)((end - now) / 1000000000u);
			ts.tv_nsec = (long)((end - now) % 1000000000u);
		}
	}
}

static void noise_collect(struct noise_worker *w, unsigned n, struct noise_result *r)
{
	for (unsigned i = 0; i < n; i++) {
		r->ops += w[i].ops;
		r->bytes += w[i].bytes;
		cg_cpus_or(&r->ran_on, &w[i].ran_on);
	}
}

int noise_run(const struct noise_spec *spec, const struct noise_opts *o, struct noise_result *ret, struct hx_err *err)
{
	struct noise_result r = {.spec = *spec, .threads = noise_threads(spec)};
	_cleanup_free_ struct noise_worker *w = calloc(r.threads ? r.threads : 1, sizeof(*w));
	struct noise_shared sh = {.spec = spec, .io_dir = o->io_dir ? o->io_dir : "/tmp"};
	sigset_t set, old;
	unsigned started = 0;
	uint64_t t0;
	int rc = 0;

	if (!w)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "noise: out of memory");
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, &old); /* the threads inherit the mask: only noise_wait takes them */
	if (noise_gen_prepare(&sh, &r, err) < 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return -err->errnum;
	}
	t0 = util_now_ns();
	for (; started < r.threads; started++) {
		w[started] = (struct noise_worker){.sh = &sh, .index = started};
		if ((errno = pthread_create(&w[started].th, NULL, noise_gen_main, &w[started])) != 0) {
			rc = hx_syserr(err, "noise: thread %u", started);
			break;
		}
	}
	if (rc == 0)
		noise_wait(o, &set);
	__atomic_store_n(&sh.stop, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	r.seconds = (double)(util_now_ns() - t0) / 1e9;
	noise_collect(w, started, &r);
	for (unsigned i = 0; i < started && rc == 0; i++)
		if (w[i].errnum)
			rc = hx_fail(err, HX_EXIT_INTERNAL, w[i].errnum, "noise: %s: %s", noise_kind_names[spec->kind],
				     strerror(w[i].errnum));
	noise_gen_release(&sh);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		*ret = r;
	return rc;
}
