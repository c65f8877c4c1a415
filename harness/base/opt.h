/* Table-driven command-line options: each verb declares a table of hx_opt and a struct to fill. */
#ifndef HX_OPT_H
#define HX_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

enum opt_kind {
	OPT_FLAG,     /* bool, no argument */
	OPT_STR,      /* const char *, the argv string itself */
	OPT_UINT,     /* unsigned, decimal */
	OPT_COUNT,    /* uint64_t, decimal: a count too big for unsigned (requests) */
	OPT_SIZE,     /* uint64_t bytes: 64M, 1G */
	OPT_DURATION, /* double seconds: 10s, 500ms */
	OPT_NUMBER,   /* double, a plain decimal number */
	OPT_PERCENT,  /* double fraction from a percentage: "5%" or "5" is 0.05 (min and max in percent) */
	OPT_LIST,     /* struct opt_list: repeatable, each occurrence appended */
};

#define OPT_LIST_MAX 64
/* The smallest memory limit run and exec accept: below it no runtime (nor the sandbox's init) starts. */
#define OPT_MEMORY_MIN (4.0 * 1024 * 1024)
struct opt_list {
	const char *items[OPT_LIST_MAX];
	size_t n;
};

/* What a path option must name before anything runs. */
enum opt_check {
	OPT_CHECK_NONE,
	OPT_CHECK_OUT_FILE, /* a file to write: opt_check_out_file */
	OPT_CHECK_IN_FILE,  /* a file to read: it exists, is readable and is not a folder */
	OPT_CHECK_DIR,	    /* an existing folder */
};

struct hx_opt {
	const char *name; /* long name without "--" */
	char short_name;  /* 0 when none */
	enum opt_kind kind;
	size_t offset;	 /* where in the verb's options struct */
	const char *arg; /* argument placeholder for help, e.g. "N" */
	const char *help;
	/* The accepted range of a UINT, SIZE (bytes), DURATION (seconds) or NUMBER value, checked at parse
	 * time by every verb alike; min 0 and max 0: any value; max 0 alone: no upper bound. */
	double min, max;
	enum opt_check check;
};

#define OPT_END              \
	{                    \
		.name = NULL \
	}

/*
 * Parse argv[1..] against tab into the struct at out. Options may come before and between positionals
 * unless stop_at_positional; "--" ends options. Positionals are moved to the front of argv[1..] in order;
 * *ret_npos is their count. An unknown option or a bad value is an HX_EXIT_USAGE error naming the fix.
 */
int opt_parse(const char *verb, const struct hx_opt *tab, void *out, int argc, char **argv, bool stop_at_positional,
	      int *ret_npos, struct hx_err *err);
/* A results or report file to write (atomically, by rename) at path: a regular file or a new name, in a folder
 * that exists, takes files (not /proc, /sys, cgroupfs, ...), and is writable (not a read-only mount); each
 * refusal its own HX_EXIT_USAGE line naming opt. */
int opt_check_out_file(const char *verb, const char *opt, const char *path, struct hx_err *err);
/* For a mistyped name ("bnu", "http-helo", "profle"): the one of names[0..n) a typo away (at most 2 edits, a
 * swap of neighbours counting one, and fewer than half the word's letters), or NULL. */
const char *opt_suggest(const char *word, const char *const *names, size_t n);
/* The same among the entries of dir named NAME<suffix> (suffix "" for every entry): true with NAME in ret. */
bool opt_suggest_in_dir(const char *dir, const char *suffix, const char *word, char *ret, size_t len);
void opt_print_help(FILE *f, const char *usage, const char *about, const struct hx_opt *tab);
/* What an option accepts, for messages and help: "1 to 1024", "at least 4M", "at least 0.001s". */
void opt_range_text(const struct hx_opt *o, char *buf, size_t len);

#endif
