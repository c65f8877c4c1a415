/* The man page and the bash and zsh completions, made from the verbs' option tables at build time (`harness
 * --dump man|bash|zsh`), so that neither can list an option the program lacks or miss one it has. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/opt.h"
#include "cli/verbs.h"

/* roff text: a backslash, a leading dot or quote and a hyphen each made literal. */
static void roff(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

static void man_option(FILE *out, const struct hx_opt *o)
{
	char range[96];

	fputs(".TP\n", out);
	if (o->short_name)
		fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
	fputs("\\fB\\-\\-", out);
	roff(out, o->name);
	fputs("\\fR", out);
	if (o->arg) {
		fputs(" \\fI", out);
		roff(out, o->arg);
		fputs("\\fR", out);
	}
	fputs("\n", out);
	roff(out, o->help);
	if (o->min > 0 || o->max > 0) {
		opt_range_text(o, range, sizeof(range));
		fputs(" [", out);
		roff(out, range);
		fputs("]", out);
	}
	fputs("\n", out);
}

static const struct {
	const char *name, *what;
} man_env[] = {
	{"HARNESS_CACHE_DIR", "the image cache (default: /var/cache/harness for root, else $XDG_CACHE_HOME/harness)"},
	{"HARNESS_IMAGES_DIR", "the folder of image manifests, instead of the shipped images/ (it replaces them: copy "
			       "the shipped manifests into it to keep them)"},
	{"HARNESS_SCENARIOS_DIR", "the folder of scenarios, instead of the shipped scenarios/"},
	{"HARNESS_RUN_TAG", "a tag in the names of the run's cgroup trees (harness gc removes only trees of its tag)"},
};

static void man_page(const struct verb_info *verbs, size_t n, FILE *out)
{
	fputs(".TH HARNESS 1 \"\" \"harness\" \"User Commands\"\n.SH NAME\nharness \\- reproducible, sandboxed "
	      "benchmarks of JavaScript runtimes\n.SH SYNOPSIS\n.B harness\n.I VERB\n[\\fIOPTIONS\\fR] "
	      "[\\fIARGS\\fR]\n.br\n.B harness\n\\-\\-help | \\-\\-version\n.SH DESCRIPTION\nharness runs each "
	      "runtime and a Postgres fixture in namespace sandboxes inside cgroup slices it creates (pinned CPUs, "
	      "memory limits), runs the load client in a slice of its own, and writes a results file that report, "
	      "compare and merge read back.\n.SH VERBS\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		fputs(".SS ", out);
		roff(out, verbs[i].name);
		if (verbs[i].subverbs) {
			fputs(" ", out);
			roff(out, verbs[i].subverbs);
		}
		fputs("\n", out);
		roff(out, verbs[i].synopsis);
		fputs(".\n", out);
		for (const struct hx_opt *o = *verbs[i].opts; o->name; o++)
			man_option(out, o);
	}
	fputs(".SH EXIT STATUS\n.TP\n0\nok\n.TP\n1\nthe benchmark ran but its verdict failed (errors, a broken "
	      "invariant)\n.TP\n2\nbad usage or input\n.TP\n3\nthis host cannot do what was asked (not enough CPUs, "
	      "no cgroup delegation, ...)\n.TP\n4\ninternal failure\n.PP\nharness exec exits with its command's "
	      "status; a run stopped by a signal exits 128 + the signal.\n.SH ENVIRONMENT\n",
	      out);
	for (size_t i = 0; i < sizeof(man_env) / sizeof(man_env[0]); i++) {
		fprintf(out, ".TP\n.B %s\n", man_env[i].name);
		roff(out, man_env[i].what);
		fputs("\n", out);
	}
	fputs(".SH SEE ALSO\nThe docs/ folder of the harness sources: results.md, statistics.md, cgroups.md, "
	      "sandbox.md.\n",
	      out);
}

/* Every long (and short) option of a verb, space-separated. */
static void words(FILE *out, const struct hx_opt *o)
{
	for (const char *sep = ""; o->name; o++, sep = " ") {
		fprintf(out, "%s--%s", sep, o->name);
		if (o->short_name)
			fprintf(out, " -%c", o->short_name);
	}
}

static void bash(const struct verb_info *verbs, size_t n, FILE *out)
{
	fputs("# bash completion for harness (made by harness --dump bash)\n_harness() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} verb=${COMP_WORDS[1]} opts= subs=\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W \"",
	      out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? " " : "", verbs[i].name);
	fputs(" --help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $verb in\n", out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "\t%s) opts=\"", verbs[i].name);
		words(out, *verbs[i].opts);
		fprintf(out, "\" subs=\"%s\" ;;\n", verbs[i].subverbs ? verbs[i].subverbs : "");
	}
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telif [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$subs\" ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\ncomplete -F _harness harness\n",
	      out);
}

/* zsh's _arguments spec of one option: '--name[help]:arg:' (brackets and colons of the help escaped). */
static void zsh_option(FILE *out, const struct hx_opt *o)
{
	fprintf(out, " \\\n\t\t\t'--%s[", o->name);
	for (const char *s = o->help; *s && *s != '\n'; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else if (*s == '[' || *s == ']' || *s == ':' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else
			fputc(*s, out);
	}
	fputs("]", out);
	if (o->arg)
		fprintf(out, ":%s:_files", o->arg);
	fputs("'", out);
	if (o->short_name)
		fprintf(out, " '-%c[same as --%s]%s'", o->short_name, o->name, o->arg ? ":value:_files" : "");
}

static void zsh(const struct verb_info *verbs, size_t n, FILE *out)
{
	fputs("#compdef harness\n# zsh completion for harness (made by harness --dump zsh)\n_harness() {\n"
	      "\tlocal -a verbs\n\tverbs=(",
	      out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, " '%s:", verbs[i].name);
		for (const char *s = verbs[i].synopsis; *s; s++)
			fputs(*s == '\'' ? "'\\''" : *s == ':' ? "\\:" : (char[]){*s, 0}, out);
		fputs("'", out);
	}
	fputs(" )\n\tif (( CURRENT == 2 )); then\n\t\t_describe verb verbs\n\t\treturn\n\tfi\n"
	      "\tcase $words[2] in\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "\t%s)\n\t\t_arguments -s", verbs[i].name);
		for (const struct hx_opt *o = *verbs[i].opts; o->name; o++)
			zsh_option(out, o);
		if (verbs[i].subverbs)
			fprintf(out, " \\\n\t\t\t'1:sub-verb:(%s)'", verbs[i].subverbs);
		fputs(" \\\n\t\t\t'*:file:_files'\n\t\t;;\n", out);
	}
	fputs("\tesac\n}\n_harness \"$@\"\n", out);
}

int verb_docgen(const char *kind, const struct verb_info *verbs, size_t n, FILE *out)
{
	if (strcmp(kind, "man") == 0)
		man_page(verbs, n, out);
	else if (strcmp(kind, "bash") == 0)
		bash(verbs, n, out);
	else if (strcmp(kind, "zsh") == 0)
		zsh(verbs, n, out);
	else
		return -EINVAL;
	return fflush(out) == 0 ? 0 : -errno;
}
