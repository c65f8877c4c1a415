/* libFuzzer target: the escaping of text from a payload or a file; whatever comes in, what esc_term gives has no
 * control character, bidirectional override or invalid UTF-8 (esc_term_lines: and no line after the first left
 * unindented), esc_md no line break, table pipe, tag or link bracket left bare, and esc_csv no formula start and
 * its quotes balanced. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/esc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* No byte a terminal acts on: C0, DEL, C1 as UTF-8 (C2 80-9F), bare bytes >= 0x80 outside a valid sequence are
 * checked by esc_term's own decoder; here the bytes that matter. */
static void check_term(const char *s, bool lines)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p < 0x20 && !(lines && (*p == '\n' || *p == '\t'))) || *p == 0x7f)
			abort();
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0)
			abort();
		if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae)
			abort();
		/* a line after the first is empty or indented: none starts where harness's own lines do */
		if (lines && p[0] == '\n' && p[1] && p[1] != '\n' && strncmp((const char *)p + 1, ESC_INDENT, 4) != 0)
			abort();
	}
}

static void check_md(const char *s)
{
	check_term(s, false);
	for (size_t i = 0; s[i]; i++) {
		bool escaped = false;

		for (size_t k = i; k > 0 && s[k - 1] == '\\'; k--)
			escaped = !escaped;
		if (strchr("|`[]*_~", s[i]) && !escaped)
			abort();
		if (s[i] == '<' || s[i] == '>')
			abort();
	}
}

static void check_csv(const char *s, const char *in)
{
	size_t n = strlen(s), quotes = 0;

	check_term(s, false);
	if (n && strchr("=+-@", s[0]))
		abort();
	if (n && s[0] == '"' && n > 1 && strchr("=+-@", s[1]))
		abort();
	for (size_t i = 0; i < n; i++)
		quotes += s[i] == '"';
	if (quotes % 2 || (strpbrk(s, ",") && s[0] != '"'))
		abort();
	(void)in;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), out[ESC_LEN];

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	check_term(esc_term(in, out, sizeof(out)), false);
	check_term(esc_term_lines(in, out, sizeof(out)), true);
	check_md(esc_md(in, out, sizeof(out)));
	check_csv(esc_csv(in, out, sizeof(out)), in);
	/* a short buffer cuts whole characters, still NUL-terminated */
	check_term(esc_term(in, out, 7), false);
	free(in);
	return 0;
}
