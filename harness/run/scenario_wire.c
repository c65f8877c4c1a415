/* What a scenario declares of the work that is not the same on every runtime: "wire", the differences of
 * the readiness capture (run/wire.c) that are the runtimes' own, each with why, and "adapter", the code some
 * runtimes run the app through; parsed strictly like the rest of scenario.json (docs/scenario.md, "Same work
 * on every runtime"). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "base/valid.h"
#include "run/scenario.h"
#include "run/scenario_internal.h"

/* A header name as the capture records it ([a-z0-9-], lowercase: names are case-insensitive), or "body". */
static bool inherent_name(const char *s)
{
	return s[0] && strlen(s) < sizeof(((struct scn_inherent *)0)->what) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(s);
}

/* "adapter": {"node": "serve-node.mjs: node:http to the fetch handler, userland code", ...} */
static int parse_adapters(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "adapter"), *it;

	if (!a)
		return 0;
	if (!cJSON_IsObject(a) || cJSON_GetArraySize(a) > SCN_MAX_RUNTIMES)
		return hx_fail_field(err, file, "adapter",
				     "expected an object: runtime -> the adapter it runs the app through");
	cJSON_ArrayForEach (it, a) {
		struct scn_skip *d = &s->adapters[s->nadapters];

		bool listed = false;

		for (size_t i = 0; i < s->nruntimes; i++)
			listed |= strcmp(s->runtimes[i], it->string) == 0;
		if (!listed)
			return hx_fail_field(err, file, "adapter", "%s is not one of the scenario's runtimes",
					     it->string);
		if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) >= sizeof(d->why) ||
		    valid_argument(it->valuestring))
			return hx_fail_field(err, file, "adapter",
					     "the adapter of %s: a line of at most %zu characters", it->string,
					     sizeof(d->why) - 1);
		strcpy(d->runtime, it->string);
		strcpy(d->why, it->valuestring);
		s->nadapters++;
	}
	return 0;
}

/* One script of "adapter_cost": a path in the scenario folder, checked as "script" is. */
static int cost_script(const char *file, const cJSON *o, const char *key, char *buf, size_t len, struct hx_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char field[32];

	snprintf(field, sizeof(field), "adapter_cost.%s", key);
	if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= len)
		return hx_fail_field(err, file, field,
				     "expected a script of the scenario folder (at most %zu characters)", len - 1);
	strcpy(buf, v->valuestring);
	return valid_check(valid_relpath, buf, file, field, err);
}

/* "adapter_cost": {"adapter": "null-adapter.mjs", "plain": "null-plain.mjs"}: the two null-handler servers whose
 * duet measures what the adapter costs a request (run/adapter.c) */
static int parse_adapter_cost(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "adapter_cost");

	if (!c)
		return 0;
	if (!cJSON_IsObject(c) || cJSON_GetArraySize(c) != 2)
		return hx_fail_field(err, file, "adapter_cost",
				     "expected {\"adapter\": \"<the adapter on a null handler>\", \"plain\": \"<the "
				     "runtime's plain server on a null handler>\"}");
	if (!s->nadapters)
		return hx_fail_field(err, file, "adapter_cost",
				     "measures the adapters of \"adapter\", and the scenario declares none");
	if (cost_script(file, c, "adapter", s->adapter_cost.adapter, sizeof(s->adapter_cost.adapter), err) < 0 ||
	    cost_script(file, c, "plain", s->adapter_cost.plain, sizeof(s->adapter_cost.plain), err) < 0)
		return -err->errnum;
	return 0;
}

const char *scn_adapter_for(const struct scenario *s, const struct manifest *m)
{
	for (size_t i = 0; i < s->nadapters; i++)
		if (strcmp(s->adapters[i].runtime, m->name) == 0)
			return s->adapters[i].why;
	for (size_t i = 0; m->family[0] && i < s->nadapters; i++)
		if (strcmp(s->adapters[i].runtime, m->family) == 0)
			return s->adapters[i].why;
	return NULL;
}

int scn_wire_parse(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "wire");
	const cJSON *inh = cJSON_GetObjectItemCaseSensitive(w, "inherent"), *it;

	if (parse_adapters(file, root, s, err) < 0 || parse_adapter_cost(file, root, s, err) < 0)
		return -err->errnum;
	if (!w)
		return 0;
	if (!cJSON_IsObject(w) || cJSON_GetArraySize(w) != (inh ? 1 : 0))
		return hx_fail_field(err, file, "wire", "expected {\"inherent\": {\"<header>\": \"why\", ...}}");
	if (!cJSON_IsObject(inh) || cJSON_GetArraySize(inh) > SCN_MAX_INHERENT)
		return hx_fail_field(err, file, "wire.inherent",
				     "expected an object of at most %d entries: a header name (or \"body\") -> why "
				     "its difference is the runtime's own",
				     SCN_MAX_INHERENT);
	cJSON_ArrayForEach (it, inh) {
		struct scn_inherent *d = &s->inherent[s->ninherent];

		if (!inherent_name(it->string))
			return hx_fail_field(err, file, "wire.inherent",
					     "'%s' is not a lowercase header name ([a-z0-9-]) nor \"body\"",
					     it->string);
		if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) >= sizeof(d->why) ||
		    valid_argument(it->valuestring))
			return hx_fail_field(err, file, "wire.inherent",
					     "the entry %s needs why: a line of at most %zu characters", it->string,
					     sizeof(d->why) - 1);
		strcpy(d->what, it->string);
		strcpy(d->why, it->valuestring);
		s->ninherent++;
	}
	return 0;
}

const char *scn_inherent_why(const struct scenario *s, const char *what)
{
	for (size_t i = 0; i < s->ninherent; i++)
		if (strcmp(s->inherent[i].what, what) == 0)
			return s->inherent[i].why;
	return NULL;
}
