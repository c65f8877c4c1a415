/* Validators for outside strings: allow-lists, never deny-lists, so what is not described is refused. */
#include "base/valid.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

const char *valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > VALID_NAME_MAX)
		return "is not a name of 1 to 63 characters";
	if (!is_lower_alnum(s[0]) || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-") != n)
		return "is not a name: use lowercase letters, digits, '.', '_' and '-', starting with a letter or "
		       "digit";
	return NULL;
}

const char *valid_metric(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 31 || !(s[0] >= 'a' && s[0] <= 'z') ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return "is not a metric name: 1 to 31 lowercase letters, digits and '_', starting with a letter";
	return NULL;
}

const char *valid_url_path(const char *s)
{
	if (s[0] != '/' || strlen(s) > VALID_PATH_MAX)
		return "is not a URL path starting with '/' (at most 1023 characters)";
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f || *s == '#' || *s == '\\')
			return "has white space, a control character, '#', '\\' or a non-ASCII byte";
	return NULL;
}

const char *valid_argument(const char *s)
{
	if (strlen(s) > 4096)
		return "is longer than 4096 characters";
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return "has a control character";
	return NULL;
}

const char *valid_env_name(const char *s)
{
	if (!s[0] || strlen(s) > 128 || (s[0] >= '0' && s[0] <= '9'))
		return "is not a variable name";
	for (; *s; s++)
		if (!is_alnum(*s) && *s != '_')
			return "is not a variable name: use letters, digits and '_'";
	return NULL;
}

const char *valid_label(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > VALID_VERSION_MAX || !is_alnum(s[0]))
		return "is not a version label of 1 to 63 characters starting with a letter or digit";
	for (; *s; s++)
		if (!is_alnum(*s) && !strchr("._+-", *s))
			return "is not a version label: use letters, digits, '.', '_', '+' and '-'";
	return NULL;
}

/* One part of a package name: what encodeURIComponent leaves alone, less npm's "special characters"
 * (~'!()*) and upper case, which new packages may not use. */
static bool npm_part_ok(const char *s, size_t n)
{
	if (n == 0 || s[0] == '.' || s[0] == '_')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

const char *valid_npm_package(const char *s)
{
	static const char rule[] =
		"is not an npm package name (\"name\" or \"@scope/name\": lowercase letters, digits, '.', '_' and "
		"'-', not starting with '.' or '_', at most 214 characters)";
	size_t n = strlen(s);
	const char *slash = strchr(s, '/');

	if (n == 0 || n > VALID_NPM_MAX)
		return rule;
	if (s[0] == '@') {
		if (!slash || !npm_part_ok(s + 1, (size_t)(slash - s - 1)) ||
		    !npm_part_ok(slash + 1, strlen(slash + 1)))
			return rule;
		return NULL;
	}
	if (slash || !npm_part_ok(s, n) || strcmp(s, "node_modules") == 0 || strcmp(s, "favicon.ico") == 0)
		return rule;
	return NULL;
}

/* A numeric identifier: digits, no leading zero; advances *p. */
static bool semver_number(const char **p)
{
	const char *s = *p;
	size_t n = strspn(s, "0123456789");

	if (n == 0 || (n > 1 && s[0] == '0'))
		return false;
	*p = s + n;
	return true;
}

/* Dot-separated identifiers of [0-9A-Za-z-]; numeric ones without leading zeros when `numeric_rule`. */
static bool semver_idents(const char **p, bool numeric_rule)
{
	const char *s = *p;

	for (;;) {
		size_t n = 0;
		bool digits = true;

		while (is_alnum(s[n]) || s[n] == '-') {
			digits &= s[n] >= '0' && s[n] <= '9';
			n++;
		}
		if (n == 0 || (numeric_rule && digits && n > 1 && s[0] == '0'))
			return false;
		s += n;
		if (*s != '.')
			break;
		s++;
	}
	*p = s;
	return true;
}

const char *valid_semver(const char *s)
{
	static const char rule[] = "is not a semantic version (MAJOR.MINOR.PATCH, optionally -prerelease and +build)";
	const char *p = s;

	if (strlen(s) > VALID_VERSION_MAX)
		return rule;
	if (!semver_number(&p) || *p++ != '.' || !semver_number(&p) || *p++ != '.' || !semver_number(&p))
		return rule;
	if (*p == '-' && (p++, !semver_idents(&p, true)))
		return rule;
	if (*p == '+' && (p++, !semver_idents(&p, false)))
		return rule;
	return *p ? rule : NULL;
}

const char *valid_url(const char *s)
{
	const char *host, *end;

	if (strlen(s) > VALID_URL_MAX)
		return "is longer than 2047 characters";
	if (strncmp(s, "https://", 8) == 0)
		host = s + 8;
	else if (strncmp(s, "http://", 7) == 0)
		host = s + 7;
	else
		return "is not an http or https URL";
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f || *c == '\\')
			return "has white space, a backslash or a control character";
	end = host + strcspn(host, "/?#");
	if (end == host)
		return "has no host";
	if (memchr(host, '@', (size_t)(end - host)))
		return "carries a user name or password (user@host): keep credentials in the npm or curl configuration";
	return NULL;
}

/* A '..' component anywhere in a '/'-separated path. */
static bool has_dotdot(const char *s)
{
	for (const char *c = s; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return true;
		c += n;
		c += *c == '/';
	}
	return false;
}

const char *valid_relpath(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > VALID_PATH_MAX)
		return "is not a path of 1 to 1023 characters";
	if (s[0] == '/')
		return "is an absolute path: give a path inside the folder";
	if (has_dotdot(s))
		return "has a '..' component: give a path inside the folder";
	if (has_control(s))
		return "has a control character";
	return NULL;
}

const char *valid_abspath(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > VALID_PATH_MAX || s[0] != '/')
		return "is not an absolute path of at most 1023 characters";
	if (has_dotdot(s))
		return "has a '..' component";
	if (has_control(s))
		return "has a control character";
	return NULL;
}

const char *valid_json_text(const char *text, size_t len)
{
	bool in_string = false;

	if (memchr(text, '\0', len))
		return "has a NUL byte";
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '"') {
			in_string = !in_string;
		} else if (in_string && text[i] == '\\' && i + 1 < len) {
			if (text[i + 1] == 'u' && i + 5 < len && strncmp(text + i + 2, "0000", 4) == 0)
				return "has a \\u0000 escape (a NUL character)";
			i++; /* the escaped character, a '"' or '\\' included */
		}
	}
	return NULL;
}

void valid_quote(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; s[i] && o + 5 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == 64) {
			o += (size_t)snprintf(buf + o, len - o, "...");
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o < len ? o : len - 1] = '\0';
}

int valid_check(const char *(*fn)(const char *), const char *s, const char *file, const char *field, struct hx_err *err)
{
	const char *rule = fn(s);
	char q[300];

	if (!rule)
		return 0;
	valid_quote(s, q, sizeof(q));
	if (!file)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s%s'%s' %s", field ? field : "", field ? ": " : "", q,
			       rule);
	return hx_fail_field(err, file, field, "'%s' %s", q, rule);
}
