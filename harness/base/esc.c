/* Escaping per output format (terminal, CSV, Markdown) of text harness did not write itself. */
#include "base/esc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* How one character is shown: its representation into out (at most 16 bytes), its length returned. cp is the
 * code point, or -1 for a byte that is not valid UTF-8 (raw[0] is then that byte). */
typedef size_t esc_rule(int32_t cp, const char *raw, size_t n, char *out);

/* The length of the valid UTF-8 sequence at s (the shortest form, no surrogate, at most U+10FFFF) and its
 * code point; 0 when s does not start one. */
static size_t utf8_seq(const unsigned char *s, int32_t *ret)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	static const int32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
	int32_t cp;

	if (s[0] < 0x80) {
		*ret = s[0];
		return 1;
	}
	if (!n || s[0] > 0xf4)
		return 0;
	cp = s[0] & (0x3f >> (n - 1));
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*ret = cp;
	return n;
}

/* Characters a terminal acts on or that reorder what it shows: C0, DEL, C1, the bidirectional embeddings,
 * overrides and isolates (U+202A-202E, U+2066-2069), and the line and paragraph separators. */
static bool term_control(int32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029 || cp == 0x200e || cp == 0x200f ||
	       cp == 0x061c;
}

static size_t show_escaped(int32_t cp, const char *raw, char *out)
{
	if (cp < 0)
		return (size_t)snprintf(out, 16, "\\x%02x", (unsigned char)raw[0]);
	if (cp < 0x100)
		return (size_t)snprintf(out, 16, "\\x%02x", (unsigned)cp);
	return (size_t)snprintf(out, 16, "\\u{%04x}", (unsigned)cp);
}

static size_t keep(const char *raw, size_t n, char *out)
{
	memcpy(out, raw, n);
	return n;
}

static size_t rule_term(int32_t cp, const char *raw, size_t n, char *out)
{
	return cp < 0 || term_control(cp) ? show_escaped(cp, raw, out) : keep(raw, n, out);
}

/* A line feed starts an indented line (ESC_INDENT): no line after the first begins where harness's own lines
 * do. A line already indented so, or an empty one, gets nothing more, so escaping twice (a log tail quoted in a
 * message) changes nothing. raw is the rest of the text, NUL-terminated: looking ahead stays inside it. */
static size_t rule_term_lines(int32_t cp, const char *raw, size_t n, char *out)
{
	if (cp == '\t')
		return keep(raw, n, out);
	if (cp != '\n')
		return rule_term(cp, raw, n, out);
	if (raw[1] == '\n' || raw[1] == '\0' || strncmp(raw + 1, ESC_INDENT, sizeof(ESC_INDENT) - 1) == 0)
		return keep(raw, n, out);
	return (size_t)snprintf(out, 16, "\n%s", ESC_INDENT);
}

static size_t rule_md(int32_t cp, const char *raw, size_t n, char *out)
{
	static const char *const entity[] = {['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;"};

	if (cp < 0 || term_control(cp))
		return show_escaped(cp, raw, out);
	if (cp < (int32_t)(sizeof(entity) / sizeof(entity[0])) && entity[cp])
		return (size_t)snprintf(out, 16, "%s", entity[cp]);
	if (cp < 0x80 && strchr("|`\\*_[]~", (char)cp)) {
		out[0] = '\\';
		out[1] = (char)cp;
		return 2;
	}
	return keep(raw, n, out);
}

/* s through rule into buf, whole characters only: what does not fit is left off. */
static const char *esc_run(const char *s, esc_rule *rule, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (!len)
		return buf;
	while (*p) {
		char one[16];
		int32_t cp = -1;
		size_t n = utf8_seq(p, &cp), k;

		if (!n)
			n = 1, cp = -1;
		k = rule(cp, (const char *)p, n, one);
		if (o + k >= len)
			break;
		memcpy(buf + o, one, k);
		o += k;
		p += n;
	}
	buf[o] = '\0';
	if (*p) { /* cut short: a last line holding part of an indent alone would start as harness's own lines do */
		char *nl = memrchr(buf, '\n', o);
		size_t tail = nl ? (size_t)(buf + o - nl - 1) : 0;

		if (nl && tail && tail < sizeof(ESC_INDENT) - 1 && strspn(nl + 1, " ") == tail)
			*nl = '\0';
	}
	return buf;
}

const char *esc_term(const char *s, char *buf, size_t len)
{
	return esc_run(s, rule_term, buf, len);
}

const char *esc_term_lines(const char *s, char *buf, size_t len)
{
	return esc_run(s, rule_term_lines, buf, len);
}

const char *esc_md(const char *s, char *buf, size_t len)
{
	return esc_run(s, rule_md, buf, len);
}

const char *esc_cell(bool md, const char *s, char *buf, size_t len)
{
	return md ? esc_md(s, buf, len) : esc_term(s, buf, len);
}

/* Spreadsheets run a cell that starts with one of these as a formula (OWASP's CSV injection list). */
static bool csv_formula_lead(char c)
{
	return c && strchr("=+-@\t\r", c);
}

const char *esc_csv(const char *s, char *buf, size_t len)
{
	char plain[ESC_LEN];
	size_t o = 0, n;
	bool lead, quote;

	s = s ? s : "";
	lead = csv_formula_lead(s[0]);
	esc_term(s, plain, sizeof(plain));
	n = strlen(plain);
	quote = lead || strpbrk(plain, ",\"") || (n && (plain[0] == ' ' || plain[n - 1] == ' '));
	if (len < 4) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	if (quote)
		buf[o++] = '"';
	if (lead)
		buf[o++] = '\'';
	for (size_t i = 0; i < n; i++) {
		size_t k = plain[i] == '"' ? 2 : 1;

		if (o + k + (quote ? 1 : 0) >= len)
			break;
		if (plain[i] == '"')
			buf[o++] = '"';
		buf[o++] = plain[i];
	}
	if (quote)
		buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}
