/* Parse-time checks for every outside string (scenario, manifest, lock file, command line) that becomes a
 * path, an argv element or a file name. Each returns NULL when the string is acceptable, else the rule it
 * breaks, for a message "<file>: <field>: '<value>' <rule>" (valid_fail). See docs/sandbox.md, "Inputs". */
#ifndef HX_VALID_H
#define HX_VALID_H

#include <stddef.h>

#include "base/err.h"

#define VALID_NAME_MAX	  63  /* scenario, image, runtime and metric names */
#define VALID_NPM_MAX	  214 /* npm's limit on a package name */
#define VALID_VERSION_MAX 63
#define VALID_URL_MAX	  2047
#define VALID_PATH_MAX	  1023

/* A name used as a file name: [a-z0-9][a-z0-9._-]*, at most VALID_NAME_MAX characters. */
const char *valid_name(const char *s);
/* A metric a script reports: [a-z][a-z0-9_]*, at most 31 characters. */
const char *valid_metric(const char *s);
/* The path of an http or ws URL: '/' then printable ASCII without white space, '#' or '\\'. */
const char *valid_url_path(const char *s);
/* An argv element or environment value: any text without control characters (a tab allowed). */
const char *valid_argument(const char *s);
/* An environment variable's name: [A-Za-z_][A-Za-z0-9_]*. */
const char *valid_env_name(const char *s);
/* A free-form version label (an image's "20", "1.20261117.1"): [A-Za-z0-9][A-Za-z0-9._+-]*. */
const char *valid_label(const char *s);
/* An npm package name by npm's rules for new packages (validate-npm-package-name): "name" or
 * "@scope/name", lowercase, URL-safe, no leading '.' or '_', at most 214 characters. */
const char *valid_npm_package(const char *s);
/* A semantic version (semver.org 2.0.0): MAJOR.MINOR.PATCH[-pre][+build], no leading zeros. */
const char *valid_semver(const char *s);
/* An http or https URL with a host, no user:password@, no white space or control characters. */
const char *valid_url(const char *s);
/* A relative path inside a folder: not absolute, no '..' component, no control characters. */
const char *valid_relpath(const char *s);
/* An absolute path with no '..' component and no control characters. */
const char *valid_abspath(const char *s);
/* JSON text from a file: no NUL byte and no \u0000 escape (cJSON would cut the string short there). */
const char *valid_json_text(const char *text, size_t len);

/* Quote s for a message: printable ASCII kept, the rest as \xNN, cut at 64 characters. */
void valid_quote(const char *s, char *buf, size_t len);
/* Check s with fn; on failure "<file>: <field>: '<s>' <rule>", exit 2 (file or field may be NULL). */
int valid_check(const char *(*fn)(const char *), const char *s, const char *file, const char *field,
		struct hx_err *err);

#endif
