/* libFuzzer target: the HTTP response parser, fed the input whole and split at a point the input
 * chooses; both must agree, and every response must finish cleanly or fail with a reason. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	int responses, status_sum;
	uint64_t body;
	int failed;
};

static void run(const char *buf, size_t len, size_t cut, struct outcome *o)
{
	static struct http_parser p;
	size_t off = 0, pieces[2] = {cut, len - cut};

	memset(o, 0, sizeof(*o));
	http_parser_reset(&p, false);
	for (int i = 0; i < 2 && !o->failed; i++) {
		size_t end = off + pieces[i];

		while (off < end) {
			ssize_t n = http_parse(&p, buf + off, end - off);

			if (n < 0) {
				if (!p.error)
					abort();
				o->failed = 1;
				break;
			}
			if ((size_t)n > end - off)
				abort();
			off += (size_t)n;
			if (p.state == HP_DONE) {
				o->responses++;
				o->status_sum += p.status;
				o->body += p.body_bytes;
				if (p.upgrade)
					return;
				http_parser_reset(&p, false);
			} else if (n == 0) {
				abort(); /* no progress without being done */
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome whole, split;
	size_t cut;

	if (size < 1)
		return 0;
	cut = data[0] % size;
	run((const char *)data + 1, size - 1, 0, &whole);
	run((const char *)data + 1, size - 1, cut < size - 1 ? cut : 0, &split);
	if (!whole.failed && !split.failed &&
	    (whole.responses != split.responses || whole.status_sum != split.status_sum || whole.body != split.body))
		abort();
	return 0;
}
