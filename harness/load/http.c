/* HTTP/1.1 response parsing (RFC 9112): status line, the headers that frame the body, and the body
 * by Content-Length, chunked coding or connection close. Only framing matters to a load client. */
#include "load/http.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void http_parser_reset(struct http_parser *p, bool head_request)
{
	p->state = HP_STATUS;
	p->status = 0;
	p->head = head_request;
	p->chunked = p->has_length = p->close = p->upgrade = false;
	p->remaining = p->body_bytes = 0;
	p->line_len = 0;
	p->error = NULL;
	p->ws_accept[0] = '\0';
}

static int fail(struct http_parser *p, const char *why)
{
	p->state = HP_ERROR;
	p->error = why;
	return -1;
}

static int parse_status(struct http_parser *p, const char *l, size_t n)
{
	/* "HTTP/1.1 200 OK" */
	if (n < 12 || memcmp(l, "HTTP/1.", 7) != 0 || (l[7] != '0' && l[7] != '1') || l[8] != ' ' ||
	    !isdigit((unsigned char)l[9]) || !isdigit((unsigned char)l[10]) || !isdigit((unsigned char)l[11]) ||
	    (n > 12 && l[12] != ' '))
		return fail(p, "bad status line");
	p->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	if (p->status < 100)
		return fail(p, "bad status code");
	p->close = l[7] == '0'; /* HTTP/1.0 closes unless it says keep-alive */
	p->state = HP_HEADERS;
	return 0;
}

static bool value_has_token(const char *v, size_t n, const char *tok)
{
	size_t tl = strlen(tok);

	for (size_t i = 0; i + tl <= n; i++)
		if (strncasecmp(v + i, tok, tl) == 0 && (i == 0 || v[i - 1] == ',' || v[i - 1] == ' ') &&
		    (i + tl == n || v[i + tl] == ',' || v[i + tl] == ' '))
			return true;
	return false;
}

static int parse_header(struct http_parser *p, const char *l, size_t n)
{
	const char *colon = memchr(l, ':', n);
	const char *v;
	size_t name_len, vn;

	if (!colon || colon == l)
		return fail(p, "bad header line");
	name_len = (size_t)(colon - l);
	v = colon + 1;
	vn = n - name_len - 1;
	while (vn && (*v == ' ' || *v == '\t'))
		v++, vn--;
	while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
		vn--;
	if (name_len == 14 && strncasecmp(l, "content-length", 14) == 0) {
		uint64_t len = 0;

		if (vn == 0 || vn > 19)
			return fail(p, "bad Content-Length");
		for (size_t i = 0; i < vn; i++) {
			if (!isdigit((unsigned char)v[i]))
				return fail(p, "bad Content-Length");
			len = len * 10 + (uint64_t)(v[i] - '0');
		}
		if (p->has_length && len != p->remaining)
			return fail(p, "conflicting Content-Length");
		p->has_length = true;
		p->remaining = len;
	} else if (name_len == 17 && strncasecmp(l, "transfer-encoding", 17) == 0) {
		p->chunked = value_has_token(v, vn, "chunked");
	} else if (name_len == 10 && strncasecmp(l, "connection", 10) == 0) {
		if (value_has_token(v, vn, "close"))
			p->close = true;
		else if (value_has_token(v, vn, "keep-alive"))
			p->close = false;
	} else if (name_len == 20 && strncasecmp(l, "sec-websocket-accept", 20) == 0 && vn < sizeof(p->ws_accept)) {
		memcpy(p->ws_accept, v, vn);
		p->ws_accept[vn] = '\0';
	}
	return 0;
}

/* The blank line after the headers: decide how the body is framed. */
static void headers_done(struct http_parser *p)
{
	if (p->status == 101) {
		p->upgrade = true;
		p->state = HP_DONE;
	} else if (p->status < 200) {
		http_parser_reset(p, p->head); /* an interim response: the real one follows */
	} else if (p->head || p->status == 204 || p->status == 304) {
		p->state = HP_DONE;
	} else if (p->chunked) {
		p->state = HP_CHUNK_SIZE;
	} else if (p->has_length) {
		p->state = p->remaining ? HP_BODY_LENGTH : HP_DONE;
	} else {
		p->state = HP_BODY_TO_CLOSE;
		p->close = true;
	}
}

static int parse_chunk_size(struct http_parser *p, const char *l, size_t n)
{
	uint64_t size = 0;
	size_t i = 0;

	for (; i < n && isxdigit((unsigned char)l[i]); i++) {
		if (size >> 60)
			return fail(p, "chunk too large");
		size = size * 16 + (uint64_t)(isdigit((unsigned char)l[i]) ? l[i] - '0'
									   : (tolower((unsigned char)l[i]) - 'a' + 10));
	}
	if (i == 0 || (i < n && l[i] != ';' && l[i] != ' ' && l[i] != '\t'))
		return fail(p, "bad chunk size");
	p->remaining = size;
	p->state = size ? HP_CHUNK_DATA : HP_TRAILERS;
	return 0;
}

/* One complete line (without CRLF) in the current state. */
static int parse_line(struct http_parser *p, const char *l, size_t n)
{
	switch (p->state) {
	case HP_STATUS:
		return parse_status(p, l, n);
	case HP_HEADERS:
		if (n == 0) {
			headers_done(p);
			return 0;
		}
		return parse_header(p, l, n);
	case HP_CHUNK_SIZE:
		return parse_chunk_size(p, l, n);
	case HP_CHUNK_END:
		if (n != 0)
			return fail(p, "missing CRLF after chunk");
		p->state = HP_CHUNK_SIZE;
		return 0;
	case HP_TRAILERS:
		if (n == 0)
			p->state = HP_DONE;
		return 0;
	default:
		return fail(p, "internal: line in a body state");
	}
}

static bool line_state(enum http_state s)
{
	return s == HP_STATUS || s == HP_HEADERS || s == HP_CHUNK_SIZE || s == HP_CHUNK_END || s == HP_TRAILERS;
}

/* Take one line from buf: in place when whole, else through p->line. Returns bytes used, 0 when
 * more input is needed, -1 on error. */
static ssize_t take_line(struct http_parser *p, const char *buf, size_t len)
{
	const char *nl = memchr(buf, '\n', len);
	size_t used, n;

	if (!nl) {
		if (p->line_len + len > HTTP_LINE_MAX)
			return fail(p, "line too long");
		memcpy(p->line + p->line_len, buf, len);
		p->line_len += len;
		return (ssize_t)len;
	}
	used = (size_t)(nl - buf) + 1;
	if (p->line_len) {
		if (p->line_len + used > HTTP_LINE_MAX)
			return fail(p, "line too long");
		memcpy(p->line + p->line_len, buf, used);
		n = p->line_len + used - 1;
		p->line_len = 0;
		buf = p->line;
	} else {
		n = used - 1;
	}
	if (n && buf[n - 1] == '\r')
		n--;
	return parse_line(p, buf, n) < 0 ? -1 : (ssize_t)used;
}

ssize_t http_parse(struct http_parser *p, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len && p->state != HP_DONE) {
		size_t avail = len - off, take;
		ssize_t r;

		if (p->state == HP_ERROR)
			return -1;
		if (line_state(p->state)) {
			r = take_line(p, buf + off, avail);
			if (r < 0)
				return -1;
			off += (size_t)r;
			continue;
		}
		if (p->state == HP_BODY_TO_CLOSE) {
			p->body_bytes += avail;
			if (p->on_body)
				p->on_body(p->body_ctx, buf + off, avail);
			return (ssize_t)len;
		}
		take = avail < p->remaining ? avail : (size_t)p->remaining;
		p->remaining -= take;
		p->body_bytes += take;
		if (p->on_body && take)
			p->on_body(p->body_ctx, buf + off, take);
		off += take;
		if (p->remaining == 0)
			p->state = p->state == HP_BODY_LENGTH ? HP_DONE : HP_CHUNK_END;
	}
	return p->state == HP_ERROR ? -1 : (ssize_t)off;
}

bool http_parse_eof(struct http_parser *p)
{
	if (p->state == HP_BODY_TO_CLOSE) {
		p->state = HP_DONE;
		return true;
	}
	return p->state == HP_DONE;
}
