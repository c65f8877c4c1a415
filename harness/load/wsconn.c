/* A WebSocket client connection on an epoll loop, shared by the chat and RPC workloads. */
#include "load/wsconn.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "base/util.h"

static void wsc_want(struct wsc_group *g, struct wsc *c, unsigned events)
{
	struct epoll_event ev = {.events = events, .data.ptr = c};

	epoll_ctl(g->ep, EPOLL_CTL_MOD, c->tp.fd, &ev);
}

void wsc_dead(struct wsc_group *g, struct wsc *c, const char *why)
{
	if (c->state == WSC_DEAD)
		return;
	g->hooks->dead(g->owner, c, why);
	epoll_ctl(g->ep, EPOLL_CTL_DEL, c->tp.fd, NULL);
	g->tp->close(&c->tp);
	c->state = WSC_DEAD;
}

void wsc_flush(struct wsc_group *g, struct wsc *c)
{
	size_t off = 0;

	while (off < c->out_len) {
		ssize_t n = g->tp->write(&c->tp, c->out + off, c->out_len - off);

		if (n == TP_WANT_WRITE || n == TP_WANT_READ)
			break;
		if (n < 0) {
			wsc_dead(g, c, "write failed");
			return;
		}
		off += (size_t)n;
	}
	memmove(c->out, c->out + off, c->out_len - off);
	c->out_len -= off;
	wsc_want(g, c, EPOLLIN | (c->out_len ? EPOLLOUT : 0));
}

/* Room for need more bytes: the buffer doubled until they fit, within WSC_OUT_MAX. */
static bool wsc_room(struct wsc *c, size_t need)
{
	size_t cap = c->out_cap;
	uint8_t *p;

	if (c->out_len + need <= cap)
		return true;
	while (cap < c->out_len + need && cap < WSC_OUT_MAX)
		cap *= 2;
	if (cap < c->out_len + need || !(p = realloc(c->out, cap)))
		return false;
	c->out = p;
	c->out_cap = cap;
	return true;
}

bool wsc_queue(struct wsc_group *g, struct wsc *c, int opcode, const void *data, size_t len)
{
	uint8_t mask[4];
	size_t n = 0;

	for (int i = 0; i < 4; i++)
		mask[i] = (uint8_t)(rand() >> 7);
	if (wsc_room(c, len + 14))
		n = ws_encode(c->out + c->out_len, c->out_cap - c->out_len, opcode, true, data, len, mask);
	if (!n) {
		wsc_dead(g, c, "output buffer full");
		return false;
	}
	c->out_len += n;
	return true;
}

static void wsc_upgrade_send(struct wsc_group *g, struct wsc *c)
{
	int n;

	c->state = WSC_UPGRADE;
	ws_make_key(c->key);
	n = snprintf((char *)c->out, c->out_cap,
		     "GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		     g->url->path, g->url->host, g->url->port, c->key);
	if (n < 0 || (size_t)n >= c->out_cap) {
		wsc_dead(g, c, "the upgrade request is too long");
		return;
	}
	c->out_len = (size_t)n;
	http_parser_reset(&c->http, false);
	wsc_flush(g, c);
}

static void wsc_frames(struct wsc_group *g, struct wsc *c, const uint8_t *p, size_t len, uint64_t now)
{
	while (len && c->state == WSC_OPEN) {
		struct ws_event_out ev;
		ssize_t used = ws_parse(&c->ws, p, len, &ev);

		if (used < 0) {
			wsc_dead(g, c, c->ws.error);
			return;
		}
		p += used;
		len -= (size_t)used;
		if (ev.type == WS_EV_MESSAGE) {
			g->hooks->message(g->owner, c, ev.data, ev.len, now);
		} else if (ev.type == WS_EV_PING) {
			if (wsc_queue(g, c, WS_PONG, ev.data, ev.len))
				wsc_flush(g, c);
		} else if (ev.type == WS_EV_CLOSE) {
			wsc_dead(g, c, "the server closed the connection");
		}
	}
}

static void wsc_upgrade_bytes(struct wsc_group *g, struct wsc *c, const uint8_t *p, size_t len, uint64_t now)
{
	char want[29];
	ssize_t used = http_parse(&c->http, (const char *)p, len);

	if (used < 0) {
		wsc_dead(g, c, "bad upgrade response");
		return;
	}
	if (c->http.state != HP_DONE)
		return;
	ws_accept_for(c->key, want);
	if (!c->http.upgrade || strcmp(c->http.ws_accept, want) != 0) {
		wsc_dead(g, c, c->http.upgrade ? "wrong Sec-WebSocket-Accept" : "the server did not upgrade");
		return;
	}
	c->state = WSC_OPEN;
	g->hooks->open(g->owner, c);
	wsc_frames(g, c, p + used, len - (size_t)used, now);
}

static void wsc_readable(struct wsc_group *g, struct wsc *c)
{
	for (;;) {
		ssize_t n = g->tp->read(&c->tp, g->buf, sizeof(g->buf));
		uint64_t now = util_now_ns();

		if (n == TP_WANT_READ || n == TP_WANT_WRITE)
			return;
		if (n < 0) {
			wsc_dead(g, c, "the connection closed");
			return;
		}
		if (c->state == WSC_UPGRADE)
			wsc_upgrade_bytes(g, c, g->buf, (size_t)n, now);
		else
			wsc_frames(g, c, g->buf, (size_t)n, now);
		if (c->state == WSC_DEAD)
			return;
	}
}

void wsc_event(struct wsc_group *g, struct wsc *c, unsigned events)
{
	int e = 0, r;
	socklen_t elen = sizeof(e);

	switch (c->state) {
	case WSC_CONNECTING:
		if (getsockopt(c->tp.fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0 || e) {
			wsc_dead(g, c, "connect failed");
			return;
		}
		if (!g->url->tls) {
			wsc_upgrade_send(g, c);
			return;
		}
		if (tp_tls_attach(&c->tp) < 0) {
			wsc_dead(g, c, "TLS setup failed");
			return;
		}
		c->state = WSC_TLS;
		/* fall through */
	case WSC_TLS:
		r = g->tp->handshake(&c->tp);
		if (r == TP_OK)
			wsc_upgrade_send(g, c);
		else if (r == TP_WANT_READ || r == TP_WANT_WRITE)
			wsc_want(g, c, r == TP_WANT_READ ? EPOLLIN : EPOLLOUT);
		else
			wsc_dead(g, c, "TLS handshake failed");
		return;
	case WSC_UPGRADE:
	case WSC_OPEN:
		if ((events & EPOLLOUT) && c->out_len)
			wsc_flush(g, c);
		if (c->state != WSC_DEAD && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
			wsc_readable(g, c);
		return;
	case WSC_DEAD:
		return;
	}
}

int wsc_connect(struct wsc_group *g, struct wsc *c, size_t max_message, struct hx_err *err)
{
	struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = c};
	int one = 1;

	ws_parser_init(&c->ws, max_message);
	if (!c->out && !(c->out = malloc(65536)))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	c->out_cap = 65536;
	c->tp.fd = socket(g->url->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->tp.fd < 0)
		return hx_syserr(err, "socket");
	c->made = true;
	setsockopt(c->tp.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->tp.fd, (const struct sockaddr *)&g->url->addr, g->url->addrlen) < 0 && errno != EINPROGRESS)
		return hx_syserr(err, "connect to %s:%s", g->url->host, g->url->port);
	if (epoll_ctl(g->ep, EPOLL_CTL_ADD, c->tp.fd, &ev) < 0)
		return hx_syserr(err, "epoll");
	return 0;
}

void wsc_free(struct wsc_group *g, struct wsc *c)
{
	if (c->made && c->state != WSC_DEAD)
		g->tp->close(&c->tp);
	ws_parser_free(&c->ws);
	free(c->out);
	c->out = NULL;
}
