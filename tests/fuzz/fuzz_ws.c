/* libFuzzer target: the WebSocket frame parser on arbitrary bytes, whole and one byte at a time; the
 * events must agree and a message must never exceed the limit. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/ws.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t run(const uint8_t *d, size_t len, size_t step, int *failed)
{
	struct ws_parser p;
	uint64_t digest = 0;
	size_t off = 0;

	ws_parser_init(&p, 4096);
	*failed = 0;
	while (off < len) {
		struct ws_event_out ev;
		size_t piece = len - off < step ? len - off : step;
		ssize_t n = ws_parse(&p, d + off, piece, &ev);

		if (n < 0) {
			if (!p.error)
				abort();
			*failed = 1;
			break;
		}
		off += (size_t)n;
		if (ev.type != WS_EV_NONE) {
			if (ev.len > 4096 || (ev.type != WS_EV_MESSAGE && ev.len > 125))
				abort();
			digest = digest * 31 + (uint64_t)ev.type * 7 + ev.len;
			for (size_t i = 0; i < ev.len; i++)
				digest = digest * 131 + ev.data[i];
		} else if (n == 0) {
			abort();
		}
	}
	ws_parser_free(&p);
	return digest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int f1, f2;
	uint64_t a = run(data, size, size ? size : 1, &f1), b = run(data, size, 1, &f2);

	if (f1 != f2 || (!f1 && a != b))
		abort();
	return 0;
}
