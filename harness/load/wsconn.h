/* One WebSocket client connection on an epoll loop, as the chat and RPC workloads hold them: a non-blocking
 * connect, TLS for wss://, the upgrade (its Sec-WebSocket-Accept checked), masked frames out through a buffer,
 * frames in, a ping answered. What the messages mean is the workload's, through its hooks. */
#ifndef HX_WSCONN_H
#define HX_WSCONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "load/http.h"
#include "load/load.h"
#include "load/transport.h"
#include "load/ws.h"

#define WSC_OUT_MAX (16u << 20)

enum wsc_state { WSC_CONNECTING, WSC_TLS, WSC_UPGRADE, WSC_OPEN, WSC_DEAD };

struct wsc;

/* The workload's side, each called with the group's owner. */
struct wsc_hooks {
	void (*open)(void *owner, struct wsc *c); /* the upgrade is done */
	void (*message)(void *owner, struct wsc *c, const uint8_t *data, size_t len, uint64_t now);
	void (*dead)(void *owner, struct wsc *c, const char *why); /* once, before it is closed */
};

/* What one workload's connections share: the loop, the URL, the transport and a read buffer. */
struct wsc_group {
	const struct transport *tp;
	const struct load_url *url;
	int ep;
	const struct wsc_hooks *hooks;
	void *owner;
	uint8_t buf[65536];
};

struct wsc {
	struct tp_conn tp;
	enum wsc_state state;
	bool made; /* wsc_connect made its socket */
	char key[25];
	struct http_parser http;
	struct ws_parser ws;
	uint8_t *out; /* frames not yet written: 64 KiB, grown up to WSC_OUT_MAX for a larger message */
	size_t out_len, out_cap;
};

/* Start connecting c to the group's URL, on its loop (the event's data is c); max_message bounds what the
 * server may send in one message. On an error c holds nothing to free but what wsc_free frees. */
int wsc_connect(struct wsc_group *g, struct wsc *c, size_t max_message, struct hx_err *err);
/* What epoll said about c. */
void wsc_event(struct wsc_group *g, struct wsc *c, unsigned events);
/* A masked frame into c's buffer, grown for it; false, and c dead, when it would pass WSC_OUT_MAX. */
bool wsc_queue(struct wsc_group *g, struct wsc *c, int opcode, const void *data, size_t len);
/* Write what the socket takes now; the loop is told to say when it takes the rest. */
void wsc_flush(struct wsc_group *g, struct wsc *c);
/* c is done for: the workload is told why (once), c leaves the loop and is closed. */
void wsc_dead(struct wsc_group *g, struct wsc *c, const char *why);
/* The end: c closed unless dead already or never made, its parser freed. */
void wsc_free(struct wsc_group *g, struct wsc *c);

#endif
