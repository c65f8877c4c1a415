/* The document store's frames: a reader for the answers the store's JavaScript writes (JSON.stringify of a
 * fixed shape, no spaces) and the documents the client writes. The reader checks the value's JSON itself, so
 * a server that truncates or mangles a document is an error, not a mismatch hidden in a prefix. */
#include "load/dsproto.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DS_MAX_DEPTH 64

static size_t skip_string(const char *t, size_t len)
{
	for (size_t i = 1; i < len; i++) {
		if (t[i] == '"')
			return i + 1;
		if ((unsigned char)t[i] < 0x20)
			return 0;
		if (t[i] == '\\' && ++i >= len)
			return 0;
	}
	return 0;
}

static size_t skip_number(const char *t, size_t len)
{
	size_t i = t[0] == '-';

	if (i >= len || t[i] < '0' || t[i] > '9')
		return 0;
	while (i < len && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.' || t[i] == 'e' || t[i] == 'E' || t[i] == '+' ||
			   t[i] == '-'))
		i++;
	return i;
}

static size_t skip_word(const char *t, size_t len)
{
	static const char *const words[] = {"true", "false", "null"};

	for (size_t k = 0; k < 3; k++) {
		size_t n = strlen(words[k]);

		if (len >= n && memcmp(t, words[k], n) == 0)
			return n;
	}
	return 0;
}

static size_t span_at(const char *t, size_t len, unsigned depth);

/* An array or an object: values (or "key":value pairs) separated by commas. */
static size_t skip_compound(const char *t, size_t len, unsigned depth)
{
	char close = t[0] == '[' ? ']' : '}';
	size_t i = 1;

	if (depth >= DS_MAX_DEPTH)
		return 0;
	if (i < len && t[i] == close)
		return i + 1;
	while (i < len) {
		size_t n;

		if (close == '}') {
			if (t[i] != '"' || !(n = skip_string(t + i, len - i)) || i + n >= len || t[i + n] != ':')
				return 0;
			i += n + 1;
		}
		if (!(n = span_at(t + i, len - i, depth + 1)))
			return 0;
		i += n;
		if (i < len && t[i] == close)
			return i + 1;
		if (i >= len || t[i] != ',')
			return 0;
		i++;
	}
	return 0;
}

static size_t span_at(const char *t, size_t len, unsigned depth)
{
	if (!len)
		return 0;
	if (t[0] == '"')
		return skip_string(t, len);
	if (t[0] == '[' || t[0] == '{')
		return skip_compound(t, len, depth);
	if (t[0] == '-' || (t[0] >= '0' && t[0] <= '9'))
		return skip_number(t, len);
	return skip_word(t, len);
}

size_t ds_json_span(const char *text, size_t len)
{
	return span_at(text, len, 0);
}

long ds_json_count(const char *text, size_t len)
{
	size_t i = 1;
	long n = 0;

	if (!len || text[0] != '[' || ds_json_span(text, len) != len)
		return -1;
	if (len == 2)
		return 0;
	while (i < len) { /* the whole array is valid: each element ends at a comma or the closing bracket */
		i += span_at(text + i, len - i, 1) + 1;
		n++;
	}
	return n;
}

bool ds_json_int(const char *text, size_t len, bool null_is_zero, int64_t *ret)
{
	int64_t v = 0;
	bool neg = len && text[0] == '-';
	size_t i = neg;

	if (null_is_zero && len == 4 && memcmp(text, "null", 4) == 0) {
		*ret = 0;
		return true;
	}
	if (!len || i == len || len - i > 18) /* 18 digits always fit */
		return false;
	for (; i < len; i++) {
		if (text[i] < '0' || text[i] > '9')
			return false;
		v = v * 10 + (text[i] - '0');
	}
	*ret = neg ? -v : v;
	return true;
}

static bool take(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
		return false;
	*p += n;
	return true;
}

bool ds_answer_parse(const char *frame, size_t len, struct ds_answer *a)
{
	const char *p = frame, *end = frame + len;
	uint64_t id = 0;
	size_t digits = 0, n;

	if (!take(&p, end, "{\"id\":"))
		return false;
	while (p < end && *p >= '0' && *p <= '9' && digits++ < 19)
		id = id * 10 + (uint64_t)(*p++ - '0');
	if (!digits || digits > 19)
		return false;
	if (take(&p, end, ",\"ok\":true,\"value\":")) {
		if (p >= end || end[-1] != '}' || !(n = ds_json_span(p, (size_t)(end - p - 1))) ||
		    n != (size_t)(end - p - 1))
			return false;
		*a = (struct ds_answer){.id = id, .ok = true, .value = p, .value_len = n};
		return true;
	}
	if (!take(&p, end, ",\"ok\":false,\"error\":") || end - p < 3 || end[-1] != '}' || *p != '"' ||
	    skip_string(p, (size_t)(end - p - 1)) != (size_t)(end - p - 1))
		return false;
	*a = (struct ds_answer){.id = id, .ok = false, .value = p + 1, .value_len = (size_t)(end - p - 3)};
	return true;
}

/* splitmix64: one well-mixed word per step, from a seed of the key and the version */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t doc_seed(const char *key, uint64_t version)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a of the key */

	for (const char *k = key; *k; k++)
		h = (h ^ (unsigned char)*k) * UINT64_C(0x100000001b3);
	return h ^ (version * UINT64_C(0x9e3779b97f4a7c15));
}

/* The document's characters one by one: ten base-36 digits from each word. */
struct doc_gen {
	uint64_t s, w;
	size_t i;
};

static char doc_next(struct doc_gen *g)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char c;

	if (g->i++ % 10 == 0)
		g->w = mix(&g->s);
	c = alphabet[g->w % 36];
	g->w /= 36;
	return c;
}

void ds_doc(const char *key, uint64_t version, size_t len, char *out)
{
	struct doc_gen g = {.s = doc_seed(key, version)};

	out[0] = '"';
	for (size_t i = 0; i < len; i++)
		out[1 + i] = doc_next(&g);
	out[len + 1] = '"';
}

bool ds_doc_is(const char *text, size_t text_len, const char *key, uint64_t version, size_t len)
{
	struct doc_gen g = {.s = doc_seed(key, version)};

	if (text_len != len + 2 || text[0] != '"' || text[len + 1] != '"')
		return false;
	for (size_t i = 0; i < len; i++)
		if (text[1 + i] != doc_next(&g))
			return false;
	return true;
}

const char *const ds_names[DS_NR] = {
	"get-hot/sequential",	      "has/sequential",		 "set-small/sequential",
	"set-small/pipelined",	      "add-counter/contended",	 "nested-merge/contended",
	"mixed-workload/pipelined",   "payload-Nkb/set+get",	 "all-scan/preloaded",
	"session-churn/login+logout", "spike-burst/idle->flood", "memory/load+readback",
	"memory/after-restart",
};

void ds_name(enum ds_scenario sc, unsigned payload_kib, char *buf, size_t len)
{
	if (sc == DS_PAYLOAD)
		snprintf(buf, len, "payload-%ukb/set+get", payload_kib);
	else
		snprintf(buf, len, "%s", ds_names[sc]);
}

int ds_parse_list(const char *list, unsigned *ret_mask, struct hx_err *err)
{
	unsigned mask = 0;
	const char *p = list;

	if (strcmp(list, "all") == 0) {
		*ret_mask = DS_ALL;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ","), k;

		for (k = 0; k < DS_NR; k++) {
			size_t short_len = strcspn(ds_names[k], "/");

			if ((n == strlen(ds_names[k]) && strncmp(p, ds_names[k], n) == 0) ||
			    (n == short_len && strncmp(p, ds_names[k], n) == 0) ||
			    (k == DS_PAYLOAD && n >= 7 && strncmp(p, "payload", 7) == 0))
				break;
		}
		if (k == DS_NR || !n)
			return hx_fail(
				err, HX_EXIT_USAGE, EINVAL,
				"docstore: '%.*s' is not a scenario of the suite: give all, or names, comma-separated "
				"(get-hot, has, set-small/sequential, set-small/pipelined, add-counter, nested-merge, "
				"mixed-workload, payload, all-scan, session-churn, spike-burst)",
				(int)n, p);
		mask |= 1u << k;
		p += n + (p[n] == ',');
	}
	*ret_mask = mask;
	return 0;
}
