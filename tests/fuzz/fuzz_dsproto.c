/* libFuzzer target: the document store's answer reader and its JSON spans on arbitrary bytes. An answer read
 * must lie inside the frame; its value must be one JSON value exactly its length; an array's count must be at
 * most its bytes; and the reader must agree with itself on the same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/dsproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct ds_answer a, b;
	size_t span = ds_json_span(s, size);
	long n = ds_json_count(s, size);
	int64_t v;

	if (span > size || (n >= 0 && (span != size || (size_t)n > size)))
		abort();
	(void)ds_json_int(s, size, true, &v);
	if (!ds_answer_parse(s, size, &a))
		return 0;
	if (a.value < s || a.value + a.value_len > s + size || !ds_answer_parse(s, size, &b) || b.id != a.id ||
	    b.value_len != a.value_len)
		abort();
	if (a.ok && ds_json_span(a.value, a.value_len) != a.value_len)
		abort();
	return 0;
}
