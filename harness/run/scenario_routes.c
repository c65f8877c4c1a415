/* Strict parsing of the route matrix keys: each route's request and expectations, the concurrency sweep,
 * the cell durations, and the runtimes skipped with a reason. */
#include "run/scenario_internal.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/valid.h"
#include "load/check.h"

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* An optional string of 1 to len-1 characters, without control characters. */
static int text(const char *file, const char *field, const cJSON *v, char *buf, size_t len, struct hx_err *err)
{
	if (!v)
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= len)
		return hx_fail_field(err, file, field, "expected a non-empty string of at most %zu characters",
				     len - 1);
	if (valid_check(valid_argument, v->valuestring, file, field, err) < 0)
		return -err->errnum;
	snprintf(buf, len, "%s", v->valuestring);
	return 0;
}

static int whole(const char *file, const char *field, const cJSON *v, double lo, double hi, double *ret,
		 struct hx_err *err)
{
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi ||
	    v->valuedouble != (double)(uint64_t)v->valuedouble)
		return hx_fail_field(err, file, field, "expected a whole number from %g to %g", lo, hi);
	*ret = v->valuedouble;
	return 0;
}

static bool header_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-')
			return false;
	return true;
}

/* "headers": {"Range": "bytes=0-65535", ...}: names are tokens, values printable (no CR or LF). */
static int route_headers(const char *file, const cJSON *h, struct scn_route *r, struct hx_err *err)
{
	const cJSON *it;

	if (!h)
		return 0;
	if (!cJSON_IsObject(h) || cJSON_GetArraySize(h) > SCN_MAX_HEADERS)
		return hx_fail_field(err, file, "routes.headers", "expected an object of at most %d headers",
				     SCN_MAX_HEADERS);
	cJSON_ArrayForEach (it, h) {
		if (!header_name_ok(it->string) || !cJSON_IsString(it) ||
		    strlen(it->string) + strlen(it->valuestring) + 2 >= sizeof(r->headers[0]))
			return hx_fail_field(
				err, file, "routes.headers",
				"expected \"Name\": \"value\" ([A-Za-z0-9-] names, at most %zu characters)",
				sizeof(r->headers[0]) - 3);
		if (valid_check(valid_argument, it->valuestring, file, "routes.headers", err) < 0)
			return -err->errnum;
		snprintf(r->headers[r->nheaders++], sizeof(r->headers[0]), "%s: %s", it->string, it->valuestring);
	}
	return 0;
}

static int route_parse(const char *file, const cJSON *o, struct scn_route *r, struct hx_err *err)
{
	static const char *const keys[] = {"name",   "path",	 "headers",	  "status", "length",
					   "sha256", "encoding", "content_range", NULL};
	const cJSON *it;
	double status = 200, length = -1;
	char sha[80] = "";

	if (!cJSON_IsObject(o))
		return hx_fail_field(err, file, "routes", "expected objects");
	cJSON_ArrayForEach (it, o) {
		bool ok = false;

		for (const char *const *k = keys; *k; k++)
			ok |= strcmp(*k, it->string) == 0;
		if (!ok)
			return hx_fail_field(err, file, it->string, "unknown key in a route (a typo?)");
	}
	if (!get(o, "name") || !get(o, "path"))
		return hx_fail_field(err, file, "routes", "every route needs a name and a path");
	if (text(file, "routes.name", get(o, "name"), r->name, sizeof(r->name), err) < 0 ||
	    valid_check(valid_name, r->name, file, "routes.name", err) < 0 ||
	    text(file, "routes.path", get(o, "path"), r->path, sizeof(r->path), err) < 0 ||
	    valid_check(valid_url_path, r->path, file, "routes.path", err) < 0 ||
	    route_headers(file, get(o, "headers"), r, err) < 0 ||
	    whole(file, "routes.status", get(o, "status"), 100, 599, &status, err) < 0 ||
	    whole(file, "routes.length", get(o, "length"), 0, 1e12, &length, err) < 0 ||
	    text(file, "routes.sha256", get(o, "sha256"), sha, sizeof(sha), err) < 0 ||
	    text(file, "routes.encoding", get(o, "encoding"), r->encoding, sizeof(r->encoding), err) < 0 ||
	    text(file, "routes.content_range", get(o, "content_range"), r->range, sizeof(r->range), err) < 0)
		return -err->errnum;
	if (sha[0] && check_sha256_hex(sha, r->sha256) < 0)
		return hx_fail_field(err, file, "routes.sha256", "expected 64 hex digits (sha256sum of the body)");
	r->status = (unsigned)status;
	r->has_length = length >= 0;
	r->length = r->has_length ? (uint64_t)length : 0;
	return 0;
}

static int sweep_parse(const char *file, const cJSON *v, struct scenario *s, struct hx_err *err)
{
	const cJSON *it;

	if (!v) {
		s->sweep[s->nsweep++] = s->connections;
		return 0;
	}
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > SCN_MAX_SWEEP)
		return hx_fail_field(err, file, "load.sweep", "expected an array of 1 to %d connection counts",
				     SCN_MAX_SWEEP);
	cJSON_ArrayForEach (it, v) {
		double n = 0;

		if (!it || whole(file, "load.sweep", it, 1, 20000, &n, err) < 0)
			return -err->errnum;
		s->sweep[s->nsweep++] = (unsigned)n;
	}
	return 0;
}

int routes_parse(const char *file, const cJSON *root, const cJSON *load, struct scenario *s, struct hx_err *err)
{
	const cJSON *routes = get(root, "routes"), *it;

	s->duration_s = 10;
	s->warmup_s = 1;
	if (!routes) {
		if (get(load, "sweep") || get(load, "duration_s") || get(load, "warmup_s"))
			return hx_fail_field(
				err, file, "load.sweep",
				"load.sweep, load.duration_s and load.warmup_s are for a scenario with routes");
		return 0;
	}
	if (s->workload != SCN_HTTP || s->tls)
		return hx_fail_field(err, file, "routes", "routes are for an http workload without tls");
	if (!cJSON_IsArray(routes) || cJSON_GetArraySize(routes) < 1 || cJSON_GetArraySize(routes) > SCN_MAX_ROUTES)
		return hx_fail_field(err, file, "routes", "expected an array of 1 to %d routes", SCN_MAX_ROUTES);
	if (get(load, "requests") || get(load, "warmup_requests"))
		return hx_fail_field(
			err, file, "load.requests",
			"a scenario with routes runs each cell for load.duration_s, not a count of requests");
	cJSON_ArrayForEach (it, routes) {
		struct scn_route *r = &s->routes[s->nroutes];

		if (route_parse(file, it, r, err) < 0)
			return -err->errnum;
		for (size_t i = 0; i < s->nroutes; i++)
			if (strcmp(s->routes[i].name, r->name) == 0)
				return hx_fail_field(err, file, "routes.name", "'%s' twice", r->name);
		s->nroutes++;
	}
	if (sweep_parse(file, get(load, "sweep"), s, err) < 0)
		return -err->errnum;
	if (get(load, "duration_s") &&
	    (!cJSON_IsNumber(get(load, "duration_s")) || get(load, "duration_s")->valuedouble < 0.1 ||
	     get(load, "duration_s")->valuedouble > 3600))
		return hx_fail_field(err, file, "load.duration_s", "expected a number of seconds from 0.1 to 3600");
	if (get(load, "warmup_s") &&
	    (!cJSON_IsNumber(get(load, "warmup_s")) || get(load, "warmup_s")->valuedouble < 0 ||
	     get(load, "warmup_s")->valuedouble > 3600))
		return hx_fail_field(err, file, "load.warmup_s", "expected a number of seconds from 0 to 3600");
	if (get(load, "duration_s"))
		s->duration_s = get(load, "duration_s")->valuedouble;
	if (get(load, "warmup_s"))
		s->warmup_s = get(load, "warmup_s")->valuedouble;
	return 0;
}

int routes_parse_skips(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	const cJSON *skip = get(root, "skip"), *it;

	if (!skip)
		return 0;
	if (!cJSON_IsObject(skip) || cJSON_GetArraySize(skip) > SCN_MAX_RUNTIMES)
		return hx_fail_field(err, file, "skip", "expected an object: runtime -> why it is skipped");
	cJSON_ArrayForEach (it, skip) {
		struct scn_skip *k = &s->skips[s->nskips];

		if (valid_check(valid_name, it->string, file, "skip", err) < 0 ||
		    text(file, "skip", it, k->why, sizeof(k->why), err) < 0)
			return -err->errnum;
		if (!cJSON_IsString(it))
			return hx_fail_field(err, file, "skip", "expected a reason for %s", it->string);
		snprintf(k->runtime, sizeof(k->runtime), "%s", it->string);
		for (size_t i = 0; i < s->nruntimes; i++)
			if (strcmp(s->runtimes[i], k->runtime) == 0)
				return hx_fail_field(err, file, "skip", "%s is both in runtimes and skipped",
						     k->runtime);
		s->nskips++;
	}
	return 0;
}
