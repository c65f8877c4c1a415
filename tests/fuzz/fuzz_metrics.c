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
	struct res_script o = {.n = 99};

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (script_parse_metrics(text, need, 1, &o, &err) == 0) {
		if (isnan(res_script_value(&o, "ops_per_s")) || isnan(res_script_value(&o, "p99_ms")))
			abort();
		for (size_t i = 0; i < o.n; i++)
			if (!isfinite(o.value[i]) || o.value[i] < 0 || !o.name[i][0])
				abort();
	} else if (!err.msg[0] || err.exit != HX_EXIT_VERDICT || o.n != 99) {
		abort();
	}
	free(text);
	return 0;
}
