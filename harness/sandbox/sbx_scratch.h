/* The scratch folder of work outside trials that fills a cache entry (a scenario's prepare step): a tmpfs
 * of a bounded size, made by harness in no mount namespace (fsopen + fsmount), moved into the step's sandbox, its
 * pages charged to the prepare slice that writes them, and copied into the cache by harness once the sandbox is
 * gone (a rename cannot cross from a tmpfs). What the step writes past the size is ENOSPC to it, and never reaches
 * the disk. Where the kernel or the caller cannot make such a mount (rootless), the folder is an ordinary one on
 * the cache's disk, its size checked once the step is over (docs/sandbox.md, "Limits"). */
#ifndef HX_SBX_SCRATCH_H
#define HX_SBX_SCRATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "sandbox/sandbox.h"

/* A tmpfs's inodes: node_modules trees here hold up to ~10,000 entries. */
#define SBX_SCRATCH_INODES 262144

struct sbx_scratch {
	int mnt_fd;	  /* the detached tmpfs; -1: the fallback folder is used */
	uint64_t size;	  /* its limit in bytes */
	char dir[4096];	  /* the folder on the cache's disk: the copy's destination (or the fallback itself) */
	char path[32];	  /* /proc/self/fd/<mnt_fd>, or "" */
	const char *what; /* for messages: "scenario x's /prepared" */
};

/* A scratch of size bytes whose root is uid:gid's (mode 0700) for the folder dir, which exists, empty and root's:
 * the copy goes there. */
int sbx_scratch_open(struct sbx_scratch *s, const char *dir, uint64_t size, uid_t uid, gid_t gid, const char *what,
		     struct hx_err *err);
/* Lend it to the sandbox c at dst: the tmpfs moved there, or the fallback folder bound writable. */
int sbx_scratch_lend(struct sbx_scratch *s, struct sbx_config *c, const char *dst, struct hx_err *err);
/* A path of its root for harness (its mount is in no namespace: /proc/self/fd/N), to put files in before the step. */
const char *sbx_scratch_path(const struct sbx_scratch *s);
/* After the step (its sandbox gone): fail, naming the limit and the fix (`fix`), when it filled the scratch (or,
 * the fallback, left more than its size); else copy it into dir: folders, regular files (sparse; a file's other
 * names as hard links to its copy) and symbolic links (as links, never followed); anything else is left out.
 * HX_EXIT_USAGE past the limit. */
int sbx_scratch_finish(struct sbx_scratch *s, const char *fix, struct hx_err *err);
/* Whether the step filled it (its last write could not be whole). */
bool sbx_scratch_full(const struct sbx_scratch *s);
/* After a step that failed with its scratch not full: when its output (log) says it ran out of space (ENOSPC,
 * "No space left on device", Rust's "os error 28"), a step that removed what it wrote (npm rolls back
 * node_modules) ran out of the limit all the same: fail naming the limit and the fix, HX_EXIT_USAGE, its output
 * kept in the message; else 0. */
int sbx_scratch_ran_out(const struct sbx_scratch *s, const char *log, const char *fix, struct hx_err *err);
void sbx_scratch_close(struct sbx_scratch *s);

#endif
