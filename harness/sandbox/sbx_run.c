/* A program run to its end in a sandbox before a trial: the start, the output's end, the deadline and the
 * reaping that npm ci, a bundler and a prepare step share (sbx_run.h). */
#include "sandbox/sbx_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

int sbx_run_to_end(struct sbx_config *c, const char *who, int timeout_s, char *log, size_t len, struct hx_err *err)
{
	struct sbx x = {.pid = -1, .report_fd = -1};
	int p[2], rc, status = 0;

	if (pipe2(p, O_CLOEXEC) < 0)
		return hx_syserr(err, "%s: pipe", who);
	c->out_fd = p[1];
	c->role = SBX_ROLE_PREPARE;
	rc = sbx_start(NULL, CG_SLICE_SUT, c, &x, err);
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
	return rc;
}
