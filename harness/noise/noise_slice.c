/* The noise generator of a trial, in the noise slice's sandbox. */
#include "noise/noise_slice.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"

int noise_slice_start(struct cg_tree *t, const struct noise_spec *s, const struct noise_where *w,
		      struct noise_proc *ret, struct hx_err *err)
{
	char spec[64];
	char *argv[] = {
		(char *)"/opt/harness/harness", (char *)"noise", spec, (char *)"--io-dir", (char *)"/data", NULL};
	struct noise_proc p = {.x = {.pid = -1, .report_fd = -1}};
	_cleanup_close_ int out = -1, log = -1;
	struct sbx_config c;

	noise_spec_format(s, spec, sizeof(spec));
	snprintf(p.out, sizeof(p.out), "%s/noise-%s.json", w->run_dir, w->tag);
	snprintf(p.log, sizeof(p.log), "%s/noise-%s.log", w->run_dir, w->tag);
	out = open(p.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	log = open(p.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || log < 0)
		return hx_syserr(err, "noise: %s", p.out);
	sbx_config_init(&c);
	c.netns_fd = w->netns_fd;
	c.argv = argv;
	c.out_fd = out;
	c.err_fd = log;
	c.rootfs.binds[c.rootfs.nbinds++] = (struct sbx_bind){.src = w->harness, .dst = "/opt/harness/harness"};
	c.rootfs.binds[c.rootfs.nbinds++] = (struct sbx_bind){.src = w->io_dir, .dst = "/data", .rw = true};
	if (sbx_start(t, CG_SLICE_NOISE, &c, &p.x, err) < 0 || sbx_wait_exec(&p.x, argv[0], err) < 0) {
		cg_slice_kill(t, CG_SLICE_NOISE, &(struct hx_err){0});
		sbx_release(&p.x);
		return hx_wrap(err, "noise %s", spec);
	}
	*ret = p;
	return 0;
}

int noise_slice_stop(struct cg_tree *t, struct noise_proc *p, char **ret_text, struct hx_err *err)
{
	_cleanup_free_ char *text = NULL;
	char tail[1024];
	int code = -1;
	bool exited = sbx_stop(t, CG_SLICE_NOISE, &p->x, SIGTERM, 3000, &code);
	struct hx_err e = {0};

	sbx_release(&p->x);
	if (!exited || code != 0 || util_read_file(p->out, &text, NULL, &e) < 0 || !text[0]) {
		util_log_tail(p->log, tail, sizeof(tail));
		return hx_fail(err, HX_EXIT_VERDICT, EIO, "the noise generator %s; its last output: %s",
			       !exited	   ? "did not stop on SIGTERM"
			       : code != 0 ? "died during the trial (its memory limit?)"
					   : "printed no result",
			       tail[0] ? tail : "(nothing)");
	}
	*ret_text = steal_pointer(&text);
	return 0;
}
