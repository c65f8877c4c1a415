/* Work harness does outside trials (a bundler, a scenario's prepare step, a version probe, initdb): in a
 * prepare slice of its own (a cgroup tree with one slice, limited like every other), and one program run to its
 * end in a sandbox there: its output's end kept for the error message, a deadline, nothing left behind. */
#ifndef HX_SBX_RUN_H
#define HX_SBX_RUN_H

#include <stddef.h>

#include "base/err.h"
#include "cgroups/cg.h"
#include "sandbox/sandbox.h"

/* A tree with the prepare slice alone, its limits applied (cg_plan_prepare): the caller starts its sandboxes in
 * it (sbx_start(*ret, CG_SLICE_PREPARE, ...), as the prepare user) and ends with sbx_prepare_end. */
int sbx_prepare_begin(struct cg_tree **ret, struct hx_err *err);
/* Kill what is left in the prepare slice and remove its tree. */
void sbx_prepare_end(struct cg_tree *t);
/* Start c (its out_fd is set here) in a prepare slice of its own, wait up to timeout_s for it to exit, the last
 * len - 1 bytes of its output in log. An error names `who` ("it did not finish in 900 s", "it exited with
 * 1: <its output>"); on any error the sandbox is killed and reaped, and the slice goes in every case. A program
 * that ran and exited non-zero is -EIO (its exit status the message's): the caller tells its own failure from the
 * host's. */
int sbx_run_to_end(struct sbx_config *c, const char *who, int timeout_s, char *log, size_t len, struct hx_err *err);

#endif
