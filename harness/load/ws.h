/* WebSocket (RFC 6455) for the load client: the handshake key, frame encoding with client masking,
 * and an incremental frame parser that reassembles fragmented messages. */
#ifndef HX_WS_H
#define HX_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum ws_opcode { WS_CONT = 0x0, WS_TEXT = 0x1, WS_BINARY = 0x2, WS_CLOSE = 0x8, WS_PING = 0x9, WS_PONG = 0xA };

enum ws_event { WS_EV_NONE, WS_EV_MESSAGE, WS_EV_PING, WS_EV_PONG, WS_EV_CLOSE };

struct ws_parser {
	uint8_t hdr[14];
	size_t hdr_len;
	uint64_t payload_len, got;
	uint8_t mask[4];
	bool masked, fin, in_payload;
	int opcode;	/* of the frame being read */
	int msg_opcode; /* of the message being reassembled (text/binary), 0 when none */
	uint8_t *msg;	/* reassembly buffer (owned) */
	size_t msg_len, msg_cap, max_msg;
	uint8_t ctl[125]; /* payload of the control frame being read */
	const char *error;
};

struct ws_event_out {
	enum ws_event type;
	int opcode;	     /* WS_TEXT or WS_BINARY for a message */
	const uint8_t *data; /* valid until the next ws_parse call */
	size_t len;
};

void ws_parser_init(struct ws_parser *p, size_t max_msg);
void ws_parser_free(struct ws_parser *p);
/* Consume bytes until one event completes (ev->type != WS_EV_NONE) or the input ends. Returns the
 * bytes consumed or -1 on a protocol error (p->error). */
ssize_t ws_parse(struct ws_parser *p, const uint8_t *buf, size_t len, struct ws_event_out *ev);
/* Encode one frame into out (which must not overlap payload); mask NULL sends it unmasked (server
 * side, tests). Returns its size, or 0 when cap is too small. */
size_t ws_encode(uint8_t *out, size_t cap, int opcode, bool fin, const void *payload, size_t len, const uint8_t *mask);
/* A random Sec-WebSocket-Key and the Sec-WebSocket-Accept the server must answer with. */
int ws_make_key(char key[25]);
void ws_accept_for(const char *key, char accept[29]);

#endif
