/* libFuzzer target: a script's metrics line on arbitrary output; what it accepts is a flat object of
 * finite numbers >= 0 with the required names, and a refusal is a verdict error with a message. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool has(const struct res_script *o, const char *name)
{
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->name[i], name) == 0)
			return true;
	return false;
}

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
		if (!has(&o, "ops_per_s") || !has(&o, "p99_ms"))
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
