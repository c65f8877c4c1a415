/* The pty relay of harness exec: the pty comes first and the thread only on pty_relay_run, so that the sandboxes
 * are cloned while harness has one thread (a clone taken while the relay's thread was starting left the
 * sandbox's init waiting for good in setresgid). */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "base/pty.h"
#include "base/util.h"

/* The child's steps, each its own exit code, so the parent's assertion says which failed. */
enum {
	STEP_OK,
	STEP_START,
	STEP_THREADS_AFTER_START,
	STEP_CLONE_HUNG,
	STEP_RUN,
	STEP_THREADS_AFTER_RUN,
	STEP_THREADS_AFTER_STOP,
	STEP_SETUP,
};

static int thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A child cloned as the sandbox's init is (a raw clone, no libc fork) changes its user as init does: true
 * when it is done within 5 s. */
static bool raw_clone_sets_user(void)
{
	uint64_t deadline = util_now_ns() + 5000000000ull;
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	int status;

	if (pid == 0)
		_exit(setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1) < 0 ? 1 : 0);
	if (pid < 0)
		return false;
	while (util_now_ns() < deadline) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return false;
}

/* In a child whose 0, 1 and 2 are the slave of a terminal the test made, on one CPU (the creating thread then
 * often runs on while the new one waits for the CPU: the order that hung). */
static int relay_child(int slave)
{
	struct pty_relay r;
	struct hx_err err = {0};
	cpu_set_t one;
	int cpu = sched_getcpu();

	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0 || dup2(slave, 0) < 0 || dup2(slave, 1) < 0 ||
	    dup2(slave, 2) < 0)
		return STEP_SETUP;
	close(slave);
	/* many rounds: a round hangs only when the new thread has not run before the clone */
	for (int round = 0; round < 50; round++) {
		if (pty_relay_start(&r, &err) < 0 || r.master < 0)
			return STEP_START;
		if (!raw_clone_sets_user())
			return STEP_CLONE_HUNG;
		if (thread_count() != 1)
			return STEP_THREADS_AFTER_START;
		if (pty_relay_run(&r, &err) < 0)
			return STEP_RUN;
		if (thread_count() != 2)
			return STEP_THREADS_AFTER_RUN;
		if (round == 0 && write(1, "relayed\n", 8) != 8)
			return STEP_RUN;
		pty_relay_stop(&r);
		if (thread_count() != 1)
			return STEP_THREADS_AFTER_STOP;
	}
	return STEP_OK;
}

/* What the child's relay copied to the test's terminal, until the child is gone. */
static void drain(int master, pid_t pid, char *buf, size_t size, int *status)
{
	size_t used = 0;

	for (;;) {
		struct pollfd p = {.fd = master, .events = POLLIN};
		ssize_t n;

		if (waitpid(pid, status, WNOHANG) == pid)
			break;
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(master, buf + used, size - 1 - used);
		if (n > 0)
			used += (size_t)n;
	}
	buf[used] = '\0';
}

static void test_thread_only_after_the_clones(void **state)
{
	char name[64], out[4096];
	int master = posix_openpt(O_RDWR | O_NOCTTY), slave, status = -1;
	pid_t pid;

	(void)state;
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	assert_int_equal(ptsname_r(master, name, sizeof(name)), 0);
	slave = open(name, O_RDWR | O_NOCTTY);
	assert_true(slave >= 0);
	pid = fork();
	if (pid == 0) {
		close(master);
		_exit(relay_child(slave));
	}
	assert_true(pid > 0);
	close(slave);
	drain(master, pid, out, sizeof(out), &status);
	close(master);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), STEP_OK);
	assert_non_null(strstr(out, "relayed"));
}

/* None of 0, 1, 2 a terminal: no pty, no thread, and stop undoes nothing. */
static int no_terminal_child(void)
{
	struct pty_relay r;
	struct hx_err err = {0};
	int null = open("/dev/null", O_RDWR);

	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		return STEP_SETUP;
	if (pty_relay_start(&r, &err) < 0 || r.master != -1)
		return STEP_START;
	if (pty_relay_run(&r, &err) < 0 || r.running || thread_count() != 1)
		return STEP_RUN;
	pty_relay_stop(&r);
	return STEP_OK;
}

static void test_no_terminal_no_relay(void **state)
{
	pid_t pid = fork();
	int status = -1;

	(void)state;
	if (pid == 0)
		_exit(no_terminal_child());
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), STEP_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_only_after_the_clones),
		cmocka_unit_test(test_no_terminal_no_relay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
