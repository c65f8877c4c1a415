/* An exponential back-off for readiness probes (backoff.h). */
#include "base/backoff.h"

#include <errno.h>
#include <time.h>

void backoff_init(struct backoff *b, uint64_t first_ns, uint64_t max_ns)
{
	b->max_ns = max_ns ? max_ns : 1;
	b->next_ns = first_ns ? first_ns : 1;
	if (b->next_ns > b->max_ns)
		b->next_ns = b->max_ns;
}

uint64_t backoff_next(struct backoff *b, uint64_t now_ns, uint64_t end_ns)
{
	uint64_t wait = b->next_ns;

	if (now_ns >= end_ns)
		return 0;
	b->next_ns = b->next_ns > b->max_ns / 2 ? b->max_ns : b->next_ns * 2;
	return wait < end_ns - now_ns ? wait : end_ns - now_ns;
}

int backoff_sleep(struct backoff *b, uint64_t now_ns, uint64_t end_ns)
{
	uint64_t ns = backoff_next(b, now_ns, end_ns);
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};

	if (!ns)
		return 0;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 1;
}
