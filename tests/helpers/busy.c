/* busy THREADS SECONDS: spin THREADS threads for SECONDS of wall time (a CPU-bound load for the
 * pinning and quota tests; Python threads would share one CPU through the GIL). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	double end = now() + seconds;
	volatile unsigned long n = 0;

	(void)arg;
	while (now() < end)
		n++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int threads;

	if (argc != 3 || (threads = atoi(argv[1])) < 1 || threads > 64 || (seconds = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: busy THREADS(1-64) SECONDS\n");
		return 2;
	}
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
