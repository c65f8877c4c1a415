/* Strict manifest parsing with cJSON: every key known, every type checked, errors naming file and field. */
#include "image/manifest.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/dl_ossl.h"
#include "base/util.h"
#include "base/valid.h"

const char *const man_source_names[] = {"npm", "url", "host"};
const char *const man_families[4] = {"node", "bun", "deno", "workerd"};

struct field {
	const char *key;
	bool required;
};

/* Every key of o must be in allowed; every required one present. */
static int check_keys(const char *file, const char *where, const cJSON *o, const struct field *allowed,
		      struct hx_err *err)
{
	const cJSON *it;

	cJSON_ArrayForEach (it, o) {
		bool known = false;

		for (const struct field *f = allowed; f->key; f++)
			known |= strcmp(f->key, it->string) == 0;
		if (!known) {
			char key[256];

			snprintf(key, sizeof(key), "%s%s", where, it->string);
			return hx_fail_field(err, file, key, "unknown key (a typo?)%s", "");
		}
	}
	for (const struct field *f = allowed; f->key; f++)
		if (f->required && !cJSON_GetObjectItemCaseSensitive(o, f->key)) {
			char key[256];

			snprintf(key, sizeof(key), "%s%s", where, f->key);
			return hx_fail_field(err, file, key, "missing%s", "");
		}
	return 0;
}

static int get_str(const char *file, const char *where, const cJSON *o, const char *key, char *buf, size_t len,
		   struct hx_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char name[256];

	snprintf(name, sizeof(name), "%s%s", where, key);
	if (!v)
		return 0;
	if (!cJSON_IsString(v))
		return hx_fail_field(err, file, name, "expected a string%s", "");
	if (strlen(v->valuestring) >= len || !v->valuestring[0])
		return hx_fail_field(err, file, name, "empty or too long (at most %zu characters)", len - 1);
	snprintf(buf, len, "%s", v->valuestring);
	return 0;
}

static int get_argv(const char *file, const cJSON *o, const char *key, char **out, struct hx_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key), *it;
	size_t n = 0;

	if (!v)
		return 0;
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > MAN_MAX_ARGV)
		return hx_fail_field(err, file, key, "expected an array of 1 to 16 strings%s", "");
	cJSON_ArrayForEach (it, v) {
		if (!cJSON_IsString(it))
			return hx_fail_field(err, file, key, "expected an array of strings%s", "");
		if (valid_check(valid_argument, it->valuestring, file, key, err) < 0)
			return -err->errnum;
		out[n] = strdup(it->valuestring);
		if (!out[n++])
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	}
	return 0;
}

static int get_env(const char *file, const cJSON *o, struct manifest *m, struct hx_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "env"), *it;
	size_t n = 0;

	if (!v)
		return 0;
	if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) > MAN_MAX_ENV)
		return hx_fail_field(err, file, "env", "expected an object of at most 16 string values%s", "");
	cJSON_ArrayForEach (it, v) {
		size_t len;

		if (!cJSON_IsString(it) || valid_env_name(it->string)) {
			char q[300];

			valid_quote(it->string, q, sizeof(q));
			return hx_fail_field(err, file, "env",
					     "'%s' is not a variable name (letters, digits, '_') with a string value",
					     q);
		}
		if (valid_check(valid_argument, it->valuestring, file, "env", err) < 0)
			return -err->errnum;
		len = strlen(it->string) + strlen(it->valuestring) + 2;
		m->env[n] = malloc(len);
		if (!m->env[n])
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		snprintf(m->env[n++], len, "%s=%s", it->string, it->valuestring);
	}
	return 0;
}

static bool is_hex(const char *s, size_t n)
{
	if (strlen(s) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* An optional size in bytes (a whole number from 1 byte to 1 TiB); 0 when absent. */
static int get_size(const char *file, const cJSON *src, const char *key, uint64_t *ret, struct hx_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(src, key);

	*ret = 0;
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > (double)(1ull << 40) ||
	    v->valuedouble != (double)(uint64_t)v->valuedouble)
		return hx_fail_field(err, file, key[0] == 's' ? "source.size" : "source.unpacked_size",
				     "expected a whole number of bytes from 1 to 2^40%s", "");
	*ret = (uint64_t)v->valuedouble;
	return 0;
}

static int parse_source(const char *file, const cJSON *src, struct manifest *m, struct hx_err *err)
{
	static const struct field npm[] = {{"type", true},	{"package", true}, {"version", true},
					   {"integrity", true}, {"size", false},   {"unpacked_size", false},
					   {NULL, false}};
	static const struct field url[] = {
		{"type", true},		  {"url", true}, {"sha256", true}, {"strip_components", false}, {"size", false},
		{"unpacked_size", false}, {NULL, false}};
	static const struct field host[] = {{"type", true}, {"path", true}, {NULL, false}};
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(src, "type"), *strip;
	unsigned char raw[128];

	if (!cJSON_IsObject(src))
		return hx_fail_field(err, file, "source", "expected an object%s", "");
	if (!cJSON_IsString(type))
		return hx_fail_field(err, file, "source.type", "expected \"npm\", \"url\" or \"host\"%s", "");
	if (strcmp(type->valuestring, "npm") == 0) {
		m->source = MAN_SRC_NPM;
		if (check_keys(file, "source.", src, npm, err) < 0 ||
		    get_str(file, "source.", src, "package", m->package, sizeof(m->package), err) < 0 ||
		    get_str(file, "source.", src, "version", m->pkg_version, sizeof(m->pkg_version), err) < 0 ||
		    get_str(file, "source.", src, "integrity", m->integrity, sizeof(m->integrity), err) < 0)
			return -err->errnum;
		if (valid_check(valid_npm_package, m->package, file, "source.package", err) < 0 ||
		    valid_check(valid_semver, m->pkg_version, file, "source.version", err) < 0)
			return -err->errnum;
		if (strncmp(m->integrity, "sha512-", 7) != 0 || strlen(m->integrity) != 7 + 88 ||
		    EVP_DecodeBlock(raw, (const unsigned char *)m->integrity + 7, 88) != 66)
			return hx_fail_field(err, file, "source.integrity",
					     "expected sha512-<base64 of 64 bytes>, as npm gives it%s", "");
	} else if (strcmp(type->valuestring, "url") == 0) {
		m->source = MAN_SRC_URL;
		if (check_keys(file, "source.", src, url, err) < 0 ||
		    get_str(file, "source.", src, "url", m->url, sizeof(m->url), err) < 0 ||
		    get_str(file, "source.", src, "sha256", m->sha256, sizeof(m->sha256), err) < 0)
			return -err->errnum;
		if (valid_check(valid_url, m->url, file, "source.url", err) < 0)
			return -err->errnum;
		if (!is_hex(m->sha256, 64))
			return hx_fail_field(err, file, "source.sha256", "expected 64 lowercase hex digits%s", "");
		strip = cJSON_GetObjectItemCaseSensitive(src, "strip_components");
		if (strip && (!cJSON_IsNumber(strip) || strip->valuedouble < 0 || strip->valuedouble > 8 ||
			      strip->valuedouble != (int)strip->valuedouble))
			return hx_fail_field(err, file, "source.strip_components",
					     "expected a whole number from 0 to 8%s", "");
		m->strip_components = strip ? (unsigned)strip->valueint : 0;
	} else if (strcmp(type->valuestring, "host") == 0) {
		m->source = MAN_SRC_HOST;
		if (check_keys(file, "source.", src, host, err) < 0 ||
		    get_str(file, "source.", src, "path", m->path, sizeof(m->path), err) < 0)
			return -err->errnum;
		if (valid_check(valid_abspath, m->path, file, "source.path", err) < 0)
			return -err->errnum;
	} else {
		return hx_fail_field(err, file, "source.type", "expected \"npm\", \"url\" or \"host\", not \"%s\"",
				     type->valuestring);
	}
	if (m->source != MAN_SRC_HOST && (get_size(file, src, "size", &m->size, err) < 0 ||
					  get_size(file, src, "unpacked_size", &m->unpacked_size, err) < 0))
		return -err->errnum;
	return 0;
}

/* "family": "node", "bun", "deno", "workerd" or "none" (the default). */
static int get_family(const char *file, const cJSON *root, struct manifest *m, struct hx_err *err)
{
	char family[16] = "";

	if (get_str(file, "", root, "family", family, sizeof(family), err) < 0)
		return -err->errnum;
	if (!family[0] || strcmp(family, "none") == 0)
		return 0;
	for (size_t i = 0; i < HX_ARRAY_SIZE(man_families); i++)
		if (strcmp(family, man_families[i]) == 0) {
			snprintf(m->family, sizeof(m->family), "%s", family);
			return 0;
		}
	return hx_fail_field(err, file, "family",
			     "expected \"node\", \"bun\", \"deno\", \"workerd\" or \"none\", not \"%s\"", family);
}

static int parse_root(const char *file, const cJSON *root, struct manifest *m, struct hx_err *err)
{
	static const struct field top[] = {{"name", true},
					   {"version", true},
					   {"kind", true},
					   {"description", false},
					   {"source", true},
					   {"entry", true},
					   {"run", false},
					   {"version_command", false},
					   {"version_expect", false},
					   {"env", false},
					   {"soname_links", false},
					   {"family", false},
					   {"packages", false},
					   {NULL, false}};
	char kind[16] = "";

	if (!cJSON_IsObject(root))
		return hx_fail_field(err, file, NULL, "expected a JSON object%s", "");
	if (check_keys(file, "", root, top, err) < 0 ||
	    get_str(file, "", root, "name", m->name, sizeof(m->name), err) < 0 ||
	    get_str(file, "", root, "version", m->version, sizeof(m->version), err) < 0 ||
	    get_str(file, "", root, "kind", kind, sizeof(kind), err) < 0 ||
	    get_str(file, "", root, "entry", m->entry, sizeof(m->entry), err) < 0 ||
	    get_str(file, "", root, "version_expect", m->version_expect, sizeof(m->version_expect), err) < 0 ||
	    get_str(file, "", root, "soname_links", m->soname_links, sizeof(m->soname_links), err) < 0 ||
	    get_str(file, "", root, "packages", m->packages, sizeof(m->packages), err) < 0 ||
	    get_family(file, root, m, err) < 0 ||
	    parse_source(file, cJSON_GetObjectItemCaseSensitive(root, "source"), m, err) < 0 ||
	    get_argv(file, root, "run", m->run, err) < 0 ||
	    get_argv(file, root, "version_command", m->version_command, err) < 0 || get_env(file, root, m, err) < 0)
		return -err->errnum;
	if (valid_check(valid_name, m->name, file, "name", err) < 0 ||
	    valid_check(valid_label, m->version, file, "version", err) < 0)
		return -err->errnum;
	if (strcmp(kind, "runtime") == 0)
		m->kind = MAN_RUNTIME;
	else if (strcmp(kind, "fixture") == 0)
		m->kind = MAN_FIXTURE;
	else
		return hx_fail_field(err, file, "kind", "expected \"runtime\" or \"fixture\", not \"%s\"", kind);
	if (m->kind == MAN_RUNTIME && !m->run[0])
		return hx_fail_field(err, file, "run", "a runtime needs an argv template with {script}%s", "");
	if (m->soname_links[0] && m->source == MAN_SRC_HOST)
		return hx_fail_field(err, file, "soname_links",
				     "expected a folder inside a downloaded image, not for %s", "a host image");
	if (m->soname_links[0] && valid_check(valid_relpath, m->soname_links, file, "soname_links", err) < 0)
		return -err->errnum;
	/* a name, not a path: the folder is the manifest's neighbour, never elsewhere on the host */
	if (m->packages[0] && valid_check(valid_name, m->packages, file, "packages", err) < 0)
		return -err->errnum;
	if (m->packages[0] && m->kind != MAN_RUNTIME)
		return hx_fail_field(err, file, "packages", "expected only in a runtime's manifest, not a %s's",
				     "fixture");
	return valid_check(m->source == MAN_SRC_HOST ? valid_abspath : valid_relpath, m->entry, file, "entry", err);
}

int man_parse(const char *file, const char *text, struct manifest *m, struct hx_err *err)
{
	const char *bad = valid_json_text(text, strlen(text));
	cJSON *root = bad ? NULL : cJSON_Parse(text);
	int r;

	memset(m, 0, sizeof(*m));
	snprintf(m->file, sizeof(m->file), "%s", file);
	if (bad)
		return hx_fail_field(err, file, NULL, "%s", bad);
	if (!root)
		return hx_fail_field(err, file, NULL, "not valid JSON (near '%.20s')",
				     cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "");
	r = parse_root(file, root, m, err);
	cJSON_Delete(root);
	if (r < 0)
		man_free(m);
	return r;
}

int man_load(const char *images_dir, const char *name, struct manifest *m, struct hx_err *err)
{
	char path[1024];
	_cleanup_free_ char *text = NULL;
	size_t len = strlen(name);

	if (strchr(name, '/') || (len > 5 && strcmp(name + len - 5, ".json") == 0))
		snprintf(path, sizeof(path), "%s", name);
	else if (valid_check(valid_name, name, NULL, "image", err) < 0)
		return -err->errnum;
	else
		snprintf(path, sizeof(path), "%s/%s.json", images_dir, name);
	if (util_read_input(path, UTIL_MAX_JSON, &text, NULL, err) < 0) {
		if (err->errnum == ENOENT)
			return hx_fail(err, HX_EXIT_USAGE, ENOENT,
				       "no image '%s' (%s does not exist; 'harness images ls' lists them)", name, path);
		return -err->errnum;
	}
	return man_parse(path, text, m, err);
}

void man_free(struct manifest *m)
{
	for (size_t i = 0; i < MAN_MAX_ARGV; i++) {
		free(m->run[i]);
		free(m->version_command[i]);
		m->run[i] = m->version_command[i] = NULL;
	}
	for (size_t i = 0; i < MAN_MAX_ENV; i++) {
		free(m->env[i]);
		m->env[i] = NULL;
	}
}

void man_digest_id(const struct manifest *m, char *buf, size_t len)
{
	unsigned char raw[68];
	size_t off;

	if (m->source == MAN_SRC_URL) {
		snprintf(buf, len, "sha256-%s", m->sha256);
		return;
	}
	if (m->source == MAN_SRC_HOST || EVP_DecodeBlock(raw, (const unsigned char *)m->integrity + 7, 88) != 66) {
		snprintf(buf, len, "%s", "");
		return;
	}
	off = (size_t)snprintf(buf, len, "sha512-");
	for (int i = 0; i < 64 && off + 2 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%02x", raw[i]);
}

const char *man_family_of_file(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	for (size_t i = 0; i < HX_ARRAY_SIZE(man_families); i++) {
		size_t n = strlen(man_families[i]);

		if (strncmp(base, man_families[i], n) == 0 && strchr("-_.", base[n]))
			return man_families[i]; /* strchr finds the terminator too: "node" itself */
	}
	return "";
}

/* The numbers of a version up to the first character that is neither a digit nor a dot ("26.0.0-pre": 26 0 0). */
static void version_numbers(const char *v, unsigned long out[8])
{
	v += *v == 'v';
	for (size_t n = 0; n < 8 && isdigit((unsigned char)*v); n++) {
		char *end;

		out[n] = strtoul(v, &end, 10);
		if (*end != '.')
			break;
		v = end + 1;
	}
}

int man_version_cmp(const char *a, const char *b)
{
	unsigned long x[8] = {0}, y[8] = {0};

	version_numbers(a, x);
	version_numbers(b, y);
	for (size_t i = 0; i < 8; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

void man_packages_dir(const struct manifest *m, char *buf, size_t len)
{
	const char *slash = strrchr(m->file, '/');

	if (!m->packages[0])
		buf[0] = '\0';
	else if (slash)
		snprintf(buf, len, "%.*s/%s", (int)(slash - m->file), m->file, m->packages);
	else
		snprintf(buf, len, "%s", m->packages);
}

bool man_is_local(const struct manifest *m)
{
	return m->source == MAN_SRC_HOST && strncmp(m->entry, "/usr/", 5) != 0;
}
