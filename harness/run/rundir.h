/* The run folder of a `harness run` (/tmp/harness-run-XXXXXX: server logs, staged scenarios, the TLS key):
 * made with an owner file naming the harness process that made it, so that `harness gc` can remove the folders
 * of runs that were killed (SIGKILL leaves no chance to clean up) and only those. */
#ifndef HX_RUNDIR_H
#define HX_RUNDIR_H

#include <stddef.h>

#include "base/err.h"

#define RUNDIR_PARENT "/tmp"
#define RUNDIR_OWNER  "owner" /* the run id (cg_run_id) of the harness process that made the folder */

/* A new run folder, its path in ret, its owner file written before anything else goes in. */
int rundir_create(char *ret, size_t len, struct hx_err *err);
/* Remove the run folders (in parent, RUNDIR_PARENT but for tests) whose owner is gone: only real folders named
 * harness-run-*, owned by this user, holding a regular owner file with a run id; of HARNESS_RUN_TAG's tag only
 * when it is set. *ret_removed counts them; the first that would not go is returned, after the rest. */
int rundir_gc(const char *parent, unsigned *ret_removed, struct hx_err *err);

#endif
