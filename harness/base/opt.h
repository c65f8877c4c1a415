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
	OPT_SIZE,     /* uint64_t bytes: 64M, 1G */
	OPT_DURATION, /* double seconds: 10s, 500ms */
	OPT_NUMBER,   /* double, a plain decimal number */
	OPT_LIST,     /* struct opt_list: repeatable, each occurrence appended */
};

#define OPT_LIST_MAX 64
struct opt_list {
	const char *items[OPT_LIST_MAX];
	size_t n;
};

struct hx_opt {
	const char *name; /* long name without "--" */
	char short_name;  /* 0 when none */
	enum opt_kind kind;
	size_t offset;	 /* where in the verb's options struct */
	const char *arg; /* argument placeholder for help, e.g. "N" */
	const char *help;
};

#define OPT_END                                  \
	{                                        \
		NULL, 0, OPT_FLAG, 0, NULL, NULL \
	}

/*
 * Parse argv[1..] against tab into the struct at out. Options may come before and between positionals
 * unless stop_at_positional; "--" ends options. Positionals are moved to the front of argv[1..] in order;
 * *ret_npos is their count. An unknown option or a bad value is an HX_EXIT_USAGE error naming the fix.
 */
int opt_parse(const char *verb, const struct hx_opt *tab, void *out, int argc, char **argv, bool stop_at_positional,
	      int *ret_npos, struct hx_err *err);
void opt_print_help(FILE *f, const char *usage, const char *about, const struct hx_opt *tab);

#endif
