/* The rootless facts from a fixture /proc: each missing piece named with its fix; a caller's subordinate ids. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/rootless.h"
#include "sandbox/sbx_userns.h"

static void put(const char *dir, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The "what" of every missing item, one per line. */
static void whats(const struct rootless_facts *o, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < o->nmissing; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s | %s\n", o->missing[i].what, o->missing[i].fix);
}

static void test_ubuntu_restricted(void **state)
{
	char dir[] = "/tmp/test-rootless-XXXXXX", buf[4096];
	struct rootless_facts *o = calloc(1, sizeof(*o));

	(void)state;
	assert_non_null(o);
	assert_non_null(mkdtemp(dir));
	put(dir, "self/cgroup", "0::/user.slice/user-1000.slice/session-1.scope\n");
	put(dir, "sys/user/max_user_namespaces", "15000\n");
	put(dir, "sys/kernel/unprivileged_userns_clone", "0\n");
	put(dir, "sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
	rootless_probe(dir, dir, 1000, o); /* the fixture folder is no cgroup2 mount */
	whats(o, buf, sizeof(buf));
	assert_false(o->possible);
	assert_string_equal(o->cgroup, "/user.slice/user-1000.slice/session-1.scope");
	assert_non_null(strstr(buf, "cgroup v2: this host's controllers are on cgroup v1"));
	assert_non_null(
		strstr(buf, "kernel.unprivileged_userns_clone = 0) | sysctl -w kernel.unprivileged_userns_clone=1"));
	assert_non_null(strstr(buf, "AppArmor restricts unprivileged user namespaces"));
	assert_non_null(strstr(buf, "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"));
	assert_null(strstr(buf, "max_user_namespaces is 0"));

	/* the switches on: only the cgroup is left */
	put(dir, "sys/kernel/unprivileged_userns_clone", "1\n");
	put(dir, "sys/kernel/apparmor_restrict_unprivileged_userns", "0\n");
	put(dir, "sys/user/max_user_namespaces", "0\n");
	rootless_probe(dir, dir, 1000, o);
	whats(o, buf, sizeof(buf));
	assert_null(strstr(buf, "AppArmor"));
	assert_null(strstr(buf, "unprivileged_userns_clone"));
	assert_non_null(strstr(buf, "user.max_user_namespaces is 0 | sysctl -w user.max_user_namespaces=15000"));
	assert_int_equal(o->nmissing, 2);
	assert_false(o->possible);
	free(o);
	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	assert_int_equal(system(buf), 0);
}

/* subuid(5) lines: the caller by name or by uid, the first range large enough, nothing else. */
static void test_subid_find(void **state)
{
	unsigned long start = 7;

	(void)state;
	assert_int_equal(sbx_subid_find("alice:100000:65536\n", "alice", 1000, 6, &start), 0);
	assert_int_equal(start, 100000);
	/* by uid, for a caller whose name the file does not use */
	assert_int_equal(sbx_subid_find("bob:1:9\n1000:300000:10", "alice", 1000, 6, &start), 0);
	assert_int_equal(start, 300000);
	/* too small a range is passed over for the next of the caller's */
	assert_int_equal(sbx_subid_find("alice:100000:5\nalice:200000:6\n", "alice", 1000, 6, &start), 0);
	assert_int_equal(start, 200000);
	/* a name is matched whole, never as a prefix either way */
	start = 7;
	assert_int_equal(
		sbx_subid_find("alic:100000:65536\nalice2:100000:65536\n10000:5:65536\n", "alice", 1000, 6, &start),
		-ENOENT);
	/* malformed lines, a range at id 0 (root outside) and one past 32 bits are no ranges */
	assert_int_equal(sbx_subid_find("# alice:1:100\nalice:abc:100\nalice:100000\nalice:100000:6x\nalice:0:100\n"
					"alice:4294967290:65536\n\n",
					"alice", 1000, 6, &start),
			 -ENOENT);
	assert_int_equal(start, 7); /* untouched on failure */
	assert_int_equal(sbx_subid_find("", "alice", 1000, 6, &start), -ENOENT);
	assert_int_equal(sbx_subid_find("1000:400000:6", NULL, 1000, 6, &start), 0);
	assert_int_equal(start, 400000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ubuntu_restricted),
		cmocka_unit_test(test_subid_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
