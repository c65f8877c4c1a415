/* Rootless runs: the user namespace harness enters, its maps (one id, or the roles' ids from the caller's
 * subordinate range), and the sandbox user that follows from it. */
#include "sandbox/sbx_userns.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/esc.h"
#include "base/util.h"

static bool userns_active;
static struct sbx_userns_map userns_map;

int sbx_subid_find(const char *text, const char *name, unsigned long id, unsigned long need, unsigned long *ret_start)
{
	char idstr[24];

	snprintf(idstr, sizeof(idstr), "%lu", id);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n = strcspn(p, ":\n");
		unsigned long start, count;
		char *end;

		if (p[n] != ':' || !((name && strlen(name) == n && strncmp(p, name, n) == 0) ||
				     (strlen(idstr) == n && strncmp(p, idstr, n) == 0)))
			continue;
		errno = 0;
		start = strtoul(p + n + 1, &end, 10);
		if (errno || end == p + n + 1 || *end != ':')
			continue;
		count = strtoul(end + 1, &end, 10);
		if (errno || (*end && *end != '\n') || count < need || start == 0 || start > UINT32_MAX - need)
			continue;
		*ret_start = start;
		return 0;
	}
	return -ENOENT;
}

/* The setuid helper called name, where distributions install it (shadow's uidmap package); false when none. */
static bool idmap_tool(const char *name, char *buf, size_t len)
{
	static const char *const dirs[] = {"/usr/bin", "/bin", "/usr/sbin", "/sbin"};

	for (size_t i = 0; i < HX_ARRAY_SIZE(dirs); i++) {
		snprintf(buf, len, "%s/%s", dirs[i], name);
		if (access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

static bool subid_in(const char *file, const char *name, unsigned long id, unsigned long *ret_start)
{
	_cleanup_free_ char *text = NULL;
	struct hx_err err = {0};

	return util_read_file(file, &text, NULL, &err) == 0 &&
	       sbx_subid_find(text, name, id, SBX_ROLE_IDS, ret_start) == 0;
}

void sbx_subids_probe(uid_t uid, gid_t gid, struct sbx_subids *ret)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	memset(ret, 0, sizeof(*ret));
	/* newuidmap and newgidmap look the caller up by name, and so may the files' lines */
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) != 0 || !found) {
		snprintf(ret->why, sizeof(ret->why),
			 "uid %u has no user name, which newuidmap needs (fix: an entry in "
			 "/etc/passwd)",
			 (unsigned)uid);
		return;
	}
	if (!idmap_tool("newuidmap", ret->newuidmap, sizeof(ret->newuidmap)) ||
	    !idmap_tool("newgidmap", ret->newgidmap, sizeof(ret->newgidmap))) {
		snprintf(ret->why, sizeof(ret->why),
			 "newuidmap and newgidmap are not installed (fix: apt-get install "
			 "uidmap)");
		return;
	}
	if (!subid_in("/etc/subuid", found->pw_name, uid, &ret->uid_start) ||
	    !subid_in("/etc/subgid", found->pw_name, gid, &ret->gid_start)) {
		char name[ESC_LEN];

		esc_term(found->pw_name, name, sizeof(name));
		snprintf(ret->why, sizeof(ret->why),
			 "no range of %d ids for %.64s in /etc/subuid and /etc/subgid (fix: "
			 "usermod --add-subuids 100000-165535 --add-subgids 100000-165535 %.64s)",
			 SBX_ROLE_IDS, name, name);
		return;
	}
	ret->ok = true;
}

/* The map helper's child: when the byte on go arrives, newgidmap then newuidmap on the parent; its exit is 0 when
 * both mapped, 1 when newgidmap failed (newuidmap not tried), 2 when newuidmap did. Their stderr goes to errfd. */
static _Noreturn void helper_main(const struct sbx_subids *s, pid_t target, uid_t uid, gid_t gid, int go, int errfd)
{
	char pid[16], outer[16], start[24], base[16], n[8], zero[] = "0", one[] = "1";
	char *const env[] = {NULL};
	char c;

	if (read(go, &c, 1) != 1)
		_exit(3);
	snprintf(pid, sizeof(pid), "%d", (int)target);
	snprintf(n, sizeof(n), "%d", SBX_ROLE_IDS);
	dup2(errfd, STDERR_FILENO);
	for (int k = 0; k < 2; k++) {
		const char *tool = k == 0 ? s->newgidmap : s->newuidmap;
		int status = 0;
		pid_t p;

		snprintf(outer, sizeof(outer), "%u", k == 0 ? (unsigned)gid : (unsigned)uid);
		snprintf(start, sizeof(start), "%lu", k == 0 ? s->gid_start : s->uid_start);
		snprintf(base, sizeof(base), "%u", k == 0 ? (unsigned)SBX_GID : (unsigned)SBX_UID);
		p = fork();
		if (p == 0) {
			char *const argv[] = {(char *)tool, pid, zero, outer, one, base, start, n, NULL};

			execve(tool, argv, env);
			_exit(127);
		}
		if (p < 0 || waitpid(p, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			_exit(k + 1);
	}
	_exit(0);
}

/* Unshare the user namespace with a helper forked before it that maps the roles' ids once we are in it. Returns
 * unshare's result (-errno); *ret_mapped says how far the helper got (0 both maps, 1 none, 2 gid_map only), why
 * gets its tools' words. */
static int unshare_mapped(const struct sbx_subids *s, uid_t uid, gid_t gid, int *ret_mapped, char *why, size_t len)
{
	int go[2], errp[2], status = 0, rc;
	pid_t helper, self = getpid();
	char text[256];
	ssize_t got;

	*ret_mapped = 1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return unshare(CLONE_NEWUSER) < 0 ? -errno : 0;
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(go[0]), close(go[1]);
		return unshare(CLONE_NEWUSER) < 0 ? -errno : 0;
	}
	helper = fork();
	if (helper == 0) {
		close(go[1]);
		close(errp[0]);
		helper_main(s, self, uid, gid, go[0], errp[1]);
	}
	close(go[0]);
	close(errp[1]);
	rc = unshare(CLONE_NEWUSER) < 0 ? -errno : 0;
	/* the byte only once we are in the namespace: on a failed unshare the helper reads end of file and maps
	 * nothing */
	if (rc == 0 && helper > 0 && write(go[1], "g", 1) != 1)
		rc = -errno;
	close(go[1]);
	got = helper > 0 ? read(errp[0], text, sizeof(text) - 1) : -1;
	text[got > 0 ? got : 0] = '\0';
	close(errp[0]);
	if (helper > 0 && waitpid(helper, &status, 0) == helper && WIFEXITED(status) && WEXITSTATUS(status) <= 2)
		*ret_mapped = WEXITSTATUS(status);
	esc_term(util_rstrip(text), why, len);
	return rc;
}

/* The classic rootless maps, one id each, written by ourselves: what an unprivileged process may write for itself
 * (gid_map only with setgroups denied, user_namespaces(7), Linux 3.19). */
static int map_self(const char *file, unsigned outer, struct hx_err *err)
{
	char map[32];

	if (strcmp(file, "gid_map") == 0 && util_write_file("/proc/self/setgroups", "deny", err) < 0)
		return hx_wrap(err, "rootless: setgroups");
	snprintf(map, sizeof(map), "0 %u 1", outer);
	if (util_write_file(strcmp(file, "gid_map") == 0 ? "/proc/self/gid_map" : "/proc/self/uid_map", map, err) < 0)
		return hx_wrap(err, "rootless: %s", file);
	return 0;
}

int sbx_userns_enter(struct hx_err *err)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	struct sbx_userns_map *m = &userns_map;
	struct sbx_subids s;
	char why[160] = "";
	int mapped = 1, rc;

	/* this binary's path, while the link still shows it from the namespace it was reached in: from a mount
	 * namespace of our own, entered below, an exe reached in a private one (unshare -m, a unit's PrivateTmp)
	 * reads relative to its mount ("/bin/harness" for a checkout's), and the load client's bind of it fails */
	util_self_exe();
	sbx_subids_probe(uid, gid, &s);
	*m = (struct sbx_userns_map){.outer_uid = uid, .outer_gid = gid};
	rc = s.ok ? unshare_mapped(&s, uid, gid, &mapped, why, sizeof(why)) : (unshare(CLONE_NEWUSER) < 0 ? -errno : 0);
	if (rc < 0) {
		errno = -rc;
		if (errno == EPERM || errno == ENOSPC)
			return hx_fail(err, HX_EXIT_HOST, errno,
				       "rootless: the kernel refuses a user namespace: %s (harness doctor says why)",
				       strerror(errno));
		return hx_syserr(err, "rootless: unshare a user namespace");
	}
	/* what the helpers did not map, we map ourselves: the caller alone */
	if (mapped == 1 && map_self("gid_map", (unsigned)gid, err) < 0)
		return -err->errnum;
	if (mapped != 0 && map_self("uid_map", (unsigned)uid, err) < 0)
		return -err->errnum;
	m->roles = mapped == 0;
	m->setgroups = mapped != 1;
	snprintf(m->uid_map, sizeof(m->uid_map), mapped == 0 ? "0 %u 1, %u %lu %d" : "0 %u 1", (unsigned)uid,
		 (unsigned)SBX_UID, s.uid_start, SBX_ROLE_IDS);
	snprintf(m->gid_map, sizeof(m->gid_map), mapped != 1 ? "0 %u 1, %u %lu %d" : "0 %u 1", (unsigned)gid,
		 (unsigned)SBX_GID, s.gid_start, SBX_ROLE_IDS);
	if (!s.ok)
		snprintf(m->why_shared, sizeof(m->why_shared), "%s", s.why);
	else if (mapped != 0)
		snprintf(m->why_shared, sizeof(m->why_shared), "%s failed: %s", mapped == 1 ? "newgidmap" : "newuidmap",
			 why[0] ? why : "no reason given");
	/* a mount namespace of the user namespace's own: a new mount there is ours to make (a prepare step's
	 * tmpfs: fsopen asks for CAP_SYS_ADMIN over the namespace that owns our mounts), seen by nobody else */
	if (unshare(CLONE_NEWNS) < 0)
		return hx_syserr(err, "rootless: unshare a mount namespace");
	userns_active = true;
	return 0;
}

bool sbx_userns_active(struct sbx_userns_map *ret)
{
	if (userns_active && ret)
		*ret = userns_map;
	return userns_active;
}

uid_t sbx_caller_uid(void)
{
	return userns_active ? userns_map.outer_uid : geteuid();
}

uid_t sbx_role_uid(enum sbx_role r)
{
	/* SBX_ROLE_OF_SLICE never gets here resolved: it is the runtime's, as it always was */
	return userns_active && !userns_map.roles ? 0 : SBX_UID + (uid_t)(r > SBX_ROLE_SUT ? r - SBX_ROLE_SUT : 0);
}

const char *sbx_role_name_of_uid(uid_t uid)
{
	static const char *const names[] = {"sut", "bare", "client", "fixture", "noise", "prepare"};

	return uid >= SBX_UID && uid - SBX_UID < HX_ARRAY_SIZE(names) ? names[uid - SBX_UID] : NULL;
}

gid_t sbx_role_gid(enum sbx_role r)
{
	return userns_active && !userns_map.roles ? 0 : SBX_GID + (gid_t)(r > SBX_ROLE_SUT ? r - SBX_ROLE_SUT : 0);
}
