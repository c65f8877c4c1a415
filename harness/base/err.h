/* The one error model of harness: a caller-owned struct hx_err filled by the failing function and
 * wrapped with context on the way up. See docs/errors.md. */
#ifndef HX_ERR_H
#define HX_ERR_H

#include <stdarg.h>

/* Process exit codes; documented in `harness --help`, README.md and docs/errors.md. */
enum hx_exit {
	HX_EXIT_OK = 0,
	HX_EXIT_VERDICT = 1,  /* the benchmark ran but its verdict failed */
	HX_EXIT_USAGE = 2,    /* bad usage or input */
	HX_EXIT_HOST = 3,     /* this host cannot do what was asked */
	HX_EXIT_INTERNAL = 4, /* internal failure */
};

struct hx_err {
	int errnum;	   /* errno of the root cause, 0 when none */
	enum hx_exit exit; /* how the process should exit if nobody recovers */
	char msg[1024];	   /* "context: context: root cause" */
};

/* Record a failure; returns -errnum (or -EINVAL when errnum is 0) so callers can `return hx_fail(...)`. */
int hx_fail(struct hx_err *err, enum hx_exit exit, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A usage error in a file: "<file>: <field>: <message>" (field may be NULL), exit 2. */
int hx_fail_field(struct hx_err *err, const char *file, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Record a failed system call: the message gets ": strerror(errno)" and exit is HX_EXIT_INTERNAL. */
int hx_syserr(struct hx_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefix context to the message already recorded; returns the same negative value as hx_fail. */
int hx_wrap(struct hx_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Forget a failure the caller recovered from. */
void hx_clear(struct hx_err *err);
/* Print "harness: <msg>" on stderr and return the exit code to use. */
int hx_report(const struct hx_err *err);

#endif
