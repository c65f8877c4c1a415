/* WebSocket frames: encode/parse round trips at the length boundaries, masking, fragmentation with
 * an interleaved control frame, every split point, the RFC's handshake example, protocol errors. */
#include "testutil.h"

#include "load/ws.h"

static const uint8_t mask[4] = {0x37, 0xfa, 0x21, 0x3d};

/* Parse stream in pieces of `step` bytes; collect events. */
static size_t parse_events(const uint8_t *s, size_t len, size_t step, struct ws_event_out *evs, uint8_t **copies,
			   size_t max)
{
	static struct ws_parser p;
	size_t n = 0, off = 0;

	ws_parser_init(&p, 1 << 20);
	while (off < len) {
		size_t piece = len - off < step ? len - off : step;
		struct ws_event_out ev;
		ssize_t r = ws_parse(&p, s + off, piece, &ev);

		if (r < 0)
			fail_msg("step %zu at %zu: %s", step, off, p.error);
		off += (size_t)r;
		if (ev.type != WS_EV_NONE) {
			assert_true(n < max);
			evs[n] = ev;
			copies[n] = malloc(ev.len + 1);
			if (ev.len)
				memcpy(copies[n], ev.data, ev.len);
			n++;
		}
	}
	ws_parser_free(&p);
	return n;
}

static void test_lengths_roundtrip(void **state)
{
	static const size_t lens[] = {0, 1, 125, 126, 127, 65535, 65536, 200000};
	static uint8_t payload[200000], frame[200100];

	(void)state;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		for (int masked = 0; masked < 2; masked++) {
			size_t n = ws_encode(frame, sizeof(frame), WS_BINARY, true, payload, lens[k],
					     masked ? mask : NULL);
			size_t hdr = 2 + (lens[k] > 65535 ? 8 : lens[k] > 125 ? 2 : 0) + (masked ? 4 : 0);
			struct ws_event_out ev[2];
			uint8_t *copy[2];

			assert_int_equal(n, hdr + lens[k]);
			if (masked && lens[k])
				assert_true(memcmp(frame + hdr, payload, lens[k] < 8 ? lens[k] : 8) != 0);
			assert_int_equal(parse_events(frame, n, lens[k] > 1000 ? 4093 : 1, ev, copy, 2), 1);
			assert_int_equal(ev[0].type, WS_EV_MESSAGE);
			assert_int_equal(ev[0].opcode, WS_BINARY);
			assert_int_equal(ev[0].len, lens[k]);
			assert_memory_equal(copy[0], payload, lens[k]);
			free(copy[0]);
		}
	}
}

static void test_fragmented_with_ping_every_split(void **state)
{
	uint8_t s[256];
	size_t n = 0;

	(void)state;
	n += ws_encode(s + n, sizeof(s) - n, WS_TEXT, false, "Hel", 3, mask);
	n += ws_encode(s + n, sizeof(s) - n, WS_PING, true, "p", 1, NULL);
	n += ws_encode(s + n, sizeof(s) - n, WS_CONT, false, "lo, ", 4, NULL);
	n += ws_encode(s + n, sizeof(s) - n, WS_CONT, true, "world", 5, mask);
	n += ws_encode(s + n, sizeof(s) - n, WS_TEXT, true, "", 0, NULL);
	n += ws_encode(s + n, sizeof(s) - n, WS_CLOSE, true, "\x03\xe8", 2, NULL);
	for (size_t step = 1; step <= n; step++) {
		struct ws_event_out ev[8];
		uint8_t *c[8];
		size_t k = parse_events(s, n, step, ev, c, 8);

		assert_int_equal(k, 4);
		assert_int_equal(ev[0].type, WS_EV_PING);
		assert_memory_equal(c[0], "p", 1);
		assert_int_equal(ev[1].type, WS_EV_MESSAGE);
		assert_int_equal(ev[1].opcode, WS_TEXT);
		assert_int_equal(ev[1].len, 12);
		assert_memory_equal(c[1], "Hello, world", 12);
		assert_int_equal(ev[2].type, WS_EV_MESSAGE);
		assert_int_equal(ev[2].len, 0);
		assert_int_equal(ev[3].type, WS_EV_CLOSE);
		assert_int_equal(ev[3].len, 2);
		for (size_t i = 0; i < k; i++)
			free(c[i]);
	}
}

static void expect_error(const uint8_t *s, size_t len, const char *why)
{
	static struct ws_parser p;
	struct ws_event_out ev;

	ws_parser_init(&p, 1000);
	assert_int_equal(ws_parse(&p, s, len, &ev), -1);
	if (!strstr(p.error, why))
		fail_msg("error '%s', wanted '%s'", p.error, why);
	ws_parser_free(&p);
}

static void test_protocol_errors(void **state)
{
	static const uint8_t payload[1050];
	uint8_t big[1100];

	(void)state;
	expect_error((const uint8_t *)"\x80\x01x", 3, "continuation frame without a message");
	expect_error((const uint8_t *)"\x01\x01x\x01\x01y", 6, "new message inside");
	expect_error((const uint8_t *)"\x09\x00", 2, "control frame fragmented");
	expect_error((const uint8_t *)"\x89\x7e\x00\x80", 4, "longer than 125");
	expect_error((const uint8_t *)"\xc1\x00", 2, "reserved bits");
	expect_error((const uint8_t *)"\x83\x00", 2, "unknown data opcode");
	expect_error((const uint8_t *)"\x8b\x00", 2, "unknown control opcode");
	assert_true(ws_encode(big, sizeof(big), WS_TEXT, true, payload, sizeof(payload), NULL) > 0);
	expect_error(big, 1054, "larger than the limit");
}

static void test_handshake_key(void **state)
{
	char accept[29], key[25], key2[25];

	(void)state;
	ws_accept_for("dGhlIHNhbXBsZSBub25jZQ==", accept); /* RFC 6455 section 1.3 */
	assert_string_equal(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
	assert_int_equal(ws_make_key(key), 0);
	assert_int_equal(ws_make_key(key2), 0);
	assert_int_equal(strlen(key), 24);
	assert_string_not_equal(key, key2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths_roundtrip),
		cmocka_unit_test(test_fragmented_with_ping_every_split),
		cmocka_unit_test(test_protocol_errors),
		cmocka_unit_test(test_handshake_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
