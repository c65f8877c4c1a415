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
	unsigned index;
	uint64_t share, next, answered;
	uint8_t *ids;	   /* enum rpc_id per id */
	uint64_t *sent_ns; /* per id */
};

struct rpc {
	struct wsc_group g;
	const struct rpc_config *cfg;
	struct load_url url;
	struct rpc_client *c;
	unsigned joined;
	enum rpc_phase phase;
	uint64_t start_ns, end_ns, last_ns;
	struct rpc_result *r;
};

_Static_assert(offsetof(struct rpc_client, w) == 0, "a client is found from its connection's address");

static struct rpc_client *client_of(struct wsc *w)
{
	return (struct rpc_client *)w;
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

	c->ids[c->next] = ID_IN_FLIGHT;
	c->sent_ns[c->next++] = util_now_ns();
	p->r->sent++;
	wsc_queue(&p->g, &c->w, WS_TEXT, msg, (size_t)len);
}

/* The counter's read, on the first client: "g get", answered "g <value>". */
static void rpc_send_get(struct rpc *p)
{
	struct rpc_client *c = &p->c[0];

	if (c->w.state == WSC_OPEN && wsc_queue(&p->g, &c->w, WS_TEXT, "g get", 5))
		wsc_flush(&p->g, &c->w);
}

static void rpc_start_load(struct rpc *p)
{
	p->phase = PH_LOAD;
	p->start_ns = p->last_ns = util_now_ns();
	for (unsigned i = 0; i < p->cfg->clients; i++) {
		struct rpc_client *c = &p->c[i];

		for (unsigned k = 0; k < p->cfg->window && c->next < c->share && c->w.state == WSC_OPEN; k++)
			rpc_send_next(p, c);
		if (c->w.state == WSC_OPEN)
			wsc_flush(&p->g, &c->w);
	}
}

static bool rpc_load_done(const struct rpc *p)
{
	for (unsigned i = 0; i < p->cfg->clients; i++)
		if (p->c[i].w.state != WSC_DEAD && p->c[i].answered < p->c[i].share)
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
		wsc_dead(&p->g, &c->w, "a counter value nobody asked for, or not a number");
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
		wsc_dead(&p->g, &c->w, "an answer that is not \"<id> <value>\"");
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
		char shown[sizeof(text) * 4];

		p->r->unknown++; /* the id is the server's text: it reaches a message escaped */
		rpc_fail(p, "client %u: an answer for id '%s', which it never sent", c->index,
			 esc_term(text, shown, sizeof(shown)));
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
		wsc_flush(&p->g, &c->w);
	}
	rpc_advance(p);
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
	rpc_fail(p, "client %u: %s", client_of(w)->index, why);
}

static const struct wsc_hooks rpc_hooks = {rpc_on_open, rpc_on_message, rpc_on_dead};

static int rpc_connect_all(struct rpc *p, struct hx_err *err)
{
	unsigned n = p->cfg->clients;

	for (unsigned i = 0; i < n; i++) {
		struct rpc_client *c = &p->c[i];

		c->index = i;
		c->share = p->cfg->requests / n + (i < p->cfg->requests % n);
		c->ids = calloc(c->share + 1, 1);
		c->sent_ns = calloc(c->share + 1, sizeof(*c->sent_ns));
		if (!c->ids || !c->sent_ns)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "rpc: out of memory");
		if (wsc_connect(&p->g, &c->w, 1 << 16, err) < 0)
			return hx_wrap(err, "rpc: client %u", i);
	}
	return 0;
}

static bool rpc_all_dead(const struct rpc *p)
{
	for (unsigned i = 0; i < p->cfg->clients; i++)
		if (p->c[i].w.state != WSC_DEAD)
			return false;
	return true;
}

static void rpc_loop(struct rpc *p)
{
	struct epoll_event evs[128];
	uint64_t idle = (uint64_t)p->cfg->timeout_ms * 1000000u, joined_by = util_now_ns() + idle;

	p->last_ns = util_now_ns();
	while (p->phase != PH_DONE && !rpc_all_dead(p)) {
		int n = epoll_wait(p->g.ep, evs, 128, 50);
		uint64_t now;

		for (int i = 0; i < n; i++)
			wsc_event(&p->g, evs[i].data.ptr, evs[i].events);
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

		wsc_free(&p->g, &c->w);
		free(c->ids);
		free(c->sent_ns);
	}
	free(p->c);
	if (p->g.ep >= 0)
		close(p->g.ep);
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
	p->g.ep = -1;
	if (load_parse_url(url, &p->url, err) < 0)
		return -err->errnum;
	if (!p->url.ws)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --rpc takes a ws:// or wss:// URL, not '%s'", url);
	if (cfg->requests < cfg->clients)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --rpc needs at least one request per client (-n %u)",
			       cfg->clients);
	if (p->url.tls && tp_tls_init(p->url.host, true, err) < 0)
		return -err->errnum;
	p->g.tp = p->url.tls ? &tp_tls : &tp_tcp;
	p->g.url = &p->url;
	p->g.hooks = &rpc_hooks;
	p->g.owner = p;
	p->cfg = cfg;
	p->r = r;
	p->c = calloc(cfg->clients, sizeof(*p->c));
	p->g.ep = epoll_create1(EPOLL_CLOEXEC);
	if (!p->c || p->g.ep < 0)
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
