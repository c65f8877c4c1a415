/* cgroup layout detection: statfs for the mode, mountinfo for the mounts, /proc/self/cgroup for us. */
#include "cgroups/mode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "base/cleanup.h"
#include "base/util.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

const char *const cg_ctrl_names[CG_NR_CTRLS] = {"cpuset", "cpu", "cpuacct", "memory", "pids"};
const char *const cg_mode_names[] = {"none", "unified", "legacy", "hybrid"};

static int ctrl_index(const char *name, size_t len)
{
	for (int c = 0; c < CG_NR_CTRLS; c++)
		if (strlen(cg_ctrl_names[c]) == len && strncmp(cg_ctrl_names[c], name, len) == 0)
			return c;
	return -1;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
		    r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static void hier_set_mount(struct cg_hier *hi, const char *root, const char *mnt)
{
	if (hi->mounted)
		return; /* the first mount of a hierarchy wins; bind mounts of it come later */
	hi->mounted = true;
	snprintf(hi->root, sizeof(hi->root), "%s", root);
	snprintf(hi->mount, sizeof(hi->mount), "%s", mnt);
	unescape_octal(hi->root);
	unescape_octal(hi->mount);
}

/* One mountinfo line: "36 25 0:31 / /sys/fs/cgroup/cpu rw,relatime shared:13 - cgroup cgroup rw,cpu" */
static void mountinfo_line(char *line, struct cg_host *h)
{
	char *fields[6] = {0};
	char *save = NULL, *sep, *fstype, *opts, *tok;
	int n = 0;

	sep = strstr(line, " - ");
	if (!sep)
		return;
	*sep = '\0';
	for (tok = strtok_r(line, " ", &save); tok && n < 6; tok = strtok_r(NULL, " ", &save))
		fields[n++] = tok;
	if (n < 5)
		return;
	fstype = strtok_r(sep + 3, " ", &save);
	(void)strtok_r(NULL, " ", &save); /* source */
	opts = strtok_r(NULL, " ", &save);
	if (!fstype)
		return;
	if (strcmp(fstype, "cgroup2") == 0) {
		hier_set_mount(&h->unified, fields[3], fields[4]);
		return;
	}
	if (strcmp(fstype, "cgroup") != 0 || !opts)
		return;
	for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = ctrl_index(tok, strlen(tok));

		if (c >= 0)
			hier_set_mount(&h->v1[c], fields[3], fields[4]);
	}
}

int cg_parse_mountinfo(const char *text, struct cg_host *h, struct hx_err *err)
{
	_cleanup_free_ char *copy = strdup(text);
	char *save = NULL;

	if (!copy)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "mountinfo: out of memory");
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *l = strdup(line);

		if (!l)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "mountinfo: out of memory");
		mountinfo_line(l, h);
	}
	return 0;
}

/* One /proc/self/cgroup line: "4:memory:/a/b", "3:cpu,cpuacct:/", "0::/user.slice" */
static int proc_cgroup_line(char *line, struct cg_host *h)
{
	char *c1 = strchr(line, ':');
	char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char *ctrls, *path, *save = NULL;

	if (!c2)
		return -EINVAL;
	*c1 = *c2 = '\0';
	ctrls = c1 + 1;
	path = c2 + 1;
	if (path[0] != '/')
		return -EINVAL;
	if (strcmp(line, "0") == 0 && ctrls[0] == '\0') {
		snprintf(h->unified.self, sizeof(h->unified.self), "%s", path);
		return 0;
	}
	for (char *tok = strtok_r(ctrls, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = ctrl_index(tok, strlen(tok));

		if (c >= 0)
			snprintf(h->v1[c].self, sizeof(h->v1[c].self), "%s", path);
	}
	return 0;
}

int cg_parse_proc_cgroup(const char *text, struct cg_host *h, struct hx_err *err)
{
	_cleanup_free_ char *copy = strdup(text);
	char *save = NULL;

	if (!copy)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "/proc/self/cgroup: out of memory");
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *l = strdup(line);

		if (!l || proc_cgroup_line(l, h) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, EINVAL, "/proc/self/cgroup: cannot parse '%s'", line);
	}
	return 0;
}

enum cg_mode cg_mode_from_mounts(const struct cg_host *h)
{
	bool v1 = false;

	for (int c = 0; c < CG_NR_CTRLS; c++)
		v1 |= h->v1[c].mounted;
	if (v1)
		return h->unified.mounted ? CG_MODE_HYBRID : CG_MODE_LEGACY;
	return h->unified.mounted ? CG_MODE_UNIFIED : CG_MODE_NONE;
}

int cg_hier_dir(const struct cg_hier *hi, char *buf, size_t len, struct hx_err *err)
{
	size_t rlen = strlen(hi->root);
	const char *rel = hi->self;

	if (!hi->mounted)
		return hx_fail(err, HX_EXIT_HOST, ENOENT, "hierarchy not mounted");
	/* Our cgroup is outside what this mount shows (another cgroup namespace): unusable. */
	if (strcmp(hi->root, "/") != 0) {
		if (strncmp(rel, hi->root, rlen) != 0 || (rel[rlen] && rel[rlen] != '/'))
			return hx_fail(err, HX_EXIT_HOST, ENOENT,
				       "our cgroup %s is not below the mount's root %s at %s", rel, hi->root,
				       hi->mount);
		rel += rlen;
	}
	if ((size_t)snprintf(buf, len, "%s%s", hi->mount, strcmp(rel, "/") == 0 ? "" : rel) >= len)
		return hx_fail(err, HX_EXIT_INTERNAL, ENAMETOOLONG, "cgroup path too long");
	return 0;
}

static int host_detect(struct cg_host *h, struct hx_err *err)
{
	_cleanup_free_ char *mi = NULL, *pc = NULL;
	struct statfs sfs;

	memset(h, 0, sizeof(*h));
	if (util_read_file("/proc/self/mountinfo", &mi, NULL, err) < 0 ||
	    util_read_file("/proc/self/cgroup", &pc, NULL, err) < 0 || cg_parse_mountinfo(mi, h, err) < 0 ||
	    cg_parse_proc_cgroup(pc, h, err) < 0)
		return hx_wrap(err, "cgroup detection");
	if (statfs("/sys/fs/cgroup", &sfs) == 0 && (unsigned long)sfs.f_type == CGROUP2_SUPER_MAGIC)
		h->mode = CG_MODE_UNIFIED;
	else
		h->mode = cg_mode_from_mounts(h);
	if (h->mode == CG_MODE_UNIFIED)
		for (int c = 0; c < CG_NR_CTRLS; c++)
			h->v1[c].mounted = false;
	return 0;
}

int cg_host_get(const struct cg_host **ret, struct hx_err *err)
{
	static struct cg_host host;
	static bool done;

	if (!done) {
		if (host_detect(&host, err) < 0)
			return -err->errnum;
		done = true;
	}
	*ret = &host;
	return 0;
}
