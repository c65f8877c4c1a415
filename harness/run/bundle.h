/* A scenario's module bundled at prepare time by a runtime's own bundler (bun build, deno bundle) for a
 * runtime that cannot resolve npm packages itself (workerd imports only the modules its config names). */
#ifndef HX_BUNDLE_H
#define HX_BUNDLE_H

#include "base/err.h"
#include "run/scenario.h"

/* Bundle s->bundle.entry of the staged scenario s->dir (its npm dependencies at s->node_modules) into
 * s->bundle.out there, and fill s->bundle's version, sha256 and bytes. The bundler runs in its image's
 * sandbox (pulled when absent) in the network namespace netns_fd, as the sandbox user, the scenario
 * read-only; it writes into a folder of its own under run_dir, from which root copies the one regular
 * file. A bundler that fails: an HX_EXIT_HOST error with its last output. */
int bundle_make(struct scenario *s, const char *run_dir, int netns_fd, struct hx_err *err);

/* The process.env.NODE_ENV the bundler's command line defines in the bundle: the mode the bundled
 * runtime runs, which must be the run's (--node-env) for the others. */
const char *bundle_node_env(const struct scn_bundle *b);

#endif
