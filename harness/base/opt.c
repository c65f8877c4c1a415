/* Table-driven command-line option parsing shared by every verb. */
#include "base/opt.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"

static const struct hx_opt *opt_find_long(const struct hx_opt *tab, const char *name, size_t len)
{
	for (; tab->name; tab++)
		if (strlen(tab->name) == len && strncmp(tab->name, name, len) == 0)
			return tab;
	return NULL;
}

/* Edits from a to b, a swap of two neighbours counting one (optimal string alignment); capped at 99. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[3][64];
	size_t *prev2 = d[0], *prev = d[1], *cur = d[2];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = prev[j - 1] + cost;

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

/* A typo is at most 2 edits and fewer than half the word's own letters: "bnu" is "bun", "x" is nothing. */
static bool close_enough(const char *word, size_t dist)
{
	return dist <= 2 && dist * 2 < strlen(word);
}

const char *opt_suggest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = 99;

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, names[i]);

		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	return best && close_enough(word, best_d) ? best : NULL;
}

bool opt_suggest_in_dir(const char *dir, const char *suffix, const char *word, char *ret, size_t len)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	size_t best_d = 99, sl = strlen(suffix);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		size_t nl = strlen(de->d_name), dist;
		char name[256];

		if (de->d_name[0] == '.' || nl <= sl || strcmp(de->d_name + nl - sl, suffix) != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(nl - sl), de->d_name);
		dist = edit_distance(word, name);
		if (dist < best_d && close_enough(word, dist)) {
			best_d = dist;
			snprintf(ret, len, "%s", name);
		}
	}
	return best_d < 99;
}

static const struct hx_opt *opt_find_short(const struct hx_opt *tab, char c)
{
	for (; tab->name; tab++)
		if (tab->short_name && tab->short_name == c)
			return tab;
	return NULL;
}

/* A size as the user would write it: 4M rather than 4194304. */
static void size_text(double v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && v >= 1024 && v == (double)(uint64_t)(v / 1024) * 1024) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%.0f bytes", v);
	else
		snprintf(buf, len, "%.0f%c", v, units[u]);
}

static void value_text(const struct hx_opt *o, double v, char *buf, size_t len)
{
	if (o->kind == OPT_SIZE)
		size_text(v, buf, len);
	else if (o->kind == OPT_DURATION)
		snprintf(buf, len, "%.15gs", v);
	else
		snprintf(buf, len, "%.15g", v);
}

void opt_range_text(const struct hx_opt *o, char *buf, size_t len)
{
	char lo[32], hi[32];

	value_text(o, o->min, lo, sizeof(lo));
	value_text(o, o->max, hi, sizeof(hi));
	if (o->max > 0 && o->min > 0)
		snprintf(buf, len, "%s to %s", lo, hi);
	else if (o->max > 0)
		snprintf(buf, len, "at most %s", hi);
	else if (o->min > 0)
		snprintf(buf, len, "at least %s", lo);
	else
		snprintf(buf, len, "%s", o->arg ? o->arg : "a value");
}

static bool has_range(const struct hx_opt *o)
{
	return o->min > 0 || o->max > 0;
}

/* "--memory takes a size of at least 4M (e.g. 512M, 2G), not '1K'": the form and the range in one line. */
static int bad_value(const char *verb, const struct hx_opt *o, const char *val, struct hx_err *err)
{
	static const char *const kinds[] = {
		[OPT_UINT] = "a whole number", [OPT_COUNT] = "a whole number", [OPT_SIZE] = "a size",
		[OPT_DURATION] = "a duration", [OPT_NUMBER] = "a number",      [OPT_PERCENT] = "a percentage",
	};
	static const char *const examples[] = {
		[OPT_SIZE] = " (e.g. 512M, 2G)",
		[OPT_DURATION] = " (e.g. 500ms, 10s)",
		[OPT_PERCENT] = " (e.g. 5%)",
	};
	char range[96];

	opt_range_text(o, range, sizeof(range));
	if (!has_range(o) || o->kind >= HX_ARRAY_SIZE(kinds) || !kinds[o->kind])
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s: --%s takes %s, not '%s' (see 'harness %s --help')",
			       verb, o->name, range, val, verb);
	return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s: --%s takes %s %s%s%s, not '%s'", verb, o->name, kinds[o->kind],
		       o->min > 0 && o->max > 0 ? "from " : "of ", range,
		       o->kind < HX_ARRAY_SIZE(examples) && examples[o->kind] ? examples[o->kind] : "", val);
}

static bool in_range(const struct hx_opt *o, double v)
{
	return v >= o->min && (o->max <= 0 || v <= o->max);
}

static int check_path(const char *verb, const struct hx_opt *o, const char *val, struct hx_err *err)
{
	struct stat st;

	if (!*val)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s: --%s takes %s, not an empty string", verb, o->name,
			       o->arg ? o->arg : "a path");
	if (o->check == OPT_CHECK_DIR) {
		if (stat(val, &st) < 0 || !S_ISDIR(st.st_mode))
			return hx_fail(err, HX_EXIT_USAGE, errno ? errno : ENOTDIR,
				       "%s: --%s: '%s' is not an existing folder", verb, o->name, val);
		return 0;
	}
	if (o->check == OPT_CHECK_IN_FILE) {
		if (stat(val, &st) == 0 && S_ISDIR(st.st_mode))
			return hx_fail(err, HX_EXIT_USAGE, EISDIR, "%s: --%s: '%s' is a folder; name a file", verb,
				       o->name, val);
		if (access(val, R_OK) < 0)
			return hx_fail(err, HX_EXIT_USAGE, errno, "%s: --%s: cannot read '%s': %s", verb, o->name, val,
				       strerror(errno));
		return 0;
	}
	return opt_check_out_file(verb, o->name, val, err);
}

/* Filesystems whose files are the kernel's knobs and views, not a place for a file of ours. */
static const char *kernel_fs(const char *dir)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} kinds[] = {
		{0x9fa0, "/proc (procfs)"}, {0x62656572, "sysfs"},    {0x27e0eb, "a cgroup filesystem"},
		{0x63677270, "cgroup2"},    {0x64626720, "debugfs"},  {0x74726163, "tracefs"},
		{0x73636673, "securityfs"}, {0xcafe4a11, "bpffs"},    {0x62656570, "configfs"},
		{0x6165676c, "pstore"},	    {0xde5e81e4, "efivarfs"}, {0x1cd1, "devpts"},
	};
	struct statfs sf;

	if (statfs(dir, &sf) < 0)
		return NULL;
	for (size_t i = 0; i < HX_ARRAY_SIZE(kinds); i++)
		if ((unsigned long)sf.f_type == kinds[i].magic)
			return kinds[i].name;
	return NULL;
}

int opt_check_out_file(const char *verb, const char *opt, const char *path, struct hx_err *err)
{
	_cleanup_free_ char *copy = strdup(path);
	const char *dir, *fs;
	struct stat st;
	char *slash;

	if (!copy)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return hx_fail(err, HX_EXIT_USAGE, EISDIR, "%s: --%s: '%s' is a folder; name a file in it", verb, opt,
			       path);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "%s: --%s: '%s' is not a regular file (a device, pipe or socket): name a file", verb,
			       opt, path);
	slash = strrchr(copy, '/');
	dir = slash ? (slash == copy ? "/" : (*slash = '\0', copy)) : ".";
	if (stat(dir, &st) < 0)
		return hx_fail(err, HX_EXIT_USAGE, ENOENT,
			       "%s: --%s: the folder '%s' does not exist (create it first, or write elsewhere)", verb,
			       opt, dir);
	if (!S_ISDIR(st.st_mode))
		return hx_fail(err, HX_EXIT_USAGE, ENOTDIR, "%s: --%s: '%s' is not a folder", verb, opt, dir);
	if ((fs = kernel_fs(dir)))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "%s: --%s: the folder '%s' is on %s, the kernel's files: write elsewhere", verb, opt,
			       dir, fs);
	if (access(dir, W_OK | X_OK) < 0 && errno == EROFS)
		return hx_fail(err, HX_EXIT_USAGE, EROFS,
			       "%s: --%s: the folder '%s' is on a read-only filesystem: write elsewhere", verb, opt,
			       dir);
	if (access(dir, W_OK | X_OK) < 0)
		return hx_fail(err, HX_EXIT_USAGE, errno,
			       "%s: --%s: cannot write in the folder '%s' (%s): write elsewhere, or make it writable",
			       verb, opt, dir, strerror(errno));
	return 0;
}

static int opt_store(const char *verb, const struct hx_opt *o, void *out, const char *val, struct hx_err *err)
{
	char *field = (char *)out + o->offset;
	uint64_t u;
	double d;

	switch (o->kind) {
	case OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_STR:
		if (o->check != OPT_CHECK_NONE && check_path(verb, o, val, err) < 0)
			return -err->errnum;
		*(const char **)field = val;
		return 0;
	case OPT_UINT:
		if (util_parse_u64(val, &u) < 0 || u > UINT32_MAX || !in_range(o, (double)u))
			break;
		*(unsigned *)field = (unsigned)u;
		return 0;
	case OPT_COUNT:
		if (util_parse_u64(val, &u) < 0 || !in_range(o, (double)u))
			break;
		*(uint64_t *)field = u;
		return 0;
	case OPT_SIZE:
		if (util_parse_size(val, &u) < 0 || !in_range(o, (double)u))
			break;
		*(uint64_t *)field = u;
		return 0;
	case OPT_DURATION:
		if (util_parse_duration(val, &d) < 0 || !in_range(o, d))
			break;
		*(double *)field = d;
		return 0;
	case OPT_NUMBER: {
		char *end;

		d = strtod(val, &end);
		if (end == val || *end || !(d >= 0) || d > 1e12 || !in_range(o, d))
			break;
		*(double *)field = d;
		return 0;
	}
	case OPT_PERCENT: {
		char *end;

		d = strtod(val, &end);
		end += *end == '%';
		if (end == val || *end || !(d > 0) || !in_range(o, d))
			break;
		*(double *)field = d / 100;
		return 0;
	}
	case OPT_LIST: {
		struct opt_list *l = (struct opt_list *)field;

		if (l->n == OPT_LIST_MAX)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "%s: --%s given more than %d times", verb, o->name,
				       OPT_LIST_MAX);
		l->items[l->n++] = val;
		return 0;
	}
	}
	return bad_value(verb, o, val, err);
}

/* "run: unknown option '--profle'; did you mean '--profile'?" when one of the table's names is a typo away. */
static int unknown_option(const char *verb, const struct hx_opt *tab, const char *a, struct hx_err *err)
{
	const char *names[128], *near = NULL;
	size_t n = 0, len = strcspn(a, "=");
	char word[64];

	for (; tab->name && n < HX_ARRAY_SIZE(names); tab++)
		names[n++] = tab->name;
	snprintf(word, sizeof(word), "%.*s", (int)(len - 2), a + 2);
	if (a[1] == '-' && len > 2)
		near = opt_suggest(word, names, n);
	if (near)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "%s: unknown option '%.*s'; did you mean '--%s'? (see 'harness "
			       "%s --help')",
			       verb, (int)len, a, near, verb);
	return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s: unknown option '%s' (see 'harness %s --help')", verb, a, verb);
}

/* One option at argv[*i]; advances *i past a separate argument. */
static int opt_one(const char *verb, const struct hx_opt *tab, void *out, int argc, char **argv, int *i,
		   struct hx_err *err)
{
	const char *a = argv[*i];
	const struct hx_opt *o;
	const char *val = NULL;

	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

		o = opt_find_long(tab, a + 2, len);
		if (eq)
			val = eq + 1;
	} else {
		o = a[2] ? NULL : opt_find_short(tab, a[1]);
	}
	if (!o)
		return unknown_option(verb, tab, a, err);
	if (o->kind == OPT_FLAG) {
		if (val)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s: --%s takes no value", verb, o->name);
		return opt_store(verb, o, out, NULL, err);
	}
	if (!val) {
		if (*i + 1 >= argc)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s: --%s needs %s (see 'harness %s --help')", verb,
				       o->name, o->arg ? o->arg : "a value", verb);
		val = argv[++*i];
	}
	return opt_store(verb, o, out, val, err);
}

int opt_parse(const char *verb, const struct hx_opt *tab, void *out, int argc, char **argv, bool stop_at_positional,
	      int *ret_npos, struct hx_err *err)
{
	int npos = 0;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++)
				argv[1 + npos++] = argv[i];
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			if (stop_at_positional) {
				for (; i < argc; i++)
					argv[1 + npos++] = argv[i];
				break;
			}
			argv[1 + npos++] = argv[i];
			continue;
		}
		if (opt_one(verb, tab, out, argc, argv, &i, err) < 0)
			return -err->errnum;
	}
	*ret_npos = npos;
	return 0;
}

void opt_print_help(FILE *f, const char *usage, const char *about, const struct hx_opt *tab)
{
	fprintf(f, "Usage: %s\n\n%s\n", usage, about);
	if (!tab->name)
		return;
	fprintf(f, "\nOptions:\n");
	for (; tab->name; tab++) {
		char left[64];

		if (tab->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", tab->short_name, tab->name, tab->arg ? " " : "",
				 tab->arg ? tab->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", tab->name, tab->arg ? " " : "",
				 tab->arg ? tab->arg : "");
		if (has_range(tab)) {
			char range[96];

			opt_range_text(tab, range, sizeof(range));
			fprintf(f, "  %-28s %s [%s]\n", left, tab->help, range);
		} else {
			fprintf(f, "  %-28s %s\n", left, tab->help);
		}
	}
}
