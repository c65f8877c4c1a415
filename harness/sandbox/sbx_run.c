/* A program run to its end in a sandbox before a trial: the start, the output's end, the deadline and the
 * reaping that a bundler, a prepare step and a version probe share (sbx_run.h). */
#include "sandbox/sbx_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "cgroups/plan.h"

int sbx_prepare_begin(struct cg_tree **ret, struct hx_err *err)
{
	struct cg_limits l;
	struct cg_tree *t = NULL;
	char id[64];

	if (cg_plan_prepare(&l, err) < 0 || cg_run_id(id, sizeof(id), err) < 0 ||
	    cg_tree_create(id, NULL, 1u << CG_SLICE_PREPARE, &t, err) < 0)
		return hx_wrap(err, "the prepare slice");
	if (cg_slice_apply(t, CG_SLICE_PREPARE, &l, err) < 0) {
		cg_tree_destroy(t, &(struct hx_err){0});
		return hx_wrap(err, "the prepare slice");
	}
	*ret = t;
	return 0;
}

void sbx_prepare_end(struct cg_tree *t)
{
	cg_tree_destroy(t, &(struct hx_err){0}); /* kills what is left first */
}

int sbx_run_to_end(struct sbx_config *c, const char *who, int timeout_s, char *log, size_t len, struct hx_err *err)
{
	struct sbx x = {.pid = -1, .report_fd = -1};
	struct cg_tree *t = NULL;
	int p[2], rc, status = 0;

	if (sbx_prepare_begin(&t, err) < 0)
		return hx_wrap(err, "%s", who);
	if (pipe2(p, O_CLOEXEC) < 0) {
		sbx_prepare_end(t);
		return hx_syserr(err, "%s: pipe", who);
	}
	c->out_fd = p[1];
	rc = sbx_start(t, CG_SLICE_PREPARE, c, &x, err);
	close(p[1]);
	c->out_fd = -1;
	if (rc == 0 && (rc = sbx_wait_exec(&x, c->argv[0], err)) == 0 &&
	    util_read_until(p[0], util_now_ns() + (uint64_t)timeout_s * 1000000000ull, log, len) < 0)
		rc = hx_fail(err, HX_EXIT_HOST, ETIMEDOUT, "%s did not finish in %d s", who, timeout_s);
	close(p[0]);
	if (x.pid > 0) {
		if (rc < 0)
			kill(x.pid, SIGKILL); /* the sandbox's init: its PID namespace goes with it */
		while (waitpid(x.pid, &status, 0) < 0 && errno == EINTR)
			;
		if (rc == 0 && util_exit_code(status) != 0)
			rc = hx_fail(err, HX_EXIT_HOST, EIO, "%s exited with %d: %s", who, util_exit_code(status),
				     util_rstrip(log));
	}
	sbx_release(&x);
	sbx_prepare_end(t);
	return rc;
}
