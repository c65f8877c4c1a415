/* What harness reads of itself for a soak (its open files) and what the load client needs of the host (open
 * files for its connections). */
#include "testutil.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "base/procfs.h"
#include "load/load.h"

static void test_self_fds_counts_each_open_file(void **state)
{
	int before = proc_self_fds(), fd;

	(void)state;
	assert_true(before >= 0);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(proc_self_fds(), before + 1);
	close(fd);
	assert_int_equal(proc_self_fds(), before); /* the directory it reads is never counted */
}

/* In a child: the soft limit is set low, then load_nofile raises it for the connections asked for. */
static void test_nofile_rises_for_connections(void **state)
{
	pid_t pid = fork();
	int status;

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit r;
		struct hx_err err = {0};

		getrlimit(RLIMIT_NOFILE, &r);
		r.rlim_cur = 128;
		if (r.rlim_max < 2000 || setrlimit(RLIMIT_NOFILE, &r) < 0)
			_exit(10);
		if (load_nofile(1000, &err) < 0)
			_exit(11);
		getrlimit(RLIMIT_NOFILE, &r);
		_exit(r.rlim_cur >= 1000 + LOAD_NOFILE_SPARE ? 0 : 12);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* More than any kernel allows (fs.nr_open is at most 2^30): exit 3, naming the limit and the fix. */
static void test_nofile_beyond_the_host_is_exit_3(void **state)
{
	struct hx_err err = {0};
	struct rlimit before, after;

	(void)state;
	getrlimit(RLIMIT_NOFILE, &before);
	if (before.rlim_cur == RLIM_INFINITY)
		skip();
	assert_true(load_nofile(2000000000u, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "2000000064 open files"));
	assert_non_null(strstr(err.msg, "ulimit -Hn"));
	getrlimit(RLIMIT_NOFILE, &after);
	assert_int_equal(after.rlim_cur, before.rlim_cur); /* nothing changed on failure */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_fds_counts_each_open_file),
		cmocka_unit_test(test_nofile_rises_for_connections),
		cmocka_unit_test(test_nofile_beyond_the_host_is_exit_3),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
