/* Rootless runs: harness enters one user namespace of its own, the caller mapped to root inside, so that the run's
 * network namespace and every sandbox's namespaces are owned by it and set up as they are for root. With a range
 * of the caller's subordinate ids (/etc/subuid, /etc/subgid, mapped by shadow's setuid newuidmap and newgidmap)
 * the roles' users are root's own ids, each role a user of its own; without one, every role is the caller (root
 * inside, no capabilities). */
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
/* The ids SBX_UID to SBX_PREPARE_UID: what a rootless run maps from the caller's subordinate range. */
#define SBX_ROLE_IDS 6

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

/* The mapping harness entered. */
struct sbx_userns_map {
	uid_t outer_uid; /* the caller's uid outside, root inside */
	gid_t outer_gid;
	bool roles;	  /* SBX_UID.. mapped from subordinate ids: every role a user of its own */
	bool setgroups;	  /* setgroups(2) allowed in the namespace (newgidmap wrote gid_map) */
	char uid_map[64]; /* as written, lines joined by ", ": "0 1000 1, 2147479552 100000 6" */
	char gid_map[64];
	char why_shared[256]; /* !roles: why every role is the caller, and the fix */
};

/* Where a rootless run's role ids would come from: the first range of at least SBX_ROLE_IDS ids of the caller
 * (its name or its uid) in /etc/subuid and in /etc/subgid, and the two setuid helpers that map them. */
struct sbx_subids {
	unsigned long uid_start, gid_start;
	char newuidmap[64], newgidmap[64];
	bool ok;
	char why[256]; /* !ok: what is missing, with the fix */
};
/* The start of the first range of at least need ids that text (the format of subuid(5): "name:start:count" a
 * line) gives to the user called name or numbered id; -ENOENT when none does. Pure: unit-tested. */
int sbx_subid_find(const char *text, const char *name, unsigned long id, unsigned long need, unsigned long *ret_start);
/* The facts for the caller (uid, gid), read from /etc and the helpers' usual folders. */
void sbx_subids_probe(uid_t uid, gid_t gid, struct sbx_subids *ret);

/* Enter a new user namespace with the caller as root (and the role ids from the caller's subordinate range when
 * sbx_subids_probe finds one), and a mount namespace that namespace owns (the process must be single-threaded).
 * Returns -errno with the step named; exit 3 when the kernel refuses an unprivileged user namespace. */
int sbx_userns_enter(struct hx_err *err);
/* True once sbx_userns_enter succeeded; *ret gets its mapping. */
bool sbx_userns_active(struct sbx_userns_map *ret);
/* The user who started harness, for messages: outside the namespace in a rootless run (geteuid() is 0 inside). */
uid_t sbx_caller_uid(void);
/* A role's user and group: SBX_UID + the role's place, as root and in a rootless run with its role ids; the caller
 * (root of the namespace) in a rootless run without them. */
uid_t sbx_role_uid(enum sbx_role r);
gid_t sbx_role_gid(enum sbx_role r);
/* The role whose user uid is ("sut", "client", "fixture", ...), as a root-started run has them; NULL for none. */
const char *sbx_role_name_of_uid(uid_t uid);

#endif
