/* A client's command line built word by word (cmdline.h). */
#include "run/cmdline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

void cmd_start(struct cmdline *c)
{
	c->n = c->nbuf = 0;
	c->argv[0] = NULL;
}

void cmd_arg(struct cmdline *c, const char *word)
{
	if (c->n + 1 >= HX_ARRAY_SIZE(c->argv))
		abort();
	c->argv[c->n++] = (char *)word;
	c->argv[c->n] = NULL;
}

void cmd_argf(struct cmdline *c, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *b;
	int len;

	if (c->nbuf >= HX_ARRAY_SIZE(c->buf))
		abort();
	b = c->buf[c->nbuf++];
	if (name)
		cmd_arg(c, name);
	va_start(ap, fmt);
	len = vsnprintf(b, sizeof(c->buf[0]), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(c->buf[0]))
		abort();
	cmd_arg(c, b);
}
