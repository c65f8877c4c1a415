/* The RPC workload on one epoll loop. A request is a text frame "<id> <op>" (op: echo, incr, get) and its
 * answer "<id> <value>"; a client's ids run from 0 to its share of the requests, so one byte per id tells
 * whether it was sent, answered, or answered twice. */
#include "load/rpc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/esc.h"
#include "base/util.h"
#include "load/load.h"
#include "load/ws.h"
#include "load/wsconn.h"

enum rpc_id { ID_UNSENT, ID_IN_FLIGHT, ID_ANSWERED };
/* the run's phases: the counter's first read, the load, its last read */
enum rpc_phase { PH_JOINING, PH_BEFORE, PH_LOAD, PH_AFTER, PH_DONE };

struct rpc_client {
	struct wsc w; /* first: the connection's events carry its address */
	unsigned index, side;
	uint64_t share, next, answered;
	uint64_t cap;	   /* ids and sent_ns hold this many (a duet's grow as it sends) */
	uint8_t *ids;	   /* enum rpc_id per id */
	uint64_t *sent_ns; /* per id */
};

/* A duet's current window (rpc_config's url_b). */
struct rpc_duet {
	size_t k;		/* the window */
	uint64_t end_ns;	/* its end: no request sent after it, no answer after it counted */
	bool draining, stopped; /* past its end, waiting for the side's in-flight answers; on_window said stop */
	struct load_window win; /* its figures */
};

struct rpc {
	struct wsc_group g[2]; /* a group per side (a duet's B: url_b), on one epoll */
	const struct rpc_config *cfg;
	struct load_url url[2];
	struct rpc_client *c;
	unsigned n; /* clients in all: cfg->clients, twice that in a duet */
	unsigned joined;
	enum rpc_phase phase;
	uint64_t start_ns, end_ns, last_ns;
	struct rpc_result *r;
	struct rpc_duet duet;
};

_Static_assert(offsetof(struct rpc_client, w) == 0, "a client is found from its connection's address");

static struct rpc_client *client_of(struct wsc *w)
{
	return (struct rpc_client *)w;
}

static bool is_duet(const struct rpc *p)
{
	return p->cfg->duet.url_b != NULL;
}

/* After a client's number in a message: its side in a duet. */
static const char *side_of(const struct rpc *p, const struct rpc_client *c)
{
	return !is_duet(p) ? "" : c->side ? " of B" : " of A";
}

static struct wsc_group *group_of(struct rpc *p, const struct rpc_client *c)
{
	return &p->g[c->side];
}

/* A duet's client has room for one more id: its tables doubled when full. */
static bool room(struct rpc_client *c)
{
	uint64_t cap = c->cap ? 2 * c->cap : 1024;
	uint8_t *ids;
	uint64_t *sent;

	if (c->next < c->cap)
		return true;
	if (!(ids = realloc(c->ids, cap)))
		return false;
	c->ids = ids;
	if (!(sent = realloc(c->sent_ns, cap * sizeof(*sent))))
		return false;
	c->sent_ns = sent;
	memset(c->ids + c->cap, ID_UNSENT, cap - c->cap);
	c->cap = cap;
	return true;
}

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

static void rpc_send_next(struct rpc *p, struct rpc_client *c)
{
	char msg[48];
	int len = snprintf(msg, sizeof(msg), "%" PRIu64 " %s", c->next, p->cfg->counter ? "incr" : "echo");

	if (!room(c)) {
		wsc_dead(group_of(p, c), &c->w, "out of memory for its ids");
		return;
	}
	c->ids[c->next] = ID_IN_FLIGHT;
	c->sent_ns[c->next++] = util_now_ns();
	p->r->sent++;
	wsc_queue(group_of(p, c), &c->w, WS_TEXT, msg, (size_t)len);
}

/* The counter's read, on the first client: "g get", answered "g <value>". */
static void rpc_send_get(struct rpc *p)
{
	struct rpc_client *c = &p->c[0];

	if (c->w.state == WSC_OPEN && wsc_queue(group_of(p, c), &c->w, WS_TEXT, "g get", 5))
		wsc_flush(group_of(p, c), &c->w);
}

/* Each live client of side (all of them outside a duet) given its window of requests. */
static void rpc_fill(struct rpc *p, unsigned side)
{
	for (unsigned i = 0; i < p->n; i++) {
		struct rpc_client *c = &p->c[i];

		if (c->side != side)
			continue;
		for (unsigned k = 0; k < p->cfg->window && (is_duet(p) || c->next < c->share) && c->w.state == WSC_OPEN;
		     k++)
			rpc_send_next(p, c);
		if (c->w.state == WSC_OPEN)
			wsc_flush(group_of(p, c), &c->w);
	}
}

/* A duet's window k: on its side, from now for window_s. */
static void duet_open(struct rpc *p, size_t k)
{
	struct rpc_duet *d = &p->duet;
	uint64_t now = util_now_ns();

	d->k = k;
	d->draining = false;
	d->end_ns = now + (uint64_t)(p->cfg->duet.window_s * 1e9);
	memset(&d->win, 0, sizeof(d->win));
	hist_init(&d->win.latency);
	d->win.index = k;
	d->win.side = p->cfg->duet.order[k];
	d->win.start_s = (double)(now - p->start_ns) / 1e9;
	d->win.start_mono_s = (double)now / 1e9;
	rpc_fill(p, d->win.side);
}

static void rpc_start_load(struct rpc *p)
{
	p->phase = PH_LOAD;
	p->start_ns = p->last_ns = util_now_ns();
	if (is_duet(p))
		duet_open(p, 0);
	else
		rpc_fill(p, 0);
}

/* The requests side's live clients have in flight. */
static uint64_t in_flight(const struct rpc *p, unsigned side)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < p->n; i++)
		if (p->c[i].side == side && p->c[i].w.state != WSC_DEAD)
			n += p->c[i].next - p->c[i].answered;
	return n;
}

/* A duet's window past its end with nothing in flight: its figures out, the next window opened, or the end. */
static void duet_close(struct rpc *p, uint64_t now)
{
	struct rpc_duet *d = &p->duet;

	if (!d->draining || in_flight(p, d->win.side))
		return;
	d->win.drain_ms = (double)(now - d->end_ns) / 1e6;
	d->win.duration_s = p->cfg->duet.window_s + d->win.drain_ms / 1e3; /* to its last answer */
	/* in every window line from the failure on: harness ab may stop reading before the last line */
	d->win.why = p->r->why[0] ? p->r->why : NULL;
	if (!p->cfg->duet.on_window(&d->win, p->cfg->duet.window_ctx))
		d->stopped = true;
	if (d->stopped || d->k + 1 >= p->cfg->duet.nwindows) {
		p->end_ns = now;
		p->phase = PH_DONE;
		return;
	}
	duet_open(p, d->k + 1);
}

/* After the loop's events: a window whose time is up stops sending and drains. */
static void duet_tick(struct rpc *p, uint64_t now)
{
	if (p->phase != PH_LOAD)
		return;
	if (!p->duet.draining && now >= p->duet.end_ns)
		p->duet.draining = true;
	duet_close(p, now);
}

static bool rpc_load_done(const struct rpc *p)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->c[i].w.state != WSC_DEAD && p->c[i].answered < p->c[i].share)
			return false;
	return true;
}

/* After an answer: the next phase once every live client has all of its answers. */
static void rpc_advance(struct rpc *p)
{
	if (is_duet(p)) {
		duet_tick(p, util_now_ns());
		return;
	}
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
		wsc_dead(group_of(p, c), &c->w, "a counter value nobody asked for, or not a number");
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
		wsc_dead(group_of(p, c), &c->w, "an answer that is not \"<id> <value>\"");
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
	if (*end || end == text || id >= c->next || c->ids[id] == ID_UNSENT) {
		char shown[sizeof(text) * 4];

		p->r->unknown++; /* the id is the server's text: it reaches a message escaped */
		p->duet.win.errors_total++;
		rpc_fail(p, "client %u%s: an answer for id '%s', which it never sent", c->index, side_of(p, c),
			 esc_term(text, shown, sizeof(shown)));
		return;
	}
	if (c->ids[id] == ID_ANSWERED) {
		p->r->duplicated++;
		p->duet.win.errors_total++;
		rpc_fail(p, "client %u%s: id %" PRIu64 " answered twice", c->index, side_of(p, c), id);
		return;
	}
	c->ids[id] = ID_ANSWERED;
	c->answered++;
	p->r->answered++;
	p->last_ns = now;
	hist_record(&p->r->latency, now - c->sent_ns[id]);
	if (is_duet(p) && p->phase == PH_LOAD) { /* the window's, its drain's too (struct load_window) */
		p->duet.win.requests++;
		p->duet.win.drained += now > p->duet.end_ns;
		hist_record(&p->duet.win.latency, now - c->sent_ns[id]);
	}
	if (is_duet(p) ? p->phase == PH_LOAD && !p->duet.draining && now < p->duet.end_ns : c->next < c->share) {
		rpc_send_next(p, c);
		wsc_flush(group_of(p, c), &c->w);
	}
	rpc_advance(p);
}

static void rpc_joined(struct rpc *p)
{
	if (++p->joined < p->n)
		return;
	if (p->cfg->counter) {
		p->phase = PH_BEFORE;
		rpc_send_get(p);
	} else {
		rpc_start_load(p);
	}
}

static void rpc_on_open(void *owner, struct wsc *w)
{
	(void)w;
	rpc_joined(owner);
}

static void rpc_on_message(void *owner, struct wsc *w, const uint8_t *data, size_t len, uint64_t now)
{
	rpc_answer(owner, client_of(w), data, len, now);
}

static void rpc_on_dead(void *owner, struct wsc *w, const char *why)
{
	struct rpc *p = owner;

	p->r->errors++;
	p->duet.win.errors_total++;
	rpc_fail(p, "client %u%s: %s", client_of(w)->index, side_of(p, client_of(w)), why);
	/* a duet ends: its side would measure the windows after on fewer connections than the other's */
	if (is_duet(p))
		p->phase = PH_DONE;
}

static const struct wsc_hooks rpc_hooks = {rpc_on_open, rpc_on_message, rpc_on_dead};

static int rpc_connect_all(struct rpc *p, struct hx_err *err)
{
	unsigned n = p->cfg->clients;

	for (unsigned i = 0; i < p->n; i++) {
		struct rpc_client *c = &p->c[i];

		c->index = i % n;
		c->side = i / n;
		if (!is_duet(p)) {
			c->share = p->cfg->requests / n + (i < p->cfg->requests % n);
			c->cap = c->share + 1;
			c->ids = calloc(c->cap, 1);
			c->sent_ns = calloc(c->cap, sizeof(*c->sent_ns));
			if (!c->ids || !c->sent_ns)
				return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "rpc: out of memory");
		}
		if (wsc_connect(group_of(p, c), &c->w, 1 << 16, err) < 0)
			return hx_wrap(err, "rpc: client %u%s", c->index, side_of(p, c));
	}
	return 0;
}

/* Whether every client of a side (any side) is dead: nothing more can be measured. */
static bool rpc_all_dead(const struct rpc *p)
{
	for (unsigned side = 0; side < (is_duet(p) ? 2u : 1u); side++) {
		bool live = false;

		for (unsigned i = 0; i < p->n && !live; i++)
			live = p->c[i].side == side && p->c[i].w.state != WSC_DEAD;
		if (!live)
			return true;
	}
	return false;
}

static void rpc_loop(struct rpc *p)
{
	struct epoll_event evs[128];
	uint64_t idle = (uint64_t)p->cfg->timeout_ms * 1000000u, joined_by = util_now_ns() + idle;

	p->last_ns = util_now_ns();
	while (p->phase != PH_DONE && !rpc_all_dead(p)) {
		int wait_ms = 50, n;
		uint64_t now = util_now_ns();

		/* a duet's window ends on time: the wait no longer than what is left of it */
		if (is_duet(p) && p->phase == PH_LOAD && !p->duet.draining)
			wait_ms = now >= p->duet.end_ns		      ? 0
				  : p->duet.end_ns - now >= 50000000u ? 50
								      : (int)((p->duet.end_ns - now) / 1000000u) + 1;
		n = epoll_wait(p->g[0].ep, evs, 128, wait_ms);
		for (int i = 0; i < n; i++) {
			struct rpc_client *c = client_of(evs[i].data.ptr);

			wsc_event(group_of(p, c), &c->w, evs[i].events);
		}
		now = util_now_ns();
		if (is_duet(p))
			duet_tick(p, now);
		if (p->phase == PH_JOINING && now > joined_by) {
			rpc_fail(p, "only %u of %u clients joined within %u ms", p->joined, p->n, p->cfg->timeout_ms);
			return;
		}
		if (p->phase != PH_JOINING && p->phase != PH_DONE && now - p->last_ns > idle) {
			rpc_fail(p, "no answer for %u ms", p->cfg->timeout_ms);
			return;
		}
	}
}

/* What the checks found after the loop: ids never answered, the counter against the acknowledgements. */
static void rpc_verdict(struct rpc *p)
{
	struct rpc_result *r = p->r;

	for (unsigned i = 0; p->c && i < p->n; i++) {
		struct rpc_client *c = &p->c[i];

		if (is_duet(p))
			c->share = c->next; /* a duet's: what it sent */
		for (uint64_t k = 0; c->ids && k < c->share; k++)
			if (c->ids[k] != ID_ANSWERED) {
				if (!r->missing++)
					rpc_fail(p, "client %u%s: id %" PRIu64 " never answered", c->index,
						 side_of(p, c), k);
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
	for (unsigned i = 0; p->c && i < p->n; i++) {
		struct rpc_client *c = &p->c[i];

		wsc_free(group_of(p, c), &c->w);
		free(c->ids);
		free(c->sent_ns);
	}
	free(p->c);
	if (p->g[0].ep >= 0)
		close(p->g[0].ep);
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
	p->g[0].ep = p->g[1].ep = -1;
	p->cfg = cfg;
	p->r = r;
	p->n = cfg->duet.url_b ? 2 * cfg->clients : cfg->clients;
	for (int k = 0; k < (cfg->duet.url_b ? 2 : 1); k++) {
		const char *u = k ? cfg->duet.url_b : url;

		if (load_parse_url(u, &p->url[k], err) < 0)
			return -err->errnum;
		if (!p->url[k].ws)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --rpc takes a ws:// or wss:// URL, not '%s'",
				       u);
		if (p->url[k].tls != p->url[0].tls)
			return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --duet: both URLs ws://, or both wss://");
		p->g[k].tp = p->url[k].tls ? &tp_tls : &tp_tcp;
		p->g[k].url = &p->url[k];
		p->g[k].hooks = &rpc_hooks;
		p->g[k].owner = p;
	}
	if (cfg->duet.url_b && (cfg->counter || !cfg->duet.nwindows || !cfg->duet.order || !cfg->duet.on_window ||
				!(cfg->duet.window_s > 0)))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: an rpc duet is echo requests by windows, with a callback (no --counter)");
	if (!cfg->duet.url_b && cfg->requests < cfg->clients)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --rpc needs at least one request per client (-n %u)",
			       cfg->clients);
	if (p->url[0].tls && tp_tls_init(p->url[0].host, true, err) < 0)
		return -err->errnum;
	p->c = calloc(p->n, sizeof(*p->c));
	p->g[0].ep = p->g[1].ep = epoll_create1(EPOLL_CLOEXEC);
	if (!p->c || p->g[0].ep < 0)
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
