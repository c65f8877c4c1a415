/* Waiting for children: the first to exit is reaped and its slot cleared; a deadline and a stop flag end
 * the wait without reaping anything. */
#include "testutil.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "base/util.h"

static pid_t child(int code, unsigned sleep_s)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (sleep_s)
			sleep(sleep_s);
		_exit(code);
	}
	assert_true(pid > 0);
	return pid;
}

static void test_first_to_exit(void **state)
{
	pid_t pids[3] = {child(0, 30), -1, child(7, 0)};
	pid_t sleeper = pids[0];
	int status = 0;

	(void)state;
	assert_int_equal(proc_wait_first(pids, 3, util_now_ns() + 10ull * 1000000000, NULL, &status), 2);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	assert_int_equal(pids[2], -1);
	assert_int_equal(pids[0], sleeper); /* not touched */
	kill(sleeper, SIGKILL);
	assert_int_equal(proc_wait_first(pids, 3, 0, NULL, &status), 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(proc_wait_first(pids, 3, 0, NULL, &status), -ECHILD);
}

static void test_deadline_and_stop(void **state)
{
	pid_t pids[1] = {child(0, 30)};
	pid_t sleeper = pids[0];
	volatile int stop = 1;
	int status = 0;

	(void)state;
	assert_int_equal(proc_wait_first(pids, 1, util_now_ns() + 50ull * 1000000, NULL, &status), -ETIMEDOUT);
	assert_int_equal(proc_wait_first(pids, 1, 0, &stop, &status), -EINTR);
	assert_int_equal(pids[0], sleeper); /* still ours to reap */
	assert_int_equal(kill(sleeper, 0), 0);
	kill(sleeper, SIGKILL);
	proc_reap(&pids[0], &status);
	assert_int_equal(pids[0], -1);
	assert_true(WIFSIGNALED(status));
}

static void test_wait_exits(void **state)
{
	pid_t pid = child(0, 30);
	int fds[1] = {proc_pidfd(pid)};

	(void)state;
	if (fds[0] < 0)
		skip(); /* Linux < 5.3 */
	kill(pid, SIGKILL);
	assert_true(proc_wait_exits(fds, 1, 10000));
	assert_int_equal(fds[0], -1);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), pid); /* it had exited: a zombie to reap */
}

/* A process still running at the deadline: the wait reports it, so the caller falls back. */
static void test_wait_exits_timeout(void **state)
{
	pid_t pid = child(0, 30);
	int fds[1] = {proc_pidfd(pid)};
	unsigned long long t0 = util_now_ns();
	int status = 0;

	(void)state;
	if (fds[0] < 0) {
		kill(pid, SIGKILL);
		proc_reap(&pid, &status);
		skip(); /* Linux < 5.3 */
	}
	assert_false(proc_wait_exits(fds, 1, 100));
	assert_true(util_now_ns() - t0 >= 100ull * 1000000); /* it did wait for the deadline */
	assert_int_equal(fds[0], -1);
	assert_int_equal(kill(pid, 0), 0); /* still running: the timeout was real */
	kill(pid, SIGKILL);
	proc_reap(&pid, &status);
	assert_true(WIFSIGNALED(status));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_to_exit),
		cmocka_unit_test(test_deadline_and_stop),
		cmocka_unit_test(test_wait_exits),
		cmocka_unit_test(test_wait_exits_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
