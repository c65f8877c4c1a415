/* Escaping per output: text that came from a payload or a file (a log, a results file, a server's answer),
 * rendered so that it cannot steer the terminal, a spreadsheet or a Markdown page that shows it
 * (docs/sandbox.md: Outputs). One function per format; each writes a NUL-terminated string into buf, cut
 * at a character boundary when buf is short, and returns buf. */
#ifndef HX_ESC_H
#define HX_ESC_H

#include <stdbool.h>
#include <stddef.h>

/* Room for any short name or fact (a results file's strings are at most a few hundred bytes) once escaped. */
#define ESC_LEN 1024

/* For a terminal, one line: printable ASCII and valid UTF-8 kept; control characters (C0, DEL, C1),
 * bytes that are not UTF-8 and the bidirectional overrides shown as \xNN or \u{NNNN}. */
const char *esc_term(const char *s, char *buf, size_t len);
/* What starts every line after the first in esc_term_lines. */
#define ESC_INDENT "    "
/* The same, keeping line feeds (a message, a log's last lines) and tabs; every line after the first starts
 * with ESC_INDENT (unless it does already, or is empty), so none passes for a line of harness's own. */
const char *esc_term_lines(const char *s, char *buf, size_t len);
/* One CSV field (RFC 4180): control characters as \xNN, then quoted with "" doubled when it holds a comma, a
 * quote or leading or trailing space, and a ' put first when it starts with = + - @ tab or CR, which a
 * spreadsheet would take for a formula. */
const char *esc_csv(const char *s, char *buf, size_t len);
/* Inline Markdown (a table cell, a heading, a list item): | ` \ * _ [ ] ~ backslash-escaped, < > & as
 * entities (no HTML passes), control characters (line feeds included) as \xNN. */
const char *esc_md(const char *s, char *buf, size_t len);
/* A table's cell: esc_md for a Markdown table, else esc_term. */
const char *esc_cell(bool md, const char *s, char *buf, size_t len);

#endif
