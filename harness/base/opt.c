/* Table-driven command-line option parsing shared by every verb. */
#include "base/opt.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static const struct hx_opt *opt_find_long(const struct hx_opt *tab, const char *name, size_t len)
{
	for (; tab->name; tab++)
		if (strlen(tab->name) == len && strncmp(tab->name, name, len) == 0)
			return tab;
	return NULL;
}

static const struct hx_opt *opt_find_short(const struct hx_opt *tab, char c)
{
	for (; tab->name; tab++)
		if (tab->short_name && tab->short_name == c)
			return tab;
	return NULL;
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
		*(const char **)field = val;
		return 0;
	case OPT_UINT:
		if (util_parse_u64(val, &u) < 0 || u > UINT32_MAX)
			break;
		*(unsigned *)field = (unsigned)u;
		return 0;
	case OPT_SIZE:
		if (util_parse_size(val, &u) < 0)
			break;
		*(uint64_t *)field = u;
		return 0;
	case OPT_DURATION:
		if (util_parse_duration(val, &d) < 0)
			break;
		*(double *)field = d;
		return 0;
	case OPT_NUMBER: {
		char *end;

		d = strtod(val, &end);
		if (end == val || *end || !(d >= 0) || d > 1e12)
			break;
		*(double *)field = d;
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
	return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s: --%s takes %s, not '%s' (see 'harness %s --help')", verb,
		       o->name, o->arg ? o->arg : "a value", val, verb);
}

/* One option at argv[*i]; advances *i past a separate argument. */
static int opt_one(const char *verb, const struct hx_opt *tab, void *out, int argc, char **argv, int *i,
		   struct hx_err *err)
{
	const char *a = argv[*i];
	const struct hx_opt *o;
	const char *val = NULL;
	const char *shown = a;

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
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s: unknown option '%s' (see 'harness %s --help')", verb,
			       shown, verb);
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
		fprintf(f, "  %-28s %s\n", left, tab->help);
	}
}
