/* Rootless runs: harness enters one user namespace of its own, the caller mapped to root inside (one uid, one
 * gid, setgroups denied), so that the run's network namespace and every sandbox's namespaces are owned by it and
 * set up as they are for root. The sandbox's user is then the caller (root inside, no capabilities). */
#ifndef HX_SBX_USERNS_H
#define HX_SBX_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/err.h"

/* The sandbox's user when harness runs as root: an id no host account has, far above every distribution's user
 * and system ranges, systemd's container and foreign ranges, and the usual /etc/subuid blocks (docs/sandbox.md
 * says why root's sandboxes use no user namespace). */
#define SBX_UID 2147479552 /* 0x7ffff000 */
#define SBX_GID 2147479552
/* A runtime started out of the sandbox (run --no-sandbox) shares the host's PID namespace and file system with
 * the sandboxed load client and fixture: as their user it could signal them or write into what they write. It
 * is a user of its own, the next id. */
#define SBX_BARE_UID (SBX_UID + 1)
#define SBX_BARE_GID (SBX_GID + 1)
/* Every other role a run has is a user of its own too, the ids after: sandboxes of one run share its network
 * namespace, so one uid would let one role join another's port (SO_REUSEPORT groups are per uid), signal it
 * or read its /proc where they meet (the fixture's server started from the runtime's COPY ... PROGRAM served a
 * trial's requests that way). */
#define SBX_CLIENT_UID	(SBX_UID + 2)
#define SBX_FIXTURE_UID (SBX_UID + 3)
#define SBX_NOISE_UID	(SBX_UID + 4)
#define SBX_PREPARE_UID (SBX_UID + 5) /* prepare steps, the bundler, version probes */
#define SBX_FIXTURE_GID (SBX_GID + 3)

/* Who a sandbox runs as: the role of its slice unless the caller says (prepare steps have no slice of a run). */
enum sbx_role {
	SBX_ROLE_OF_SLICE, /* sut, client, fixture or noise, from the slice the sandbox starts in */
	SBX_ROLE_SUT,
	SBX_ROLE_BARE, /* the runtime out of the sandbox */
	SBX_ROLE_CLIENT,
	SBX_ROLE_FIXTURE,
	SBX_ROLE_NOISE,
	SBX_ROLE_PREPARE,
};

/* The mapping harness entered, as written to uid_map and gid_map ("0 1000 1"). */
struct sbx_userns_map {
	uid_t outer_uid; /* the caller's uid outside, root inside */
	gid_t outer_gid;
};

/* Enter a new user namespace with the caller as root, and a mount namespace that namespace owns (the process
 * must be single-threaded). Returns -errno with
 * the step named; exit 3 when the kernel refuses an unprivileged user namespace. */
int sbx_userns_enter(struct hx_err *err);
/* True once sbx_userns_enter succeeded; *ret gets its mapping. */
bool sbx_userns_active(struct sbx_userns_map *ret);
/* A role's user and group: SBX_UID + the role's place as root, the caller (root of the namespace, which maps
 * one id only) in a rootless run. */
uid_t sbx_role_uid(enum sbx_role r);
gid_t sbx_role_gid(enum sbx_role r);
/* The role whose user uid is ("sut", "client", "fixture", ...), as a root-started run has them; NULL for none. */
const char *sbx_role_name_of_uid(uid_t uid);

#endif
