/* The error model: recording, wrapping and reporting failures (docs/errors.md). */
#include "base/err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/esc.h"

static int err_ret(const struct hx_err *err)
{
	return err->errnum > 0 ? -err->errnum : -EINVAL;
}

int hx_fail(struct hx_err *err, enum hx_exit exit, int errnum, const char *fmt, ...)
{
	va_list ap;

	err->errnum = errnum;
	err->exit = exit;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return err_ret(err);
}

int hx_fail_field(struct hx_err *err, const char *file, const char *field, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s: %s%s%s", file, field ? field : "", field ? ": " : "", msg);
}

int hx_syserr(struct hx_err *err, const char *fmt, ...)
{
	int saved = errno;
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(saved));
	err->errnum = saved;
	err->exit = HX_EXIT_INTERNAL;
	return err_ret(err);
}

int hx_wrap(struct hx_err *err, const char *fmt, ...)
{
	char prefix[512];
	char old[sizeof(err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	if (old[0])
		snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old);
	else
		snprintf(err->msg, sizeof(err->msg), "%s", prefix);
	if (err->exit == HX_EXIT_OK)
		err->exit = HX_EXIT_INTERNAL;
	return err_ret(err);
}

void hx_clear(struct hx_err *err)
{
	err->errnum = 0;
	err->exit = HX_EXIT_OK;
	err->msg[0] = '\0';
}

int hx_report(const struct hx_err *err)
{
	char shown[sizeof(err->msg) * 5]; /* 4 bytes an escaped byte, 5 an indented line feed */

	/* the message may quote a payload's output or a file's text: it reaches the terminal escaped */
	fprintf(stderr, "harness: %s\n",
		err->msg[0] ? esc_term_lines(err->msg, shown, sizeof(shown)) : "unknown failure");
	return err->exit == HX_EXIT_OK ? HX_EXIT_INTERNAL : (int)err->exit;
}
