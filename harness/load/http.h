/* An incremental HTTP/1.1 response parser for the load client: fed any split of the byte stream, it
 * stops at the end of each response so pipelined responses parse one after another. */
#ifndef HX_HTTP_H
#define HX_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HTTP_LINE_MAX 8192

enum http_state {
	HP_STATUS,
	HP_HEADERS,
	HP_BODY_LENGTH,
	HP_CHUNK_SIZE,
	HP_CHUNK_DATA,
	HP_CHUNK_END,
	HP_TRAILERS,
	HP_BODY_TO_CLOSE,
	HP_DONE,
	HP_ERROR,
};

struct http_parser {
	enum http_state state;
	int status;
	bool head; /* the request was HEAD: no body whatever the headers say */
	bool chunked;
	bool has_length;
	bool close;   /* Connection: close (or HTTP/1.0 without keep-alive) */
	bool upgrade; /* 101 Switching Protocols */
	uint64_t remaining;
	uint64_t body_bytes;
	size_t line_len;
	char line[HTTP_LINE_MAX];
	const char *error; /* what was wrong, when state is HP_ERROR */
	/* Sec-WebSocket-Accept, when present (for the WebSocket handshake) */
	char ws_accept[64];
	/* When set, called with each piece of a response's body as it arrives (chunk framing removed); the
	 * reset keeps it. */
	void (*on_body)(void *ctx, const char *buf, size_t len);
	void *body_ctx;
};

void http_parser_reset(struct http_parser *p, bool head_request);
/* Consume bytes of one response. Returns how many were consumed (the rest belongs to the next
 * response) or -1 on a malformed response (p->error says why). p->state is HP_DONE when complete. */
ssize_t http_parse(struct http_parser *p, const char *buf, size_t len);
/* The connection closed: completes a response delimited by the close; false if one was cut short. */
bool http_parse_eof(struct http_parser *p);

#endif
