/* The sandbox's seccomp policy: a default-allow filter that refuses what a benchmarked runtime never
 * needs and a container escape would (modelled on Docker's default profile). */
#ifndef HX_SBX_SECCOMP_H
#define HX_SBX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

struct sbx_seccomp_opts {
	bool allow_io_uring; /* io_uring changes how some runtimes do I/O; off by default, as in Docker */
};

/* Build the filter in the parent (no allocation left for the child). */
int sbx_seccomp_prepare(const struct sbx_seccomp_opts *o, void **ret_ctx, struct hx_err *err);
/* Load it, last thing before execve. Returns -errno. */
int sbx_seccomp_apply_in_child(void *ctx);
void sbx_seccomp_cleanup(void **ctx);
#define SBX_SECCOMP_MAX_DESC 96

/* The policy in force, for results: default action, the refused syscalls and their errno. */
struct sbx_seccomp_desc {
	const char *default_action, *other_architectures;
	const char *eperm[SBX_SECCOMP_MAX_DESC];
	size_t neperm;
	const char *eafnosupport[4];
	size_t neafnosupport;
	const char *enosys[4];
	size_t nenosys;
	bool io_uring_allowed;
};

void sbx_seccomp_describe(const struct sbx_seccomp_opts *o, struct sbx_seccomp_desc *ret);

#endif
