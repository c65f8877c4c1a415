/* Escaping per output: what a payload or a results file could plant in a terminal, a CSV cell or a
 * Markdown page comes out inert, and ordinary names come out unchanged. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/err.h"
#include "base/esc.h"
#include "base/util.h"

static void test_term(void **state)
{
	char b[ESC_LEN];

	(void)state;
	assert_string_equal(esc_term("node22", b, sizeof(b)), "node22");
	/* a window title, a clear screen and a bell: shown, not done */
	assert_string_equal(esc_term("\x1b]0;pwned\a\x1b[2Jok", b, sizeof(b)), "\\x1b]0;pwned\\x07\\x1b[2Jok");
	assert_string_equal(esc_term("a\nb\rc\td\x7f", b, sizeof(b)), "a\\x0ab\\x0dc\\x09d\\x7f");
	/* UTF-8 kept; C1 (8-bit CSI as U+009B), a bare 0x9b byte and a right-to-left override escaped */
	assert_string_equal(esc_term("µs → é", b, sizeof(b)), "µs → é");
	assert_string_equal(esc_term("\xc2\x9b"
				     "2J",
				     b, sizeof(b)),
			    "\\x9b2J");
	assert_string_equal(esc_term("\x9b"
				     "2J",
				     b, sizeof(b)),
			    "\\x9b2J");
	assert_string_equal(esc_term("a\xe2\x80\xae"
				     "b",
				     b, sizeof(b)),
			    "a\\u{202e}b");
	/* overlong and surrogate forms are not UTF-8 */
	assert_string_equal(esc_term("\xc0\xaf\xed\xa0\x80", b, sizeof(b)), "\\xc0\\xaf\\xed\\xa0\\x80");
	assert_string_equal(esc_term_lines("one\ntwo\x1b[31m", b, sizeof(b)), "one\n    two\\x1b[31m");
	assert_string_equal(esc_term(NULL, b, sizeof(b)), "");
}

static void test_cut_whole(void **state)
{
	char b[6];

	(void)state;
	/* never half an escape or half a character */
	assert_string_equal(esc_term("ab\x1b", b, sizeof(b)), "ab");
	assert_string_equal(esc_term("abcé", b, sizeof(b)), "abcé");
	assert_string_equal(esc_term("abcdé", b, sizeof(b)), "abcd");
}

static void test_csv(void **state)
{
	char b[ESC_LEN];

	(void)state;
	assert_string_equal(esc_csv("node22", b, sizeof(b)), "node22");
	assert_string_equal(esc_csv("=HYPERLINK(\"http://x/\",\"y\")", b, sizeof(b)),
			    "\"'=HYPERLINK(\"\"http://x/\"\",\"\"y\"\")\"");
	assert_string_equal(esc_csv("+1", b, sizeof(b)), "\"'+1\"");
	assert_string_equal(esc_csv("-1", b, sizeof(b)), "\"'-1\"");
	assert_string_equal(esc_csv("@SUM(A1)", b, sizeof(b)), "\"'@SUM(A1)\"");
	assert_string_equal(esc_csv("\tx", b, sizeof(b)), "\"'\\x09x\"");
	/* a comma or a line feed adds no column or row */
	assert_string_equal(esc_csv("a,b", b, sizeof(b)), "\"a,b\"");
	assert_string_equal(esc_csv("a\nb,c", b, sizeof(b)), "\"a\\x0ab,c\"");
	assert_string_equal(esc_csv(" a", b, sizeof(b)), "\" a\"");
	assert_string_equal(esc_csv("", b, sizeof(b)), "");
}

static void test_md(void **state)
{
	char b[ESC_LEN];

	(void)state;
	assert_string_equal(esc_md("node22", b, sizeof(b)), "node22");
	assert_string_equal(esc_md("Intel(R) Xeon(R) 2.20GHz", b, sizeof(b)), "Intel(R) Xeon(R) 2.20GHz");
	assert_string_equal(esc_md("<script>alert(1)</script>", b, sizeof(b)), "&lt;script&gt;alert(1)&lt;/script&gt;");
	assert_string_equal(esc_md("a|b", b, sizeof(b)), "a\\|b");
	assert_string_equal(esc_md("`x` [y](http://z) **w** ~~v~~ a\\", b, sizeof(b)),
			    "\\`x\\` \\[y\\](http://z) \\*\\*w\\*\\* \\~\\~v\\~\\~ a\\\\");
	assert_string_equal(esc_md("a\nb\r\n| x |", b, sizeof(b)), "a\\x0ab\\x0d\\x0a\\| x \\|");
	assert_string_equal(esc_md("&amp;", b, sizeof(b)), "&amp;amp;");
}

/* A log tail keeps the log's last line whatever came before it: escaped control bytes (4 bytes each) must not
 * crowd it out, and lines longer than the buffer keep their end. */
static void test_log_tail_end(void **state)
{
	char path[] = "/tmp/harness-test-tail-XXXXXX", buf[2048];
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	assert_non_null(f = fdopen(fd, "w"));
	for (int i = 0; i < 16000; i++)
		fputc(1, f);
	fputs("\nTHE REAL LAST LINE: EADDRINUSE\n", f);
	fclose(f);
	util_log_tail(path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "THE REAL LAST LINE: EADDRINUSE"));
	assert_null(strchr(buf, 1));
	/* one line longer than the buffer: its end is kept */
	assert_non_null(f = fopen(path, "w"));
	for (int i = 0; i < 5000; i++)
		fputc('x', f);
	fputs("END", f);
	fclose(f);
	util_log_tail(path, buf, 64);
	assert_int_equal(strlen(buf), 63);
	assert_string_equal(buf + 60, "END");
	unlink(path);
}

/* Every line of text after the first starts indented; a line indented already and an empty line get nothing
 * more, so a log tail quoted in a message is indented once, not twice. */
static void test_lines_indented(void **state)
{
	char b[ESC_LEN], twice[ESC_LEN];

	(void)state;
	assert_string_equal(esc_term_lines("a\nharness: b\n\n    c\n", b, sizeof(b)), "a\n    harness: b\n\n    c\n");
	assert_string_equal(esc_term_lines(b, twice, sizeof(twice)), b);
	/* a carriage return cannot take the line back to its start either */
	assert_string_equal(esc_term_lines("a\rharness: b", b, sizeof(b)), "a\\x0dharness: b");
	/* cut short inside an indented line's indent (fuzz_esc found it): the part-indented line goes, not a line
	 * that starts with two spaces */
	assert_string_equal(esc_term_lines("ab\n    c", b, 6), "ab");
	assert_string_equal(esc_term_lines("ab\n    c", b, 8), "ab\n    ");
	assert_string_equal(esc_term_lines("ab\n\n", b, 4), "ab\n");
}

/* hx_report's own line with payload text in it (a script's metrics key with line feeds): what reaches stderr has
 * one line of harness's own, the payload's lines indented under it. */
static void test_report_lines(void **state)
{
	char path[] = "/tmp/harness-test-report-XXXXXX", out[4096] = "";
	struct hx_err err = {0};
	int fd = mkstemp(path), saved = dup(2), n = 0;
	FILE *f;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	hx_fail(&err, HX_EXIT_VERDICT, EBADMSG, "the script's metrics line: a key '%s' of more than 64 bytes",
		"x\nharness: results: all trials passed\n\rharness: ok");
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	assert_int_equal(hx_report(&err), HX_EXIT_VERDICT);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	assert_non_null(f = fdopen(fd, "r"));
	rewind(f);
	for (char line[1024]; fgets(line, sizeof(line), f); n++) {
		strncat(out, line, sizeof(out) - strlen(out) - 1);
		if (n > 0)
			assert_true(strncmp(line, "    ", 4) == 0);
	}
	fclose(f);
	unlink(path);
	assert_int_equal(n, 3);
	assert_string_equal(out,
			    "harness: the script's metrics line: a key 'x\n    harness: results: all trials passed\n"
			    "    \\x0dharness: ok' of more than 64 bytes\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term),	     cmocka_unit_test(test_cut_whole),
		cmocka_unit_test(test_csv),	     cmocka_unit_test(test_md),
		cmocka_unit_test(test_log_tail_end), cmocka_unit_test(test_lines_indented),
		cmocka_unit_test(test_report_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
