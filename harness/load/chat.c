/* The chat workload on one epoll loop: every client connects and upgrades; once all have joined, each
 * sends message 0 and sends message k+1 when its own message k comes back from the broadcast, so the
 * round trip is measured on the sending connection. */
#include "load/chat.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "load/http.h"
#include "load/load.h"
#include "load/transport.h"
#include "base/util.h"
#include "load/ws.h"

enum chat_state { CH_CONNECTING, CH_TLS, CH_UPGRADE, CH_OPEN, CH_DEAD };

struct chat_client {
	struct tp_conn tp;
	enum chat_state state;
	unsigned id, next_seq;
	char key[25];
	struct http_parser http;
	struct ws_parser ws;
	uint8_t *seen; /* a byte per (sender, seq): how often it arrived */
	uint64_t received;
	uint8_t out[65536]; /* frames not yet written */
	size_t out_len;
};

struct chat {
	const struct transport *tp;
	struct load_url url;
	struct chat_client *c;
	unsigned n, m, joined;
	int ep;
	uint64_t start_ns, last_ns;
	struct chat_result *r;
	uint8_t buf[65536];
};

static void chat_want(struct chat *ch, struct chat_client *c, unsigned events)
{
	struct epoll_event ev = {.events = events, .data.ptr = c};

	epoll_ctl(ch->ep, EPOLL_CTL_MOD, c->tp.fd, &ev);
}

static void chat_dead(struct chat *ch, struct chat_client *c, const char *why)
{
	if (c->state == CH_DEAD)
		return;
	ch->r->errors++;
	if (!ch->r->why[0])
		snprintf(ch->r->why, sizeof(ch->r->why), "client %u: %s", c->id, why);
	epoll_ctl(ch->ep, EPOLL_CTL_DEL, c->tp.fd, NULL);
	ch->tp->close(&c->tp);
	c->state = CH_DEAD;
}

static void chat_flush(struct chat *ch, struct chat_client *c)
{
	size_t off = 0;

	while (off < c->out_len) {
		ssize_t n = ch->tp->write(&c->tp, c->out + off, c->out_len - off);

		if (n == TP_WANT_WRITE || n == TP_WANT_READ)
			break;
		if (n < 0) {
			chat_dead(ch, c, "write failed");
			return;
		}
		off += (size_t)n;
	}
	memmove(c->out, c->out + off, c->out_len - off);
	c->out_len -= off;
	chat_want(ch, c, EPOLLIN | (c->out_len ? EPOLLOUT : 0));
}

static void chat_send_frame(struct chat *ch, struct chat_client *c, int opcode, const void *data, size_t len)
{
	uint8_t mask[4];
	size_t n;

	for (int i = 0; i < 4; i++)
		mask[i] = (uint8_t)(rand() >> 7);
	n = ws_encode(c->out + c->out_len, sizeof(c->out) - c->out_len, opcode, true, data, len, mask);
	if (!n) {
		chat_dead(ch, c, "output buffer full");
		return;
	}
	c->out_len += n;
	chat_flush(ch, c);
}

static void chat_send_next(struct chat *ch, struct chat_client *c)
{
	char msg[64];
	int len;

	if (c->next_seq >= ch->m)
		return;
	len = snprintf(msg, sizeof(msg), "%u %u %llu", c->id, c->next_seq++, (unsigned long long)util_now_ns());
	chat_send_frame(ch, c, WS_TEXT, msg, (size_t)len);
}

static void chat_message(struct chat *ch, struct chat_client *c, const uint8_t *data, size_t len, uint64_t now)
{
	char text[64];
	unsigned from, seq;
	unsigned long long sent;

	if (len >= sizeof(text)) {
		chat_dead(ch, c, "unexpected message");
		return;
	}
	memcpy(text, data, len);
	text[len] = '\0';
	if (sscanf(text, "%u %u %llu", &from, &seq, &sent) != 3 || from >= ch->n || seq >= ch->m) {
		chat_dead(ch, c, "unexpected message");
		return;
	}
	if (c->seen[(size_t)from * ch->m + seq]++)
		ch->r->duplicated++;
	c->received++;
	ch->r->delivered++;
	ch->last_ns = now;
	if (from == c->id) {
		hist_record(&ch->r->rtt, now - sent);
		chat_send_next(ch, c);
	}
}

static void chat_start(struct chat *ch)
{
	ch->start_ns = ch->last_ns = util_now_ns();
	for (unsigned i = 0; i < ch->n; i++)
		if (ch->c[i].state == CH_OPEN)
			chat_send_next(ch, &ch->c[i]);
}

static void chat_upgrade_sent(struct chat *ch, struct chat_client *c)
{
	char req[1024];
	int n;

	c->state = CH_UPGRADE;
	ws_make_key(c->key);
	n = snprintf(req, sizeof(req),
		     "GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		     ch->url.path, ch->url.host, ch->url.port, c->key);
	memcpy(c->out, req, (size_t)n);
	c->out_len = (size_t)n;
	http_parser_reset(&c->http, false);
	chat_flush(ch, c);
}

static void chat_ws_bytes(struct chat *ch, struct chat_client *c, const uint8_t *p, size_t len, uint64_t now)
{
	while (len && c->state == CH_OPEN) {
		struct ws_event_out ev;
		ssize_t used = ws_parse(&c->ws, p, len, &ev);

		if (used < 0) {
			chat_dead(ch, c, c->ws.error);
			return;
		}
		p += used;
		len -= (size_t)used;
		if (ev.type == WS_EV_MESSAGE)
			chat_message(ch, c, ev.data, ev.len, now);
		else if (ev.type == WS_EV_PING)
			chat_send_frame(ch, c, WS_PONG, ev.data, ev.len);
		else if (ev.type == WS_EV_CLOSE)
			chat_dead(ch, c, "the server closed the connection");
	}
}

static void chat_upgrade_bytes(struct chat *ch, struct chat_client *c, const uint8_t *p, size_t len, uint64_t now)
{
	char want[29];
	ssize_t used = http_parse(&c->http, (const char *)p, len);

	if (used < 0) {
		chat_dead(ch, c, "bad upgrade response");
		return;
	}
	if (c->http.state != HP_DONE)
		return;
	ws_accept_for(c->key, want);
	if (!c->http.upgrade || strcmp(c->http.ws_accept, want) != 0) {
		chat_dead(ch, c, c->http.upgrade ? "wrong Sec-WebSocket-Accept" : "the server did not upgrade");
		return;
	}
	c->state = CH_OPEN;
	if (++ch->joined == ch->n)
		chat_start(ch);
	chat_ws_bytes(ch, c, p + used, len - (size_t)used, now);
}

static void chat_readable(struct chat *ch, struct chat_client *c)
{
	for (;;) {
		ssize_t n = ch->tp->read(&c->tp, ch->buf, sizeof(ch->buf));
		uint64_t now = util_now_ns();

		if (n == TP_WANT_READ || n == TP_WANT_WRITE)
			return;
		if (n < 0) {
			chat_dead(ch, c, "the connection closed");
			return;
		}
		if (c->state == CH_UPGRADE)
			chat_upgrade_bytes(ch, c, ch->buf, (size_t)n, now);
		else
			chat_ws_bytes(ch, c, ch->buf, (size_t)n, now);
		if (c->state == CH_DEAD)
			return;
	}
}

static void chat_event(struct chat *ch, struct chat_client *c, unsigned events)
{
	int e = 0, r;
	socklen_t elen = sizeof(e);

	switch (c->state) {
	case CH_CONNECTING:
		if (getsockopt(c->tp.fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0 || e) {
			chat_dead(ch, c, "connect failed");
			return;
		}
		if (!ch->url.tls) {
			chat_upgrade_sent(ch, c);
			return;
		}
		if (tp_tls_attach(&c->tp) < 0) {
			chat_dead(ch, c, "TLS setup failed");
			return;
		}
		c->state = CH_TLS;
		/* fall through */
	case CH_TLS:
		r = ch->tp->handshake(&c->tp);
		if (r == TP_OK)
			chat_upgrade_sent(ch, c);
		else if (r == TP_WANT_READ || r == TP_WANT_WRITE)
			chat_want(ch, c, r == TP_WANT_READ ? EPOLLIN : EPOLLOUT);
		else
			chat_dead(ch, c, "TLS handshake failed");
		return;
	case CH_UPGRADE:
	case CH_OPEN:
		if ((events & EPOLLOUT) && c->out_len)
			chat_flush(ch, c);
		if (c->state != CH_DEAD && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
			chat_readable(ch, c);
		return;
	case CH_DEAD:
		return;
	}
}

static int chat_connect_all(struct chat *ch, struct hx_err *err)
{
	for (unsigned i = 0; i < ch->n; i++) {
		struct chat_client *c = &ch->c[i];
		struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = c};
		int one = 1;

		c->id = i;
		c->seen = calloc((size_t)ch->n * ch->m, 1);
		ws_parser_init(&c->ws, 1 << 20);
		c->tp.fd = socket(ch->url.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (!c->seen || c->tp.fd < 0)
			return hx_syserr(err, "chat: client %u", i);
		setsockopt(c->tp.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(c->tp.fd, (const struct sockaddr *)&ch->url.addr, ch->url.addrlen) < 0 &&
		    errno != EINPROGRESS)
			return hx_syserr(err, "chat: connect to %s:%s", ch->url.host, ch->url.port);
		epoll_ctl(ch->ep, EPOLL_CTL_ADD, c->tp.fd, &ev);
	}
	return 0;
}

static bool chat_finished(const struct chat *ch)
{
	for (unsigned i = 0; i < ch->n; i++)
		if (ch->c[i].state != CH_DEAD && ch->c[i].received < (uint64_t)ch->n * ch->m)
			return false;
	return true;
}

static void chat_loop(struct chat *ch, unsigned timeout_ms)
{
	struct epoll_event evs[128];
	uint64_t idle = (uint64_t)timeout_ms * 1000000u, joined_by = util_now_ns() + idle;

	while (!chat_finished(ch)) {
		int n = epoll_wait(ch->ep, evs, 128, 50);
		uint64_t now;

		for (int i = 0; i < n; i++)
			chat_event(ch, evs[i].data.ptr, evs[i].events);
		now = util_now_ns(); /* after the events: they may have moved last_ns forward */
		if (ch->joined < ch->n && now > joined_by) {
			snprintf(ch->r->why, sizeof(ch->r->why), "only %u of %u clients joined within %u ms",
				 ch->joined, ch->n, timeout_ms);
			return;
		}
		if (ch->start_ns && now - ch->last_ns > idle) {
			snprintf(ch->r->why, sizeof(ch->r->why), "no message for %u ms", timeout_ms);
			return;
		}
	}
}

int chat_run(const char *url, unsigned clients, unsigned messages, unsigned timeout_ms, struct chat_result *r,
	     struct hx_err *err)
{
	_cleanup_free_ struct chat *ch = calloc(1, sizeof(*ch));
	int rc = 0;

	if (!ch)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	memset(r, 0, sizeof(*r));
	hist_init(&r->rtt);
	if (load_parse_url(url, &ch->url, err) < 0)
		return -err->errnum;
	if (!ch->url.ws)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --chat takes a ws:// or wss:// URL, not '%s'", url);
	if (ch->url.tls && tp_tls_init(ch->url.host, true, err) < 0)
		return -err->errnum;
	ch->tp = ch->url.tls ? &tp_tls : &tp_tcp;
	ch->n = clients;
	ch->m = messages;
	ch->r = r;
	ch->c = calloc(clients, sizeof(*ch->c));
	ch->ep = epoll_create1(EPOLL_CLOEXEC);
	if (!ch->c || ch->ep < 0)
		rc = hx_syserr(err, "chat: setup");
	else if (chat_connect_all(ch, err) < 0)
		rc = -err->errnum;
	else
		chat_loop(ch, timeout_ms ? timeout_ms : 10000);
	r->clients = clients;
	r->messages = messages;
	r->expected = (uint64_t)clients * clients * messages;
	r->duration_s = ch->start_ns ? (double)(ch->last_ns - ch->start_ns) / 1e9 : 0;
	for (unsigned i = 0; ch->c && i < clients; i++) {
		struct chat_client *c = &ch->c[i];

		for (size_t k = 0; c->seen && k < (size_t)clients * messages; k++)
			r->lost += c->seen[k] == 0;
		if (c->state != CH_DEAD && c->tp.fd >= 0)
			ch->tp->close(&c->tp);
		ws_parser_free(&c->ws);
		free(c->seen);
	}
	r->ok = rc == 0 && r->lost == 0 && r->duplicated == 0 && r->errors == 0;
	if (!r->ok && rc == 0) {
		size_t len = strlen(r->why);

		snprintf(r->why + len, sizeof(r->why) - len, "%s%llu deliveries lost, %llu duplicated", len ? ": " : "",
			 (unsigned long long)r->lost, (unsigned long long)r->duplicated);
	}
	free(ch->c);
	if (ch->ep >= 0)
		close(ch->ep);
	tp_tls_free();
	return rc;
}
