/* spin-rate spin|chase SECONDS [BIN]: the victim of bench/noise.sh and the probe of bench/host-noise.sh. One thread
 * does work for SECONDS and prints its rate: spin, an LCG in a register (a CPU-bound loop that touches no memory);
 * chase, a dependent random walk over 8 MiB (a loop that lives in the cache a neighbour can take). With BIN
 * (seconds) it prints instead one line per BIN of the run: the bin's start (seconds on CLOCK_MONOTONIC, so that two
 * probes' lines can be matched) and its rate. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHASE_BYTES (8u << 20)
#define LINE	    64

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void **chase_ring(void)
{
	size_t n = CHASE_BYTES / LINE;
	char *mem = aligned_alloc(LINE, CHASE_BYTES);
	size_t *order = malloc(n * sizeof(*order));
	uint64_t s = 88172645463325252ull;

	if (!mem || !order)
		exit(1);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) { /* Sattolo: one cycle through every line */
		size_t j, t;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		j = s % i;
		t = order[i], order[i] = order[j], order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(mem + i * LINE) = mem + order[i] * LINE;
	free(order);
	return (void **)mem;
}

int main(int argc, char **argv)
{
	double seconds, bin = 0, t0, end, t, bin_t0;
	uint64_t ops = 0, bin_ops = 0, x = 1;
	void **p = NULL;
	int chase;

	if ((argc != 3 && argc != 4) || (strcmp(argv[1], "spin") && strcmp(argv[1], "chase")) ||
	    (seconds = atof(argv[2])) <= 0 || (argc == 4 && (bin = atof(argv[3])) <= 0)) {
		fprintf(stderr, "usage: spin-rate spin|chase SECONDS [BIN]\n");
		return 2;
	}
	chase = !strcmp(argv[1], "chase");
	if (chase)
		p = chase_ring();
	t0 = bin_t0 = now();
	end = t0 + seconds;
	do {
		/* with bins, steps of about 50 us (a chase step is a cache miss): a bin's edge is that close */
		unsigned steps = bin > 0 ? 512 : 65536;

		for (unsigned i = 0; i < steps; i++)
			if (chase)
				p = *p;
			else
				x = x * 6364136223846793005ull + 1442695040888963407ull;
		ops += steps;
		bin_ops += steps;
		t = now();
		if (bin > 0 && t - bin_t0 >= bin) {
			printf("%.6f %.0f\n", bin_t0, (double)bin_ops / (t - bin_t0));
			bin_t0 = t;
			bin_ops = 0;
		}
	} while (t < end);
	sink = x ^ (uint64_t)(uintptr_t)p; /* the loops' results are used: the compiler keeps them */
	if (bin > 0)
		return 0;
	printf("%.0f\n", (double)ops / (t - t0));
	return 0;
}
