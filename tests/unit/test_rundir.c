/* harness gc's run folders: only this user's real harness-run-* folders whose owner file names a run that is
 * gone; never a live run's, a folder without an owner, a link, or an owner file that is a link. */
#include "testutil.h"

#include <sys/stat.h>

#include "cgroups/cg.h"
#include "image/unpack.h"
#include "run/rundir.h"

static char parent[64];

static void folder(const char *name, const char *owner)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", parent, name);
	assert_int_equal(mkdir(path, 0700), 0);
	if (!owner)
		return;
	snprintf(path, sizeof(path), "%s/%s/owner", parent, name);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", owner);
	fclose(f);
}

static bool there(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", parent, name);
	return lstat(path, &st) == 0;
}

static void test_only_dead_runs_folders(void **state)
{
	char live[128], dead[128], path[256], target[256];
	struct hx_err err = {0};
	unsigned removed = 99;

	(void)state;
	unsetenv("HARNESS_RUN_TAG");
	snprintf(parent, sizeof(parent), "/tmp/test-rundir-XXXXXX");
	assert_non_null(mkdtemp(parent));
	assert_int_equal(cg_run_id(live, sizeof(live), &err), 0);
	cg_run_id_format(dead, sizeof(dead), NULL, getpid(), 1); /* our pid, another start: a run that is gone */
	folder("harness-run-dead", dead);
	folder("harness-run-live", live);
	folder("harness-run-none", NULL);
	folder("harness-run-junk", "not a run id");
	folder("other-dead", dead);
	/* a link to a dead run's folder is not followed; nor is an owner file that is a link */
	folder("target", dead);
	snprintf(target, sizeof(target), "%s/target", parent);
	snprintf(path, sizeof(path), "%s/harness-run-link", parent);
	assert_int_equal(symlink(target, path), 0);
	folder("harness-run-ownerlink", NULL);
	snprintf(target, sizeof(target), "%s/target/owner", parent);
	snprintf(path, sizeof(path), "%s/harness-run-ownerlink/owner", parent);
	assert_int_equal(symlink(target, path), 0);

	assert_int_equal(rundir_gc(parent, &removed, &err), 0);
	assert_int_equal(removed, 1);
	assert_false(there("harness-run-dead"));
	assert_true(there("harness-run-live") && there("harness-run-none") && there("harness-run-junk"));
	assert_true(there("other-dead") && there("target") && there("harness-run-link") &&
		    there("harness-run-ownerlink"));

	/* with a tag, only folders of that tag */
	folder("harness-run-dead2", dead);
	setenv("HARNESS_RUN_TAG", "t1n2", 1);
	assert_int_equal(rundir_gc(parent, &removed, &err), 0);
	assert_int_equal(removed, 0);
	assert_true(there("harness-run-dead2"));
	unsetenv("HARNESS_RUN_TAG");
	unpack_remove_tree(parent);
}

/* A new run folder holds its owner file, the run id of this process, from the start: gc leaves it alone. */
static void test_create_writes_owner(void **state)
{
	char dir[4096], id[128], path[4200], text[160] = "";
	struct hx_err err = {0};
	FILE *f;

	(void)state;
	unsetenv("HARNESS_RUN_TAG");
	assert_int_equal(rundir_create(dir, sizeof(dir), &err), 0);
	assert_int_equal(strncmp(dir, RUNDIR_PARENT "/harness-run-", strlen(RUNDIR_PARENT "/harness-run-")), 0);
	assert_int_equal(cg_run_id(id, sizeof(id), &err), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, RUNDIR_OWNER);
	assert_non_null(f = fopen(path, "r"));
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	strcat(id, "\n");
	assert_string_equal(text, id);
	assert_false(cg_run_id_orphaned(strtok(text, "\n"), NULL));
	unpack_remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_writes_owner),
		cmocka_unit_test(test_only_dead_runs_folders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
