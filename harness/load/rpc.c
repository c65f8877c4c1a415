/* The RPC workload on one epoll loop. A request is a text frame "<id> <op>" (op: echo, incr, get) and its
 * answer "<id> <value>"; a client's ids run from 0 to its share of the requests, so one byte per id tells
 * whether it was sent, answered, or answered twice. */
#include "load/rpc.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "load/http.h"
#include "load/load.h"
#include "load/transport.h"
#include "load/ws.h"

enum rpc_state { RPC_CONNECTING, RPC_TLS, RPC_UPGRADE, RPC_OPEN, RPC_DEAD };
enum rpc_id { ID_UNSENT, ID_IN_FLIGHT, ID_ANSWERED };
/* the run's phases: the counter's first read, the load, its last read */
enum rpc_phase { PH_JOINING, PH_BEFORE, PH_LOAD, PH_AFTER, PH_DONE };

struct rpc_client {
	struct tp_conn tp;
	enum rpc_state state;
	unsigned index;
	char key[25];
	struct http_parser http;
	struct ws_parser ws;
	uint64_t share, next, answered;
	uint8_t *ids;	   /* enum rpc_id per id */
	uint64_t *sent_ns; /* per id */
	uint8_t out[65536];
	size_t out_len;
};

struct rpc {
	const struct transport *tp;
	const struct rpc_config *cfg;
	struct load_url url;
	struct rpc_client *c;
	unsigned joined;
	enum rpc_phase phase;
	int ep;
	uint64_t start_ns, end_ns, last_ns;
	struct rpc_result *r;
	uint8_t buf[65536];
};

static void rpc_fail(struct rpc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rpc_fail(struct rpc *p, const char *fmt, ...)
{
	va_list ap;

	if (p->r->why[0])
		return; /* the first check that failed names the run's failure */
	va_start(ap, fmt);
	vsnprintf(p->r->why, sizeof(p->r->why), fmt, ap);
	va_end(ap);
}

static void rpc_want(struct rpc *p, struct rpc_client *c, unsigned events)
{
	struct epoll_event ev = {.events = events, .data.ptr = c};

	epoll_ctl(p->ep, EPOLL_CTL_MOD, c->tp.fd, &ev);
}

static void rpc_dead(struct rpc *p, struct rpc_client *c, const char *why)
{
	if (c->state == RPC_DEAD)
		return;
	p->r->errors++;
	rpc_fail(p, "client %u: %s", c->index, why);
	epoll_ctl(p->ep, EPOLL_CTL_DEL, c->tp.fd, NULL);
	p->tp->close(&c->tp);
	c->state = RPC_DEAD;
}

static void rpc_flush(struct rpc *p, struct rpc_client *c)
{
	size_t off = 0;

	while (off < c->out_len) {
		ssize_t n = p->tp->write(&c->tp, c->out + off, c->out_len - off);

		if (n == TP_WANT_WRITE || n == TP_WANT_READ)
			break;
		if (n < 0) {
			rpc_dead(p, c, "write failed");
			return;
		}
		off += (size_t)n;
	}
	memmove(c->out, c->out + off, c->out_len - off);
	c->out_len -= off;
	rpc_want(p, c, EPOLLIN | (c->out_len ? EPOLLOUT : 0));
}

/* Queue one frame; the caller flushes. */
static bool rpc_queue(struct rpc *p, struct rpc_client *c, int opcode, const void *data, size_t len)
{
	uint8_t mask[4];
	size_t n;

	for (int i = 0; i < 4; i++)
		mask[i] = (uint8_t)(rand() >> 7);
	n = ws_encode(c->out + c->out_len, sizeof(c->out) - c->out_len, opcode, true, data, len, mask);
	if (!n) {
		rpc_dead(p, c, "output buffer full");
		return false;
	}
	c->out_len += n;
	return true;
}

static void rpc_send_next(struct rpc *p, struct rpc_client *c)
{
	char msg[48];
	int len = snprintf(msg, sizeof(msg), "%" PRIu64 " %s", c->next, p->cfg->counter ? "incr" : "echo");

	c->ids[c->next] = ID_IN_FLIGHT;
	c->sent_ns[c->next++] = util_now_ns();
	p->r->sent++;
	rpc_queue(p, c, WS_TEXT, msg, (size_t)len);
}

/* The counter's read, on the first client: "g get", answered "g <value>". */
static void rpc_send_get(struct rpc *p)
{
	struct rpc_client *c = &p->c[0];

	if (c->state == RPC_OPEN && rpc_queue(p, c, WS_TEXT, "g get", 5))
		rpc_flush(p, c);
}

static void rpc_start_load(struct rpc *p)
{
	p->phase = PH_LOAD;
	p->start_ns = p->last_ns = util_now_ns();
	for (unsigned i = 0; i < p->cfg->clients; i++) {
		struct rpc_client *c = &p->c[i];

		for (unsigned k = 0; k < p->cfg->window && c->next < c->share && c->state == RPC_OPEN; k++)
			rpc_send_next(p, c);
		if (c->state == RPC_OPEN)
			rpc_flush(p, c);
	}
}

static bool rpc_load_done(const struct rpc *p)
{
	for (unsigned i = 0; i < p->cfg->clients; i++)
		if (p->c[i].state != RPC_DEAD && p->c[i].answered < p->c[i].share)
			return false;
	return true;
}

/* After an answer: the next phase once every live client has all of its answers. */
static void rpc_advance(struct rpc *p)
{
	if (p->phase != PH_LOAD || !rpc_load_done(p))
		return;
	p->end_ns = p->last_ns;
	p->phase = p->cfg->counter ? PH_AFTER : PH_DONE;
	if (p->cfg->counter)
		rpc_send_get(p);
}

static void rpc_got_counter(struct rpc *p, struct rpc_client *c, const char *value)
{
	char *end;
	long long v = strtoll(value, &end, 10);

	if (c->index != 0 || *end || end == value || v < 0 || (p->phase != PH_BEFORE && p->phase != PH_AFTER)) {
		rpc_dead(p, c, "a counter value nobody asked for, or not a number");
		return;
	}
	if (p->phase == PH_BEFORE) {
		p->r->counter_before = v;
		rpc_start_load(p);
	} else {
		p->r->counter_after = v;
		p->phase = PH_DONE;
	}
}

static void rpc_answer(struct rpc *p, struct rpc_client *c, const uint8_t *data, size_t len, uint64_t now)
{
	char text[64], *sp, *end;
	uint64_t id;

	if (len >= sizeof(text) || !memchr(data, ' ', len)) {
		rpc_dead(p, c, "an answer that is not \"<id> <value>\"");
		return;
	}
	memcpy(text, data, len);
	text[len] = '\0';
	sp = strchr(text, ' ');
	*sp = '\0';
	if (strcmp(text, "g") == 0) {
		rpc_got_counter(p, c, sp + 1);
		return;
	}
	id = strtoull(text, &end, 10);
	if (*end || end == text || id >= c->share || c->ids[id] == ID_UNSENT) {
		p->r->unknown++;
		rpc_fail(p, "client %u: an answer for id '%s', which it never sent", c->index, text);
		return;
	}
	if (c->ids[id] == ID_ANSWERED) {
		p->r->duplicated++;
		rpc_fail(p, "client %u: id %" PRIu64 " answered twice", c->index, id);
		return;
	}
	c->ids[id] = ID_ANSWERED;
	c->answered++;
	p->r->answered++;
	p->last_ns = now;
	hist_record(&p->r->latency, now - c->sent_ns[id]);
	if (c->next < c->share) {
		rpc_send_next(p, c);
		rpc_flush(p, c);
	}
	rpc_advance(p);
}

static void rpc_upgrade_sent(struct rpc *p, struct rpc_client *c)
{
	char req[1024];
	int n;

	c->state = RPC_UPGRADE;
	ws_make_key(c->key);
	n = snprintf(req, sizeof(req),
		     "GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		     p->url.path, p->url.host, p->url.port, c->key);
	memcpy(c->out, req, (size_t)n);
	c->out_len = (size_t)n;
	http_parser_reset(&c->http, false);
	rpc_flush(p, c);
}

static void rpc_ws_bytes(struct rpc *p, struct rpc_client *c, const uint8_t *b, size_t len, uint64_t now)
{
	while (len && c->state == RPC_OPEN) {
		struct ws_event_out ev;
		ssize_t used = ws_parse(&c->ws, b, len, &ev);

		if (used < 0) {
			rpc_dead(p, c, c->ws.error);
			return;
		}
		b += used;
		len -= (size_t)used;
		if (ev.type == WS_EV_MESSAGE) {
			rpc_answer(p, c, ev.data, ev.len, now);
		} else if (ev.type == WS_EV_PING) {
			if (rpc_queue(p, c, WS_PONG, ev.data, ev.len))
				rpc_flush(p, c);
		} else if (ev.type == WS_EV_CLOSE) {
			rpc_dead(p, c, "the server closed the connection");
		}
	}
}

static void rpc_joined(struct rpc *p)
{
	if (++p->joined < p->cfg->clients)
		return;
	if (p->cfg->counter) {
		p->phase = PH_BEFORE;
		rpc_send_get(p);
	} else {
		rpc_start_load(p);
	}
}

static void rpc_upgrade_bytes(struct rpc *p, struct rpc_client *c, const uint8_t *b, size_t len, uint64_t now)
{
	char want[29];
	ssize_t used = http_parse(&c->http, (const char *)b, len);

	if (used < 0) {
		rpc_dead(p, c, "bad upgrade response");
		return;
	}
	if (c->http.state != HP_DONE)
		return;
	ws_accept_for(c->key, want);
	if (!c->http.upgrade || strcmp(c->http.ws_accept, want) != 0) {
		rpc_dead(p, c, c->http.upgrade ? "wrong Sec-WebSocket-Accept" : "the server did not upgrade");
		return;
	}
	c->state = RPC_OPEN;
	rpc_joined(p);
	rpc_ws_bytes(p, c, b + used, len - (size_t)used, now);
}

static void rpc_readable(struct rpc *p, struct rpc_client *c)
{
	for (;;) {
		ssize_t n = p->tp->read(&c->tp, p->buf, sizeof(p->buf));
		uint64_t now = util_now_ns();

		if (n == TP_WANT_READ || n == TP_WANT_WRITE)
			return;
		if (n < 0) {
			rpc_dead(p, c, "the connection closed");
			return;
		}
		if (c->state == RPC_UPGRADE)
			rpc_upgrade_bytes(p, c, p->buf, (size_t)n, now);
		else
			rpc_ws_bytes(p, c, p->buf, (size_t)n, now);
		if (c->state == RPC_DEAD)
			return;
	}
}

static void rpc_event(struct rpc *p, struct rpc_client *c, unsigned events)
{
	int e = 0, r;
	socklen_t elen = sizeof(e);

	switch (c->state) {
	case RPC_CONNECTING:
		if (getsockopt(c->tp.fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0 || e) {
			rpc_dead(p, c, "connect failed");
			return;
		}
		if (!p->url.tls) {
			rpc_upgrade_sent(p, c);
			return;
		}
		if (tp_tls_attach(&c->tp) < 0) {
			rpc_dead(p, c, "TLS setup failed");
			return;
		}
		c->state = RPC_TLS;
		/* fall through */
	case RPC_TLS:
		r = p->tp->handshake(&c->tp);
		if (r == TP_OK)
			rpc_upgrade_sent(p, c);
		else if (r == TP_WANT_READ || r == TP_WANT_WRITE)
			rpc_want(p, c, r == TP_WANT_READ ? EPOLLIN : EPOLLOUT);
		else
			rpc_dead(p, c, "TLS handshake failed");
		return;
	case RPC_UPGRADE:
	case RPC_OPEN:
		if ((events & EPOLLOUT) && c->out_len)
			rpc_flush(p, c);
		if (c->state != RPC_DEAD && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
			rpc_readable(p, c);
		return;
	case RPC_DEAD:
		return;
	}
}

static int rpc_connect_all(struct rpc *p, struct hx_err *err)
{
	unsigned n = p->cfg->clients;

	for (unsigned i = 0; i < n; i++) {
		struct rpc_client *c = &p->c[i];
		struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = c};
		int one = 1;

		c->index = i;
		c->share = p->cfg->requests / n + (i < p->cfg->requests % n);
		c->ids = calloc(c->share + 1, 1);
		c->sent_ns = calloc(c->share + 1, sizeof(*c->sent_ns));
		ws_parser_init(&c->ws, 1 << 16);
		c->tp.fd = socket(p->url.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (!c->ids || !c->sent_ns || c->tp.fd < 0)
			return hx_syserr(err, "rpc: client %u", i);
		setsockopt(c->tp.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(c->tp.fd, (const struct sockaddr *)&p->url.addr, p->url.addrlen) < 0 &&
		    errno != EINPROGRESS)
			return hx_syserr(err, "rpc: connect to %s:%s", p->url.host, p->url.port);
		epoll_ctl(p->ep, EPOLL_CTL_ADD, c->tp.fd, &ev);
	}
	return 0;
}

static bool rpc_all_dead(const struct rpc *p)
{
	for (unsigned i = 0; i < p->cfg->clients; i++)
		if (p->c[i].state != RPC_DEAD)
			return false;
	return true;
}

static void rpc_loop(struct rpc *p)
{
	struct epoll_event evs[128];
	uint64_t idle = (uint64_t)p->cfg->timeout_ms * 1000000u, joined_by = util_now_ns() + idle;

	p->last_ns = util_now_ns();
	while (p->phase != PH_DONE && !rpc_all_dead(p)) {
		int n = epoll_wait(p->ep, evs, 128, 50);
		uint64_t now;

		for (int i = 0; i < n; i++)
			rpc_event(p, evs[i].data.ptr, evs[i].events);
		now = util_now_ns();
		if (p->phase == PH_JOINING && now > joined_by) {
			rpc_fail(p, "only %u of %u clients joined within %u ms", p->joined, p->cfg->clients,
				 p->cfg->timeout_ms);
			return;
		}
		if (p->phase != PH_JOINING && now - p->last_ns > idle) {
			rpc_fail(p, "no answer for %u ms", p->cfg->timeout_ms);
			return;
		}
	}
}

/* What the checks found after the loop: ids never answered, the counter against the acknowledgements. */
static void rpc_verdict(struct rpc *p)
{
	struct rpc_result *r = p->r;

	for (unsigned i = 0; p->c && i < p->cfg->clients; i++) {
		struct rpc_client *c = &p->c[i];

		for (uint64_t k = 0; c->ids && k < c->share; k++)
			if (c->ids[k] != ID_ANSWERED) {
				if (!r->missing++)
					rpc_fail(p, "client %u: id %" PRIu64 " never answered", c->index, k);
			}
	}
	if (p->cfg->counter && r->counter_before >= 0 && r->counter_after >= 0 &&
	    (uint64_t)(r->counter_after - r->counter_before) != r->answered) {
		int64_t off = (int64_t)r->answered - (r->counter_after - r->counter_before);

		r->counter_off = (uint64_t)(off < 0 ? -off : off);
		rpc_fail(p,
			 "counter: went from %" PRId64 " to %" PRId64 " for %" PRIu64
			 " acknowledged increments (%" PRId64 " lost or extra updates)",
			 r->counter_before, r->counter_after, r->answered, off);
	} else if (p->cfg->counter && r->counter_after < 0 && !r->why[0])
		rpc_fail(p, "counter: never read at the end");
	r->ok = !r->why[0];
}

uint64_t rpc_failures(const struct rpc_result *r)
{
	return r->missing + r->duplicated + r->unknown + r->errors + r->counter_off;
}

static void rpc_free(struct rpc *p)
{
	for (unsigned i = 0; p->c && i < p->cfg->clients; i++) {
		struct rpc_client *c = &p->c[i];

		if (c->state != RPC_DEAD && c->tp.fd > 0)
			p->tp->close(&c->tp);
		ws_parser_free(&c->ws);
		free(c->ids);
		free(c->sent_ns);
	}
	free(p->c);
	if (p->ep >= 0)
		close(p->ep);
	tp_tls_free();
}

int rpc_run(const char *url, const struct rpc_config *cfg, struct rpc_result *r, struct hx_err *err)
{
	_cleanup_free_ struct rpc *p = calloc(1, sizeof(*p));
	int rc = 0;

	if (!p)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	memset(r, 0, sizeof(*r));
	hist_init(&r->latency);
	r->counter_before = r->counter_after = -1;
	p->ep = -1;
	if (load_parse_url(url, &p->url, err) < 0)
		return -err->errnum;
	if (!p->url.ws)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --rpc takes a ws:// or wss:// URL, not '%s'", url);
	if (cfg->requests < cfg->clients)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --rpc needs at least one request per client (-n %u)",
			       cfg->clients);
	if (p->url.tls && tp_tls_init(p->url.host, true, err) < 0)
		return -err->errnum;
	p->tp = p->url.tls ? &tp_tls : &tp_tcp;
	p->cfg = cfg;
	p->r = r;
	p->c = calloc(cfg->clients, sizeof(*p->c));
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	if (!p->c || p->ep < 0)
		rc = hx_syserr(err, "rpc: setup");
	else if (rpc_connect_all(p, err) < 0)
		rc = -err->errnum;
	else
		rpc_loop(p);
	if (rc == 0) {
		if (!p->end_ns)
			p->end_ns = p->last_ns;
		r->duration_s = p->start_ns && p->end_ns > p->start_ns ? (double)(p->end_ns - p->start_ns) / 1e9 : 0;
		rpc_verdict(p);
	}
	rpc_free(p);
	return rc;
}
