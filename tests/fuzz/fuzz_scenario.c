/* libFuzzer target: the scenario parser on arbitrary text; it accepts or refuses with a usage error,
 * and what it accepts is consistent. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct scenario s;
	struct hx_err err = {0};

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (scn_parse("fuzz.json", text, &s, &err) == 0) {
		if (!s.name[0] || !s.nruntimes || !s.nscripts || (s.workload == SCN_HTTP && s.threads > s.connections))
			abort();
		for (int p = 0; p < 3; p++)
			scn_scale(&s, (enum scn_profile)p);
		if (s.runs < 1 || s.requests < 1)
			abort();
	} else if (!err.msg[0] || err.exit != HX_EXIT_USAGE) {
		abort();
	}
	free(text);
	return 0;
}
