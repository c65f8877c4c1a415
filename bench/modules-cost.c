/* The modules watch's cost (run/modules.h): arming it on a tree, taking the record, closing it, and a command's
 * wall time with the watches armed and without, alternated round by round. Prints medians; asserts nothing.
 *   modules-cost APP_DIR NODE_MODULES ROUNDS [CMD ARG...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "run/modules.h"

#define MAX_ROUNDS 1000

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	if (!n)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double ms(uint64_t a, uint64_t b)
{
	return (double)(b - a) / 1e6;
}

static double run_cmd(char **argv)
{
	uint64_t t0 = util_now_ns();
	pid_t p = fork();

	if (p == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	waitpid(p, NULL, 0);
	return ms(t0, util_now_ns());
}

int main(int argc, char **argv)
{
	static double arm[MAX_ROUNDS], rec[MAX_ROUNDS], cls[MAX_ROUNDS], on[MAX_ROUNDS], off[MAX_ROUNDS];
	struct mods_root roots[2];
	int rounds = argc > 3 ? atoi(argv[3]) : 0, non = 0, noff = 0;
	size_t folders = 0;
	unsigned files = 0;

	if (argc < 4 || rounds < 2 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: modules-cost APP_DIR NODE_MODULES ROUNDS(2-%d) [CMD ARG...]\n", MAX_ROUNDS);
		return 2;
	}
	memset(roots, 0, sizeof(roots));
	snprintf(roots[0].dir, sizeof(roots[0].dir), "%s", argv[1]);
	snprintf(roots[1].dir, sizeof(roots[1].dir), "%s", argv[2]);
	snprintf(roots[1].as, sizeof(roots[1].as), "node_modules");
	for (int i = 0; i < rounds; i++) {
		struct mods_watch w;
		struct res_modules m = {0};
		uint64_t t0, t1, t2;

		if (i % 2) { /* the command alone */
			off[noff++] = argc > 4 ? run_cmd(argv + 4) : 0;
			continue;
		}
		t0 = util_now_ns();
		mods_arm(&w, roots, 2, 0);
		arm[non] = ms(t0, util_now_ns());
		folders = w.ndirs;
		on[non] = argc > 4 ? run_cmd(argv + 4) : 0;
		t1 = util_now_ns();
		mods_finish(&w, &m);
		rec[non] = ms(t1, util_now_ns());
		files = m.files;
		usleep(50000); /* a trial closes it after its load */
		t2 = util_now_ns();
		mods_release(&w);
		cls[non++] = ms(t2, util_now_ns());
		for (unsigned k = 0; k < m.npaths; k++)
			free(m.paths[k]);
		free(m.paths);
		if (m.not_recorded[0])
			printf("not recorded: %s\n", m.not_recorded);
	}
	printf("%zu folders, %u files opened: arm %.3f ms, record %.3f ms, close %.3f ms", folders, files,
	       median(arm, non), median(rec, non), median(cls, non));
	if (argc > 4)
		printf("; the command %.2f ms watched, %.2f ms not (ratio %.3f)", median(on, non), median(off, noff),
		       median(on, non) / median(off, noff));
	printf(" (medians of %d rounds each)\n", non);
	return 0;
}
