/* RFC 6455 framing. The parser takes any split of the stream, answers nothing itself (the caller
 * pongs), enforces the rules a client must check: control frames short and unfragmented, no
 * continuation without a start, no new message inside a fragmented one. */
#include "load/ws.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/dl_ossl.h"

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

void ws_parser_init(struct ws_parser *p, size_t max_msg)
{
	memset(p, 0, sizeof(*p));
	p->max_msg = max_msg;
}

void ws_parser_free(struct ws_parser *p)
{
	free(p->msg);
	p->msg = NULL;
}

static ssize_t ws_fail(struct ws_parser *p, const char *why)
{
	p->error = why;
	return -1;
}

/* Bytes of header needed so far: 2, then 2+ext(+4 mask). */
static size_t hdr_need(const struct ws_parser *p)
{
	size_t n = 2;

	if (p->hdr_len < 2)
		return n;
	if ((p->hdr[1] & 0x7f) == 126)
		n += 2;
	else if ((p->hdr[1] & 0x7f) == 127)
		n += 8;
	if (p->hdr[1] & 0x80)
		n += 4;
	return n;
}

static ssize_t header_done(struct ws_parser *p)
{
	uint8_t len7 = p->hdr[1] & 0x7f;
	size_t off = 2;
	bool control;

	if (p->hdr[0] & 0x70)
		return ws_fail(p, "reserved bits set without an extension");
	p->fin = p->hdr[0] & 0x80;
	p->opcode = p->hdr[0] & 0x0f;
	p->masked = p->hdr[1] & 0x80;
	control = p->opcode & 0x8;
	if (len7 == 126) {
		p->payload_len = (uint64_t)p->hdr[2] << 8 | p->hdr[3];
		off = 4;
	} else if (len7 == 127) {
		p->payload_len = 0;
		for (int i = 0; i < 8; i++)
			p->payload_len = p->payload_len << 8 | p->hdr[2 + i];
		if (p->payload_len >> 63)
			return ws_fail(p, "64-bit length with the top bit set");
		off = 10;
	} else {
		p->payload_len = len7;
	}
	if (p->masked)
		memcpy(p->mask, p->hdr + off, 4);
	if (control && (!p->fin || p->payload_len > 125))
		return ws_fail(p, "control frame fragmented or longer than 125 bytes");
	if (!control) {
		if (p->opcode == WS_CONT && !p->msg_opcode)
			return ws_fail(p, "continuation frame without a message");
		if (p->opcode != WS_CONT && p->msg_opcode)
			return ws_fail(p, "new message inside a fragmented one");
		if (p->opcode != WS_CONT && p->opcode != WS_TEXT && p->opcode != WS_BINARY)
			return ws_fail(p, "unknown data opcode");
		if (p->opcode != WS_CONT)
			p->msg_opcode = p->opcode;
		if (p->msg_len + p->payload_len > p->max_msg)
			return ws_fail(p, "message larger than the limit");
	} else if (p->opcode != WS_CLOSE && p->opcode != WS_PING && p->opcode != WS_PONG) {
		return ws_fail(p, "unknown control opcode");
	}
	p->in_payload = true;
	p->got = 0;
	return 0;
}

/* The frame's payload is complete: produce the event it finishes, if any. */
static void frame_done(struct ws_parser *p, struct ws_event_out *ev)
{
	p->in_payload = false;
	p->hdr_len = 0;
	if (p->opcode & 0x8) {
		ev->type = p->opcode == WS_PING ? WS_EV_PING : p->opcode == WS_PONG ? WS_EV_PONG : WS_EV_CLOSE;
		ev->data = p->ctl;
		ev->len = (size_t)p->payload_len;
		return;
	}
	if (!p->fin)
		return;
	ev->type = WS_EV_MESSAGE;
	ev->opcode = p->msg_opcode;
	ev->data = p->msg;
	ev->len = p->msg_len;
	p->msg_opcode = 0;
	p->msg_len = 0; /* the data stays valid until the next call */
}

static int payload_into(struct ws_parser *p, const uint8_t *buf, size_t take)
{
	uint8_t *dst;

	if (p->opcode & 0x8) {
		dst = p->ctl + p->got;
	} else {
		if (p->msg_len + take > p->msg_cap) {
			size_t cap = p->msg_cap ? p->msg_cap : 4096;
			uint8_t *m;

			while (cap < p->msg_len + take)
				cap *= 2;
			m = realloc(p->msg, cap);
			if (!m)
				return -1;
			p->msg = m;
			p->msg_cap = cap;
		}
		dst = p->msg + p->msg_len;
		p->msg_len += take;
	}
	for (size_t i = 0; i < take; i++)
		dst[i] = p->masked ? buf[i] ^ p->mask[(p->got + i) & 3] : buf[i];
	return 0;
}

ssize_t ws_parse(struct ws_parser *p, const uint8_t *buf, size_t len, struct ws_event_out *ev)
{
	size_t off = 0;

	ev->type = WS_EV_NONE;
	while (off < len && ev->type == WS_EV_NONE) {
		if (!p->in_payload) {
			size_t need = hdr_need(p);

			while (off < len && p->hdr_len < need) {
				p->hdr[p->hdr_len++] = buf[off++];
				need = hdr_need(p);
			}
			if (p->hdr_len < need)
				break;
			if (header_done(p) < 0)
				return -1;
		} else {
			size_t take = len - off;

			if (take > p->payload_len - p->got)
				take = (size_t)(p->payload_len - p->got);
			if (payload_into(p, buf + off, take) < 0)
				return ws_fail(p, "out of memory");
			p->got += take;
			off += take;
		}
		if (p->in_payload && p->got == p->payload_len)
			frame_done(p, ev);
	}
	return (ssize_t)off;
}

size_t ws_encode(uint8_t *out, size_t cap, int opcode, bool fin, const void *payload, size_t len, const uint8_t *mask)
{
	size_t h = 2;
	const uint8_t *src = payload;

	if (len > 65535)
		h += 8;
	else if (len > 125)
		h += 2;
	if (mask)
		h += 4;
	if (cap < h + len)
		return 0;
	out[0] = (uint8_t)((fin ? 0x80 : 0) | (opcode & 0x0f));
	if (len > 65535) {
		out[1] = 127;
		for (int i = 0; i < 8; i++)
			out[2 + i] = (uint8_t)(len >> (56 - 8 * i));
	} else if (len > 125) {
		out[1] = 126;
		out[2] = (uint8_t)(len >> 8);
		out[3] = (uint8_t)len;
	} else {
		out[1] = (uint8_t)len;
	}
	if (mask) {
		out[1] |= 0x80;
		memcpy(out + h - 4, mask, 4);
		for (size_t i = 0; i < len; i++)
			out[h + i] = src[i] ^ mask[i & 3];
	} else if (len) {
		memcpy(out + h, src, len);
	}
	return h + len;
}

int ws_make_key(char key[25])
{
	unsigned char raw[16];

	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return -EIO;
	EVP_EncodeBlock((unsigned char *)key, raw, sizeof(raw));
	return 0;
}

void ws_accept_for(const char *key, char accept[29])
{
	unsigned char digest[SHA_DIGEST_LENGTH];
	char buf[128];
	size_t n = strlen(key);

	if (n > sizeof(buf) - sizeof(WS_GUID))
		n = sizeof(buf) - sizeof(WS_GUID);
	memcpy(buf, key, n);
	memcpy(buf + n, WS_GUID, sizeof(WS_GUID) - 1);
	SHA1((const unsigned char *)buf, n + sizeof(WS_GUID) - 1, digest);
	EVP_EncodeBlock((unsigned char *)accept, digest, sizeof(digest));
}
