/* Runtimes as the command line names them: shipped names and manifest files, local builds by path, npm specs. */
#include "image/spec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "base/valid.h"
#include "image/images.h"

#define SPEC_PINS "manifests" /* <cache>/manifests/<family>-<version>.json: the npm specs resolved and pinned */

/* The shipped image whose run template, environment and version command a runtime of the family takes. */
static const struct family_template {
	const char *family, *image;
} templates[] = {{"node", "node24"}, {"bun", "bun"}, {"deno", "deno"}, {"workerd", "workerd"}};

static int family_template(const char *family, struct manifest *ret, struct hx_err *err)
{
	for (size_t i = 0; i < HX_ARRAY_SIZE(templates); i++)
		if (strcmp(templates[i].family, family) == 0)
			return man_load(img_manifest_dir(), templates[i].image, ret, err);
	return hx_fail(err, HX_EXIT_INTERNAL, EINVAL, "no family %s", family);
}

void img_version_of(const char *line, char *buf, size_t len)
{
	const char *p = line;
	size_t n;

	while (*p && !isdigit((unsigned char)*p))
		p++;
	n = strspn(p, "0123456789.-+abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_");
	if (n >= len)
		n = len - 1;
	while (n && !isalnum((unsigned char)p[n - 1]))
		n--; /* "26.0.0." at the end of a sentence */
	snprintf(buf, len, "%.*s", (int)n, p);
}

/* A name for a build from its file name: "node", "node-main"; what valid_name refuses becomes '-'. */
static void name_of_file(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = 0;

	for (; base[n] && n + 1 < len && n < 63; n++) {
		char c = (char)tolower((unsigned char)base[n]);

		buf[n] = isalnum((unsigned char)c) || (n && strchr("._-", c)) ? c : '-';
	}
	buf[n] = '\0';
}

static int argv_len(char *const *argv)
{
	int n = 0;

	while (n < MAN_MAX_ARGV && argv[n])
		n++;
	return n;
}

/* The file is an ELF binary or a script (#!), not a manifest. */
static bool is_program(const char *path)
{
	char head[4] = {0};
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, head, sizeof(head)) < 2)
		return false;
	return memcmp(head, "\177ELF", 4) == 0 || memcmp(head, "#!", 2) == 0;
}

/* A local build by path: checked here (a regular file, executable, of a family its name says), run later in the
 * sandbox (prepare's version command) before the first trial. */
static int local_build(const char *spec, struct manifest *m, struct hx_err *err)
{
	char real[PATH_MAX];
	const char *family = man_family_of_file(spec);
	struct stat st;

	if (!realpath(spec, real) || stat(real, &st) < 0)
		return hx_fail(err, HX_EXIT_USAGE, errno, "runtime %s: %s (name a binary, a manifest or an npm spec)",
			       spec, strerror(errno));
	if (!S_ISREG(st.st_mode) || access(real, X_OK) < 0)
		return hx_fail(err, HX_EXIT_USAGE, EACCES, "runtime %s: %s is not an executable file (chmod +x it)",
			       spec, real);
	if (!family[0])
		family = man_family_of_file(real);
	if (!family[0])
		return hx_fail(
			err, HX_EXIT_USAGE, EINVAL,
			"runtime %s: its file name says no family: name it node, bun, deno or workerd (node-main "
			"too), or write a manifest with \"family\" and \"run\" (docs/manifest.md)",
			spec);
	if (valid_check(valid_abspath, real, NULL, "runtime", err) < 0 || family_template(family, m, err) < 0)
		return -err->errnum;
	name_of_file(spec, m->name, sizeof(m->name));
	snprintf(m->version, sizeof(m->version), "local"); /* its version command's, once it ran (prepare) */
	m->source = MAN_SRC_HOST;
	snprintf(m->path, sizeof(m->path), "%s", real);
	snprintf(m->entry, sizeof(m->entry), "%s", real);
	m->version_expect[0] = '\0';
	m->package[0] = m->pkg_version[0] = m->integrity[0] = '\0';
	snprintf(m->file, sizeof(m->file), "%s", real);
	snprintf(m->spec, sizeof(m->spec), "%s", spec);
	return 0;
}

/* "node@26.10.0", "node@22", "bun@latest": a family, '@', a version or a prefix of one; family gets the family. */
static bool npm_spec_of(const char *spec, char *family, size_t len, const char **range)
{
	const char *at = strchr(spec, '@');

	if (!at || at == spec || strchr(spec, '/') || (size_t)(at - spec) >= len)
		return false;
	snprintf(family, len, "%.*s", (int)(at - spec), spec);
	*range = at + 1;
	return strcmp(man_family_of_file(family), family) == 0;
}

static bool exact_version(const char *range)
{
	const char *p = range;
	int dots = 0;

	for (; *p && *p != '-' && *p != '+'; p++)
		dots += *p == '.';
	return dots == 2 && !valid_semver(range);
}

/* A range is "latest", a version (26.10.0, 27.0.0-rc.1) or the prefix of one (22, 22.5). */
static bool range_ok(const char *range)
{
	return strcmp(range, "latest") == 0 || exact_version(range) ||
	       (range[0] && strspn(range, "0123456789.") == strlen(range) && range[strlen(range) - 1] != '.' &&
		isdigit((unsigned char)range[0]) && !strstr(range, ".."));
}

/* The version the registry's document has for range: itself, the newest release of a prefix (no pre-release:
 * node@26 is not 26.0.0-rc.1), or dist-tags.latest. */
static bool pick_version(const cJSON *doc, const char *range, char *ret, size_t len)
{
	const cJSON *versions = cJSON_GetObjectItemCaseSensitive(doc, "versions"), *v;
	const cJSON *latest =
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "dist-tags"), "latest");
	size_t n = strlen(range);

	ret[0] = '\0';
	if (strcmp(range, "latest") == 0) {
		if (cJSON_IsString(latest) && strlen(latest->valuestring) < len)
			snprintf(ret, len, "%s", latest->valuestring);
	} else if (exact_version(range)) {
		if (cJSON_GetObjectItemCaseSensitive(versions, range))
			snprintf(ret, len, "%s", range);
	} else {
		cJSON_ArrayForEach (v, versions)
			if (strncmp(v->string, range, n) == 0 && v->string[n] == '.' && !strchr(v->string, '-') &&
			    strlen(v->string) < len && !valid_semver(v->string) &&
			    (!ret[0] || man_version_cmp(v->string, ret) > 0))
				snprintf(ret, len, "%s", v->string);
	}
	return ret[0] != '\0';
}

/* What the shipped image of the family says of its version, for another version: node's "v24.22.3" is
 * "v26.10.0", deno's "deno 2.9.6" "deno 2.9.5"; workerd prints the date its version has (1.20261117.1:
 * 2026-11-17); "" when none can be said. */
static void expect_for(const struct manifest *tmpl, const char *version, char *buf, size_t len)
{
	const char *at = strstr(tmpl->version_expect, tmpl->version);
	unsigned long date;

	buf[0] = '\0';
	if (at)
		snprintf(buf, len, "%.*s%s%s", (int)(at - tmpl->version_expect), tmpl->version_expect, version,
			 at + strlen(tmpl->version));
	else if (strcmp(tmpl->family, "workerd") == 0 && sscanf(version, "1.%8lu.", &date) == 1 && date > 19700101)
		snprintf(buf, len, "%04lu-%02lu-%02lu", date / 10000, date / 100 % 100, date % 100);
}

static void pin_path(const char *name, char *buf, size_t len)
{
	char root[PATH_MAX];

	img_cache_path(root, sizeof(root));
	snprintf(buf, len, "%s/" SPEC_PINS "/%s.json", root, name);
}

bool img_npm_pick(const char *doc, const char *range, char *ret, size_t len)
{
	cJSON *root = cJSON_Parse(doc);
	bool ok = range_ok(range) && pick_version(root, range, ret, len);

	cJSON_Delete(root);
	return ok;
}

/* The registry's version and integrity for the spec, into m (the family's shipped image as a template). */
static int npm_resolve(const char *spec, const char *range, struct manifest *m, struct hx_err *err)
{
	_cleanup_free_ char *text = NULL;
	const cJSON *integrity;
	cJSON *doc;
	char version[64], expect[128];
	int rc = 0;

	if (img_npm_document(m->package, &text, err) < 0) {
		err->exit = HX_EXIT_HOST;
		return hx_wrap(err, "runtime %s", spec);
	}
	doc = cJSON_Parse(text);
	if (!pick_version(doc, range, version, sizeof(version)) || valid_label(version)) {
		cJSON_Delete(doc);
		return hx_fail(err, HX_EXIT_USAGE, ENOENT,
			       "runtime %s: the registry has no %s version %s (npm view %s versions --json lists them)",
			       spec, m->package, range, m->package);
	}
	integrity = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "versions"), version),
			"dist"),
		"integrity");
	if (!cJSON_IsString(integrity) || strncmp(integrity->valuestring, "sha512-", 7) != 0 ||
	    strlen(integrity->valuestring) >= sizeof(m->integrity))
		rc = hx_fail(err, HX_EXIT_HOST, EBADMSG, "runtime %s: the registry gives %s@%s no sha512 integrity",
			     spec, m->package, version);
	else
		snprintf(m->integrity, sizeof(m->integrity), "%s", integrity->valuestring);
	cJSON_Delete(doc);
	if (rc < 0)
		return rc;
	expect_for(m, version, expect, sizeof(expect));
	snprintf(m->version_expect, sizeof(m->version_expect), "%s", expect);
	snprintf(m->name, sizeof(m->name), "%s-%s", m->family, version);
	snprintf(m->version, sizeof(m->version), "%s", version);
	snprintf(m->pkg_version, sizeof(m->pkg_version), "%s", version);
	return 0;
}

/* family@version: a pinned manifest of an exact version is taken as it is (no registry); anything else is
 * resolved through the registry, and must agree with a pin of the version it resolves to. */
static int npm_spec(const char *spec, const char *family, const char *range, struct manifest *m, char *note,
		    size_t note_len, struct hx_err *err)
{
	char pin[PATH_MAX + 80], integrity[160];
	struct manifest pinned;

	if (!range_ok(range))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "runtime %s: expected %s@VERSION (26.10.0), a prefix (22, 22.5) or latest", spec,
			       family);
	pin_path("", pin, sizeof(pin));
	snprintf(pin + strlen(pin) - 5, sizeof(pin) - strlen(pin) + 5, "%s-%s.json", family, range);
	if (exact_version(range) && util_exists(pin)) {
		if (man_load(img_manifest_dir(), pin, m, err) < 0)
			return -err->errnum;
		snprintf(m->spec, sizeof(m->spec), "%s", spec);
		return 0;
	}
	if (family_template(family, m, err) < 0)
		return -err->errnum;
	if (npm_resolve(spec, range, m, err) < 0) {
		man_free(m);
		return -err->errnum;
	}
	snprintf(m->spec, sizeof(m->spec), "%s", spec);
	snprintf(m->file, sizeof(m->file), "%s", spec);
	pin_path(m->name, pin, sizeof(pin));
	snprintf(integrity, sizeof(integrity), "%s", m->integrity);
	if (util_exists(pin) && man_load(img_manifest_dir(), pin, &pinned, err) == 0) {
		bool same = strcmp(pinned.integrity, integrity) == 0;

		man_free(&pinned);
		if (!same)
			man_free(m);
		if (!same)
			return hx_fail(err, HX_EXIT_HOST, EBADMSG,
				       "runtime %s: the registry's integrity for %s@%s is %s, pinned in %s as another: "
				       "refused (remove the pin to take the registry's)",
				       spec, m->package, m->version, integrity, pin);
	}
	if (!exact_version(range))
		snprintf(note, note_len, "%s is %s %s (%s %.19s…)", spec, family, m->version, m->package, integrity);
	return 0;
}

int img_spec_pin(const struct manifest *m, struct hx_err *err)
{
	char pin[PATH_MAX + 80], *text;
	cJSON *o, *src, *env;
	int rc;

	if (!m->spec[0] || m->source != MAN_SRC_NPM)
		return 0;
	pin_path(m->name, pin, sizeof(pin));
	if (util_exists(pin))
		return 0;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", m->name);
	cJSON_AddStringToObject(o, "version", m->version);
	cJSON_AddStringToObject(o, "kind", "runtime");
	cJSON_AddStringToObject(o, "family", m->family);
	cJSON_AddStringToObject(o, "description", "resolved from an npm spec and pinned by its integrity");
	src = cJSON_AddObjectToObject(o, "source");
	cJSON_AddStringToObject(src, "type", "npm");
	cJSON_AddStringToObject(src, "package", m->package);
	cJSON_AddStringToObject(src, "version", m->pkg_version);
	cJSON_AddStringToObject(src, "integrity", m->integrity);
	cJSON_AddStringToObject(o, "entry", m->entry);
	cJSON_AddItemToObject(o, "run", cJSON_CreateStringArray((const char *const *)m->run, argv_len(m->run)));
	env = cJSON_AddObjectToObject(o, "env");
	for (size_t i = 0; i < MAN_MAX_ENV && m->env[i]; i++) {
		char kv[1024], *eq;

		snprintf(kv, sizeof(kv), "%s", m->env[i]);
		eq = strchr(kv, '=');
		*eq = '\0';
		cJSON_AddStringToObject(env, kv, eq + 1);
	}
	if (m->version_command[0])
		cJSON_AddItemToObject(
			o, "version_command",
			cJSON_CreateStringArray((const char *const *)m->version_command, argv_len(m->version_command)));
	if (m->version_expect[0])
		cJSON_AddStringToObject(o, "version_expect", m->version_expect);
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (!text)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	*strrchr(pin, '/') = '\0';
	rc = util_mkdir_p(pin, 0755) < 0 ? hx_syserr(err, "image cache: %s", pin) : 0;
	pin[strlen(pin)] = '/';
	if (rc == 0)
		rc = util_write_atomic(pin, text, strlen(text), err);
	free(text);
	return rc < 0 ? hx_wrap(err, "runtime %s: pinning it", m->spec) : 0;
}

int img_spec_load(const char *spec, struct manifest *m, char *note, size_t note_len, struct hx_err *err)
{
	size_t len = strlen(spec);
	char family[16], pin[PATH_MAX + 80];
	const char *range;

	note[0] = '\0';
	if (strchr(spec, '/') && !(len > 5 && strcmp(spec + len - 5, ".json") == 0) && is_program(spec))
		return local_build(spec, m, err);
	if (npm_spec_of(spec, family, sizeof(family), &range))
		return npm_spec(spec, family, range, m, note, note_len, err);
	if (!strchr(spec, '/') && !valid_name(spec)) {
		snprintf(pin, sizeof(pin), "%s/%s.json", img_manifest_dir(), spec);
		if (!util_exists(pin))
			pin_path(spec, pin, sizeof(pin));
		if (util_exists(pin)) /* a spec pulled earlier, by the name images ls shows */
			return man_load(img_manifest_dir(), pin, m, err);
	}
	return man_load(img_manifest_dir(), spec, m, err);
}

size_t img_spec_pins(char names[][64], size_t max)
{
	char dir[PATH_MAX + 80];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	size_t n = 0;

	pin_path("", dir, sizeof(dir));
	*strrchr(dir, '/') = '\0';
	d = opendir(dir);
	while (d && (de = readdir(d)) && n < max) {
		size_t len = strlen(de->d_name);

		if (len > 5 && len < 64 && de->d_name[0] != '.' && strcmp(de->d_name + len - 5, ".json") == 0)
			snprintf(names[n++], 64, "%.*s", (int)(len - 5), de->d_name);
	}
	qsort(names, n, 64, (int (*)(const void *, const void *))strcmp);
	return n;
}
