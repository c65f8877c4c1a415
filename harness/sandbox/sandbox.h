/* The sandbox: new mount, PID, IPC, UTS and cgroup namespaces in a slice, the run's network
 * namespace, a tmpfs root, no privileges, a seccomp filter, and an init as PID 1. Or, for comparison only,
 * the same start without the namespaces, the root and the filter (bare; sandbox_internal.h). */
#ifndef HX_SANDBOX_H
#define HX_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroups/cg.h"
#include "base/err.h"
#include "sandbox/sbx_mount.h"
#include "sandbox/sbx_seccomp.h"
#include "sandbox/sbx_userns.h"

#define SBX_MAX_ENV	64
#define SBX_ENV_LEN	1024
#define SBX_SCRATCH_LEN 256 /* a bare start's scratch folder's path */

struct sbx_config {
	char *const *argv;
	char env[SBX_MAX_ENV][SBX_ENV_LEN]; /* K=V, copies: sbx_config_init, then sbx_env_set */
	size_t nenv;
	struct sbx_rootfs rootfs;
	struct sbx_seccomp_opts seccomp;
	const char *cwd;
	int netns_fd;	  /* the run's network namespace, or SBX_NET_OWN (sbx_net.h; not bare) */
	bool quiet;	  /* the command's stdout and stderr go to /dev/null */
	int out_fd;	  /* >= 0: the command's stdout and stderr go here (a log file), bounded (sbx_out.h) */
	int err_fd;	  /* >= 0: its stderr goes here instead */
	int in_fd;	  /* >= 0: the command's stdin (postgres --single reads its SQL there); else harness's */
	uint64_t out_max; /* bytes of each stream's head kept in those files; 0: SBX_OUT_MAX */
	/* Out of the sandbox, for comparison only (run --no-sandbox): the same slice, network namespace,
	 * environment, limits, user and init, but no namespace of its own, no root of its own and no seccomp
	 * filter; the paths inside become host paths (sandbox_internal.h). */
	bool bare;
	const char *bare_dir;
	enum sbx_role role;
	/* SBX_ROLE_OF_SLICE (0): the slice's role; bare: SBX_ROLE_BARE */ /* bare: where each start's scratch folder is made; NULL: /tmp */
};

/* Where the time went, stamped with CLOCK_MONOTONIC (ns) by parent and child alike. */
struct sbx_stamps {
	uint64_t clone_ns;			/* parent, just before clone */
	uint64_t child_ns;			/* child, first instruction (inside the slice) */
	uint64_t exec_ns;			/* payload, just before execve */
	uint64_t exit_ns;			/* init, when the payload was reaped */
	uint64_t utime_us, stime_us, maxrss_kb; /* the payload's rusage (with its reaped children) */
};

void sbx_config_init(struct sbx_config *c);
/* "SRC:DST[:ro|rw]", both absolute, DST not /, /proc or /dev; SRC must exist. A usage error otherwise. */
int sbx_parse_bind(const char *spec, struct sbx_bind *b, struct hx_err *err);
/* Frees what sbx_parse_bind copied into c's binds, and empties them. */
void sbx_config_release(struct sbx_config *c);
/* K=V (copied), replacing an earlier K. Returns -EINVAL for a malformed one, -E2BIG when full or longer
 * than SBX_ENV_LEN - 1. */
int sbx_env_set(struct sbx_config *c, const char *kv);

/* A running sandbox: its init's pid and the channel that reports setup failures. */
struct sbx {
	pid_t pid;
	int report_fd;
	struct sbx_stamps *stamps; /* shared with the child */
	void *seccomp_ctx;
	char scratch[SBX_SCRATCH_LEN]; /* bare: the start's scratch folder, removed by sbx_release; "": none */
};

/* Start c->argv in a new sandbox inside slice s of t (which must be given: every sandbox is in a slice). */
int sbx_start(struct cg_tree *t, enum cg_slice s, const struct sbx_config *c, struct sbx *ret, struct hx_err *err);
/* The same in the caller's own cgroup, for a launcher that is itself inside slice s already (a startup series:
 * no cgroup move per start); s names the role. */
int sbx_start_here(enum cg_slice s, const struct sbx_config *c, struct sbx *ret, struct hx_err *err);
/* Wait until the payload has called execve (0) or setup failed: the error names the step and errno
 * ("sandbox: pivot_root: Invalid argument"), or for execve the command `what`. */
int sbx_wait_exec(struct sbx *x, const char *what, struct hx_err *err);
/* Frees what sbx_start made; a bare start's scratch folder goes too: once the sandbox is gone. */
void sbx_release(struct sbx *x);
/* Stop a sandbox: sig to its init (which passes it on), up to wait_ms for it to exit, then its slice is
 * killed and emptied. True when it exited by itself in time, with its exit code in *ret_code (else -1).
 * x->pid is -1 afterwards: it has been reaped. With x->pid already -1, only the slice is emptied. */
bool sbx_stop(struct cg_tree *t, enum cg_slice s, struct sbx *x, int sig, int wait_ms, int *ret_code);
/* Out of the sandbox, the start's own user (in no group that owns a folder of the host) reaches path only
 * through folders that others may search. 0 when every folder on the way to path (absolute) is, both as written
 * and where its links finally lead; -EACCES with the first folder that is not in blocker ("/root"); -errno when
 * path cannot be resolved (blocker: path). A link met inside another link's target is not walked on its own:
 * this is a check before the start, and the kernel still has the last word at exec. */
int sbx_bare_can_reach(const char *path, char *blocker, size_t len);
/* The payload (PID 2 inside) as the host sees it: the only child of the sandbox's init; -1 when gone. */
pid_t sbx_payload_pid(pid_t init);

#endif
