/* forks N: try to start N children that wait; print how many forks succeeded, then end them.
 * Used to check that a slice's pids.max stops a fork loop. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc == 2 ? atoi(argv[1]) : 0;
	pid_t *kids;
	int ok = 0;

	if (n < 1) {
		fprintf(stderr, "usage: forks N\n");
		return 2;
	}
	kids = calloc((size_t)n, sizeof(*kids));
	for (int i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0) {
			pause();
			_exit(0);
		}
		if (p < 0)
			break;
		kids[ok++] = p;
	}
	printf("%d\n", ok);
	fflush(stdout);
	for (int i = 0; i < ok; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
