/* A noise generator as a trial's neighbour: `harness noise SPEC` in the noise slice's own sandbox, from
 * after the runtime's readiness to after the load, its JSON line read back at the end. */
#ifndef HX_NOISE_SLICE_H
#define HX_NOISE_SLICE_H

#include <limits.h>

#include "base/err.h"
#include "cgroups/cg.h"
#include "noise/noise.h"
#include "sandbox/sandbox.h"

struct noise_proc {
	struct sbx x;
	char out[PATH_MAX]; /* the generator's stdout: its JSON line */
	char log[PATH_MAX]; /* its stderr */
};

/* Where the generator's sandbox runs: the run's network namespace, this harness binary, and the folder
 * an io generator writes in (bound read-write at /data; its file system is what io measures). */
struct noise_where {
	int netns_fd;
	const char *harness;
	const char *io_dir;
	const char *run_dir; /* for the generator's output and log */
	const char *tag;     /* names the output files */
};

/* Start the generator; it runs until noise_slice_stop. */
int noise_slice_start(struct cg_tree *t, const struct noise_spec *s, const struct noise_where *w,
		      struct noise_proc *ret, struct hx_err *err);
/* SIGTERM, then its JSON line, malloc'd in *ret_text (res_noise_read reads it); a generator that died or
 * printed nothing fails (exit 1). */
int noise_slice_stop(struct cg_tree *t, struct noise_proc *p, char **ret_text, struct hx_err *err);

#endif
