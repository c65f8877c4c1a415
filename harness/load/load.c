/* The HTTP load engine: one event loop per thread over its own connections, with its own counters and
 * histograms (merged after join: nothing shared on the hot path), a monotonic nanosecond clock, and
 * requests sent either as answers come back (closed loop) or at intended times (open loop). The loop waits
 * on epoll (a read and a write syscall per request) or on io_uring (multishot receives into provided buffers,
 * the sends of a batch passed in one io_uring_enter): two small engine tables over the same connection logic. */
#include "load/load.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/dl_ossl.h"
#include "load/http.h"
#include "load/transport.h"
#include "load/uring.h"
#include "base/cleanup.h"
#include "base/util.h"

#define LOAD_PIPE_MAX 64
#define LOAD_RETRY_NS 10000000u /* 10 ms between connection attempts that failed */

const char *const load_err_names[LE_NR] = {"connect",	 "read",       "write", "timeout",
					   "status_4xx", "status_5xx", "parse", "body"};
const char *const load_engine_names[LOAD_ENGINE_NR] = {"auto", "epoll", "io_uring"};
const char *const load_fallback_names[LOAD_FALLBACK_NR] = {"none", "coop_taskrun", "default_taskrun", "epoll"};

enum conn_state { CS_IDLE, CS_CONNECTING, CS_HANDSHAKE, CS_READY };

struct conn {
	struct tp_conn tp;
	enum conn_state state;
	struct http_parser parser;
	unsigned inflight; /* queued or sent, not yet answered */
	unsigned to_write; /* queued, not yet fully written */
	size_t wpos;
	unsigned head; /* ring of send times of the in-flight requests */
	uint64_t sent_at[LOAD_PIPE_MAX];
	uint64_t intended[LOAD_PIPE_MAX];
	uint64_t next_send; /* open loop: intended time of the next request */
	uint64_t retry_at;  /* after a failed connect */
	unsigned events;    /* epoll: registered events */
	uint16_t gen;	    /* io_uring: bumped at each close, so completions of an old socket are known */
	bool sending;	    /* io_uring: a send is in flight */
	int heap_idx;
	EVP_MD_CTX *md;	    /* the digest of the response being read, with --expect-sha256 */
	unsigned char side; /* a duet's: 0 to url, 1 to url_b */
};

struct worker;
struct duet_sync;

/* What differs between the two ways of waiting: starting a connect, writing what is queued, closing, and
 * one wait for events with their dispatch. */
struct engine {
	enum load_engine id;
	int (*setup)(struct worker *w, struct hx_err *err); /* in the calling thread */
	void (*begin)(struct worker *w);		    /* in the worker's own thread */
	void (*teardown)(struct worker *w);
	void (*connect)(struct worker *w, struct conn *c);
	void (*flush)(struct worker *w, struct conn *c);
	void (*close)(struct worker *w, struct conn *c);
	void (*wait)(struct worker *w, int timeout_ms);
};

/* io_uring: the slots queued since the last submission, stamped again just before it. */
struct stamp {
	struct conn *c;
	unsigned slot;
};

struct worker {
	const struct load_config *cfg;
	const struct transport *tp;
	const struct engine *eng;
	pthread_t tid;
	int ep;
	struct uring ring;
	struct uring_bufs bufs;
	struct stamp *stamps;
	unsigned nstamps, stamps_cap;
	char *wbuf; /* the request, pipeline times over: every send is a slice of it */
	size_t wbuf_len;
	struct conn *conns;
	unsigned nconns;
	struct conn **heap; /* open loop: connections by next_send */
	unsigned heap_len;
	uint64_t interval_ns; /* open loop: between two requests of one connection */
	uint64_t quota;	      /* -n: requests this worker sends; UINT64_MAX for duration */
	uint64_t issued, finished;
	uint64_t start_ns, deadline_ns;
	bool stop;
	struct load_result r;
	/* a duet: the side measured, its window's start, the last drain's length and its answers, the threads'
	 * meeting point */
	unsigned active;
	uint64_t win_start_ns, drain_ns, drained;
	struct duet_sync *duet;
	struct tl_totals tot; /* r's counters, for the timeline */
	bool done;	      /* its load is over (load_progress stops) */
	char buf[65536];
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int load_probe(const struct load_url *u, unsigned timeout_ms, struct hx_err *err)
{
	_cleanup_close_ int fd = socket(u->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct pollfd p = {.events = POLLOUT};
	int e = 0;
	socklen_t len = sizeof(e);

	if (fd < 0)
		return hx_syserr(err, "load: socket");
	p.fd = fd;
	if (connect(fd, (const struct sockaddr *)&u->addr, u->addrlen) < 0) {
		if (errno != EINPROGRESS)
			e = errno;
		else if (poll(&p, 1, (int)timeout_ms) == 0)
			e = ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
			e = errno;
	}
	if (e)
		return hx_fail(err, HX_EXIT_USAGE, e,
			       "load: cannot connect to %s:%s: %s (is a server listening there?)", u->host, u->port,
			       strerror(e));
	return 0;
}

int load_parse_url(const char *url, struct load_url *u, struct hx_err *err)
{
	static const struct {
		const char *scheme, *port;
		bool tls, ws;
	} schemes[] = {{"http://", "80", false, false},
		       {"https://", "443", true, false},
		       {"ws://", "80", false, true},
		       {"wss://", "443", true, true}};
	const char *p = NULL, *hostend, *slash;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
	int r;

	memset(u, 0, sizeof(*u));
	for (size_t i = 0; i < HX_ARRAY_SIZE(schemes) && !p; i++)
		if (strncasecmp(url, schemes[i].scheme, strlen(schemes[i].scheme)) == 0) {
			p = url + strlen(schemes[i].scheme);
			u->tls = schemes[i].tls;
			u->ws = schemes[i].ws;
			snprintf(u->port, sizeof(u->port), "%s", schemes[i].port);
		}
	if (!p)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: '%s' is not an http, https, ws or wss URL", url);
	slash = strchr(p, '/');
	hostend = slash ? slash : p + strlen(p);
	snprintf(u->path, sizeof(u->path), "%s", slash ? slash : "/");
	if (*p == '[') { /* [::1]:8080 */
		const char *close = memchr(p, ']', (size_t)(hostend - p));

		if (!close)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: bad IPv6 address in '%s'", url);
		snprintf(u->host, sizeof(u->host), "%.*s", (int)(close - p - 1), p + 1);
		p = close + 1;
	} else {
		const char *colon = memchr(p, ':', (size_t)(hostend - p));
		const char *e = colon ? colon : hostend;

		snprintf(u->host, sizeof(u->host), "%.*s", (int)(e - p), p);
		p = e;
	}
	if (*p == ':')
		snprintf(u->port, sizeof(u->port), "%.*s", (int)(hostend - p - 1), p + 1);
	if (!u->host[0] || !u->port[0] || strspn(u->port, "0123456789") != strlen(u->port))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: bad host or port in '%s'", url);
	r = getaddrinfo(u->host, u->port, &hints, &ai);
	if (r != 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: cannot resolve '%s': %s", u->host, gai_strerror(r));
	memcpy(&u->addr, ai->ai_addr, ai->ai_addrlen);
	u->addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int load_build_request(struct load_config *c, const char *method, const char *const *headers, size_t nheaders,
		       const char *body, size_t body_len, struct hx_err *err)
{
	size_t cap = 1024 + strlen(c->url.path) + body_len, len;
	bool has_host = false;
	char *req;

	for (size_t i = 0; i < nheaders; i++) {
		if (!strchr(headers[i], ':'))
			return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: -H takes 'Name: value', not '%s'",
				       headers[i]);
		has_host |= strncasecmp(headers[i], "host:", 5) == 0;
		cap += strlen(headers[i]) + 2;
	}
	req = malloc(cap);
	if (!req)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	len = (size_t)snprintf(req, cap, "%s %s HTTP/1.1\r\n", method, c->url.path);
	if (!has_host)
		len += (size_t)snprintf(req + len, cap - len, "Host: %s:%s\r\n", c->url.host, c->url.port);
	for (size_t i = 0; i < nheaders; i++)
		len += (size_t)snprintf(req + len, cap - len, "%s\r\n", headers[i]);
	if (body)
		len += (size_t)snprintf(req + len, cap - len, "Content-Length: %zu\r\n", body_len);
	len += (size_t)snprintf(req + len, cap - len, "\r\n");
	if (body) {
		memcpy(req + len, body, body_len);
		len += body_len;
	}
	c->request = req;
	c->request_len = len;
	c->head = strcmp(method, "HEAD") == 0;
	return 0;
}

/* --- the open loop's min-heap of connections by next_send --- */

static void heap_swap(struct worker *w, unsigned a, unsigned b)
{
	struct conn *t = w->heap[a];

	w->heap[a] = w->heap[b];
	w->heap[b] = t;
	w->heap[a]->heap_idx = (int)a;
	w->heap[b]->heap_idx = (int)b;
}

static void heap_up(struct worker *w, unsigned i)
{
	while (i > 0 && w->heap[(i - 1) / 2]->next_send > w->heap[i]->next_send) {
		heap_swap(w, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_down(struct worker *w, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;

		if (l < w->heap_len && w->heap[l]->next_send < w->heap[m]->next_send)
			m = l;
		if (r < w->heap_len && w->heap[r]->next_send < w->heap[m]->next_send)
			m = r;
		if (m == i)
			return;
		heap_swap(w, i, m);
		i = m;
	}
}

static void heap_insert(struct worker *w, struct conn *c)
{
	if (c->heap_idx >= 0)
		return;
	w->heap[w->heap_len] = c;
	c->heap_idx = (int)w->heap_len++;
	heap_up(w, (unsigned)c->heap_idx);
}

/* Out of the heap while it cannot send; its intended time stays what it was. */
static void heap_remove(struct worker *w, struct conn *c)
{
	unsigned i = (unsigned)c->heap_idx, last;

	if (c->heap_idx < 0)
		return;
	last = --w->heap_len;
	if (i != last) {
		heap_swap(w, i, last);
		heap_down(w, i);
		heap_up(w, i);
	}
	c->heap_idx = -1;
}

/* --- connections (either engine) --- */

static const struct load_url *conn_url(const struct worker *w, const struct conn *c)
{
	return c->side ? &w->cfg->url_b : &w->cfg->url;
}

static void conn_close(struct worker *w, struct conn *c)
{
	if (c->tp.fd >= 0)
		w->eng->close(w, c);
	c->tp.fd = -1;
	c->events = 0;
	c->state = CS_IDLE;
}

/* Requests lost with a connection: errors of one kind; in -n mode they count as finished. */
static void conn_fail_inflight(struct worker *w, struct conn *c, enum load_err kind)
{
	w->r.errors[kind] += c->inflight;
	w->finished += c->inflight;
	c->inflight = c->to_write = 0;
	c->wpos = 0;
}

/* A connection attempt failed (connect, TLS): an error; in -n mode it uses up a request, so that a
 * dead server ends the run; the next attempt waits a little. */
static void conn_attempt_failed(struct worker *w, struct conn *c)
{
	w->r.errors[LE_CONNECT]++;
	if (w->quota != UINT64_MAX) {
		w->finished++;
		w->issued++;
	}
	conn_close(w, c);
	c->retry_at = util_now_ns() + LOAD_RETRY_NS;
}

static void body_update(void *ctx, const char *buf, size_t len)
{
	EVP_DigestUpdate(ctx, buf, len);
}

/* A fresh parser (and digest) for the next response on c. */
static void conn_parser_reset(struct worker *w, struct conn *c)
{
	http_parser_reset(&c->parser, w->cfg->head);
	if (c->md)
		EVP_DigestInit_ex(c->md, EVP_sha256(), NULL);
}

/* Whether the complete response on c has the body the options ask for. */
static bool body_ok(const struct worker *w, struct conn *c)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (w->cfg->check_length && c->parser.body_bytes != w->cfg->expect_length)
		return false;
	return !c->md ||
	       (EVP_DigestFinal_ex(c->md, d, &n) == 1 && n == 32 && memcmp(d, w->cfg->expect_sha256, 32) == 0);
}

static void conn_open(struct worker *w, struct conn *c)
{
	int one = 1;
	int fd = socket(w->cfg->url.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	c->tp.fd = fd;
	c->tp.ssl = NULL;
	c->events = 0;
	c->sending = false;
	c->wpos = 0;
	conn_parser_reset(w, c);
	if (fd < 0) {
		conn_attempt_failed(w, c);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->state = CS_CONNECTING;
	w->eng->connect(w, c);
}

static void conn_reconnect(struct worker *w, struct conn *c)
{
	conn_close(w, c);
	if (!w->stop) {
		w->r.reconnects++;
		conn_open(w, c);
	}
}

/* Queue one request now (intended: its intended send time, or now). */
static void conn_queue(struct worker *w, struct conn *c, uint64_t now, uint64_t intended)
{
	unsigned slot = (c->head + c->inflight) % LOAD_PIPE_MAX;

	c->sent_at[slot] = now;
	c->intended[slot] = intended;
	if (w->nstamps < w->stamps_cap)
		w->stamps[w->nstamps++] = (struct stamp){c, slot};
	c->inflight++;
	c->to_write++;
	w->issued++;
}

static bool may_issue(const struct worker *w)
{
	return !w->stop && w->issued < w->quota;
}

/* n bytes of the queued requests went out: whole requests leave the queue. */
static void conn_wrote(struct worker *w, struct conn *c, size_t n)
{
	size_t len = w->cfg->request_len;

	c->wpos += n;
	while (c->to_write && c->wpos >= len) {
		c->wpos -= len;
		c->to_write--;
	}
}

/* Closed loop: keep `pipeline` requests in flight. */
static void conn_fill(struct worker *w, struct conn *c, uint64_t now)
{
	if (w->cfg->rate > 0 || c->state != CS_READY)
		return;
	while (c->inflight < w->cfg->pipeline && may_issue(w))
		conn_queue(w, c, now, now);
	w->eng->flush(w, c);
}

/* Open loop: send every request whose intended time has come, while the window allows. A connection
 * that is due but cannot send (window full, not connected) leaves the heap until it can: its requests
 * keep their intended times, so the wait counts in their latency (coordinated omission corrected). */
static void conn_due(struct worker *w, struct conn *c, uint64_t now)
{
	bool queued = false;

	while (c->state == CS_READY && c->next_send <= now && c->inflight < w->cfg->pipeline && may_issue(w)) {
		conn_queue(w, c, now, c->next_send);
		c->next_send += w->interval_ns;
		queued = true;
	}
	if (c->next_send <= now || !may_issue(w)) {
		heap_remove(w, c);
	} else {
		heap_insert(w, c);
		heap_down(w, (unsigned)c->heap_idx);
	}
	if (queued)
		w->eng->flush(w, c);
}

static void conn_response(struct worker *w, struct conn *c, uint64_t now)
{
	unsigned slot = c->head;
	int status = c->parser.status;

	/* a duet's window counts its drain: every request it sent, answered (struct load_window) */
	if (now <= w->deadline_ns || w->quota != UINT64_MAX || w->duet) {
		tl_tick(&w->r.timeline, now, &w->tot);
		tl_latency(&w->r.timeline, now - c->intended[slot]);
		hist_record(&w->r.latency_uncorrected, now - c->sent_at[slot]);
		hist_record(&w->r.latency, now - c->intended[slot]);
		w->r.requests++;
		if (status >= 500)
			w->r.errors[LE_STATUS_5XX]++;
		else if (status >= 400)
			w->r.errors[LE_STATUS_4XX]++;
		else if (!body_ok(w, c))
			w->r.errors[LE_BODY]++;
	}
	c->head = (c->head + 1) % LOAD_PIPE_MAX;
	c->inflight--;
	w->finished++;
}

/* The peer closed (eof) or the read failed: a close may end a close-delimited response; anything else in
 * flight is lost. */
static void conn_read_end(struct worker *w, struct conn *c, bool eof)
{
	if (eof && c->inflight && http_parse_eof(&c->parser))
		conn_response(w, c, util_now_ns());
	if (c->inflight)
		conn_fail_inflight(w, c, LE_READ);
	conn_reconnect(w, c);
}

/* Bytes read at `now`: the responses they complete, then the next requests. False when the connection
 * was closed on the way (a parse error, Connection: close, bytes nobody asked for). */
static bool conn_input(struct worker *w, struct conn *c, const char *buf, size_t n, uint64_t now)
{
	size_t off = 0;

	w->r.bytes += n;
	while (off < n) {
		ssize_t used;

		if (!c->inflight) {
			w->r.errors[LE_PARSE]++; /* bytes nobody asked for */
			conn_reconnect(w, c);
			return false;
		}
		used = http_parse(&c->parser, buf + off, n - off);
		if (used < 0) {
			conn_fail_inflight(w, c, LE_PARSE);
			conn_reconnect(w, c);
			return false;
		}
		off += (size_t)used;
		if (c->parser.state == HP_DONE) {
			bool close = c->parser.close;

			conn_response(w, c, now);
			conn_parser_reset(w, c);
			if (close) {
				if (c->inflight)
					conn_fail_inflight(w, c, LE_READ);
				conn_reconnect(w, c);
				return false;
			}
		}
	}
	conn_fill(w, c, now);
	if (w->cfg->rate > 0)
		conn_due(w, c, now);
	return true;
}

static void conn_ready(struct worker *w, struct conn *c, uint64_t now)
{
	c->state = CS_READY;
	if (w->cfg->duet && c->side != w->active)
		return; /* the other side's connection waits, open, for its window */
	conn_fill(w, c, now);
	if (w->cfg->rate > 0)
		conn_due(w, c, now);
}

/* --- the epoll engine --- */

static void ep_events(struct worker *w, struct conn *c, unsigned want)
{
	struct epoll_event ev = {.events = want, .data.ptr = c};

	if (want == c->events)
		return;
	epoll_ctl(w->ep, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->tp.fd, &ev);
	c->events = want;
}

static void ep_connect(struct worker *w, struct conn *c)
{
	if (connect(c->tp.fd, (const struct sockaddr *)&conn_url(w, c)->addr, conn_url(w, c)->addrlen) < 0 &&
	    errno != EINPROGRESS) {
		conn_attempt_failed(w, c);
		return;
	}
	ep_events(w, c, EPOLLOUT);
}

static void ep_close(struct worker *w, struct conn *c)
{
	epoll_ctl(w->ep, EPOLL_CTL_DEL, c->tp.fd, NULL);
	w->tp->close(&c->tp);
}

/* Everything queued in one write (the prebuilt bytes of to_write requests). */
static void ep_flush(struct worker *w, struct conn *c)
{
	while (c->to_write) {
		ssize_t n = w->tp->write(&c->tp, w->wbuf + c->wpos, c->to_write * w->cfg->request_len - c->wpos);

		if (n == TP_WANT_WRITE || n == TP_WANT_READ) {
			ep_events(w, c, EPOLLIN | EPOLLOUT);
			return;
		}
		if (n < 0) {
			conn_fail_inflight(w, c, LE_WRITE);
			conn_reconnect(w, c);
			return;
		}
		conn_wrote(w, c, (size_t)n);
	}
	ep_events(w, c, EPOLLIN);
}

static void ep_readable(struct worker *w, struct conn *c)
{
	for (;;) {
		ssize_t n = w->tp->read(&c->tp, w->buf, sizeof(w->buf));

		if (n == TP_WANT_READ || n == TP_WANT_WRITE)
			return;
		if (n == TP_CLOSED || n < 0) {
			conn_read_end(w, c, n == TP_CLOSED);
			return;
		}
		if (!conn_input(w, c, w->buf, (size_t)n, util_now_ns()))
			return;
		/* A short read drained the socket: epoll says when more comes (no EAGAIN read per response). */
		if ((size_t)n < sizeof(w->buf) && !w->tp->pending(&c->tp))
			return;
	}
}

static void ep_handshake(struct worker *w, struct conn *c)
{
	int r = w->tp->handshake(&c->tp);

	if (r == TP_OK) {
		ep_events(w, c, EPOLLIN);
		conn_ready(w, c, util_now_ns());
	} else if (r == TP_WANT_READ) {
		ep_events(w, c, EPOLLIN);
	} else if (r == TP_WANT_WRITE) {
		ep_events(w, c, EPOLLOUT);
	} else {
		conn_attempt_failed(w, c);
	}
}

static void ep_connected(struct worker *w, struct conn *c)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(c->tp.fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0 || e ||
	    (w->cfg->url.tls && tp_tls_attach(&c->tp) < 0)) {
		conn_attempt_failed(w, c);
		return;
	}
	c->state = CS_HANDSHAKE;
	ep_handshake(w, c);
}

static void ep_event(struct worker *w, struct conn *c, unsigned ev)
{
	switch (c->state) {
	case CS_CONNECTING:
		ep_connected(w, c);
		return;
	case CS_HANDSHAKE:
		ep_handshake(w, c);
		return;
	case CS_READY:
		if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))
			ep_readable(w, c);
		if (c->state == CS_READY && (ev & EPOLLOUT) && c->to_write)
			ep_flush(w, c);
		return;
	case CS_IDLE:
		return;
	}
}

static void ep_wait(struct worker *w, int timeout_ms)
{
	struct epoll_event evs[256];
	int n = epoll_wait(w->ep, evs, 256, timeout_ms);

	for (int i = 0; i < n; i++)
		ep_event(w, evs[i].data.ptr, evs[i].events);
}

static int ep_setup(struct worker *w, struct hx_err *err)
{
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	return w->ep < 0 ? hx_syserr(err, "load: epoll_create1") : 0;
}

static void ep_begin(struct worker *w)
{
	(void)w;
}

static void ep_teardown(struct worker *w)
{
	if (w->ep >= 0)
		close(w->ep);
	w->ep = -1;
}

static const struct engine engine_epoll = {LOAD_ENGINE_EPOLL, ep_setup, ep_begin, ep_teardown,
					   ep_connect,	      ep_flush, ep_close, ep_wait};

/* --- the io_uring engine ---
 * Each connection has one multishot receive armed (its completions name a provided buffer, handed back
 * once parsed) and at most one send in flight (a slice of the prebuilt requests). Completions carry the
 * connection's index, its generation and the operation, so that those of a closed socket are dropped. */

enum ur_op { UR_CONNECT = 1, UR_RECV, UR_SEND };

static uint64_t ur_data(const struct worker *w, const struct conn *c, enum ur_op op)
{
	return (uint64_t)(c - w->conns) | (uint64_t)c->gen << 32 | (uint64_t)op << 48;
}

/* A free submission entry: when the ring is full, what is prepared goes to the kernel first. */
static struct io_uring_sqe *ur_sqe(struct worker *w)
{
	struct io_uring_sqe *sqe = uring_sqe(&w->ring);

	if (!sqe) {
		uring_enter(&w->ring, 0, 0);
		sqe = uring_sqe(&w->ring);
	}
	return sqe;
}

static void ur_connect(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe = ur_sqe(w);

	sqe->opcode = IORING_OP_CONNECT;
	sqe->fd = c->tp.fd;
	sqe->addr = (uint64_t)(uintptr_t)&conn_url(w, c)->addr;
	sqe->off = conn_url(w, c)->addrlen;
	sqe->user_data = ur_data(w, c, UR_CONNECT);
}

static void ur_recv(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe = ur_sqe(w);

	sqe->opcode = IORING_OP_RECV;
	sqe->fd = c->tp.fd;
	sqe->ioprio = IORING_RECV_MULTISHOT;
	sqe->flags = IOSQE_BUFFER_SELECT;
	sqe->buf_group = w->bufs.bgid;
	sqe->user_data = ur_data(w, c, UR_RECV);
}

static void ur_flush(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;

	if (c->sending || !c->to_write)
		return;
	sqe = ur_sqe(w);
	sqe->opcode = IORING_OP_SEND;
	sqe->fd = c->tp.fd;
	sqe->addr = (uint64_t)(uintptr_t)(w->wbuf + c->wpos);
	sqe->len = (unsigned)(c->to_write * w->cfg->request_len - c->wpos);
	sqe->msg_flags = MSG_NOSIGNAL;
	sqe->user_data = ur_data(w, c, UR_SEND);
	c->sending = true;
}

/* The armed receive holds the socket open: shutdown ends it (its last completion comes with an old
 * generation and is dropped), close gives the descriptor back. */
static void ur_close(struct worker *w, struct conn *c)
{
	(void)w;
	shutdown(c->tp.fd, SHUT_RDWR);
	close(c->tp.fd);
	c->gen++;
	c->sending = false;
}

static void ur_received(struct worker *w, struct conn *c, const struct io_uring_cqe *cqe, uint64_t now)
{
	if (cqe->res > 0) {
		unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		bool open = conn_input(w, c, uring_buf(&w->bufs, bid), (size_t)cqe->res, now);

		uring_bufs_put(&w->bufs, bid);
		w->r.setup.multishot |= (cqe->flags & IORING_CQE_F_MORE) != 0;
		if (open && !(cqe->flags & IORING_CQE_F_MORE))
			ur_recv(w, c);
	} else if (cqe->res == -ENOBUFS) {
		ur_recv(w, c); /* every buffer was taken: this batch hands them back */
	} else {
		conn_read_end(w, c, cqe->res == 0);
	}
}

static void ur_sent(struct worker *w, struct conn *c, int res)
{
	c->sending = false;
	if (res < 0) {
		conn_fail_inflight(w, c, LE_WRITE);
		conn_reconnect(w, c);
		return;
	}
	conn_wrote(w, c, (size_t)res);
	ur_flush(w, c);
}

static void ur_completion(struct worker *w, const struct io_uring_cqe *cqe, uint64_t now)
{
	struct conn *c = &w->conns[(uint32_t)cqe->user_data];
	enum ur_op op = (enum ur_op)(cqe->user_data >> 48);

	if ((uint16_t)(cqe->user_data >> 32) != c->gen || c->state == CS_IDLE) {
		if (cqe->flags & IORING_CQE_F_BUFFER)
			uring_bufs_put(&w->bufs, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
		return;
	}
	if (op == UR_RECV)
		ur_received(w, c, cqe, now);
	else if (op == UR_SEND)
		ur_sent(w, c, cqe->res);
	else if (cqe->res < 0)
		conn_attempt_failed(w, c);
	else {
		ur_recv(w, c);
		conn_ready(w, c, now);
	}
}

/* One clock read before the submission stamps every request it carries (they were queued while the last
 * batch was parsed); one after the wait stamps every completion of the batch. */
static void ur_wait(struct worker *w, int timeout_ms)
{
	uint64_t now = util_now_ns();
	bool closed = w->cfg->rate <= 0; /* open loop: the intended time stays */
	unsigned head, n;

	for (unsigned i = 0; i < w->nstamps; i++) {
		struct stamp s = w->stamps[i];

		if (closed)
			s.c->intended[s.slot] = now;
		s.c->sent_at[s.slot] = now;
	}
	w->nstamps = 0;
	uring_enter(&w->ring, 1, (uint64_t)timeout_ms * 1000000u);
	now = util_now_ns();
	n = uring_cq_ready(&w->ring, &head);
	for (unsigned i = 0; i < n; i++)
		ur_completion(w, uring_cqe_at(&w->ring, head + i), now);
	uring_cq_advance(&w->ring, n);
}

/* The mode the kernel gave this worker's ring, for the results. */
static void ur_record(struct worker *w)
{
	static const enum load_fallback by_mode[URING_NR_MODES] = {[URING_DEFER] = LOAD_FALLBACK_NONE,
								   [URING_COOP] = LOAD_FALLBACK_COOP,
								   [URING_DEFAULT] = LOAD_FALLBACK_DEFAULT,
								   [URING_OFF] = LOAD_FALLBACK_EPOLL};
	struct load_setup *s = &w->r.setup;

	uring_flags_format(w->ring.flags, s->ring_flags, sizeof(s->ring_flags));
	s->buffer_ring = w->bufs.n > 0;
	s->fallback = by_mode[w->ring.mode];
	snprintf(s->why, sizeof(s->why), "%s", w->ring.refused);
}

static unsigned pow2_at_least(unsigned v)
{
	unsigned p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* A submission entry per connection (a batch of sends fits), twice as many receive buffers (each socket's
 * data waits in its own until parsed); 10,000 connections take 32 MB of buffers at 1 KB. */
static int ur_setup(struct worker *w, struct hx_err *err)
{
	unsigned entries = pow2_at_least(w->nconns < 64 ? 64 : w->nconns > 16384 ? 16384 : w->nconns);
	unsigned nbufs = pow2_at_least(w->nconns * 2 < 64 ? 64 : w->nconns * 2 > 32768 ? 32768 : w->nconns * 2);

	w->stamps_cap = w->nconns * w->cfg->pipeline;
	w->stamps = calloc(w->stamps_cap ? w->stamps_cap : 1, sizeof(*w->stamps));
	if (!w->stamps)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (uring_setup(&w->ring, entries, true, err) < 0)
		return hx_wrap(err, "load: io_uring");
	if (uring_bufs_setup(&w->ring, &w->bufs, 0, nbufs, w->nconns > 1024 ? 1024 : 4096, err) < 0)
		return hx_wrap(err, "load: io_uring");
	ur_record(w);
	return 0;
}

/* The worker's thread becomes the ring's one submitter. Enabling a ring set up disabled fails only on a
 * kernel before 5.10, where io_uring_setup already refused the flag. */
static void ur_begin(struct worker *w)
{
	uring_enable(&w->ring);
}

/* The ring goes first (its requests end with it), then the buffers it could still write. */
static void ur_teardown(struct worker *w)
{
	if (w->ring.fd >= 0)
		uring_close(&w->ring);
	uring_bufs_close(&w->ring, &w->bufs);
	free(w->stamps);
	w->stamps = NULL;
}

static const struct engine engine_uring = {LOAD_ENGINE_URING, ur_setup, ur_begin, ur_teardown,
					   ur_connect,	      ur_flush, ur_close, ur_wait};

/* --- the worker --- */

/* Every few milliseconds: timeouts, and reconnects after failed attempts. */
static void worker_housekeeping(struct worker *w, uint64_t now)
{
	uint64_t timeout = (uint64_t)w->cfg->timeout_ms * 1000000u;

	for (unsigned i = 0; i < w->nconns; i++) {
		struct conn *c = &w->conns[i];

		if (c->state == CS_IDLE && !w->stop && may_issue(w) && now >= c->retry_at &&
		    (!w->cfg->duet || c->side == w->active)) {
			conn_open(w, c);
		} else if (c->inflight && now - c->sent_at[c->head] > timeout) {
			conn_fail_inflight(w, c, LE_TIMEOUT);
			conn_reconnect(w, c);
		}
	}
}

static int worker_wait_ms(const struct worker *w, uint64_t now)
{
	uint64_t next = now + 5000000u; /* housekeeping */

	if (w->cfg->rate > 0 && w->heap_len && w->heap[0]->next_send < next)
		next = w->heap[0]->next_send;
	if (w->deadline_ns < next)
		next = w->deadline_ns;
	return next <= now ? 0 : (int)((next - now + 999999u) / 1000000u);
}

static bool worker_done(const struct worker *w, uint64_t now)
{
	if (w->quota == UINT64_MAX)
		return now >= w->deadline_ns;
	return w->finished >= w->quota;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t cpu0 = thread_cpu_ns(), now, last_house = 0;

	w->eng->begin(w);
	w->start_ns = util_now_ns();
	for (unsigned i = 0; i < w->nconns; i++) {
		w->conns[i].next_send = w->start_ns + (w->interval_ns * i) / (w->nconns ? w->nconns : 1);
		conn_open(w, &w->conns[i]);
	}
	for (now = util_now_ns(); !worker_done(w, now); now = util_now_ns()) {
		w->eng->wait(w, worker_wait_ms(w, now));
		now = util_now_ns();
		tl_tick(&w->r.timeline, now, &w->tot);
		if (w->quota == UINT64_MAX && now >= w->deadline_ns)
			w->stop = true;
		/* each pass either sends from the top connection or takes it out of the heap */
		while (w->cfg->rate > 0 && w->heap_len && w->heap[0]->next_send <= now && may_issue(w))
			conn_due(w, w->heap[0], now);
		if (now - last_house >= 5000000u) {
			worker_housekeeping(w, now);
			last_house = now;
		}
	}
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	w->r.duration_s = (double)(now - w->start_ns) / 1e9;
	w->r.cpu_s = (double)(thread_cpu_ns() - cpu0) / 1e9;
	for (unsigned i = 0; i < w->nconns; i++)
		conn_close(w, &w->conns[i]);
	tl_close(&w->r.timeline, &w->tot);
	return NULL;
}

/* --- a duet: both sides' connections open, the load on one side per window ---
 * The threads meet at every window's end (a barrier, off the hot path): each has stopped sending and
 * drained its in-flight requests, the last to arrive merges their windows, hands the window on and starts
 * their counters again, and all start the next side together. The hot path is the one above, unchanged. */

struct duet_sync {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned arrived, gen;
	bool aborted; /* a thread could not start: the others leave at their next meeting */
	struct worker *ws;
	unsigned n;
	uint64_t t0;
	bool stop;
	bool ready_failed;
	struct load_window *win;
	struct load_result *total;
};

#define DUET_OPEN_NS 5000000000ull /* every connection of both sides open within this, or the load ends */

/* A barrier that can be called off. The last thread to arrive runs last(d, arg) before the others go on;
 * false when the meeting was called off. */
static bool duet_meet(struct duet_sync *d, void (*last)(struct duet_sync *, size_t), size_t arg)
{
	bool ok;

	pthread_mutex_lock(&d->mu);
	if (++d->arrived == d->n && !d->aborted) {
		if (last)
			last(d, arg);
		d->arrived = 0;
		d->gen++;
		pthread_cond_broadcast(&d->cv);
	} else {
		unsigned gen = d->gen;

		while (gen == d->gen && !d->aborted)
			pthread_cond_wait(&d->cv, &d->mu);
	}
	ok = !d->aborted;
	pthread_mutex_unlock(&d->mu);
	return ok;
}

static void duet_abort(struct duet_sync *d)
{
	pthread_mutex_lock(&d->mu);
	d->aborted = true;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
}

static void duet_start_clock(struct duet_sync *d, size_t unused)
{
	(void)unused;
	d->t0 = util_now_ns();
}

static bool duet_side_busy(const struct worker *w)
{
	for (unsigned i = 0; i < w->nconns; i++)
		if (w->conns[i].side == w->active && w->conns[i].inflight)
			return true;
	return false;
}

static bool duet_all_open(const struct worker *w)
{
	for (unsigned i = 0; i < w->nconns; i++)
		if (w->conns[i].state != CS_READY)
			return false;
	return true;
}

/* Events until `until`, with the housekeeping every 5 ms (timeouts, reconnects of the side measured). */
static void duet_run_until(struct worker *w, uint64_t until, bool (*done)(const struct worker *))
{
	uint64_t now = util_now_ns(), last_house = now;

	while (now < until && !(done && done(w))) {
		w->eng->wait(w, done ? 1 : worker_wait_ms(w, now));
		now = util_now_ns();
		if (now - last_house >= 5000000u) {
			worker_housekeeping(w, now);
			last_house = now;
		}
	}
}

static bool duet_side_idle(const struct worker *w)
{
	return !duet_side_busy(w);
}

/* The last thread at the window's end: the threads' counters into one window, handed on, started again. */
static void duet_merge(struct duet_sync *d, size_t k)
{
	struct load_window *win = d->win;
	const struct load_config *c = d->ws[0].cfg;
	unsigned side = c->order[k];

	memset(win, 0, offsetof(struct load_window, latency));
	hist_init(&win->latency);
	win->index = k;
	win->side = side;
	win->start_s = 1e18;
	for (unsigned i = 0; i < d->n; i++) {
		struct worker *w = &d->ws[i];
		double st = (double)(w->win_start_ns - d->t0) / 1e9, drain = (double)w->drain_ns / 1e6;

		win->start_s = st < win->start_s ? st : win->start_s;
		win->start_mono_s = (double)w->win_start_ns / 1e9 < win->start_mono_s || i == 0
					    ? (double)w->win_start_ns / 1e9
					    : win->start_mono_s;
		win->drain_ms = drain > win->drain_ms ? drain : win->drain_ms;
		win->requests += w->r.requests;
		win->drained += w->drained;
		win->reconnects += w->r.reconnects;
		for (int e = 0; e < LE_NR; e++) {
			win->errors[e] += w->r.errors[e];
			win->errors_total += w->r.errors[e];
		}
		hist_merge(&win->latency, &w->r.latency);
		d->total->requests += w->r.requests;
		d->total->bytes += w->r.bytes;
		d->total->reconnects += w->r.reconnects;
		for (int e = 0; e < LE_NR; e++)
			d->total->errors[e] += w->r.errors[e];
		w->r.requests = w->r.bytes = w->r.reconnects = 0;
		memset(w->r.errors, 0, sizeof(w->r.errors));
		hist_init(&w->r.latency);
		hist_init(&w->r.latency_uncorrected);
	}
	win->duration_s = c->window_s + win->drain_ms / 1e3; /* to the last thread's last answer */
	if (!c->on_window(win, c->window_ctx) || k + 1 >= c->nwindows)
		d->stop = true;
}

/* One window on side `side`: its connections filled at once, events until its end, then drained (the answers
 * counted: the window is every request it sent, from the first send to the last answer). */
static void duet_window(struct worker *w, unsigned side)
{
	uint64_t timeout_ns = (uint64_t)w->cfg->timeout_ms * 1000000u, t, answered;

	w->active = side;
	w->stop = false;
	w->win_start_ns = util_now_ns();
	w->deadline_ns = w->win_start_ns + (uint64_t)(w->cfg->window_s * 1e9);
	for (unsigned i = 0; i < w->nconns; i++)
		if (w->conns[i].side == side)
			conn_fill(w, &w->conns[i], w->win_start_ns);
	duet_run_until(w, w->deadline_ns, NULL);
	w->stop = true;
	answered = w->r.requests; /* the drain's answers are the rest: counted here, not per response */
	t = util_now_ns();
	duet_run_until(w, t + timeout_ns + 100000000u, duet_side_idle);
	w->drain_ns = util_now_ns() - t;
	w->drained = w->r.requests - answered;
}

/* --duet-gate: the last thread at the meeting before a window reads its go; the end of stdin ends the load. */
static void duet_gate(struct duet_sync *d, size_t unused)
{
	char go;

	(void)unused;
	if (read(STDIN_FILENO, &go, 1) != 1)
		d->stop = true;
}

static void *worker_duet_main(void *arg)
{
	struct worker *w = arg;
	struct duet_sync *d = w->duet;
	uint64_t cpu0 = thread_cpu_ns();

	w->eng->begin(w);
	w->start_ns = util_now_ns();
	w->stop = true; /* opening: no request before the first window */
	w->active = 2;
	for (unsigned i = 0; i < w->nconns; i++)
		conn_open(w, &w->conns[i]);
	duet_run_until(w, w->start_ns + DUET_OPEN_NS, duet_all_open);
	if (!duet_all_open(w))
		d->ready_failed = true;
	if (!duet_meet(d, duet_start_clock, 0))
		d->ready_failed = true;
	for (size_t k = 0; !d->ready_failed && k < w->cfg->nwindows; k++) {
		if (w->cfg->gate && (!duet_meet(d, duet_gate, 0) || d->stop))
			break;
		duet_window(w, w->cfg->order[k]);
		if (!duet_meet(d, duet_merge, k) || d->stop)
			break;
	}
	w->r.duration_s = (double)(util_now_ns() - w->start_ns) / 1e9;
	w->r.cpu_s = (double)(thread_cpu_ns() - cpu0) / 1e9;
	for (unsigned i = 0; i < w->nconns; i++)
		conn_close(w, &w->conns[i]);
	return NULL;
}

static int worker_setup(struct worker *w, const struct load_config *c, unsigned idx, enum load_engine engine,
			uint64_t origin_ns, struct hx_err *err)
{
	unsigned per_side = c->conns / c->threads + (idx < c->conns % c->threads);
	unsigned n = c->duet && !c->one_side ? 2 * per_side : per_side;

	w->cfg = c;
	w->tp = c->url.tls ? &tp_tls : &tp_tcp;
	w->eng = engine == LOAD_ENGINE_URING ? &engine_uring : &engine_epoll;
	w->nconns = n;
	w->ep = -1;
	w->ring.fd = -1;
	w->conns = calloc(n ? n : 1, sizeof(*w->conns));
	w->heap = calloc(n ? n : 1, sizeof(*w->heap));
	w->wbuf_len = c->request_len * c->pipeline;
	w->wbuf = malloc(w->wbuf_len ? w->wbuf_len : 1);
	if (!w->conns || !w->heap || !w->wbuf)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (unsigned i = 0; i < c->pipeline; i++)
		memcpy(w->wbuf + i * c->request_len, c->request, c->request_len);
	if (w->eng->setup(w, err) < 0)
		return -err->errnum;
	hist_init(&w->r.latency);
	hist_init(&w->r.latency_uncorrected);
	if (tl_init(&w->r.timeline, origin_ns, c->interval_ns) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	w->tot = (struct tl_totals){&w->r.requests, &w->r.bytes, w->r.errors, LE_NR};
	w->quota = c->requests ? c->requests / c->threads + (idx < c->requests % c->threads) : UINT64_MAX;
	w->deadline_ns = c->requests ? UINT64_MAX : util_now_ns() + (uint64_t)(c->duration_s * 1e9);
	if (c->rate > 0) {
		double conn_rate = c->rate / c->conns;

		w->interval_ns = (uint64_t)(1e9 / conn_rate);
		for (unsigned i = 0; i < n; i++) {
			w->heap[i] = &w->conns[i];
			w->conns[i].heap_idx = (int)i;
		}
		w->heap_len = n;
	}
	for (unsigned i = 0; i < n; i++) {
		w->conns[i].tp.fd = -1;
		w->conns[i].side = i >= per_side;
		if (c->check_sha256 && !(w->conns[i].md = EVP_MD_CTX_new()))
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "load: out of memory");
		w->conns[i].parser.on_body = w->conns[i].md ? body_update : NULL;
		w->conns[i].parser.body_ctx = w->conns[i].md;
	}
	return 0;
}

int load_nofile(unsigned conns, struct hx_err *err)
{
	rlim_t need = (rlim_t)conns + LOAD_NOFILE_SPARE;
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return hx_syserr(err, "load: getrlimit NOFILE");
	if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < need) {
		struct rlimit want = {need, r.rlim_max == RLIM_INFINITY || r.rlim_max >= need ? r.rlim_max : need};

		/* raising the hard limit needs CAP_SYS_RESOURCE and stops at fs.nr_open: EPERM or EINVAL */
		if (setrlimit(RLIMIT_NOFILE, &want) < 0)
			return hx_fail(err, HX_EXIT_HOST, errno,
				       "load: %u connections need %llu open files; the limit is %llu (hard %llu) and "
				       "this host does not let it rise (%s): raise it (ulimit -Hn, fs.nr_open) or use "
				       "fewer connections",
				       conns, (unsigned long long)need, (unsigned long long)r.rlim_cur,
				       (unsigned long long)r.rlim_max, strerror(errno));
	}
	return 0;
}

int load_engine_parse(const char *name)
{
	for (int i = 0; i < LOAD_ENGINE_NR; i++)
		if (strcmp(name, load_engine_names[i]) == 0)
			return i;
	return -1;
}

/* auto: io_uring for plain HTTP where the kernel (and the seccomp filter around us) allow it. */
int load_engine_pick(const struct load_config *c, enum load_engine *ret, struct hx_err *err)
{
	const char *why = c->engine == LOAD_ENGINE_EPOLL || c->url.tls ? NULL : uring_unsupported();
	enum uring_mode limit;

	if (uring_mode_limit(&limit, err) < 0) /* a bad value is refused whichever engine runs */
		return hx_wrap(err, "load");
	if (c->engine == LOAD_ENGINE_URING && c->url.tls)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: the io_uring engine is plain HTTP only (TLS runs on epoll): use --engine epoll");
	if (c->engine == LOAD_ENGINE_URING && why)
		return hx_fail(err, HX_EXIT_HOST, ENOTSUP,
			       "load: io_uring cannot be used here: %s (use --engine epoll)", why);
	*ret = c->engine == LOAD_ENGINE_EPOLL || c->url.tls || why ? LOAD_ENGINE_EPOLL : LOAD_ENGINE_URING;
	return 0;
}

static void worker_free(struct worker *w)
{
	if (w->eng)
		w->eng->teardown(w);
	for (unsigned k = 0; w->conns && k < w->nconns; k++)
		EVP_MD_CTX_free(w->conns[k].md);
	free(w->conns);
	free(w->heap);
	free(w->wbuf);
	tl_free(&w->r.timeline);
}

static void worker_merge(struct load_result *ret, struct worker *w)
{
	ret->requests += w->r.requests;
	ret->bytes += w->r.bytes;
	ret->reconnects += w->r.reconnects;
	for (int e = 0; e < LE_NR; e++)
		ret->errors[e] += w->r.errors[e];
	hist_merge(&ret->latency, &w->r.latency);
	hist_merge(&ret->latency_uncorrected, &w->r.latency_uncorrected);
	tl_merge(&ret->timeline, &w->r.timeline);
	ret->cpu_s += w->r.cpu_s;
	if (w->r.duration_s > ret->duration_s)
		ret->duration_s = w->r.duration_s;
	if (w->r.duration_s > 0 && w->r.cpu_s / w->r.duration_s > ret->max_thread_busy)
		ret->max_thread_busy = w->r.cpu_s / w->r.duration_s;
}

static int duet_setup(struct duet_sync *d, struct worker *ws, const struct load_config *c, struct load_result *total,
		      struct hx_err *err)
{
	*d = (struct duet_sync){.ws = ws, .n = c->threads, .total = total};
	if (!c->on_window || !c->order || !c->nwindows || c->rate > 0 || c->requests)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: a duet is closed loop, by windows, with a callback");
	d->win = calloc(1, sizeof(*d->win));
	if (!d->win)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	return 0;
}

static bool workers_done(const struct load_config *c, struct worker *ws)
{
	for (unsigned i = 0; i < c->threads; i++)
		if (ws[i].tid && !__atomic_load_n(&ws[i].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* One status line a second while the workers run, from what their timelines publish: req/s over the last
 * second, the worst thread's p99 of its last interval, errors, elapsed and (with -d) the duration. */
static void load_progress(const struct load_config *c, struct worker *ws, uint64_t origin_ns)
{
	uint64_t last = 0, last_ns = origin_ns;

	for (;;) {
		uint64_t req = 0, errs = 0, p99 = 0, now;

		for (int k = 0; k < 10 && !workers_done(c, ws); k++)
			nanosleep(&(struct timespec){0, 100000000}, NULL);
		if (workers_done(c, ws))
			break;
		now = util_now_ns();
		for (unsigned i = 0; i < c->threads; i++) {
			uint64_t r, e, p;

			tl_live(&ws[i].r.timeline, &r, &e, &p);
			req += r;
			errs += e;
			p99 = p > p99 ? p : p99;
		}
		fprintf(c->progress, "\r\033[K  %.0f req/s  p99 %.2f ms  %llu errors  %.0f s",
			(double)(req - last) * 1e9 / (double)(now - last_ns), (double)p99 / 1e6,
			(unsigned long long)errs, (double)(now - origin_ns) / 1e9);
		if (!c->requests)
			fprintf(c->progress, " of %g s", c->duration_s);
		fflush(c->progress);
		last = req;
		last_ns = now;
	}
	fprintf(c->progress, "\r\033[K");
	fflush(c->progress);
}

int load_run(const struct load_config *c, struct load_result *ret, struct hx_err *err)
{
	struct duet_sync duet = {0};
	struct worker *ws;
	enum load_engine engine = LOAD_ENGINE_EPOLL;
	uint64_t origin_ns = util_now_ns(); /* every thread's intervals count from here */
	int rc = 0;

	if (load_engine_pick(c, &engine, err) < 0)
		return -err->errnum;
	ws = calloc(c->threads, sizeof(*ws));
	if (!ws)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (load_nofile(c->duet && !c->one_side ? 2 * c->conns : c->conns, err) < 0) {
		free(ws);
		return -err->errnum;
	}
	if (c->url.tls && tp_tls_init(c->url.host, c->insecure, err) < 0) {
		free(ws);
		return -err->errnum;
	}
	memset(ret, 0, sizeof(*ret));
	tl_init(&ret->timeline, origin_ns, 0);
	hist_init(&ret->latency);
	hist_init(&ret->latency_uncorrected);
	for (unsigned i = 0; i < c->threads && rc == 0; i++)
		rc = worker_setup(&ws[i], c, i, engine, origin_ns, err);
	if (rc == 0 && c->duet)
		rc = duet_setup(&duet, ws, c, ret, err);
	for (unsigned i = 0; i < c->threads && rc == 0; i++) {
		ws[i].duet = c->duet ? &duet : NULL;
		if ((errno = pthread_create(&ws[i].tid, NULL, c->duet ? worker_duet_main : worker_main, &ws[i])) != 0)
			rc = hx_syserr(err, "load: pthread_create");
	}
	if (rc < 0 && duet.win)
		duet_abort(&duet); /* those started leave their next meeting */
	if (rc == 0 && c->progress && c->interval_ns && !c->duet)
		load_progress(c, ws, origin_ns);
	for (unsigned i = 0; i < c->threads; i++) {
		if (ws[i].tid)
			pthread_join(ws[i].tid, NULL);
		worker_merge(ret, &ws[i]);
		if (i == 0)
			ret->setup = ws[i].r.setup; /* every ring is set up alike */
		ret->setup.multishot |= ws[i].r.setup.multishot;
		worker_free(&ws[i]);
	}
	if (engine == LOAD_ENGINE_EPOLL && c->engine == LOAD_ENGINE_AUTO && !c->url.tls && uring_unsupported()) {
		ret->setup.fallback = LOAD_FALLBACK_EPOLL;
		snprintf(ret->setup.why, sizeof(ret->setup.why), "%s", uring_unsupported());
	}
	if (duet.win) {
		pthread_mutex_destroy(&duet.mu);
		pthread_cond_destroy(&duet.cv);
		free(duet.win);
		if (rc == 0 && duet.ready_failed)
			rc = hx_fail(err, HX_EXIT_VERDICT, ECONNREFUSED,
				     "load: duet: not every connection of both sides was open within %llu s",
				     DUET_OPEN_NS / 1000000000ull);
	}
	for (int e = 0; e < LE_NR; e++)
		ret->errors_total += ret->errors[e];
	ret->threads = c->threads;
	ret->engine = engine;
	free(ws);
	tp_tls_free();
	return rc;
}

void load_result_free(struct load_result *r)
{
	tl_free(&r->timeline);
}
