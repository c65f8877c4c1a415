/* The sandbox's root file system: a tmpfs root with read-only binds of what programs need. */
#ifndef HX_SBX_MOUNT_H
#define HX_SBX_MOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SBX_MAX_BINDS 32
/* where the host tree waits during set-up: no bind may name it */
#define SBX_OLD_ROOT "/.oldroot"
#define SBX_HOME     "/home/harness"
#define SBX_USER     "harness"

struct sbx_bind {
	const char *src; /* host path */
	const char *dst; /* absolute path inside */
	bool rw;
	char *owned; /* sbx_parse_bind's copy of the spec (src and dst point into it), else NULL: borrowed */
};

struct sbx_rootfs {
	struct sbx_bind binds[SBX_MAX_BINDS];
	size_t nbinds;
	uint64_t tmp_size;    /* bytes of /tmp */
	uint64_t home_size;   /* bytes of HOME */
	const char *data_dir; /* when set: a tmpfs here of data_size bytes, owned by the sandbox's user, mode 0700 */
	uint64_t data_size;
	/* with data_dir: data_dir is an overlay of this folder inside the root (a bind's dst: read-only, never
	 * written) over that tmpfs, which takes only what changes (docs/sandbox.md) */
	const char *data_lower;
	/* with mount_dst: a detached mount (sbx_scratch.h), moved there; the caller keeps its descriptor and reads
	 * what was written once the sandbox is gone */
	int mount_fd;
	const char *mount_dst;
};

/* In the sandbox child, in a new mount namespace: build the root, pivot into it, detach the old root,
 * remount / read-only. Returns -errno; *ret_step names the step that failed. */
int sbx_mount_apply_in_child(const struct sbx_rootfs *r, uid_t uid, gid_t gid, const char **ret_step);

#endif
