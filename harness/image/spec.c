/* Runtimes as the command line names them: shipped names and manifest files, local builds by path, npm specs. */
#include "image/spec.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "base/valid.h"
#include "image/images.h"

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

bool img_is_local(const struct manifest *m)
{
	return m->source == MAN_SRC_HOST && strncmp(m->entry, "/usr/", 5) != 0;
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

int img_spec_load(const char *spec, struct manifest *m, char *note, size_t note_len, struct hx_err *err)
{
	size_t len = strlen(spec);

	note[0] = '\0';
	(void)note_len;
	if (strchr(spec, '/') && !(len > 5 && strcmp(spec + len - 5, ".json") == 0) && is_program(spec))
		return local_build(spec, m, err);
	return man_load(img_manifest_dir(), spec, m, err);
}
