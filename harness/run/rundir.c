/* Run folders and their owner file; see rundir.h. */
#include "run/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "cgroups/cg.h"
#include "image/unpack.h"

int rundir_create(char *ret, size_t len, struct hx_err *err)
{
	char tmpl[] = RUNDIR_PARENT "/harness-run-XXXXXX", path[PATH_MAX], id[128];

	if (cg_run_id(id, sizeof(id), err) < 0)
		return -err->errnum;
	if (!mkdtemp(tmpl))
		return hx_syserr(err, "run: make the run folder in %s", RUNDIR_PARENT);
	snprintf(path, sizeof(path), "%s/%s", tmpl, RUNDIR_OWNER);
	strcat(id, "\n");
	if (util_write_atomic(path, id, strlen(id), err) < 0) {
		unpack_remove_tree(tmpl);
		return hx_wrap(err, "run: the run folder's owner");
	}
	snprintf(ret, len, "%s", tmpl);
	return 0;
}

/* The run id in dir's owner file, when dir is a run folder this user made: a real folder (not a link), ours,
 * with a regular owner file (not followed if a link) of one line. */
static bool owner_of(int parent_fd, const char *name, char *ret, size_t len)
{
	struct stat st;
	_cleanup_close_ int dfd = -1, fd = -1;
	ssize_t n;

	if (strncmp(name, "harness-run-", 12) != 0 || fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return false;
	dfd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	fd = dfd < 0 ? -1 : openat(dfd, RUNDIR_OWNER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return false;
	n = read(fd, ret, len - 1);
	if (n <= 1 || ret[n - 1] != '\n')
		return false;
	ret[n - 1] = '\0';
	return strchr(ret, '\n') == NULL;
}

int rundir_gc(const char *parent, unsigned *ret_removed, struct hx_err *err)
{
	_cleanup_closedir_ DIR *d = opendir(parent ? parent : RUNDIR_PARENT);
	struct hx_err first = {0};
	struct dirent *de;
	const char *tag;

	*ret_removed = 0;
	if (cg_run_tag(&tag, err) < 0)
		return -err->errnum;
	if (!d)
		return hx_syserr(err, "gc: %s", parent ? parent : RUNDIR_PARENT);
	while ((de = readdir(d))) {
		char id[128], path[PATH_MAX];
		int r;

		if (!owner_of(dirfd(d), de->d_name, id, sizeof(id)) || !cg_run_id_orphaned(id, tag))
			continue;
		snprintf(path, sizeof(path), "%s/%s", parent ? parent : RUNDIR_PARENT, de->d_name);
		if ((r = unpack_remove_tree(path)) < 0 && !first.msg[0])
			hx_fail(&first, HX_EXIT_INTERNAL, -r, "gc: remove %s: %s", path, strerror(-r));
		else if (r == 0)
			(*ret_removed)++;
	}
	if (!first.msg[0])
		return 0;
	*err = first;
	return -err->errnum;
}
