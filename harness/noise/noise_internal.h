/* The noise module's private header: the generators' workers (noise_gen.c), one thread body per kind, over
 * state prepared once per run (noise.c). */
#ifndef HX_NOISE_INTERNAL_H
#define HX_NOISE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "noise/noise.h"

/* What the workers of one run share: read-only while they run, but for stop. */
struct noise_shared {
	const struct noise_spec *spec;
	const char *io_dir;
	int stop;  /* set (atomically) when the run ends */
	void *mem; /* cache: the pointer chain; membw: the two buffers */
	size_t len;
	int fd; /* io: the file, already unlinked */
};

struct noise_worker {
	pthread_t th;
	struct noise_shared *sh;
	unsigned index;
	uint64_t ops, bytes;
	struct cg_cpus ran_on;
	int errnum; /* the first failure of this thread */
};

/* Allocate and lay out what the kind works on; fill ret's unit and, for io, target and fs. */
int noise_gen_prepare(struct noise_shared *sh, struct noise_result *ret, struct hx_err *err);
/* A worker's thread body (arg: its struct noise_worker). */
void *noise_gen_main(void *arg);
void noise_gen_release(struct noise_shared *sh);

#endif
