/* The noise workers. Each loops in batches until told to stop, counting ops and noting the CPU it ran
 * on after every batch (sched_getcpu is a vDSO call: the placement costs nothing to observe). */
#include "noise/noise_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/util.h"

#define MIB	 ((size_t)1 << 20)
#define LINE	 64 /* bytes of a cache line: one pointer per line */
#define IO_CHUNK ((size_t)64 << 10)
#define IO_WRAP	 ((size_t)64 << 20) /* the io file never grows past this (or its level) */
#define PAGE	 4096

/* Keeps the optimiser from dropping loops whose result nobody reads. */
static volatile uint64_t noise_sink;

static bool stopped(const struct noise_worker *w)
{
	return __atomic_load_n(&w->sh->stop, __ATOMIC_RELAXED) != 0;
}

static void note_cpu(struct noise_worker *w)
{
	int cpu = sched_getcpu();

	if (cpu >= 0 && cpu < CG_MAX_CPUS)
		cg_cpus_set(&w->ran_on, (unsigned)cpu);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* One cycle through every line in random order (Sattolo's shuffle): each load depends on the one before,
 * and no stride is there for the prefetcher to learn. */
static int cache_prepare(struct noise_shared *sh, struct hx_err *err)
{
	size_t n = sh->len / LINE;
	uint32_t *order = mmap(NULL, n * sizeof(*order), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *base = sh->mem;
	uint64_t seed = util_now_ns() | 1;

	if (order == MAP_FAILED)
		return hx_syserr(err, "noise: cache: the walk's order (%zu lines)", n);
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = xorshift(&seed) % i;
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(base + i * LINE) = base + (size_t)order[i] * LINE;
	munmap(order, n * sizeof(*order));
	return 0;
}

static int io_prepare(struct noise_shared *sh, struct noise_result *r, struct hx_err *err)
{
	struct statfs sfs;

	snprintf(r->target, sizeof(r->target), "%s/.harness-noise-%d", sh->io_dir, (int)getpid());
	sh->fd = open(r->target, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (sh->fd < 0)
		return hx_syserr(err, "noise: io: %s (choose another folder with --io-dir)", r->target);
	unlink(r->target); /* written to until the end, gone with the last close */
	if (fstatfs(sh->fd, &sfs) < 0)
		snprintf(r->fs, sizeof(r->fs), "unknown");
	else if (sfs.f_type == 0x01021994)
		snprintf(r->fs, sizeof(r->fs), "tmpfs");
	else if (sfs.f_type == 0xEF53)
		snprintf(r->fs, sizeof(r->fs), "ext4");
	else if (sfs.f_type == 0x794c7630)
		snprintf(r->fs, sizeof(r->fs), "overlayfs");
	else if (sfs.f_type == 0x58465342)
		snprintf(r->fs, sizeof(r->fs), "xfs");
	else if (sfs.f_type == 0x9123683E)
		snprintf(r->fs, sizeof(r->fs), "btrfs");
	else
		snprintf(r->fs, sizeof(r->fs), "0x%lx", (unsigned long)sfs.f_type);
	return 0;
}

int noise_gen_prepare(struct noise_shared *sh, struct noise_result *r, struct hx_err *err)
{
	static const char *const units[NOISE_NR_KINDS] = {"", "spins", "loads", "bytes", "fsyncs", "pages"};
	enum noise_kind k = sh->spec->kind;

	sh->fd = -1;
	snprintf(r->unit, sizeof(r->unit), "%s", units[k]);
	if (k == NOISE_IO)
		return io_prepare(sh, r, err);
	if (k != NOISE_CACHE && k != NOISE_MEMBW)
		return 0;
	sh->len = (size_t)sh->spec->level & ~(size_t)(2 * LINE - 1);
	/* populated up front: the walk and the copy measure the memory, not page faults */
	sh->mem = mmap(NULL, sh->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (sh->mem == MAP_FAILED) {
		sh->mem = NULL;
		return hx_syserr(err, "noise: %s: %zu bytes", noise_kind_names[k], sh->len);
	}
	if (k == NOISE_CACHE)
		return cache_prepare(sh, err);
	memset(sh->mem, 0x5a, sh->len);
	return 0;
}

void noise_gen_release(struct noise_shared *sh)
{
	if (sh->mem)
		munmap(sh->mem, sh->len);
	sh->mem = NULL;
	if (sh->fd >= 0)
		close(sh->fd);
	sh->fd = -1;
}

static void gen_cpu(struct noise_worker *w)
{
	uint64_t x = w->index + 1;

	while (!stopped(w)) {
		for (unsigned i = 0; i < (1u << 20); i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		w->ops += 1u << 20;
		note_cpu(w);
	}
	noise_sink = x;
}

static void gen_cache(struct noise_worker *w)
{
	void **p = w->sh->mem;

	while (!stopped(w)) {
		for (unsigned i = 0; i < 4096; i++)
			p = *p;
		w->ops += 4096;
		note_cpu(w);
	}
	noise_sink = (uint64_t)(uintptr_t)p;
}

/* STREAM's copy kernel, a MiB at a time from one half of the buffer to the other. */
static void gen_membw(struct noise_worker *w)
{
	size_t half = w->sh->len / 2, off = 0;
	char *src = w->sh->mem, *dst = src + half;

	while (!stopped(w)) {
		size_t n = half - off < MIB ? half - off : MIB;

		memcpy(dst + off, src + off, n);
		w->bytes += n;
		off = off + n >= half ? 0 : off + n;
		note_cpu(w);
	}
	w->ops = w->bytes;
	noise_sink = (uint64_t)(unsigned char)dst[0];
}

static void gen_io(struct noise_worker *w)
{
	static char chunk[IO_CHUNK];
	size_t level = (size_t)w->sh->spec->level, wrap = level > IO_WRAP ? level : IO_WRAP;
	size_t off = 0, since_sync = 0;

	memset(chunk, 0xa5, sizeof(chunk));
	while (!stopped(w)) {
		ssize_t n = pwrite(w->sh->fd, chunk, level < IO_CHUNK ? level : IO_CHUNK, (off_t)off);

		if (n <= 0 || (since_sync += (size_t)n) >= level) {
			if (n <= 0 || fdatasync(w->sh->fd) < 0) {
				w->errnum = n == 0 ? EIO : errno;
				return;
			}
			since_sync = 0;
			w->ops++;
			note_cpu(w);
		}
		w->bytes += (size_t)n;
		off = off + (size_t)n >= wrap ? 0 : off + (size_t)n;
	}
}

/* Map, touch every page (a fault each, charged to the slice's memory cgroup), unmap, again. */
static void gen_alloc(struct noise_worker *w)
{
	size_t len = (size_t)w->sh->spec->level;

	while (!stopped(w)) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			w->errnum = errno;
			return;
		}
		for (size_t i = 0; i < len && !stopped(w); i += PAGE) {
			p[i] = 1;
			w->ops++;
		}
		munmap(p, len);
		w->bytes = w->ops * PAGE;
		note_cpu(w);
	}
}

void *noise_gen_main(void *arg)
{
	static void (*const gens[NOISE_NR_KINDS])(struct noise_worker *) = {
		[NOISE_CPU] = gen_cpu, [NOISE_CACHE] = gen_cache, [NOISE_MEMBW] = gen_membw,
		[NOISE_IO] = gen_io,   [NOISE_ALLOC] = gen_alloc,
	};
	struct noise_worker *w = arg;

	note_cpu(w);
	if (gens[w->sh->spec->kind])
		gens[w->sh->spec->kind](w);
	return NULL;
}
