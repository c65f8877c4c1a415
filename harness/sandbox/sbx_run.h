/* One program run to its end in a sandbox, for work harness does before a trial (npm ci, a bundler, a
 * scenario's prepare step): its output's end kept for the error message, a deadline, nothing left behind. */
#ifndef HX_SBX_RUN_H
#define HX_SBX_RUN_H

#include <stddef.h>

#include "base/err.h"
#include "sandbox/sandbox.h"

/* Start c (its out_fd is set here) in the caller's own cgroup, wait up to timeout_s for it to exit, the last
 * len - 1 bytes of its output in log. An error names `who` ("npm ci did not finish in 300 s", "it exited with
 * 1: <its output>"); on any error the sandbox is killed and reaped. */
int sbx_run_to_end(struct sbx_config *c, const char *who, int timeout_s, char *log, size_t len, struct hx_err *err);

#endif
