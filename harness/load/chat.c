/* The chat workload on one epoll loop: every client connects and upgrades; once all have joined, each
 * sends message 0 and sends message k+1 when its own message k comes back from the broadcast, so the
 * round trip is measured on the sending connection. */
#include "load/chat.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "load/load.h"
#include "base/util.h"
#include "load/ws.h"
#include "load/wsconn.h"

struct chat_client {
	struct wsc w; /* first: the connection's events carry its address */
	unsigned id, next_seq;
	uint8_t *seen; /* a byte per (sender, seq): how often it arrived */
	uint64_t received;
};

struct chat {
	struct wsc_group g;
	struct load_url url;
	struct chat_client *c;
	unsigned n, m, joined;
	uint64_t start_ns, last_ns;
	bool gap; /* a client got a sender's message before the one due from it: the run ends at once */
	struct chat_result *r;
};

_Static_assert(offsetof(struct chat_client, w) == 0, "a client is found from its connection's address");

static struct chat_client *client_of(struct wsc *w)
{
	return (struct chat_client *)w;
}

static void chat_send_frame(struct chat *ch, struct chat_client *c, int opcode, const void *data, size_t len)
{
	if (wsc_queue(&ch->g, &c->w, opcode, data, len))
		wsc_flush(&ch->g, &c->w);
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

/* A message "<sender> <number> <sent_ns>": its sender below n, its number below m; -1 for anything else. */
static int chat_parse(const uint8_t *data, size_t len, unsigned n, unsigned m, unsigned *from, unsigned *seq,
		      uint64_t *sent)
{
	char text[64];
	unsigned long long ns;

	if (len >= sizeof(text))
		return -1;
	memcpy(text, data, len);
	text[len] = '\0';
	if (sscanf(text, "%u %u %llu", from, seq, &ns) != 3 || *from >= n || *seq >= m)
		return -1;
	*sent = ns;
	return 0;
}

static void chat_message(struct chat *ch, struct chat_client *c, const uint8_t *data, size_t len, uint64_t now)
{
	unsigned from, seq;
	uint64_t sent;

	if (chat_parse(data, len, ch->n, ch->m, &from, &seq, &sent) < 0) {
		wsc_dead(&ch->g, &c->w, "unexpected message");
		return;
	}
	if (c->seen[(size_t)from * ch->m + seq]++)
		ch->r->duplicated++;
	/* A room delivers each sender's messages in the order sent (the sender sends k + 1 only once k came back,
	 * and one connection keeps order): a message past one never delivered is a loss, known now rather than
	 * after --timeout without messages. */
	else if (seq > 0 && !c->seen[(size_t)from * ch->m + seq - 1] && !ch->gap) {
		ch->gap = true;
		snprintf(ch->r->why, sizeof(ch->r->why), "client %u got message %u of client %u before message %u",
			 c->id, seq, from, seq - 1);
	}
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
		if (ch->c[i].w.state == WSC_OPEN)
			chat_send_next(ch, &ch->c[i]);
}

static void chat_on_open(void *owner, struct wsc *w)
{
	struct chat *ch = owner;

	(void)w;
	if (++ch->joined == ch->n)
		chat_start(ch);
}

static void chat_on_message(void *owner, struct wsc *w, const uint8_t *data, size_t len, uint64_t now)
{
	chat_message(owner, client_of(w), data, len, now);
}

static void chat_on_dead(void *owner, struct wsc *w, const char *why)
{
	struct chat *ch = owner;

	ch->r->errors++;
	if (!ch->r->why[0])
		snprintf(ch->r->why, sizeof(ch->r->why), "client %u: %s", client_of(w)->id, why);
}

static const struct wsc_hooks chat_hooks = {chat_on_open, chat_on_message, chat_on_dead};

static int chat_connect_all(struct chat *ch, struct hx_err *err)
{
	for (unsigned i = 0; i < ch->n; i++) {
		struct chat_client *c = &ch->c[i];

		c->id = i;
		c->seen = calloc((size_t)ch->n * ch->m, 1);
		if (!c->seen)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "chat: out of memory");
		if (wsc_connect(&ch->g, &c->w, 1 << 20, err) < 0)
			return hx_wrap(err, "chat: client %u", i);
	}
	return 0;
}

static bool chat_finished(const struct chat *ch)
{
	for (unsigned i = 0; i < ch->n; i++)
		if (ch->c[i].w.state != WSC_DEAD && ch->c[i].received < (uint64_t)ch->n * ch->m)
			return false;
	return true;
}

/* A run ended on a gap counts as lost the deliveries below a later one of the same sender (the rest were not due
 * yet): whether entry k of c's (sender, seq) table has a later seq of its sender delivered. */
static bool lost_below(const struct chat_client *c, size_t k, unsigned messages)
{
	for (size_t j = k + 1; j % messages != 0; j++)
		if (c->seen[j])
			return true;
	return false;
}

static void chat_loop(struct chat *ch, unsigned timeout_ms)
{
	struct epoll_event evs[128];
	uint64_t idle = (uint64_t)timeout_ms * 1000000u, joined_by = util_now_ns() + idle;

	while (!chat_finished(ch) && !ch->gap) {
		int n = epoll_wait(ch->g.ep, evs, 128, 50);
		uint64_t now;

		for (int i = 0; i < n; i++)
			wsc_event(&ch->g, evs[i].data.ptr, evs[i].events);
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
	ch->g.tp = ch->url.tls ? &tp_tls : &tp_tcp;
	ch->g.url = &ch->url;
	ch->g.hooks = &chat_hooks;
	ch->g.owner = ch;
	ch->n = clients;
	ch->m = messages;
	ch->r = r;
	ch->c = calloc(clients, sizeof(*ch->c));
	ch->g.ep = epoll_create1(EPOLL_CLOEXEC);
	if (!ch->c || ch->g.ep < 0)
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
			r->lost += c->seen[k] == 0 && (!ch->gap || lost_below(c, k, messages));
		wsc_free(&ch->g, &c->w);
		free(c->seen);
	}
	r->ok = rc == 0 && r->lost == 0 && r->duplicated == 0 && r->errors == 0;
	if (!r->ok && rc == 0) {
		size_t len = strlen(r->why);

		snprintf(r->why + len, sizeof(r->why) - len, "%s%llu deliveries lost, %llu duplicated", len ? ": " : "",
			 (unsigned long long)r->lost, (unsigned long long)r->duplicated);
	}
	free(ch->c);
	if (ch->g.ep >= 0)
		close(ch->g.ep);
	tp_tls_free();
	return rc;
}

/* ---- a duet (harness ab on a ws-chat scenario): windows of messages on two rooms, one side at a time ---- */

struct duet_client {
	struct wsc w; /* first: the connection's events carry its address */
	unsigned id, side;
	uint32_t sent;	  /* the messages it sent */
	uint32_t *expect; /* per sender of its room: the number of the message due next from it */
};

_Static_assert(offsetof(struct duet_client, w) == 0, "a client is found from its connection's address");

struct chat_duet {
	struct wsc_group g[2]; /* a room per side, on one epoll */
	struct load_url url[2];
	const struct chat_duet_config *cfg;
	struct duet_client *c;	 /* cfg->clients of A, then as many of B */
	unsigned n, joined;	 /* per side; joined of both */
	uint64_t due[2], got[2]; /* per side: the deliveries its messages owe (clients x sent), those made */
	uint64_t start_ns, last_ns;
	size_t k;	 /* the window */
	uint64_t end_ns; /* its end: no message sent after it, no delivery after it counted */
	bool loading, draining, done;
	struct load_window win;
	struct chat_result *r;
};

static struct duet_client *dclient_of(struct wsc *w)
{
	return (struct duet_client *)w;
}

/* The first check that failed, kept; every later window's line repeats it. */
__attribute__((format(printf, 2, 3))) static void duet_fail(struct chat_duet *d, const char *fmt, ...)
{
	va_list ap;

	d->win.errors_total++;
	if (d->r->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(d->r->why, sizeof(d->r->why), fmt, ap);
	va_end(ap);
}

static void duet_send(struct chat_duet *d, struct duet_client *c)
{
	char msg[64];
	int len = snprintf(msg, sizeof(msg), "%u %u %llu", c->id, c->sent, (unsigned long long)util_now_ns());

	if (c->w.state != WSC_OPEN)
		return;
	c->sent++;
	d->due[c->side] += d->n; /* the room broadcasts it to every client, its sender too */
	if (wsc_queue(&d->g[c->side], &c->w, WS_TEXT, msg, (size_t)len))
		wsc_flush(&d->g[c->side], &c->w);
}

static void duet_window_open(struct chat_duet *d, size_t k)
{
	uint64_t now = util_now_ns();

	d->k = k;
	d->draining = false;
	d->end_ns = now + (uint64_t)(d->cfg->duet.window_s * 1e9);
	memset(&d->win, 0, sizeof(d->win));
	hist_init(&d->win.latency);
	d->win.index = k;
	d->win.side = d->cfg->duet.order[k];
	d->win.start_s = (double)(now - d->start_ns) / 1e9;
	d->win.start_mono_s = (double)now / 1e9;
	for (unsigned i = 0; i < 2 * d->n; i++) /* each client of the side one message in flight, as a trial's */
		if (d->c[i].side == d->win.side)
			duet_send(d, &d->c[i]);
}

/* After the loop's events: a window whose time is up stops sending; once every message its side sent reached
 * every client, its line goes out and the next window opens (or the duet ends). A window in which a check failed
 * does not wait for the rest of its deliveries: its line says why, which ends the duet (a loss of a sender's last
 * message in the window, which no later one shows, would hold the drain for the whole --timeout). */
static void duet_window_tick(struct chat_duet *d, uint64_t now)
{
	unsigned side = d->win.side;

	if (!d->loading || d->done)
		return;
	if (!d->draining && now >= d->end_ns)
		d->draining = true;
	if (!d->draining || (d->got[side] < d->due[side] && !d->r->why[0]))
		return;
	d->win.drain_ms = (double)(now - d->end_ns) / 1e6;
	d->win.duration_s = d->cfg->duet.window_s + d->win.drain_ms / 1e3; /* to its last delivery */
	d->win.why = d->r->why[0] ? d->r->why : NULL;
	if (!d->cfg->duet.on_window(&d->win, d->cfg->duet.window_ctx) || d->k + 1 >= d->cfg->duet.nwindows) {
		d->done = true;
		return;
	}
	duet_window_open(d, d->k + 1);
}

/* A delivery: each sender's messages reach each client in the order sent, once each (a later number first is a
 * message lost or overtaken, an earlier one a message delivered twice). */
static void duet_message(struct chat_duet *d, struct duet_client *c, const uint8_t *data, size_t len, uint64_t now)
{
	const char *of = c->side ? "B" : "A";
	unsigned from, seq;
	uint64_t sent;

	if (chat_parse(data, len, d->n, UINT32_MAX, &from, &seq, &sent) < 0) {
		wsc_dead(&d->g[c->side], &c->w, "unexpected message");
		return;
	}
	if (seq >= d->c[c->side * d->n + from].sent) { /* the server's invention: not counted as a delivery */
		d->r->errors++;
		duet_fail(d, "client %u of %s: message %u of client %u, which it never sent", c->id, of, seq, from);
		return;
	}
	if (seq != c->expect[from]) {
		if (seq < c->expect[from]) {
			d->r->duplicated++;
		} else {
			d->r->lost += seq - c->expect[from];
			d->due[c->side] -= seq - c->expect[from]; /* never to come: the window's drain ends */
		}
		duet_fail(d, "client %u of %s: message %u of client %u arrived when %u was due", c->id, of, seq, from,
			  c->expect[from]);
		if (seq < c->expect[from])
			return;
	}
	c->expect[from] = seq + 1;
	d->got[c->side]++;
	d->r->delivered++;
	d->last_ns = now;
	if (!d->loading || c->side != d->win.side)
		return;
	d->win.requests++; /* the window's, its drain's too (struct load_window) */
	d->win.drained += now > d->end_ns;
	if (from != c->id)
		return;
	hist_record(&d->r->rtt, now - sent);
	hist_record(&d->win.latency, now - sent);
	if (!d->draining && now < d->end_ns)
		duet_send(d, c);
}

static void duet_on_open(void *owner, struct wsc *w)
{
	struct chat_duet *d = owner;

	(void)w;
	if (++d->joined == 2 * d->n) {
		d->loading = true;
		d->start_ns = d->last_ns = util_now_ns();
		duet_window_open(d, 0);
	}
}

static void duet_on_message(void *owner, struct wsc *w, const uint8_t *data, size_t len, uint64_t now)
{
	duet_message(owner, dclient_of(w), data, len, now);
}

static void duet_on_dead(void *owner, struct wsc *w, const char *why)
{
	struct chat_duet *d = owner;
	struct duet_client *c = dclient_of(w);

	d->r->errors++;
	duet_fail(d, "client %u of %s: %s", c->id, c->side ? "B" : "A", why);
	d->done = true; /* its side would run the windows after with fewer clients than the other's */
}

static const struct wsc_hooks duet_hooks = {duet_on_open, duet_on_message, duet_on_dead};

/* A drain that never ended: the first client of the window's side still owed a message, named. */
static void duet_fail_owed(struct chat_duet *d, uint64_t owed)
{
	unsigned side = d->win.side;

	for (unsigned r = 0; r < d->n; r++)
		for (unsigned s = 0; s < d->n; s++) {
			const struct duet_client *c = &d->c[side * d->n + r], *from = &d->c[side * d->n + s];

			if (c->expect[s] < from->sent) {
				duet_fail(d,
					  "client %u of %s never got message %u of client %u (%llu deliveries owed, "
					  "no message for %u ms)",
					  r, side ? "B" : "A", c->expect[s], s, (unsigned long long)owed,
					  d->cfg->timeout_ms);
				return;
			}
		}
	duet_fail(d, "no message for %u ms", d->cfg->timeout_ms);
}

static void duet_loop(struct chat_duet *d)
{
	struct epoll_event evs[128];
	uint64_t idle = (uint64_t)d->cfg->timeout_ms * 1000000u, joined_by = util_now_ns() + idle;

	while (!d->done) {
		uint64_t now = util_now_ns();
		int wait_ms = 50, n;

		/* a window ends on time: the wait no longer than what is left of it */
		if (d->loading && !d->draining)
			wait_ms = now >= d->end_ns ? 0 : (int)fmin(50, (double)(d->end_ns - now) / 1e6 + 1);
		n = epoll_wait(d->g[0].ep, evs, 128, wait_ms);
		for (int i = 0; i < n; i++) {
			struct duet_client *c = dclient_of(evs[i].data.ptr);

			wsc_event(&d->g[c->side], &c->w, evs[i].events);
		}
		now = util_now_ns();
		duet_window_tick(d, now);
		if (!d->loading && now > joined_by) {
			duet_fail(d, "only %u of %u clients joined within %u ms", d->joined, 2 * d->n,
				  d->cfg->timeout_ms);
			return;
		}
		if (d->loading && !d->done && now - d->last_ns > idle) {
			uint64_t owed = d->due[d->win.side] - d->got[d->win.side];

			d->r->lost += owed;
			if (d->draining)
				duet_fail_owed(d, owed);
			else
				duet_fail(d, "no message for %u ms", d->cfg->timeout_ms);
			/* the window it happened in says so, as one that ended would */
			d->win.drain_ms = d->draining ? (double)(now - d->end_ns) / 1e6 : 0;
			d->win.duration_s = (double)now / 1e9 - d->win.start_mono_s;
			d->win.why = d->r->why;
			d->cfg->duet.on_window(&d->win, d->cfg->duet.window_ctx);
			return;
		}
	}
}

int chat_duet(const char *url, const struct chat_duet_config *cfg, struct chat_result *r, struct hx_err *err)
{
	_cleanup_free_ struct chat_duet *d = calloc(1, sizeof(*d));
	int rc = 0;

	if (!d)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	memset(r, 0, sizeof(*r));
	hist_init(&r->rtt);
	if (!cfg->clients || cfg->clients > 4096 || !cfg->duet.nwindows || !cfg->duet.order || !cfg->duet.on_window ||
	    !(cfg->duet.window_s > 0))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: a chat duet takes 1 to 4096 clients a side, --duet-order and --duet-window");
	d->cfg = cfg;
	d->r = r;
	d->n = cfg->clients;
	d->g[0].ep = d->g[1].ep = -1;
	for (int k = 0; k < 2; k++) {
		const char *u = k ? cfg->duet.url_b : url;

		if (load_parse_url(u, &d->url[k], err) < 0)
			return -err->errnum;
		if (!d->url[k].ws || d->url[k].tls)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: a chat duet takes two ws:// URLs, not '%s'",
				       u);
		d->g[k].tp = &tp_tcp;
		d->g[k].url = &d->url[k];
		d->g[k].hooks = &duet_hooks;
		d->g[k].owner = d;
	}
	d->c = calloc(2 * (size_t)d->n, sizeof(*d->c));
	d->g[0].ep = d->g[1].ep = epoll_create1(EPOLL_CLOEXEC);
	if (!d->c || d->g[0].ep < 0)
		rc = hx_syserr(err, "chat: setup");
	for (unsigned i = 0; rc == 0 && i < 2 * d->n; i++) {
		struct duet_client *c = &d->c[i];

		c->id = i % d->n;
		c->side = i / d->n;
		if (!(c->expect = calloc(d->n, sizeof(*c->expect))))
			rc = hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "chat: out of memory");
		else if (wsc_connect(&d->g[c->side], &c->w, 1 << 20, err) < 0)
			rc = hx_wrap(err, "chat: client %u of %s", c->id, c->side ? "B" : "A");
	}
	if (rc == 0)
		duet_loop(d);
	r->clients = d->n;
	r->duration_s = d->start_ns ? (double)(d->last_ns - d->start_ns) / 1e9 : 0;
	for (unsigned i = 0; d->c && i < 2 * d->n; i++) {
		r->messages += d->c[i].sent;
		wsc_free(&d->g[d->c[i].side], &d->c[i].w);
		free(d->c[i].expect);
	}
	r->expected = d->due[0] + d->due[1];
	r->ok = rc == 0 && !r->why[0];
	free(d->c);
	if (d->g[0].ep >= 0)
		close(d->g[0].ep);
	return rc;
}
