/* Strict scenario parsing (cJSON): every key known, every type checked, errors naming file and field. */
#include "run/scenario.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "base/valid.h"
#include "load/dsproto.h"
#include "run/scenario_internal.h"

const char *const scn_profile_names[3] = {"quick", "standard", "full"};
const double scn_profile_scale[3] = {0.25, 1.0, 3.0};
const char *const scn_workload_names[5] = {"startup", "http", "ws-chat", "script", "ws-rpc"};

static int known_keys(const char *file, const char *where, const cJSON *o, const char *const *keys, struct hx_err *err)
{
	const cJSON *it;

	if (!cJSON_IsObject(o))
		return hx_fail_field(err, file, where[0] ? where : NULL, "expected an object");
	cJSON_ArrayForEach (it, o) {
		bool ok = false;

		for (const char *const *k = keys; *k; k++)
			ok |= strcmp(*k, it->string) == 0;
		if (!ok)
			return hx_fail_field(err, file, it->string, "unknown key in %s (a typo?)",
					     where[0] ? where : "the scenario");
	}
	return 0;
}

static int str_field(const char *file, const cJSON *o, const char *key, char *buf, size_t len, bool required,
		     struct hx_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return required ? hx_fail_field(err, file, key, "missing") : 0;
	if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= len)
		return hx_fail_field(err, file, key, "expected a non-empty string of at most %zu characters", len - 1);
	snprintf(buf, len, "%s", v->valuestring);
	return 0;
}

static int num_field(const char *file, const cJSON *o, const char *key, double lo, double hi, double *ret,
		     struct hx_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi)
		return hx_fail_field(err, file, key, "expected a number from %g to %g", lo, hi);
	*ret = v->valuedouble;
	return 0;
}

static int uint_field(const char *file, const cJSON *o, const char *key, double lo, double hi, unsigned *ret,
		      struct hx_err *err)
{
	double d = *ret;

	if (num_field(file, o, key, lo, hi, &d, err) < 0)
		return -err->errnum;
	if (d != (double)(unsigned)d)
		return hx_fail_field(err, file, key, "expected a whole number");
	*ret = (unsigned)d;
	return 0;
}

static int parse_scripts(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	const cJSON *one = cJSON_GetObjectItemCaseSensitive(root, "script");
	const cJSON *per = cJSON_GetObjectItemCaseSensitive(root, "scripts"), *it;

	if (one) {
		if (str_field(file, root, "script", s->scripts[0].path, sizeof(s->scripts[0].path), true, err) < 0)
			return -err->errnum;
		s->nscripts = 1;
	}
	if (per) {
		if (!cJSON_IsObject(per))
			return hx_fail_field(err, file, "scripts", "expected an object: runtime -> script");
		cJSON_ArrayForEach (it, per) {
			struct scn_script *sc = &s->scripts[s->nscripts];

			if (s->nscripts == SCN_MAX_RUNTIMES + 1 || !cJSON_IsString(it) ||
			    strlen(it->string) >= sizeof(sc->runtime))
				return hx_fail_field(err, file, "scripts",
						     "expected at most %d runtime names with string values",
						     SCN_MAX_RUNTIMES);
			if (valid_check(valid_name, it->string, file, "scripts", err) < 0)
				return -err->errnum;
			/* checked before the copy: a cut path would pass valid_relpath and name another file */
			if (!it->valuestring[0] || strlen(it->valuestring) >= sizeof(sc->path))
				return hx_fail_field(
					err, file, "scripts",
					"the script of %s: expected a non-empty path of at most %zu characters",
					it->string, sizeof(sc->path) - 1);
			snprintf(sc->runtime, sizeof(sc->runtime), "%s", it->string);
			snprintf(sc->path, sizeof(sc->path), "%s", it->valuestring);
			s->nscripts++;
		}
	}
	if (!s->nscripts)
		return hx_fail_field(err, file, "script",
				     "give \"script\" (one for every runtime) or \"scripts\" (per runtime)");
	for (size_t i = 0; i < s->nscripts; i++)
		if (valid_check(valid_relpath, s->scripts[i].path, file, one ? "script" : "scripts", err) < 0)
			return -err->errnum;
	return 0;
}

static int parse_runtimes(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	const cJSON *rt = cJSON_GetObjectItemCaseSensitive(root, "runtimes"), *it;

	if (!cJSON_IsArray(rt) || cJSON_GetArraySize(rt) < 1 || cJSON_GetArraySize(rt) > SCN_MAX_RUNTIMES)
		return hx_fail_field(err, file, "runtimes", "expected an array of 1 to %d families or image names",
				     SCN_MAX_RUNTIMES);
	cJSON_ArrayForEach (it, rt) {
		if (!cJSON_IsString(it))
			return hx_fail_field(err, file, "runtimes", "expected image names");
		if (valid_check(valid_name, it->valuestring, file, "runtimes", err) < 0)
			return -err->errnum;
		snprintf(s->runtimes[s->nruntimes++], sizeof(s->runtimes[0]), "%s", it->valuestring);
	}
	return 0;
}

/* "min_version": {"node": {"version": "22.5", "why": "node:sqlite"}}: a family of the scenario's runtimes. */
static int parse_min_versions(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	static const char *const keys[] = {"version", "why", NULL};
	const cJSON *mv = cJSON_GetObjectItemCaseSensitive(root, "min_version"), *it;

	if (!mv)
		return 0;
	if (!cJSON_IsObject(mv) || cJSON_GetArraySize(mv) > (int)HX_ARRAY_SIZE(s->min_versions))
		return hx_fail_field(err, file, "min_version",
				     "expected an object: family -> {\"version\": \"22.5\", \"why\": \"...\"}");
	cJSON_ArrayForEach (it, mv) {
		struct scn_min_version *v = &s->min_versions[s->nmin_versions];
		bool listed = false;

		for (size_t i = 0; i < s->nruntimes; i++)
			listed |= strcmp(s->runtimes[i], it->string) == 0;
		if (!listed || strlen(it->string) >= sizeof(v->family) ||
		    strcmp(man_family_of_file(it->string), it->string) != 0)
			return hx_fail_field(err, file, "min_version",
					     "%s: expected a family of the scenario's runtimes", it->string);
		snprintf(v->family, sizeof(v->family), "%s", it->string);
		if (known_keys(file, "min_version", it, keys, err) < 0 ||
		    str_field(file, it, "version", v->version, sizeof(v->version), true, err) < 0 ||
		    str_field(file, it, "why", v->why, sizeof(v->why), true, err) < 0 ||
		    valid_check(valid_label, v->version, file, "min_version.version", err) < 0 ||
		    valid_check(valid_argument, v->why, file, "min_version.why", err) < 0)
			return -err->errnum;
		if (!isdigit((unsigned char)v->version[0]))
			return hx_fail_field(err, file, "min_version", "%s: expected a version such as 22.5",
					     v->family);
		s->nmin_versions++;
	}
	return 0;
}

static int parse_chat(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	static const char *const chat_keys[] = {"clients", "messages", "warmup_messages", "path", NULL};
	const cJSON *chat = cJSON_GetObjectItemCaseSensitive(root, "chat");
	double warm = -1;

	s->clients = 16;
	s->messages = 80;
	if (cJSON_GetObjectItemCaseSensitive(root, "load"))
		return hx_fail_field(err, file, "load", "a ws-chat scenario takes a chat object, not load");
	if (chat && (known_keys(file, "chat", chat, chat_keys, err) < 0 ||
		     uint_field(file, chat, "clients", 1, 4096, &s->clients, err) < 0 ||
		     uint_field(file, chat, "messages", 1, 1000000, &s->messages, err) < 0 ||
		     num_field(file, chat, "warmup_messages", 0, 1000000, &warm, err) < 0 ||
		     str_field(file, chat, "path", s->ready_path, sizeof(s->ready_path), false, err) < 0 ||
		     valid_check(valid_url_path, s->ready_path, file, "chat.path", err) < 0))
		return -err->errnum;
	/* a round of the room before the measured one, the same on every runtime: JITs warm, not cold */
	s->warmup_requests = warm >= 0 ? (uint64_t)warm : (s->messages + 9) / 10;
	return 0;
}

/* "docstore": true (the whole suite) or the names of its scenarios; "budget_s": each one's wall-time cap. */
static int parse_docstore(const char *file, const cJSON *rpc, struct scenario *s, struct hx_err *err)
{
	const cJSON *ds = cJSON_GetObjectItemCaseSensitive(rpc, "docstore"), *it;
	double budget = 10, docs = 0;
	unsigned mask;
	size_t used = 0;

	if (!ds)
		return cJSON_GetObjectItemCaseSensitive(rpc, "budget_s") ||
				       cJSON_GetObjectItemCaseSensitive(rpc, "memory_docs")
			       ? hx_fail_field(err, file, "rpc", "budget_s and memory_docs only with \"docstore\"")
			       : 0;
	if (cJSON_IsTrue(ds))
		snprintf(s->docstore, sizeof(s->docstore), "all");
	else if (!cJSON_IsArray(ds) || !cJSON_GetArraySize(ds))
		return hx_fail_field(err, file, "rpc.docstore",
				     "expected true or an array of the suite's scenario names");
	cJSON_ArrayForEach (it, ds) {
		if (!cJSON_IsString(it) || used + strlen(it->valuestring) + 2 > sizeof(s->docstore))
			return hx_fail_field(err, file, "rpc.docstore", "expected scenario names (strings)");
		used += (size_t)snprintf(s->docstore + used, sizeof(s->docstore) - used, "%s%s", used ? "," : "",
					 it->valuestring);
	}
	if (ds_parse_list(s->docstore, &mask, err) < 0)
		return hx_wrap(err, "%s: rpc.docstore", file);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rpc, "counter")))
		return hx_fail_field(err, file, "rpc.counter", "a docstore suite has its own counter: leave it out");
	if (num_field(file, rpc, "budget_s", 0.01, 3600, &budget, err) < 0 ||
	    num_field(file, rpc, "memory_docs", 0, 10000000, &docs, err) < 0)
		return -err->errnum;
	if (mask & 1u << DS_MEMORY_AFTER)
		return hx_fail_field(err, file, "rpc.docstore",
				     "'%s' is the memory run's second half, which harness runs after its restart: name "
				     "'%s' with rpc.memory_docs",
				     ds_names[DS_MEMORY_AFTER], ds_names[DS_MEMORY]);
	if (docs > 0 && !(mask & 1u << DS_MEMORY))
		return hx_fail_field(err, file, "rpc.memory_docs",
				     "the memory run's documents, but rpc.docstore leaves out '%s': name it, or drop "
				     "memory_docs",
				     ds_names[DS_MEMORY]);
	s->budget_s = budget;
	s->memory_docs = (uint64_t)docs;
	return 0;
}

static int parse_rpc(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	static const char *const rpc_keys[] = {"clients", "window",   "requests", "warmup_requests", "path",
					       "counter", "docstore", "budget_s", "memory_docs",     NULL};
	const cJSON *rpc = cJSON_GetObjectItemCaseSensitive(root, "rpc");
	const cJSON *counter = rpc ? cJSON_GetObjectItemCaseSensitive(rpc, "counter") : NULL;
	double req = 100000, warm = -1;

	s->clients = 16;
	s->window = 32;
	s->timeout_ms = 10000; /* no answer for this long fails the trial */
	if (cJSON_GetObjectItemCaseSensitive(root, "load") || cJSON_GetObjectItemCaseSensitive(root, "chat"))
		return hx_fail_field(err, file, "load", "a ws-rpc scenario takes an rpc object, not load or chat");
	if (counter && !cJSON_IsBool(counter))
		return hx_fail_field(err, file, "rpc.counter", "expected true or false");
	s->counter = cJSON_IsTrue(counter);
	if (rpc && (known_keys(file, "rpc", rpc, rpc_keys, err) < 0 || parse_docstore(file, rpc, s, err) < 0 ||
		    uint_field(file, rpc, "clients", 1, 4096, &s->clients, err) < 0 ||
		    uint_field(file, rpc, "window", 1, 4096, &s->window, err) < 0 ||
		    num_field(file, rpc, "requests", 1, 1e9, &req, err) < 0 ||
		    num_field(file, rpc, "warmup_requests", 0, 1e9, &warm, err) < 0 ||
		    str_field(file, rpc, "path", s->ready_path, sizeof(s->ready_path), false, err) < 0 ||
		    valid_check(valid_url_path, s->ready_path, file, "rpc.path", err) < 0))
		return -err->errnum;
	s->requests = (uint64_t)req;
	if (s->requests < s->clients)
		return hx_fail_field(err, file, "rpc.requests", "fewer requests than clients");
	/* a tenth of the load unmeasured first, as http's default: the first trial paid for cold JITs */
	s->warmup_requests = warm >= 0 ? (uint64_t)warm : s->requests / 10;
	if (s->warmup_requests && s->warmup_requests < s->clients)
		s->warmup_requests = s->clients;
	return 0;
}

/* "no_hint": runtimes of the scenario that have no low-memory hint (SIGUSR2 would end them). */
static int parse_no_hint(const char *file, const cJSON *mem, struct scenario *s, struct hx_err *err)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(mem, "no_hint"), *it;

	if (list && !cJSON_IsArray(list))
		return hx_fail_field(err, file, "memory.no_hint", "expected an array of runtime names");
	cJSON_ArrayForEach (it, list) {
		size_t i = 0;

		while (i < s->nruntimes && !(cJSON_IsString(it) && strcmp(s->runtimes[i], it->valuestring) == 0))
			i++;
		if (i == s->nruntimes)
			return hx_fail_field(err, file, "memory.no_hint",
					     "expected runtimes of the scenario's runtimes");
		s->memory_no_hint |= 1u << i;
	}
	return 0;
}

/* "memory": {"idle_s": 2, "hint": "SIGUSR2", "no_hint": ["workerd"], "restart": true} (docs/scenario.md) */
static int parse_memory(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	static const char *const keys[] = {"idle_s", "hint", "no_hint", "restart", NULL};
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(root, "memory");
	const cJSON *restart = cJSON_GetObjectItemCaseSensitive(mem, "restart");
	char hint[16] = "";

	if (!mem)
		return 0;
	s->memory_idle_s = 2;
	if (known_keys(file, "memory", mem, keys, err) < 0 ||
	    num_field(file, mem, "idle_s", 0.1, 600, &s->memory_idle_s, err) < 0 ||
	    str_field(file, mem, "hint", hint, sizeof(hint), false, err) < 0)
		return -err->errnum;
	if (hint[0] && strcmp(hint, "SIGUSR2") != 0)
		return hx_fail_field(err, file, "memory.hint", "the one hint is \"SIGUSR2\", not \"%s\"", hint);
	if (restart && !cJSON_IsBool(restart))
		return hx_fail_field(err, file, "memory.restart", "expected true or false");
	s->memory_hint = hint[0] != '\0';
	s->memory_restart = cJSON_IsTrue(restart);
	return parse_no_hint(file, mem, s, err);
}

/* load.body_length and load.body_sha256: what every response's body must be (a wrong render fails). */
static int parse_body(const char *file, const cJSON *load, struct scenario *s, struct hx_err *err)
{
	double len = -1;

	if (num_field(file, load, "body_length", 0, 1e12, &len, err) < 0 ||
	    str_field(file, load, "body_sha256", s->body_sha256, sizeof(s->body_sha256), false, err) < 0)
		return -err->errnum;
	if (len >= 0 && len != (double)(uint64_t)len)
		return hx_fail_field(err, file, "load.body_length", "expected a whole number of bytes");
	s->check_length = len >= 0;
	s->body_length = s->check_length ? (uint64_t)len : 0;
	if (s->body_sha256[0] && (strlen(s->body_sha256) != 64 || strspn(s->body_sha256, "0123456789abcdef") != 64))
		return hx_fail_field(err, file, "load.body_sha256", "expected 64 lowercase hex digits (sha256sum's)");
	return 0;
}

static int parse_http(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	static const char *const ready_keys[] = {"path", "status", "timeout_s", NULL};
	static const char *const load_keys[] = {"connections",	   "threads",	  "pipeline",	 "requests",
						"warmup_requests", "body_length", "body_sha256", "sweep",
						"duration_s",	   "warmup_s",	  "timeout_ms",	 NULL};
	const cJSON *ready = cJSON_GetObjectItemCaseSensitive(root, "ready");
	const cJSON *load = cJSON_GetObjectItemCaseSensitive(root, "load");
	const cJSON *tls = cJSON_GetObjectItemCaseSensitive(root, "tls");
	double req = 10000, warm = 1000;

	if (tls && !cJSON_IsBool(tls))
		return hx_fail_field(err, file, "tls", "expected true or false");
	s->tls = cJSON_IsTrue(tls);
	s->port = 3000;
	snprintf(s->ready_path, sizeof(s->ready_path), "/");
	s->ready_status = 200;
	s->ready_timeout_s = 15;
	s->connections = 100;
	s->threads = 1;
	s->pipeline = 1;
	/* generous: at 1,000 connections on one CPU a slow tail is the runtime's behaviour, not an error */
	s->timeout_ms = 30000;
	if (uint_field(file, root, "port", 1024, 65535, &s->port, err) < 0 || parse_memory(file, root, s, err) < 0)
		return -err->errnum;
	if (ready && (known_keys(file, "ready", ready, ready_keys, err) < 0 ||
		      str_field(file, ready, "path", s->ready_path, sizeof(s->ready_path), false, err) < 0 ||
		      valid_check(valid_url_path, s->ready_path, file, "ready.path", err) < 0 ||
		      uint_field(file, ready, "status", 100, 599, &s->ready_status, err) < 0 ||
		      num_field(file, ready, "timeout_s", 0.1, 600, &s->ready_timeout_s, err) < 0))
		return -err->errnum;
	if (s->workload == SCN_WS_CHAT)
		return parse_chat(file, root, s, err);
	if (s->workload == SCN_WS_RPC)
		return parse_rpc(file, root, s, err);
	if (!load)
		return hx_fail_field(err, file, "load", "an http scenario needs a load object");
	if (known_keys(file, "load", load, load_keys, err) < 0 ||
	    uint_field(file, load, "connections", 1, 20000, &s->connections, err) < 0 ||
	    uint_field(file, load, "threads", 1, 64, &s->threads, err) < 0 ||
	    uint_field(file, load, "pipeline", 1, 64, &s->pipeline, err) < 0 ||
	    uint_field(file, load, "timeout_ms", 10, 600000, &s->timeout_ms, err) < 0 ||
	    num_field(file, load, "requests", 1, 1e9, &req, err) < 0 ||
	    num_field(file, load, "warmup_requests", 0, 1e9, &warm, err) < 0 || parse_body(file, load, s, err) < 0)
		return -err->errnum;
	if (s->threads > s->connections)
		return hx_fail_field(err, file, "load.threads", "more threads than connections");
	s->requests = (uint64_t)req;
	s->warmup_requests = (uint64_t)warm;
	return routes_parse(file, root, load, s, err);
}

/* "bundle": {"for": "workerd", "with": "bun", "entry": "app.js", "out": "build/app.js"}. */
static int parse_bundle(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	static const char *const keys[] = {"for", "with", "entry", "out", NULL};
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "bundle");
	struct scn_bundle *d = &s->bundle;

	if (!b)
		return 0;
	if (known_keys(file, "bundle", b, keys, err) < 0 ||
	    str_field(file, b, "for", d->for_runtime, sizeof(d->for_runtime), true, err) < 0 ||
	    str_field(file, b, "with", d->with, sizeof(d->with), true, err) < 0 ||
	    str_field(file, b, "entry", d->entry, sizeof(d->entry), true, err) < 0 ||
	    str_field(file, b, "out", d->out, sizeof(d->out), true, err) < 0 ||
	    valid_check(valid_name, d->for_runtime, file, "bundle.for", err) < 0 ||
	    valid_check(valid_relpath, d->entry, file, "bundle.entry", err) < 0 ||
	    valid_check(valid_relpath, d->out, file, "bundle.out", err) < 0)
		return -err->errnum;
	if (strcmp(d->with, "bun") != 0 && strcmp(d->with, "deno") != 0)
		return hx_fail_field(err, file, "bundle.with",
				     "expected \"bun\" (bun build) or \"deno\" (deno bundle)");
	if (strncmp(d->out, "node_modules/", 13) == 0 || strcmp(d->out, "node_modules") == 0 ||
	    strcmp(d->out, d->entry) == 0)
		return hx_fail_field(err, file, "bundle.out", "must not be the entry nor under node_modules");
	return 0;
}

static int parse_fixtures(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	const cJSON *fx = cJSON_GetObjectItemCaseSensitive(root, "fixtures"), *it;

	if (!fx)
		return 0;
	if (!cJSON_IsArray(fx))
		return hx_fail_field(err, file, "fixtures", "expected an array of fixture names ([\"postgres\"])");
	cJSON_ArrayForEach (it, fx) {
		if (!cJSON_IsString(it) || strcmp(it->valuestring, "postgres") != 0)
			return hx_fail_field(err, file, "fixtures", "the one fixture is \"postgres\", not %s",
					     cJSON_IsString(it) ? it->valuestring : "a non-string");
		s->fixtures |= SCN_FX_POSTGRES;
	}
	return 0;
}

/* "prepare_size": "256M", the most the prepare step may leave in /prepared. */
static int parse_prepare_size(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "prepare_size");

	s->prepare_size = SCN_PREPARE_SIZE;
	if (!v)
		return 0;
	if (!s->prepare)
		return hx_fail_field(err, file, "prepare_size", "is for a scenario with a prepare step (\"prepare\")");
	if (!cJSON_IsString(v) || util_parse_size(v->valuestring, &s->prepare_size) < 0 ||
	    s->prepare_size < (1u << 20) || s->prepare_size > SCN_PREPARE_SIZE_MAX)
		return hx_fail_field(err, file, "prepare_size",
				     "expected a size from \"1M\" to \"1536M\", e.g. \"256M\"");
	return 0;
}

/* A metric's direction from its name: 1 a rate (higher is better), 0 a time or a size (lower is), -1 unknown. */
int scn_metric_direction(const char *name)
{
	static const char *const lower[] = {"_ms", "_us", "_ns", "_s", "_kb", "_mb", "_bytes"};
	size_t n = strlen(name);

	if (strcmp(name, "ops") == 0 || (n > 6 && strcmp(name + n - 6, "_per_s") == 0))
		return 1;
	if (strcmp(name, "seconds") == 0)
		return 0;
	for (size_t i = 0; i < HX_ARRAY_SIZE(lower); i++)
		if (n > strlen(lower[i]) && strcmp(name + n - strlen(lower[i]), lower[i]) == 0)
			return 0;
	return -1;
}

/* harness ab's metric of a script's line: "primary_metric" (ops, seconds, ops_per_s or one of "metrics"; default
 * ops_per_s) and "primary_better" ("higher" or "lower"; default from the name: a rate higher, a time lower). */
static int parse_primary(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	char better[16] = "";
	bool listed = false;
	int dir;

	snprintf(s->primary_metric, sizeof(s->primary_metric), "ops_per_s");
	if (str_field(file, root, "primary_metric", s->primary_metric, sizeof(s->primary_metric), false, err) < 0 ||
	    str_field(file, root, "primary_better", better, sizeof(better), false, err) < 0)
		return -err->errnum;
	listed = strcmp(s->primary_metric, "ops") == 0 || strcmp(s->primary_metric, "seconds") == 0 ||
		 strcmp(s->primary_metric, "ops_per_s") == 0;
	for (size_t i = 0; i < s->nmetrics; i++)
		listed = listed || strcmp(s->metrics[i], s->primary_metric) == 0;
	if (!listed)
		return hx_fail_field(err, file, "primary_metric",
				     "expected ops, seconds, ops_per_s or a name of \"metrics\", not \"%s\"",
				     s->primary_metric);
	if (better[0] && strcmp(better, "higher") != 0 && strcmp(better, "lower") != 0)
		return hx_fail_field(err, file, "primary_better", "expected \"higher\" or \"lower\"");
	dir = better[0] ? strcmp(better, "higher") == 0 : scn_metric_direction(s->primary_metric);
	if (dir < 0)
		return hx_fail_field(err, file, "primary_better",
				     "missing: say whether a higher or a lower %s is better (\"higher\" or \"lower\")",
				     s->primary_metric);
	s->primary_higher = dir == 1;
	return 0;
}

static int parse_script(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "metrics"), *it;
	const cJSON *prep = cJSON_GetObjectItemCaseSensitive(root, "prepare");
	double iter = 1000;

	s->timeout_s = 600;
	if (prep && !cJSON_IsBool(prep) && !(cJSON_IsString(prep) && strcmp(prep->valuestring, "network") == 0))
		return hx_fail_field(err, file, "prepare", "expected true, false or \"network\"");
	s->prepare_network = cJSON_IsString(prep);
	s->prepare = cJSON_IsTrue(prep) || s->prepare_network;
	if (parse_prepare_size(file, root, s, err) < 0)
		return -err->errnum;
	if (cJSON_GetObjectItemCaseSensitive(root, "load") || cJSON_GetObjectItemCaseSensitive(root, "chat") ||
	    cJSON_GetObjectItemCaseSensitive(root, "ready"))
		return hx_fail_field(err, file, "load",
				     "a script scenario runs its own workload: no load, chat or ready");
	double warm = -1;

	if (num_field(file, root, "iterations", 1, 1e12, &iter, err) < 0 ||
	    num_field(file, root, "warmup_iterations", 0, 1e12, &warm, err) < 0 ||
	    num_field(file, root, "timeout_s", 1, 86400, &s->timeout_s, err) < 0)
		return -err->errnum;
	s->iterations = (uint64_t)iter;
	/* WARMUP in its environment: iterations the script runs before its clock starts, the same for all */
	s->warmup_requests = warm >= 0 ? (uint64_t)warm : (s->iterations + 9) / 10;
	if (m && (!cJSON_IsArray(m) || cJSON_GetArraySize(m) > SCN_MAX_METRICS))
		return hx_fail_field(err, file, "metrics", "expected an array of at most %d metric names",
				     SCN_MAX_METRICS);
	cJSON_ArrayForEach (it, m) {
		if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) >= sizeof(s->metrics[0]))
			return hx_fail_field(err, file, "metrics", "expected metric names of 1 to %zu characters",
					     sizeof(s->metrics[0]) - 1);
		if (valid_check(valid_metric, it->valuestring, file, "metrics", err) < 0)
			return -err->errnum;
		snprintf(s->metrics[s->nmetrics++], sizeof(s->metrics[0]), "%s", it->valuestring);
	}
	return parse_primary(file, root, s, err);
}

static int parse_root(const char *file, const cJSON *root, struct scenario *s, struct hx_err *err)
{
	static const char *const keys[] = {"name",
					   "description",
					   "workload",
					   "runtimes",
					   "script",
					   "scripts",
					   "port",
					   "tls",
					   "ready",
					   "load",
					   "chat",
					   "runs",
					   "warmup",
					   "repeat",
					   "max_errors",
					   "fixtures",
					   "iterations",
					   "metrics",
					   "timeout_s",
					   "expected_cv",
					   "rpc",
					   "memory",
					   "bundle",
					   "routes",
					   "skip",
					   "prepare",
					   "prepare_size",
					   "wire",
					   "warmup_iterations",
					   "min_duration_s",
					   "adapter",
					   "adapter_cost",
					   "min_version",
					   "primary_metric",
					   "primary_better",
					   NULL};
	char workload[16] = "";
	double maxerr = 0;

	if (known_keys(file, "", root, keys, err) < 0 ||
	    str_field(file, root, "name", s->name, sizeof(s->name), true, err) < 0 ||
	    str_field(file, root, "description", s->description, sizeof(s->description), false, err) < 0 ||
	    valid_check(valid_argument, s->description, file, "description", err) < 0 ||
	    str_field(file, root, "workload", workload, sizeof(workload), true, err) < 0 ||
	    valid_check(valid_name, s->name, file, "name", err) < 0 || parse_runtimes(file, root, s, err) < 0 ||
	    parse_min_versions(file, root, s, err) < 0 || parse_scripts(file, root, s, err) < 0)
		return -err->errnum;
	s->repeat = 3;
	s->runs = 30;
	s->warmup = 5;
	if (uint_field(file, root, "repeat", 1, 1000, &s->repeat, err) < 0 ||
	    num_field(file, root, "max_errors", 0, 1e12, &maxerr, err) < 0)
		return -err->errnum;
	s->max_errors = (uint64_t)maxerr;
	if (parse_fixtures(file, root, s, err) < 0 || parse_bundle(file, root, s, err) < 0 ||
	    routes_parse_skips(file, root, s, err) < 0 || scn_wire_parse(file, root, s, err) < 0)
		return -err->errnum;
	if (strcmp(workload, "script") != 0 &&
	    (cJSON_GetObjectItemCaseSensitive(root, "iterations") ||
	     cJSON_GetObjectItemCaseSensitive(root, "warmup_iterations") ||
	     cJSON_GetObjectItemCaseSensitive(root, "prepare") || cJSON_GetObjectItemCaseSensitive(root, "metrics") ||
	     cJSON_GetObjectItemCaseSensitive(root, "prepare_size") ||
	     cJSON_GetObjectItemCaseSensitive(root, "timeout_s") ||
	     cJSON_GetObjectItemCaseSensitive(root, "primary_metric") ||
	     cJSON_GetObjectItemCaseSensitive(root, "primary_better")))
		return hx_fail_field(
			err, file, "iterations",
			"iterations, warmup_iterations, metrics, timeout_s, prepare and primary_metric are "
			"for script workloads");
	s->min_duration_s = strcmp(workload, "startup") == 0 ? 0 : SCN_MIN_DURATION_S;
	if (strcmp(workload, "startup") == 0 && cJSON_GetObjectItemCaseSensitive(root, "min_duration_s"))
		return hx_fail_field(err, file, "min_duration_s",
				     "a startup trial's runs are each a process: its spread is judged by expected_cv");
	if (num_field(file, root, "min_duration_s", 0, 3600, &s->min_duration_s, err) < 0)
		return -err->errnum;
	if (strcmp(workload, "startup") != 0 && cJSON_GetObjectItemCaseSensitive(root, "expected_cv"))
		return hx_fail_field(err, file, "expected_cv", "the runs' expected CV is for startup workloads");
	if (strcmp(workload, "http") != 0 && cJSON_GetObjectItemCaseSensitive(root, "routes"))
		return hx_fail_field(err, file, "routes", "routes are for an http workload");
	if (strcmp(workload, "script") == 0) {
		s->workload = SCN_SCRIPT;
		if (parse_script(file, root, s, err) < 0)
			return -err->errnum;
	} else if (strcmp(workload, "startup") == 0) {
		s->workload = SCN_STARTUP;
		if (uint_field(file, root, "runs", 1, 100000, &s->runs, err) < 0 ||
		    uint_field(file, root, "warmup", 0, 1000, &s->warmup, err) < 0 ||
		    num_field(file, root, "expected_cv", 0.001, 10, &s->expected_cv, err) < 0)
			return -err->errnum;
		if (cJSON_GetObjectItemCaseSensitive(root, "load") || cJSON_GetObjectItemCaseSensitive(root, "ready"))
			return hx_fail_field(err, file, "load", "a startup scenario has no server to load");
	} else if (strcmp(workload, "http") == 0 || strcmp(workload, "ws-chat") == 0 ||
		   strcmp(workload, "ws-rpc") == 0) {
		s->workload = strcmp(workload, "http") == 0	 ? SCN_HTTP
			      : strcmp(workload, "ws-chat") == 0 ? SCN_WS_CHAT
								 : SCN_WS_RPC;
		if (parse_http(file, root, s, err) < 0)
			return -err->errnum;
	} else {
		return hx_fail_field(
			err, file, "workload",
			"expected \"startup\", \"http\", \"ws-chat\", \"ws-rpc\" or \"script\", not \"%s\"", workload);
	}
	if (s->adapter_cost.adapter[0] && (s->workload != SCN_HTTP || s->tls || s->nroutes))
		return hx_fail_field(err, file, "adapter_cost",
				     "the cost is measured by a duet of plain http servers: not with tls, routes or "
				     "another workload");
	return 0;
}

int scn_parse(const char *file, const char *text, struct scenario *s, struct hx_err *err)
{
	const char *bad = valid_json_text(text, strlen(text));
	cJSON *root = bad ? NULL : cJSON_Parse(text);
	int r;

	memset(s, 0, sizeof(*s));
	if (bad)
		return hx_fail_field(err, file, NULL, "%s", bad);
	if (!root)
		return hx_fail_field(err, file, NULL, "not valid JSON");
	r = parse_root(file, root, s, err);
	cJSON_Delete(root);
	return r;
}

const char *scn_dir(void)
{
	static char dir[PATH_MAX];

	return util_data_dir("HARNESS_SCENARIOS_DIR", "scenarios", dir, sizeof(dir));
}

int scn_load(const char *dir, const char *name, struct scenario *s, struct hx_err *err)
{
	char folder[PATH_MAX], file[PATH_MAX + 16];
	_cleanup_free_ char *text = NULL;
	size_t len = strlen(name);

	if (len > 14 && strcmp(name + len - 14, "/scenario.json") == 0)
		snprintf(folder, sizeof(folder), "%.*s", (int)(len - 14), name);
	else if (strchr(name, '/'))
		snprintf(folder, sizeof(folder), "%s", name);
	else if (valid_check(valid_name, name, NULL, "scenario", err) < 0)
		return -err->errnum;
	else
		snprintf(folder, sizeof(folder), "%s/%s", dir, name);
	snprintf(file, sizeof(file), "%s/scenario.json", folder);
	if (util_read_input(file, UTIL_MAX_JSON, &text, NULL, err) < 0) {
		if (err->errnum == ENOENT)
			return hx_fail(err, HX_EXIT_USAGE, ENOENT,
				       "no scenario '%s' (%s does not exist; 'harness scenarios ls' lists them)", name,
				       file);
		return -err->errnum;
	}
	if (scn_parse(file, text, s, err) < 0)
		return -err->errnum;
	if (!realpath(folder, s->dir))
		return hx_syserr(err, "scenario %s", folder);
	for (size_t i = 0; i < s->nscripts + 2; i++) {
		const char *rel = i < s->nscripts    ? s->scripts[i].path
				  : i == s->nscripts ? s->adapter_cost.adapter
						     : s->adapter_cost.plain;
		char p[PATH_MAX + 300];

		snprintf(p, sizeof(p), "%s/%s", s->dir, rel);
		if (rel[0] && !util_exists(p))
			return hx_fail(err, HX_EXIT_USAGE, ENOENT, "%s: script '%s' does not exist", file, rel);
	}
	return 0;
}

/* The entry of s->runtimes that m is: its image's name first, then its family; -1 when none. */
static int runtime_index(const struct scenario *s, const struct manifest *m)
{
	for (size_t i = 0; i < s->nruntimes; i++)
		if (strcmp(s->runtimes[i], m->name) == 0)
			return (int)i;
	for (size_t i = 0; m->family[0] && i < s->nruntimes; i++)
		if (strcmp(s->runtimes[i], m->family) == 0)
			return (int)i;
	return -1;
}

const char *scn_script_for(const struct scenario *s, const struct manifest *m)
{
	const char *family = "", *dflt = "";

	for (size_t i = 0; i < s->nscripts; i++) {
		if (strcmp(s->scripts[i].runtime, m->name) == 0)
			return s->scripts[i].path;
		if (m->family[0] && strcmp(s->scripts[i].runtime, m->family) == 0)
			family = s->scripts[i].path;
		if (!s->scripts[i].runtime[0])
			dflt = s->scripts[i].path;
	}
	return family[0] ? family : dflt;
}

static void runtimes_text(const struct scenario *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nruntimes && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", s->runtimes[i]);
}

const char *scn_why_not(const struct scenario *s, const struct manifest *m, char *buf, size_t len)
{
	char list[SCN_MAX_RUNTIMES * 66];
	int i = runtime_index(s, m);

	for (size_t k = 0; k < s->nskips; k++)
		if (strcmp(s->skips[k].runtime, m->name) == 0 ||
		    (m->family[0] && strcmp(s->skips[k].runtime, m->family) == 0)) {
			snprintf(buf, len, "%s", s->skips[k].why);
			return buf;
		}
	if (i < 0) {
		runtimes_text(s, list, sizeof(list));
		if (m->family[0])
			snprintf(buf, len, "it has no script for %s (it runs on %s)", m->family, list);
		else
			snprintf(buf, len,
				 "it runs on %s, and %s's manifest names no family (give it \"family\": \"node\", "
				 "\"bun\", \"deno\" or \"workerd\")",
				 list, m->name);
		return buf;
	}
	for (size_t k = 0; k < s->nmin_versions; k++) {
		const struct scn_min_version *v = &s->min_versions[k];

		if (strcmp(v->family, s->runtimes[i]) == 0 && m->version[0] && isdigit((unsigned char)m->version[0]) &&
		    man_version_cmp(m->version, v->version) < 0) {
			snprintf(buf, len, "%s (it needs %s %s or later; %s is %s)", v->why, v->family, v->version,
				 m->name, m->version);
			return buf;
		}
	}
	return NULL;
}

bool scn_supports(const struct scenario *s, const struct manifest *m)
{
	char why[512];

	return scn_why_not(s, m, why, sizeof(why)) == NULL;
}

bool scn_names(const struct scenario *s, const struct manifest *m)
{
	for (size_t k = 0; k < s->nskips; k++)
		if (strcmp(s->skips[k].runtime, m->name) == 0 ||
		    (m->family[0] && strcmp(s->skips[k].runtime, m->family) == 0))
			return true;
	return runtime_index(s, m) >= 0;
}

bool scn_memory_hint_for(const struct scenario *s, const struct manifest *m)
{
	int i = runtime_index(s, m);

	return s->memory_hint && i >= 0 && !(s->memory_no_hint & (1u << i));
}

bool scn_bundle_for(const struct scenario *s, const struct manifest *m)
{
	const char *f = s->bundle.for_runtime;

	return f[0] && (strcmp(f, m->name) == 0 || (m->family[0] && strcmp(f, m->family) == 0));
}

void scn_scale(struct scenario *s, enum scn_profile p)
{
	double k = scn_profile_scale[p];

	s->duration_s *= k;
	s->warmup_s *= k;
	s->requests = (uint64_t)((double)s->requests * k) ? (uint64_t)((double)s->requests * k) : 1;
	s->warmup_requests = (uint64_t)((double)s->warmup_requests * k);
	s->runs = (unsigned)((double)s->runs * k) ? (unsigned)((double)s->runs * k) : 1;
	s->iterations = (uint64_t)((double)s->iterations * k) ? (uint64_t)((double)s->iterations * k) : 1;
	/* chat: quick sends a quarter of the messages; full doubles the room (32 clients for 16); rpc: the
	 * requests only, the pool and window stay as published */
	/* the docstore suite: each scenario's budget scales; payload-Nkb's documents are 1, 64 or 512 KiB */
	s->budget_s *= k;
	s->memory_docs = (uint64_t)((double)s->memory_docs * k);
	s->payload_kib = p == SCN_QUICK ? 1 : p == SCN_STANDARD ? 64 : 512;
	if (s->workload != SCN_WS_CHAT)
		return;
	if (p == SCN_FULL) {
		s->clients *= 2;
		s->warmup_requests = (uint64_t)((double)s->warmup_requests / k); /* the messages stay */
	} else {
		s->messages = (unsigned)((double)s->messages * k) ? (unsigned)((double)s->messages * k) : 1;
	}
}
