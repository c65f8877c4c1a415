/* Privileges inside a sandbox: resource limits, no_new_privs, no capabilities, an unprivileged user. */
#ifndef HX_SBX_CAPS_H
#define HX_SBX_CAPS_H

#include <sys/types.h>

#define SBX_NOFILE 65536 /* enough for 10,000 connections with room to spare */

/* In a sandbox child, in this order: rlimits, NO_NEW_PRIVS, bounding set emptied, groups, gid, uid,
 * every capability set cleared (libcap). Returns -errno; *ret_step names the step that failed. */
int sbx_caps_apply_in_child(uid_t uid, gid_t gid, const char **ret_step);

#endif
