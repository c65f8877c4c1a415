/* The verbs of the harness command line, each `int verb_x(int argc, char **argv)` returning the exit
 * code; argv[0] is the verb's name. */
#ifndef HX_VERBS_H
#define HX_VERBS_H

#include <stddef.h>
#include <stdio.h>

int verb_doctor(int argc, char **argv);
int verb_exec(int argc, char **argv);
int verb_gc(int argc, char **argv);
int verb_load(int argc, char **argv);
int verb_noise(int argc, char **argv);
int verb_images(int argc, char **argv);
int verb_run(int argc, char **argv);
int verb_scenarios(int argc, char **argv);
int verb_report(int argc, char **argv);
int verb_compare(int argc, char **argv);
int verb_merge(int argc, char **argv);
int verb_ab(int argc, char **argv);

struct hx_err;
struct hx_opt;
struct startup_opts;

/* Each verb's option table, for the man page and the shell completions. */
extern const struct hx_opt *const verb_ab_opts,
	*const verb_compare_opts,
		*const verb_doctor_opts,
			*const verb_exec_opts,
				*const verb_gc_opts,
					*const verb_images_opts,
						*const verb_load_opts,
							*const verb_merge_opts,
								*const verb_noise_opts,
									*const verb_report_opts,
										*const verb_run_opts,
											*const verb_scenarios_opts;

/* A verb of the command line: main.c's table, which the man page and the completions are made from. */
struct verb_info {
	const char *name;
	int (*fn)(int argc, char **argv); /* NULL: not built yet */
	const char *synopsis;
	const char *subverbs; /* space-separated ("ls pull verify"), NULL when none */
	const struct hx_opt *const *opts;
};
/* `harness --dump man|bash|zsh` (hidden; the build makes docs from it): the man page in roff, or a completion
 * script; -EINVAL for another kind. */
int verb_docgen(const char *kind, const struct verb_info *verbs, size_t n, FILE *out);
/* `load --startup`: argv[0..argc) is the command. */
int verb_load_startup(const struct startup_opts *o, int argc, char **argv, struct hx_err *err);

struct res_doc;
/* The warning report, compare and merge print about a results file that holds less than a whole run. */
void verb_warn_partial(const char *verb, const char *path, const struct res_doc *d);
/* A name that was not found (err: ENOENT) gets "; did you mean 'http-hello'?" when an entry NAME<suffix> of dir
 * is a typo away; returns -err->errnum. */
int verb_suggest(struct hx_err *err, const char *dir, const char *suffix, const char *word);

/* Set in main.c, where the build stamps them. */
extern const char *const hx_version;
extern const char *const hx_commit;

#endif
