/* libFuzzer target: the manifest parser on arbitrary text; it must accept or refuse with a message,
 * and what it accepts must be internally consistent. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct manifest m;
	struct hx_err err = {0};

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (man_parse("fuzz.json", text, &m, &err) == 0) {
		char id[160];

		if (!m.name[0] || !m.entry[0] || (m.kind == MAN_RUNTIME && !m.run[0]))
			abort();
		man_digest_id(&m, id, sizeof(id));
		if (m.source != MAN_SRC_HOST && strlen(id) < 7 + 64)
			abort();
		man_free(&m);
	} else if (!err.msg[0] || err.exit != HX_EXIT_USAGE) {
		abort();
	}
	free(text);
	return 0;
}
