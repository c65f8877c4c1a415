/* libFuzzer target: the readiness capture's response parser (run/wire.c), fed the input whole and cut at a
 * point the input chooses: a prefix is never complete where the whole is not, and whatever it says is
 * complete has a head, a framing and a digest. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct res_wire w;
	struct hx_err err = {0};
	size_t cut = size ? data[0] % size : 0;
	int whole, part;

	memset(&w, 0, sizeof(w));
	whole = wire_parse((const char *)data, size, true, &w, &err);
	if (whole == 1 && (!w.framing[0] || strlen(w.body_sha256) != 64 || w.header_bytes > size))
		abort();
	memset(&w, 0, sizeof(w));
	part = wire_parse((const char *)data, cut, false, &w, &err);
	if (part == 1 && whole != 1 && w.framing[0] && strcmp(w.framing, "close") != 0)
		abort(); /* a prefix complete by its own framing: the whole is complete too */
	return 0;
}
