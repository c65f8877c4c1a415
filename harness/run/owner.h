/* Who serves a port: the listening sockets on it in the run's network namespace (its /proc/net/tcp and tcp6,
 * read from inside it) against the socket descriptors of a slice's processes. A trial's figures are the
 * runtime's only when the runtime holds the listener the load client reached (docs/sandbox.md). */
#ifndef HX_OWNER_H
#define HX_OWNER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "cgroups/cg.h"

#define OWNER_MAX_LISTENERS 64

struct owner_listener {
	uint64_t inode;
	uid_t uid;
};

/* The listeners (state 0A) on port in the text of /proc/net/tcp or tcp6, appended to ret (up to
 * OWNER_MAX_LISTENERS in all; *n counts them). Lines that do not parse are skipped. */
void owner_parse_listeners(const char *text, unsigned port, struct owner_listener *ret, size_t *n);
/* 0 when every listener on port in netns_fd is held by a process of slice s; else a verdict (exit 1) naming
 * the one that is not: the slice and pid that hold it when one of t's slices does, else its uid (and that
 * uid's role). No listener at all is 0: whether something answered is the readiness probe's and the load's. */
int owner_check(int netns_fd, unsigned port, const struct cg_tree *t, enum cg_slice s, const char *what,
		struct hx_err *err);

#endif
