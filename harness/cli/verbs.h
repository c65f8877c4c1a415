/* The verbs of the harness command line, each `int verb_x(int argc, char **argv)` returning the exit
 * code; argv[0] is the verb's name. */
#ifndef HX_VERBS_H
#define HX_VERBS_H

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
struct startup_opts;
/* `load --startup`: argv[0..argc) is the command. */
int verb_load_startup(const struct startup_opts *o, int argc, char **argv, struct hx_err *err);

/* Set in main.c, where the build stamps them. */
extern const char *const hx_version;
extern const char *const hx_commit;

#endif
