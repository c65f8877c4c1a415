/* Noise generators: the neighbours a trial can be made to share the machine with (docs/noise.md). Each
 * kind keeps one resource busy at a level and counts what it did, so a result can say how loud it was. */
#ifndef HX_NOISE_H
#define HX_NOISE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "cgroups/cpus.h"

enum noise_kind { NOISE_NONE, NOISE_CPU, NOISE_CACHE, NOISE_MEMBW, NOISE_IO, NOISE_ALLOC, NOISE_NR_KINDS };

extern const char *const noise_kind_names[NOISE_NR_KINDS];

/*
 * A kind and its level. The level's meaning per kind: cpu, spinning threads; cache, the working set
 * walked (bytes); membw, the bytes of the two copy buffers together; io, bytes written between two
 * fsyncs; alloc, bytes mapped, touched and unmapped per cycle. 0: the default (noise_spec_resolve).
 */
struct noise_spec {
	enum noise_kind kind;
	uint64_t level;
};

/* "none", "cpu", "cpu:4", "cache:64M": a usage error naming the kinds and the level's form otherwise. */
int noise_spec_parse(const char *s, struct noise_spec *ret, struct hx_err *err);
/* "cpu:4", "cache:64M", "none". */
void noise_spec_format(const struct noise_spec *s, char *buf, size_t len);
/* Fill a default level: cpu, cpus threads; cache, twice the last-level cache (64M when unknown); membw
 * 256M; io 1M; alloc 64M. */
void noise_spec_resolve(struct noise_spec *s, unsigned cpus, uint64_t llc_bytes);
/* The threads the generator runs (the CPUs it can keep busy). */
unsigned noise_threads(const struct noise_spec *s);
/* Memory the generator maps: its slice's limit must leave room for it. */
uint64_t noise_memory_need(const struct noise_spec *s);
/* The size of the largest (last-level) CPU cache under a sysfs root; 0 when it does not say. */
uint64_t noise_llc_bytes(const char *sysfs_root);

/* What a generator did. */
struct noise_result {
	struct noise_spec spec;
	unsigned threads;
	double seconds;
	uint64_t ops;	       /* in units of unit */
	char unit[16];	       /* "spins", "loads", "bytes", "fsyncs", "pages" */
	uint64_t bytes;	       /* bytes moved, where the kind moves bytes */
	struct cg_cpus ran_on; /* every CPU a generator thread was seen on */
	char target[PATH_MAX]; /* io: the file written */
	char fs[32];	       /* io: the file system under it ("tmpfs", "ext4", ...) */
};

struct noise_opts {
	double duration_s;  /* 0: until SIGTERM or SIGINT */
	const char *io_dir; /* io: where to write (default /tmp) */
};

/* Run the generator until the duration passes or SIGTERM/SIGINT arrives (both are blocked in every
 * thread and waited for here). */
int noise_run(const struct noise_spec *s, const struct noise_opts *o, struct noise_result *ret, struct hx_err *err);
/* Its JSON line, both ways: res_noise_json and res_noise_read (results/results.h). */

#endif
