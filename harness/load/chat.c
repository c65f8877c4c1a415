/* The chat workload on one epoll loop: every client connects and upgrades; once all have joined, each
 * sends message 0 and sends message k+1 when its own message k comes back from the broadcast, so the
 * round trip is measured on the sending connection. */
#include "load/chat.h"

#include <errno.h>
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

static void chat_message(struct chat *ch, struct chat_client *c, const uint8_t *data, size_t len, uint64_t now)
{
	char text[64];
	unsigned from, seq;
	unsigned long long sent;

	if (len >= sizeof(text)) {
		wsc_dead(&ch->g, &c->w, "unexpected message");
		return;
	}
	memcpy(text, data, len);
	text[len] = '\0';
	if (sscanf(text, "%u %u %llu", &from, &seq, &sent) != 3 || from >= ch->n || seq >= ch->m) {
		wsc_dead(&ch->g, &c->w, "unexpected message");
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

static void chat_loop(struct chat *ch, unsigned timeout_ms)
{
	struct epoll_event evs[128];
	uint64_t idle = (uint64_t)timeout_ms * 1000000u, joined_by = util_now_ns() + idle;

	while (!chat_finished(ch)) {
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
			r->lost += c->seen[k] == 0;
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
