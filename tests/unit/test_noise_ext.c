/* External noise: the /proc parsers on literal text, and a short probe of this process. */
#include "testutil.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "noise/noise_ext.h"

static void test_stat(void **state)
{
	const char *text = "cpu  161038 524 67951 149734 1866 0 10292 204 0 0\n"
			   "cpu0 69641 409 34160 86400 577 0 3913 106 0 0\n"
			   "cpu1 91396 114 33791 63333 1289 0 6379 97 5 0\n"
			   "intr 12345 0 0\n"
			   "ctxt 99999\n";
	struct cg_cpus one, both, none = {0};
	uint64_t steal, total, busy;

	(void)state;
	cg_cpus_parse("1", &one);
	cg_cpus_parse("0-1", &both);
	assert_int_equal(noise_ext_parse_stat(text, &one, &steal, &total, &busy), 0);
	assert_int_equal(steal, 97);
	assert_int_equal(total, 91396 + 114 + 33791 + 63333 + 1289 + 0 + 6379 + 97); /* guest is in user already */
	assert_int_equal(busy, 91396 + 114 + 33791 + 0 + 6379 + 97);		     /* not idle, not iowait */
	assert_int_equal(noise_ext_parse_stat(text, &both, &steal, &total, &busy), 0);
	assert_int_equal(steal, 106 + 97); /* the aggregate "cpu " line is never counted */
	assert_int_equal(noise_ext_parse_stat(text, &none, &steal, &total, &busy), -ENOENT);
}

static void test_task_files(void **state)
{
	uint64_t vol = 0, invol = 0, mig = 0, delay = 0;
	char st = 0;
	int cpu = -1;
	bool kthread = true;

	(void)state;
	assert_int_equal(noise_ext_parse_ctxt("Name:\tnode\nvoluntary_ctxt_switches:\t120\n"
					      "nonvoluntary_ctxt_switches:\t7\n",
					      &vol, &invol),
			 0);
	assert_int_equal(vol, 120);
	assert_int_equal(invol, 7);
	assert_int_equal(noise_ext_parse_ctxt("Name:\tnode\n", &vol, &invol), -ENOENT);
	assert_int_equal(
		noise_ext_parse_migrations("node (42, #threads: 7)\n-----\nse.exec_start : 1.5\n"
					   "se.nr_migrations                             :                   31\n",
					   &mig),
		0);
	assert_int_equal(mig, 31);
	assert_int_equal(noise_ext_parse_migrations("nr_switches : 3\n", &mig), -ENOENT);
	assert_int_equal(noise_ext_parse_schedstat("168476 5500000 12\n", &delay), 0);
	assert_int_equal(delay, 5500000);
	/* a command with spaces and a parenthesis: the state follows the last ')' */
	assert_int_equal(noise_ext_parse_task_stat("3048 (we ird) R) R 3046 3046 10204 0 -1 4194304 180 0 0 0 0 0 0 0 "
						   "20 0 1 0 199614 3133440 390 18446744073709551615 1 2 3 0 0 0 0 "
						   "0 0 0 0 0 17 1 0 0 0 0 0\n",
						   &st, &cpu, &kthread),
			 0);
	assert_int_equal(st, 'R');
	assert_int_equal(cpu, 1);
	assert_false(kthread);
	/* kworker/1:0: flags 0x04208060 hold PF_KTHREAD */
	assert_int_equal(
		noise_ext_parse_task_stat("25 (kworker/1:0-events) I 2 0 0 0 -1 69238880 0 0 0 0 0 42 0 0 20 0 1 0 "
					  "12 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 "
					  "0 0 0 0\n",
					  &st, &cpu, &kthread),
		0);
	assert_true(kthread);
	assert_int_equal(st, 'I');
	assert_int_equal(cpu, 1);
	assert_int_equal(noise_ext_parse_task_stat("3048 (cat) S 1 2\n", &st, &cpu, &kthread), -EINVAL);
}

static volatile int spin_stop;

/* Wait until the sampler has taken n samples: a loaded machine only takes longer (the deadline is a hang). */
static void wait_samples(const struct noise_ext_probe *p, unsigned n)
{
	uint64_t deadline = util_now_ns() + 60ull * 1000000000;
	struct timespec tick = {0, 10000000};

	while (noise_ext_samples(p) < n) {
		if (util_now_ns() > deadline)
			fail_msg("the sampler took %u of %u samples in 60 s", noise_ext_samples(p), n);
		nanosleep(&tick, NULL);
	}
}

static void *spin(void *arg)
{
	(void)arg;
	while (!spin_stop)
		;
	return NULL;
}

/* This process as the runtime, on every CPU: its own spinning thread is in its counters, and a run queue
 * is sampled. */
static void test_probe(void **state)
{
	struct noise_ext_probe *p = NULL;
	struct noise_ext x = {0};
	struct hx_err err = {0};
	struct cg_cpus all;
	pthread_t th;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	cg_cpus_parse("0-1023", &all);
	assert_int_equal(noise_ext_start(getpid(), &all, "no-such-tree", &p, &err), 0);
	assert_int_equal(pthread_create(&th, NULL, spin, NULL), 0);
	wait_samples(p, 2);
	spin_stop = 1;
	pthread_join(th, NULL);
	noise_ext_stop(p, &x);
	assert_true(x.seconds >= 0.2); /* two samples are 200 ms apart */
	assert_true(x.have_stat);
	/* busy time on the CPUs cannot pass wall time on every CPU: catches a tick unit gone wrong */
	assert_true(x.busy_ms <= x.seconds * 1000 * (double)ncpus * 1.05 + 20);
	assert_true(x.steal_pct >= 0 && x.steal_pct <= 100);
	assert_true(x.have_task);
	assert_true(x.samples >= 2);
	/* the mean times the samples is their sum, never below the largest one */
	assert_true(x.foreign_runnable_mean * x.samples + 1e-9 >= x.foreign_runnable_max);
}

/* A spinning child outside the trial's tree is a foreign runnable task in every sample. */
static void test_probe_sees_a_foreign_task(void **state)
{
	struct noise_ext_probe *p = NULL;
	struct noise_ext x = {0};
	struct hx_err err = {0};
	struct cg_cpus all;
	pid_t child;
	int status;

	(void)state;
	cg_cpus_parse("0-1023", &all);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		for (;;)
			;
	assert_int_equal(noise_ext_start(-1, &all, "no-such-tree", &p, &err), 0);
	wait_samples(p, 2);
	noise_ext_stop(p, &x);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	assert_false(x.have_task); /* no runtime named */
	assert_true(x.samples >= 2);
	assert_true(x.foreign_runnable_max >= 1);
	assert_true(x.foreign_runnable_mean >= 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_task_files),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_probe_sees_a_foreign_task),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
