/* libFuzzer target: a script's metrics line on arbitrary output; what it accepts is a flat object of
 * finite numbers >= 0 with the required names, and a refusal is a verdict error with a message. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char need[1][32] = {"p99_ms"};
	char *text = malloc(size + 1);
	struct hx_err err = {0};
	cJSON *o = NULL;
	const cJSON *it;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (script_parse_metrics(text, need, 1, &o, &err) == 0) {
		if (!cJSON_GetObjectItem(o, "ops_per_s") || !cJSON_GetObjectItem(o, "p99_ms"))
			abort();
		cJSON_ArrayForEach (it, o)
			if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0)
				abort();
		cJSON_Delete(o);
	} else if (!err.msg[0] || err.exit != HX_EXIT_VERDICT || o) {
		abort();
	}
	free(text);
	return 0;
}
