/* mountinfo and /proc/self/cgroup parsing for unified, legacy and hybrid hosts. */
#include "testutil.h"

#include "cgroups/mode.h"

static const char hybrid_mountinfo[] =
	"23 1 253:0 / / rw,relatime - ext4 /dev/vda rw\n"
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
	"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
	"39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char hybrid_cgroup[] = "9:name=systemd:/\n8:pids:/\n5:devices:/\n"
				    "4:memory:/process_api/dac2d5c9\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n";

static const char legacy_mountinfo[] =
	"25 30 0:23 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
	"26 25 0:24 / /sys/fs/cgroup/systemd rw,nosuid shared:10 - cgroup cgroup rw,xattr,name=systemd\n"
	"29 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:13 - cgroup cgroup rw,cpu,cpuacct\n"
	"30 25 0:28 / /sys/fs/cgroup/cpuset rw,nosuid shared:14 - cgroup cgroup rw,cpuset\n"
	"31 25 0:29 / /sys/fs/cgroup/memory rw,nosuid shared:15 - cgroup cgroup rw,memory\n"
	"32 25 0:30 / /sys/fs/cgroup/pids rw,nosuid shared:16 - cgroup cgroup rw,pids\n";
static const char legacy_cgroup[] = "12:pids:/user.slice/user-1000.slice/session-2.scope\n"
				    "4:cpu,cpuacct:/user.slice\n3:cpuset:/\n"
				    "2:memory:/user.slice/user-1000.slice/session-2.scope\n"
				    "1:name=systemd:/user.slice/user-1000.slice/session-2.scope\n";

static const char unified_mountinfo[] =
	"24 30 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
	"rw,nsdelegate,memory_recursiveprot\n";
static const char unified_cgroup[] = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run.scope\n";

static void parse(const char *mi, const char *pc, struct cg_host *h)
{
	struct hx_err err = {0};

	memset(h, 0, sizeof(*h));
	if (cg_parse_mountinfo(mi, h, &err) < 0 || cg_parse_proc_cgroup(pc, h, &err) < 0)
		fail_msg("%s", err.msg);
}

static void assert_dir(const struct cg_hier *hi, const char *want)
{
	struct hx_err err = {0};
	char dir[4096];

	if (cg_hier_dir(hi, dir, sizeof(dir), &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(dir, want);
}

static void test_hybrid(void **state)
{
	struct cg_host h;

	(void)state;
	parse(hybrid_mountinfo, hybrid_cgroup, &h);
	assert_int_equal(cg_mode_from_mounts(&h), CG_MODE_HYBRID);
	assert_string_equal(h.v1[CG_CTRL_CPU].mount, "/sys/fs/cgroup/cpu");
	assert_string_equal(h.v1[CG_CTRL_CPUACCT].mount, "/sys/fs/cgroup/cpuacct");
	assert_dir(&h.v1[CG_CTRL_MEMORY], "/sys/fs/cgroup/memory/process_api/dac2d5c9");
	assert_dir(&h.v1[CG_CTRL_CPUSET], "/sys/fs/cgroup/cpuset");
	assert_dir(&h.unified, "/sys/fs/cgroup/unified");
}

static void test_legacy_comounted(void **state)
{
	struct cg_host h;

	(void)state;
	parse(legacy_mountinfo, legacy_cgroup, &h);
	assert_int_equal(cg_mode_from_mounts(&h), CG_MODE_LEGACY);
	assert_false(h.unified.mounted);
	assert_dir(&h.v1[CG_CTRL_CPU], "/sys/fs/cgroup/cpu,cpuacct/user.slice");
	assert_dir(&h.v1[CG_CTRL_CPUACCT], "/sys/fs/cgroup/cpu,cpuacct/user.slice");
	assert_dir(&h.v1[CG_CTRL_MEMORY], "/sys/fs/cgroup/memory/user.slice/user-1000.slice/session-2.scope");
	assert_dir(&h.v1[CG_CTRL_PIDS], "/sys/fs/cgroup/pids/user.slice/user-1000.slice/session-2.scope");
}

static void test_unified(void **state)
{
	struct cg_host h;

	(void)state;
	parse(unified_mountinfo, unified_cgroup, &h);
	assert_int_equal(cg_mode_from_mounts(&h), CG_MODE_UNIFIED);
	for (int c = 0; c < CG_NR_CTRLS; c++)
		assert_false(h.v1[c].mounted);
	assert_dir(&h.unified, "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run.scope");
}

static void test_mount_root_and_escapes(void **state)
{
	struct cg_host h;
	struct hx_err err = {0};
	char dir[4096];

	(void)state;
	/* A container: the hierarchy's /docker/abc is mounted at /sys/fs/cgroup/memory; a space in a path. */
	parse("30 25 0:29 /docker/abc /sys/fs/cgroup/mem\\040ory ro - cgroup cgroup rw,memory\n",
	      "2:memory:/docker/abc/inner\n", &h);
	assert_dir(&h.v1[CG_CTRL_MEMORY], "/sys/fs/cgroup/mem ory/inner");
	/* our cgroup outside what the mount shows */
	parse("30 25 0:29 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n", "2:memory:/docker/abcd\n",
	      &h);
	assert_true(cg_hier_dir(&h.v1[CG_CTRL_MEMORY], dir, sizeof(dir), &err) < 0);
	assert_non_null(strstr(err.msg, "not below the mount's root"));
}

static void test_none_and_garbage(void **state)
{
	struct cg_host h = {0};
	struct hx_err err = {0};

	(void)state;
	parse("23 1 253:0 / / rw,relatime - ext4 /dev/vda rw\n", "0::/\n", &h);
	assert_int_equal(cg_mode_from_mounts(&h), CG_MODE_NONE);
	assert_true(cg_parse_proc_cgroup("garbage\n", &h, &err) < 0);
	assert_non_null(strstr(err.msg, "garbage"));
	assert_true(cg_parse_proc_cgroup("4:memory:relative\n", &h, &err) < 0);
	/* short or odd mountinfo lines are skipped, never fatal */
	assert_int_equal(cg_parse_mountinfo("1 2\n - cgroup\n\n", &h, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hybrid),		 cmocka_unit_test(test_legacy_comounted),
		cmocka_unit_test(test_unified),		 cmocka_unit_test(test_mount_root_and_escapes),
		cmocka_unit_test(test_none_and_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
