/* The HTTP response parser fed every split point of pipelined, chunked and close-delimited streams. */
#include "testutil.h"

#include "load/http.h"

struct expect {
	int status;
	uint64_t body;
	bool close;
	const char *text; /* the body as on_body saw it (chunk framing removed); NULL: not checked */
};

static char seen[256];
static size_t nseen;

static void collect(void *ctx, const char *buf, size_t len)
{
	assert_ptr_equal(ctx, seen);
	assert_true(nseen + len < sizeof(seen));
	memcpy(seen + nseen, buf, len);
	nseen += len;
}

static void check_text(const struct expect *want)
{
	if (want->text) {
		assert_int_equal(nseen, strlen(want->text));
		assert_memory_equal(seen, want->text, nseen);
	}
	nseen = 0;
}

/* Parse stream cut into two pieces at `cut` (and then byte by byte when cut is 0); check each response. */
static void parse_all(const char *stream, size_t len, size_t cut, const struct expect *want, size_t nwant, bool eof)
{
	static struct http_parser p;
	size_t got = 0, off = 0;
	size_t pieces[2] = {cut, len - cut};

	http_parser_reset(&p, false);
	p.on_body = collect;
	p.body_ctx = seen;
	nseen = 0;
	for (int piece = 0; piece < 2; piece++) {
		size_t end = off + pieces[piece];

		while (off < end) {
			ssize_t n = http_parse(&p, stream + off, end - off);

			if (n < 0)
				fail_msg("cut %zu at %zu: %s", cut, off, p.error);
			off += (size_t)n;
			if (p.state == HP_DONE) {
				assert_true(got < nwant);
				assert_int_equal(p.status, want[got].status);
				assert_int_equal(p.body_bytes, want[got].body);
				assert_int_equal(p.close, want[got].close);
				check_text(&want[got]);
				got++;
				http_parser_reset(&p, false);
			} else {
				assert_int_equal(n, end - (off - (size_t)n)); /* incomplete: all input taken */
			}
		}
	}
	if (eof) {
		assert_true(http_parse_eof(&p));
		assert_int_equal(p.status, want[got].status);
		assert_int_equal(p.body_bytes, want[got].body);
		check_text(&want[got]);
		got++;
	}
	assert_int_equal(got, nwant);
}

static void every_split(const char *stream, const struct expect *want, size_t nwant, bool eof)
{
	size_t len = strlen(stream);

	for (size_t cut = 0; cut <= len; cut++)
		parse_all(stream, len, cut, want, nwant, eof);
}

static void test_pipelined(void **state)
{
	const char *s = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Type: text/plain\r\n\r\nHello world!"
			"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"
			"HTTP/1.1 200 OK\r\nDate: x\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc";
	const struct expect want[] = {{200, 12, false, "Hello world!"}, {404, 0, false, ""}, {200, 3, true, "abc"}};

	(void)state;
	every_split(s, want, 3, false);
}

static void test_chunked(void **state)
{
	const char *s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5\r\nHello\r\n7;ext=1\r\n, world\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n"
			"HTTP/1.1 500 Internal Server Error\r\ntransfer-encoding: gzip, chunked\r\n\r\n"
			"1f\r\n0123456789012345678901234567890\r\n0\r\n\r\n";
	const struct expect want[] = {{200, 22, false, "Hello, world0123456789"},
				      {500, 31, false, "0123456789012345678901234567890"}};

	(void)state;
	every_split(s, want, 2, false);
}

static void test_interim_head_and_close(void **state)
{
	const char *s = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n"
			"HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody until the connection closes";
	const struct expect want[] = {{204, 0, false, ""}, {200, 32, true, "body until the connection closes"}};
	static struct http_parser p;

	(void)state;
	every_split(s, want, 2, true);
	/* HEAD: a Content-Length but no body */
	const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n";

	http_parser_reset(&p, true);
	assert_int_equal(http_parse(&p, head, strlen(head)), strlen(head));
	assert_int_equal(p.state, HP_DONE);
	/* a close-delimited body cut short is not complete... but one with a length cut short is an error */
	http_parser_reset(&p, false);
	head = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
	http_parse(&p, head, strlen(head));
	assert_false(http_parse_eof(&p));
}

static void expect_error(const char *s, const char *why)
{
	static struct http_parser p;

	http_parser_reset(&p, false);
	assert_int_equal(http_parse(&p, s, strlen(s)), -1);
	assert_int_equal(p.state, HP_ERROR);
	if (!strstr(p.error, why))
		fail_msg("'%s': error '%s', wanted '%s'", s, p.error, why);
}

static void test_malformed(void **state)
{
	char big[HTTP_LINE_MAX + 64];

	(void)state;
	expect_error("HTTX/1.1 200 OK\r\n", "status line");
	expect_error("HTTP/1.1 2x0 OK\r\n", "status line");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "conflicting");
	expect_error("HTTP/1.1 200 OK\r\nno colon here\r\n", "header");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk size");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n", "CRLF after chunk");
	memset(big, 'a', sizeof(big));
	memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
	big[sizeof(big) - 1] = '\0';
	expect_error(big, "too long");
}

static void test_websocket_upgrade(void **state)
{
	static struct http_parser p;
	const char *s = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
			"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\x81\x02hi";

	(void)state;
	http_parser_reset(&p, false);
	/* stops right after the headers: the frames that follow are not HTTP */
	assert_int_equal(http_parse(&p, s, strlen(s)), strlen(s) - 4);
	assert_true(p.upgrade);
	assert_string_equal(p.ws_accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipelined),
		cmocka_unit_test(test_chunked),
		cmocka_unit_test(test_interim_head_and_close),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_websocket_upgrade),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
