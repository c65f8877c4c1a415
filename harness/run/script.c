/* Validation of the script workload's metrics line: strict, because it becomes a result. */
#include "run/script.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

#define METRICS_FAIL(err, fmt, ...) \
	hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "the script's metrics line: " fmt, __VA_ARGS__)

/* Every member a finite number >= 0, at most RES_MAX_METRICS, names short enough, the required ones there. */
static int check_object(const cJSON *o, const char (*required)[32], size_t nrequired, struct hx_err *err)
{
	static const char *const always[] = {"ops", "seconds", "ops_per_s"};
	const cJSON *it;
	int n = 0;

	cJSON_ArrayForEach (it, o) {
		if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0)
			return METRICS_FAIL(err, "\"%s\" is not a finite number >= 0", it->string);
		if (++n > RES_MAX_METRICS)
			return METRICS_FAIL(err, "more than %d metrics", RES_MAX_METRICS);
		if (!it->string[0] || strlen(it->string) >= sizeof(((struct res_script *)0)->name[0]))
			return METRICS_FAIL(err, "the name \"%.40s\" is empty or longer than 31 characters",
					    it->string);
		if (cJSON_GetObjectItemCaseSensitive(o, it->string) != it) /* the first of that name is not this one */
			return METRICS_FAIL(err, "\"%s\" is there twice", it->string);
	}
	for (size_t i = 0; i < HX_ARRAY_SIZE(always); i++)
		if (!cJSON_GetObjectItemCaseSensitive(o, always[i]))
			return METRICS_FAIL(err, "\"%s\" is missing", always[i]);
	for (size_t i = 0; i < nrequired; i++)
		if (!cJSON_GetObjectItemCaseSensitive(o, required[i]))
			return METRICS_FAIL(err, "\"%s\" is missing (the scenario requires it)", required[i]);
	return 0;
}

int script_parse_metrics(const char *out, const char (*required)[32], size_t nrequired, struct res_script *ret,
			 struct hx_err *err)
{
	const char *end = out + strlen(out), *start, *parsed = NULL;
	const cJSON *it;
	cJSON *o;

	while (end > out && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (start = end; start > out && start[-1] != '\n';)
		start--;
	if (start == end)
		return METRICS_FAIL(err, "%s", "the script printed nothing on stdout (it must end with one JSON line)");
	o = cJSON_ParseWithLengthOpts(start, (size_t)(end - start), &parsed, false);
	if (!cJSON_IsObject(o) || parsed != end) { /* nothing may follow the object */
		cJSON_Delete(o);
		return METRICS_FAIL(err, "its last line is not a JSON object: %.*s",
				    (int)(end - start) < 100 ? (int)(end - start) : 100, start);
	}
	if (check_object(o, required, nrequired, err) < 0) {
		cJSON_Delete(o);
		return -err->errnum;
	}
	ret->n = 0;
	cJSON_ArrayForEach (it, o) {
		snprintf(ret->name[ret->n], sizeof(ret->name[0]), "%s", it->string);
		ret->value[ret->n++] = it->valuedouble;
	}
	cJSON_Delete(o);
	return 0;
}
