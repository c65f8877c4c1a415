/* A client's command line built word by word (a `harness load` for a trial or a duet): each word is a constant,
 * a string that outlives the line, or a value printed into the line's own buffers. */
#ifndef HX_CMDLINE_H
#define HX_CMDLINE_H

#include <stddef.h>

struct cmdline {
	char *argv[48];	   /* NULL-terminated */
	char buf[16][320]; /* the values printed (cmd_argf) */
	size_t n, nbuf;	   /* of argv and buf, those used */
};

/* Empty the line. */
void cmd_start(struct cmdline *c);
/* Add a word, not copied. */
void cmd_arg(struct cmdline *c, const char *word);
/* Add the option name (none when NULL) and its value, printed into the next free buffer. A line that outgrows
 * its arrays is a bug of the caller: it aborts. */
__attribute__((format(printf, 3, 4))) void cmd_argf(struct cmdline *c, const char *name, const char *fmt, ...);

#endif
