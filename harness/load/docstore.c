/* The document store's suite on one epoll loop. A scenario is a phase: its clients connect, a stage before the
 * load (a preload, or the first read of a contended value), the load itself (its op count or its budget), a
 * stage after it (the last read), then its connections close. A request's id is its slot in the client's
 * window (low 12 bits) and the slot's sequence number, so an answer finds what it must equal in O(1), and an
 * answer to an id not in flight is caught as unknown or twice answered. */
#include "load/docstore.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/esc.h"
#include "base/util.h"
#include "load/dsproto.h"
#include "load/load.h"
#include "load/ws.h"
#include "load/wsconn.h"

#define SLOT_BITS     12
#define MAX_WINDOW    (1u << SLOT_BITS)
#define SMALL_DOC     64 /* set-small's and get-hot's documents, in characters */
#define MIXED_DOC     32
#define MIXED_KEYS    64 /* each mixed client's own documents, and its counters: */
#define MIXED_CTRS    16
#define SPIKE_IDLE_NS (UINT64_C(250) * 1000000u)
#define SPIKE_WINDOW  256 /* each client's flood in flight */

/* What an answer must be. */
enum ds_expect { X_TRUE, X_BOOL, X_DOC, X_NULL, X_NUM, X_ANY_NUM, X_COUNT, X_TOKEN, X_READ, X_PROBE };

enum ds_stage { ST_JOIN, ST_BEFORE, ST_IDLE, ST_LOAD, ST_AFTER, ST_DONE };

struct ds_slot {
	uint64_t seq, sent_ns;
	bool busy;
	uint8_t expect;
	uint32_t key;	  /* the mixed client's key index, or the payload's */
	uint64_t version; /* of X_DOC; X_BOOL's and X_NUM's value in num */
	int64_t num;
	size_t doc_len;
	char keyname[48];
};

struct ds_client {
	struct wsc w; /* first: the connection's events carry its address */
	unsigned index;
	struct ds_slot *slots;
	uint64_t seq, n; /* the slots' sequence; this client's requests made */
	uint64_t share;	 /* of the load's requests: the op count shared out among the load's clients */
	unsigned in_flight;
	uint64_t rng, gen;
	uint64_t ver[MIXED_KEYS]; /* mixed: each document's version, 0 when absent */
	int64_t ctr[MIXED_CTRS];
	char token[64]; /* session-churn: the session to log out of next */
};

struct ds_phase {
	struct wsc_group g;
	const struct ds_config *cfg;
	struct load_url *url;
	enum ds_scenario sc;
	struct ds_row *row;
	struct ds_client *c;
	unsigned nclients, load_clients, window, load_window, joined;
	enum ds_stage stage;
	uint64_t sent, answered, limit, preload_sent;
	uint64_t start_ns, end_ns, last_ns, stage_ns, cap_ns;
	bool stopped; /* the budget ran out: no more requests, the ones in flight drained */
	bool probed;  /* all-scan: whether its table's last row is there already (a warm-up wrote it) */
	char nonce[16];
	uint64_t *rewrite, nrewrite; /* the memory run's tenth of its documents that it rewrites */
	char *req;		     /* one request's frame */
	size_t req_cap, doc_len;
};

_Static_assert(offsetof(struct ds_client, w) == 0, "a client is found from its connection's address");

static void ds_fail(struct ds_phase *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ds_fail(struct ds_phase *p, const char *fmt, ...)
{
	va_list ap;

	p->row->errors++;
	if (p->row->why[0])
		return; /* the first check that failed names the scenario's failure */
	va_start(ap, fmt);
	vsnprintf(p->row->why, sizeof(p->row->why), fmt, ap);
	va_end(ap);
}

static struct ds_client *client_of(struct wsc *w)
{
	return (struct ds_client *)w;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One draw of the memory run, the same for the same seed and index on both sides of the restart. */
static uint64_t draw(uint64_t seed, uint64_t j)
{
	uint64_t z = seed + (j + 1) * UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static bool rewritten(const struct ds_config *cfg, uint64_t k)
{
	return draw(cfg->memory_seed ^ UINT64_C(0x5bd1e995), k) % 10 == 0;
}

static bool is_memory(enum ds_scenario sc)
{
	return sc == DS_MEMORY || sc == DS_MEMORY_AFTER;
}

static bool contended(enum ds_scenario sc)
{
	return sc == DS_ADD || sc == DS_NESTED;
}

/* The stage before the load: get-hot and has write their key, the contended ones read their value, all-scan
 * preloads its table. */
static bool has_before(enum ds_scenario sc)
{
	return sc == DS_GET_HOT || sc == DS_HAS || contended(sc) || sc == DS_SCAN || sc == DS_MEMORY;
}

/* Frames into p->req. */
static size_t frame(struct ds_phase *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t frame(struct ds_phase *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p->req, p->req_cap, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= p->req_cap ? 0 : (size_t)n;
}

/* {"id":N,"op":"set","key":K,"value":<the document of key and version>}, the slot told to expect true */
static size_t frame_set(struct ds_phase *p, struct ds_slot *s, uint64_t id, uint64_t version, size_t doc_len)
{
	size_t n = frame(p, "{\"id\":%" PRIu64 ",\"op\":\"set\",\"key\":\"%s\",\"value\":", id, s->keyname);

	if (!n || n + doc_len + 4 > p->req_cap)
		return 0;
	ds_doc(s->keyname, version, doc_len, p->req + n);
	n += doc_len + 2;
	p->req[n++] = '}';
	s->expect = X_TRUE;
	return n;
}

static size_t frame_get(struct ds_phase *p, struct ds_slot *s, uint64_t id, const char *op)
{
	return frame(p, "{\"id\":%" PRIu64 ",\"op\":\"%s\",\"key\":\"%s\"}", id, op, s->keyname);
}

static size_t frame_add(struct ds_phase *p, struct ds_slot *s, uint64_t id, bool nested)
{
	return nested ? frame(p,
			      "{\"id\":%" PRIu64 ",\"op\":\"add\",\"key\":\"%s\",\"path\":[\"stats\",\"hits\"],"
			      "\"by\":1}",
			      id, s->keyname)
		      : frame(p, "{\"id\":%" PRIu64 ",\"op\":\"add\",\"key\":\"%s\",\"by\":1}", id, s->keyname);
}

static size_t frame_read(struct ds_phase *p, struct ds_slot *s, uint64_t id)
{
	s->expect = X_READ;
	if (p->sc == DS_NESTED)
		return frame(p, "{\"id\":%" PRIu64 ",\"op\":\"get\",\"key\":\"%s\",\"path\":[\"stats\",\"hits\"]}", id,
			     s->keyname);
	return frame_get(p, s, id, "get");
}

/* One op of the mixed workload on the client's own keys: what it must answer follows from what the client sent
 * before on the same key, since one connection's ops on a key are applied in order. */
static size_t mixed_op(struct ds_phase *p, struct ds_client *c, struct ds_slot *s, uint64_t id)
{
	unsigned r = (unsigned)(xorshift(&c->rng) % 100), k = (unsigned)(xorshift(&c->rng) % MIXED_KEYS);

	s->key = k;
	if (r >= 60 && r < 70) { /* add, on a counter of its own */
		k %= MIXED_CTRS;
		snprintf(s->keyname, sizeof(s->keyname), "mc:%s:%u:%u", p->nonce, c->index, k);
		s->expect = X_NUM;
		s->num = ++c->ctr[k];
		return frame_add(p, s, id, false);
	}
	snprintf(s->keyname, sizeof(s->keyname), "m:%s:%u:%u", p->nonce, c->index, k);
	if (r < 40) { /* get */
		s->expect = c->ver[k] ? X_DOC : X_NULL;
		s->version = c->ver[k];
		s->doc_len = MIXED_DOC;
		return frame_get(p, s, id, "get");
	}
	if (r < 60) { /* set */
		c->ver[k] = ++c->gen;
		return frame_set(p, s, id, c->ver[k], MIXED_DOC);
	}
	s->expect = X_BOOL;
	s->num = c->ver[k] != 0;
	if (r < 90) /* has */
		return frame_get(p, s, id, "has");
	c->ver[k] = 0; /* delete: true when it was there */
	return frame_get(p, s, id, "delete");
}

/* payload's set then get of the same document, on four keys in turn: each set overwrites, so a read that
 * comes from a cache the write did not reach is caught */
static size_t payload_op(struct ds_phase *p, struct ds_client *c, struct ds_slot *s, uint64_t id)
{
	uint64_t pair = c->n / 2;

	snprintf(s->keyname, sizeof(s->keyname), "p:%s:%" PRIu64, p->nonce, pair % 4);
	s->version = pair + 1;
	s->doc_len = p->doc_len;
	if (c->n % 2 == 0)
		return frame_set(p, s, id, s->version, p->doc_len);
	s->expect = X_DOC;
	return frame_get(p, s, id, "get");
}

static size_t churn_op(struct ds_phase *p, struct ds_client *c, struct ds_slot *s, uint64_t id)
{
	if (c->n % 2 == 0) {
		s->expect = X_TOKEN;
		return frame(p, "{\"id\":%" PRIu64 ",\"op\":\"login\",\"user\":\"u%u\"}", id, c->index);
	}
	s->expect = X_TRUE;
	return frame(p, "{\"id\":%" PRIu64 ",\"op\":\"logout\",\"token\":\"%s\"}", id, c->token);
}

/* The memory run: 2,000 random documents read back, then its tenth rewritten and read back; after the
 * restart, 2,000 other random ones, each the version it was left at. */
static size_t memory_op(struct ds_phase *p, struct ds_client *c, struct ds_slot *s, uint64_t id)
{
	uint64_t j = c->n, n = p->cfg->memory_docs, k;

	s->doc_len = DS_MEMORY_DOC;
	if (p->sc == DS_MEMORY_AFTER || j < DS_MEMORY_READS) {
		k = draw(p->cfg->memory_seed + (p->sc == DS_MEMORY_AFTER), j) % n;
		s->version = p->sc == DS_MEMORY_AFTER && rewritten(p->cfg, k) ? 2 : 1;
	} else {
		k = p->rewrite[(j - DS_MEMORY_READS) % p->nrewrite];
		s->version = 2;
	}
	snprintf(s->keyname, sizeof(s->keyname), "mem:%" PRIu64, k);
	if (p->sc == DS_MEMORY && j >= DS_MEMORY_READS && j < DS_MEMORY_READS + p->nrewrite)
		return frame_set(p, s, id, 2, DS_MEMORY_DOC);
	s->expect = X_DOC;
	return frame_get(p, s, id, "get");
}

static size_t load_op(struct ds_phase *p, struct ds_client *c, struct ds_slot *s, uint64_t id)
{
	switch (p->sc) {
	case DS_GET_HOT:
	case DS_HAS:
		snprintf(s->keyname, sizeof(s->keyname), "hot");
		s->expect = p->sc == DS_HAS ? X_TRUE : X_DOC;
		s->version = 1;
		s->doc_len = SMALL_DOC;
		return frame_get(p, s, id, p->sc == DS_HAS ? "has" : "get");
	case DS_SET_SEQ:
	case DS_SET_PIPE:
	case DS_SPIKE:
		snprintf(s->keyname, sizeof(s->keyname), "u:%s:%u:%" PRIu64, p->nonce, c->index, c->n);
		return frame_set(p, s, id, 1, SMALL_DOC);
	case DS_ADD:
	case DS_NESTED:
		snprintf(s->keyname, sizeof(s->keyname), "%s", p->sc == DS_ADD ? DS_COUNTER_KEY : DS_NESTED_KEY);
		s->expect = X_ANY_NUM;
		return frame_add(p, s, id, p->sc == DS_NESTED);
	case DS_MIXED:
		return mixed_op(p, c, s, id);
	case DS_PAYLOAD:
		return payload_op(p, c, s, id);
	case DS_SCAN:
		s->expect = X_COUNT;
		s->num = DS_SCAN_ROWS < DS_SCAN_CAP ? DS_SCAN_ROWS : DS_SCAN_CAP;
		snprintf(s->keyname, sizeof(s->keyname), "scan:");
		return frame(p, "{\"id\":%" PRIu64 ",\"op\":\"all\",\"prefix\":\"scan:\"}", id);
	case DS_CHURN:
		return churn_op(p, c, s, id);
	case DS_MEMORY:
	case DS_MEMORY_AFTER:
		return memory_op(p, c, s, id);
	case DS_NR:
		break;
	}
	return 0;
}

/* The stages around the load: get-hot and has write the hot key, the contended ones read their value, all-scan
 * writes its table. */
static size_t side_op(struct ds_phase *p, struct ds_slot *s, uint64_t id)
{
	if (p->sc == DS_SCAN && !p->probed) {
		snprintf(s->keyname, sizeof(s->keyname), "scan:%05u", DS_SCAN_ROWS - 1);
		s->expect = X_PROBE;
		return frame_get(p, s, id, "has");
	}
	if (p->sc == DS_SCAN) {
		snprintf(s->keyname, sizeof(s->keyname), "scan:%05" PRIu64, p->preload_sent++);
		return frame_set(p, s, id, 1, 16);
	}
	if (p->sc == DS_MEMORY) { /* its documents, every one at version 1 */
		snprintf(s->keyname, sizeof(s->keyname), "mem:%" PRIu64, p->preload_sent++);
		return frame_set(p, s, id, 1, DS_MEMORY_DOC);
	}
	if (contended(p->sc)) {
		snprintf(s->keyname, sizeof(s->keyname), "%s", p->sc == DS_ADD ? DS_COUNTER_KEY : DS_NESTED_KEY);
		return frame_read(p, s, id);
	}
	snprintf(s->keyname, sizeof(s->keyname), "hot");
	return frame_set(p, s, id, 1, SMALL_DOC);
}

/* Whether client c sends another request in this stage. */
static bool wants_more(const struct ds_phase *p, const struct ds_client *c)
{
	if (c->w.state != WSC_OPEN)
		return false;
	switch (p->stage) {
	case ST_BEFORE:
		if (p->sc == DS_SCAN && p->probed)
			return p->preload_sent < DS_SCAN_ROWS;
		if (p->sc == DS_MEMORY)
			return p->preload_sent < p->cfg->memory_docs;
		return c->index == 0 && p->sent == 0; /* one request, on the first client */
	case ST_AFTER:
		return c->index == 0 && p->sent == 0;
	case ST_LOAD:
		return c->index < p->load_clients && !p->stopped && c->n < c->share;
	default:
		return false;
	}
}

/* Fill c's window, then write it. */
static void pump(struct ds_phase *p, struct ds_client *c)
{
	bool queued = false;

	while (c->in_flight < (p->stage == ST_LOAD ? p->load_window : p->window) && wants_more(p, c)) {
		unsigned k = 0;
		struct ds_slot *s;
		uint64_t id;
		size_t len;

		while (c->slots[k].busy)
			k++;
		s = &c->slots[k];
		s->seq = ++c->seq;
		id = s->seq << SLOT_BITS | k;
		len = p->stage == ST_LOAD ? load_op(p, c, s, id) : side_op(p, s, id);
		if (!len) {
			ds_fail(p, "client %u: a request past its buffer", c->index);
			wsc_dead(&p->g, &c->w, "a request past its buffer");
			return;
		}
		if (p->stage == ST_LOAD)
			c->n++;
		s->busy = true;
		s->sent_ns = util_now_ns();
		c->in_flight++;
		p->sent++;
		if (!wsc_queue(&p->g, &c->w, WS_TEXT, p->req, len))
			return;
		queued = true;
	}
	if (queued)
		wsc_flush(&p->g, &c->w);
}

static void start_stage(struct ds_phase *p, enum ds_stage st)
{
	p->stage = st;
	p->sent = p->answered = 0;
	p->stage_ns = p->last_ns = util_now_ns();
	if (st == ST_LOAD) {
		p->start_ns = p->stage_ns;
		p->cap_ns = p->start_ns + (uint64_t)(p->cfg->budget_s * 1e9);
	}
	if (st == ST_BEFORE || st == ST_LOAD || st == ST_AFTER)
		for (unsigned i = 0; i < p->nclients; i++)
			pump(p, &p->c[i]);
}

/* After an answer (or the budget's end): the next stage once this one has all of its answers. */
static void advance(struct ds_phase *p)
{
	bool more = false;

	for (unsigned i = 0; i < p->nclients && !more; i++)
		more = wants_more(p, &p->c[i]);
	if (more || p->answered < p->sent)
		return;
	if (p->stage == ST_BEFORE)
		start_stage(p, p->sc == DS_SPIKE ? ST_IDLE : ST_LOAD);
	else if (p->stage == ST_LOAD) {
		p->end_ns = p->last_ns;
		start_stage(p, contended(p->sc) ? ST_AFTER : ST_DONE);
	} else if (p->stage == ST_AFTER)
		p->stage = ST_DONE;
}

static void joined(struct ds_phase *p)
{
	if (++p->joined < p->nclients)
		return;
	start_stage(p, has_before(p->sc) ? ST_BEFORE : p->sc == DS_SPIKE ? ST_IDLE : ST_LOAD);
}

/* The first bytes of what the server sent, fit for a message: it reaches a terminal escaped. */
static const char *excerpt(const char *v, size_t len, char *buf, size_t cap)
{
	char raw[48];

	len = len < sizeof(raw) - 1 ? len : sizeof(raw) - 1;
	memcpy(raw, v, len);
	raw[len] = '\0';
	return esc_term(raw, buf, cap);
}

static bool is_lit(const struct ds_answer *a, const char *lit)
{
	return a->value_len == strlen(lit) && memcmp(a->value, lit, a->value_len) == 0;
}

/* The contended value read before or after the load. */
static void got_read(struct ds_phase *p, const struct ds_slot *s, const struct ds_answer *a)
{
	char ex[200];
	int64_t v;

	if (!ds_json_int(a->value, a->value_len, true, &v)) {
		ds_fail(p, "get %s: %s is not a number", s->keyname, excerpt(a->value, a->value_len, ex, sizeof(ex)));
		return;
	}
	if (p->stage == ST_BEFORE)
		p->row->before = v;
	else
		p->row->after = v;
}

/* What the answer must be, from what the client wrote. */
static void check(struct ds_phase *p, struct ds_client *c, const struct ds_slot *s, const struct ds_answer *a)
{
	char ex[200];
	int64_t v;
	long n;

#define EX(a) excerpt((a)->value, (a)->value_len, ex, sizeof(ex))
	switch ((enum ds_expect)s->expect) {
	case X_TRUE:
		if (!is_lit(a, "true"))
			ds_fail(p, "%s: answered %s, not true", s->keyname, EX(a));
		return;
	case X_BOOL:
		if (!is_lit(a, s->num ? "true" : "false"))
			ds_fail(p, "%s: answered %s, but it %s", s->keyname, EX(a),
				s->num ? "was written and not deleted" : "was never written, or deleted");
		return;
	case X_NULL:
		if (!is_lit(a, "null"))
			ds_fail(p, "read-back: get %s answered %zu bytes, but it was never written, or deleted",
				s->keyname, a->value_len);
		return;
	case X_DOC:
		if (!ds_doc_is(a->value, a->value_len, s->keyname, s->version, s->doc_len))
			ds_fail(p,
				"read-back: get %s answered %zu bytes that are not the document last written "
				"(version %" PRIu64 ", %zu bytes): a stale or wrong read",
				s->keyname, a->value_len, s->version, s->doc_len + 2);
		return;
	case X_NUM:
		if (!ds_json_int(a->value, a->value_len, false, &v) || v != s->num)
			ds_fail(p, "add %s: answered %s, not %" PRId64 " (the increments sent on it)", s->keyname,
				EX(a), s->num);
		return;
	case X_ANY_NUM:
		if (!ds_json_int(a->value, a->value_len, false, &v))
			ds_fail(p, "add %s: answered %s, not a number", s->keyname, EX(a));
		return;
	case X_COUNT:
		if ((n = ds_json_count(a->value, a->value_len)) != s->num)
			ds_fail(p, "all %s: %ld rows, expected %" PRId64 " (%d preloaded, capped at %d)", s->keyname, n,
				s->num, DS_SCAN_ROWS, DS_SCAN_CAP);
		return;
	case X_TOKEN:
		if (a->value_len < 3 || a->value_len - 2 >= sizeof(c->token) || a->value[0] != '"' ||
		    memchr(a->value + 1, '\\', a->value_len - 2)) {
			ds_fail(p, "login: answered %s, not a session token", EX(a));
			c->token[0] = '\0';
			return;
		}
		memcpy(c->token, a->value + 1, a->value_len - 2);
		c->token[a->value_len - 2] = '\0';
		return;
	case X_READ:
		got_read(p, s, a);
		return;
	case X_PROBE: /* the table is there: no preload; else every client writes it */
		p->probed = true;
		if (is_lit(a, "true"))
			p->preload_sent = DS_SCAN_ROWS;
		for (unsigned i = 0; i < p->nclients; i++)
			pump(p, &p->c[i]);
		return;
	}
#undef EX
}

static void on_answer(struct ds_phase *p, struct ds_client *c, const uint8_t *data, size_t len, uint64_t now)
{
	struct ds_answer a;
	struct ds_slot *s;
	char ex[200];

	if (!ds_answer_parse((const char *)data, len, &a)) {
		ds_fail(p, "client %u: an answer that is not the store's frame: '%s'", c->index,
			excerpt((const char *)data, len, ex, sizeof(ex)));
		wsc_dead(&p->g, &c->w, "an answer that is not the store's frame");
		return;
	}
	s = &c->slots[a.id & (MAX_WINDOW - 1)];
	if ((a.id & (MAX_WINDOW - 1)) >= p->window || !s->busy || s->seq != a.id >> SLOT_BITS) {
		ds_fail(p,
			"client %u: an answer for id %" PRIu64 ", which is not in flight (never sent, or answered "
			"twice)",
			c->index, a.id);
		return;
	}
	s->busy = false;
	c->in_flight--;
	p->answered++;
	p->last_ns = now;
	if (p->stage == ST_LOAD) {
		p->row->ops++;
		hist_record(&p->row->latency, now - s->sent_ns);
	}
	if (!a.ok)
		ds_fail(p, "%s: the store answered an error: %s", s->keyname,
			excerpt(a.value, a.value_len, ex, sizeof(ex)));
	else
		check(p, c, s, &a);
	pump(p, c);
	advance(p);
}

static void on_open(void *owner, struct wsc *w)
{
	(void)w;
	joined(owner);
}

static void on_message(void *owner, struct wsc *w, const uint8_t *data, size_t len, uint64_t now)
{
	on_answer(owner, client_of(w), data, len, now);
}

static void on_dead(void *owner, struct wsc *w, const char *why)
{
	ds_fail(owner, "client %u: %s", client_of(w)->index, why);
}

static const struct wsc_hooks ds_hooks = {on_open, on_message, on_dead};

/* The scenario's clients, its window, the requests of its load. */
static void shape(struct ds_phase *p)
{
	const struct ds_config *cfg = p->cfg;
	bool pooled = p->sc == DS_SET_PIPE || contended(p->sc) || p->sc == DS_MIXED || p->sc == DS_SCAN ||
		      p->sc == DS_SPIKE || is_memory(p->sc);

	p->nclients = p->sc == DS_MEMORY_AFTER ? 1 : pooled ? cfg->clients : 1;
	p->load_clients = p->sc == DS_SCAN || p->sc == DS_MEMORY ? 1 : p->nclients;
	p->window = pooled ? cfg->window : 1;
	if (p->sc == DS_SPIKE)
		p->window = SPIKE_WINDOW;
	/* all-scan: its table preloaded pipelined, then scanned in turn; the memory run reads on one connection,
	 * pipelined: a rewrite and its read-back stay in order there */
	p->load_window = p->sc == DS_SCAN ? 1 : p->window;
	p->limit = is_memory(p->sc) ? DS_MEMORY_READS + 2 * p->nrewrite : cfg->ops;
	if (p->sc == DS_PAYLOAD || p->sc == DS_CHURN)
		p->limit += p->limit % 2; /* whole pairs: set+get, login+logout */
	p->doc_len = p->sc == DS_PAYLOAD ? (size_t)cfg->payload_kib * 1024
		     : is_memory(p->sc)	 ? DS_MEMORY_DOC
					 : SMALL_DOC;
}

/* The tenth of the memory run's documents it rewrites: those its seed draws, every one, since the read-back
 * after the restart expects each of them at its second version. */
static int rewrite_list(struct ds_phase *p, struct hx_err *err)
{
	uint64_t n = p->cfg->memory_docs, count = 0;

	for (uint64_t k = 0; k < n; k++)
		count += rewritten(p->cfg, k);
	if (!(p->rewrite = calloc(count + 1, sizeof(*p->rewrite))))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "docstore: out of memory");
	for (uint64_t k = 0; k < n; k++)
		if (rewritten(p->cfg, k))
			p->rewrite[p->nrewrite++] = k;
	return 0;
}

static int connect_all(struct ds_phase *p, uint64_t seed, struct hx_err *err)
{
	for (unsigned i = 0; i < p->nclients; i++) {
		struct ds_client *c = &p->c[i];

		c->index = i;
		c->rng = seed * 2654435761u + i + 1;
		if (i < p->load_clients)
			c->share = p->limit / p->load_clients + (i < p->limit % p->load_clients);
		if (!(c->slots = calloc(p->window, sizeof(*c->slots))))
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "docstore: out of memory");
		if (wsc_connect(&p->g, &c->w, 16u << 20, err) < 0)
			return hx_wrap(err, "docstore: client %u", i);
	}
	return 0;
}

static bool all_dead(const struct ds_phase *p)
{
	for (unsigned i = 0; i < p->nclients; i++)
		if (p->c[i].w.state != WSC_DEAD)
			return false;
	return true;
}

static void loop(struct ds_phase *p)
{
	struct epoll_event evs[128];
	uint64_t idle = (uint64_t)p->cfg->timeout_ms * 1000000u, joined_by = util_now_ns() + idle;

	p->last_ns = util_now_ns();
	while (p->stage != ST_DONE && !all_dead(p)) {
		int n = epoll_wait(p->g.ep, evs, 128, 10);
		uint64_t now;

		for (int i = 0; i < n; i++)
			wsc_event(&p->g, evs[i].data.ptr, evs[i].events);
		now = util_now_ns();
		if (p->stage == ST_JOIN && now > joined_by) {
			ds_fail(p, "only %u of %u clients joined within %u ms", p->joined, p->nclients,
				p->cfg->timeout_ms);
			return;
		}
		if (p->stage == ST_IDLE && now - p->stage_ns >= SPIKE_IDLE_NS)
			start_stage(p, ST_LOAD);
		if (p->stage == ST_LOAD && !p->stopped && now >= p->cap_ns && !is_memory(p->sc)) {
			p->stopped = true;		     /* the budget's end: what is in flight is drained */
			p->row->capped = p->sent < p->limit; /* in the load stage, sent counts the load's requests */
			advance(p);
		}
		if (p->stage != ST_JOIN && p->stage != ST_IDLE && p->stage != ST_DONE && now > p->last_ns + idle) {
			ds_fail(p, "no answer for %u ms (%" PRIu64 " of %" PRIu64 " answered)", p->cfg->timeout_ms,
				p->answered, p->sent);
			return;
		}
	}
}

/* What the phase's checks found at its end: the contended value against the increments acknowledged. */
static void verdict(struct ds_phase *p)
{
	struct ds_row *r = p->row;

	if (p->stage != ST_DONE && !r->why[0])
		ds_fail(p, "the scenario did not finish (its connections closed)");
	r->duration_s = p->end_ns > p->start_ns ? (double)(p->end_ns - p->start_ns) / 1e9 : 0;
	if (contended(p->sc) && p->stage == ST_DONE && r->after - r->before != (int64_t)r->ops) {
		int64_t off = (int64_t)r->ops - (r->after - r->before);

		ds_fail(p,
			"%s: %s went from %" PRId64 " to %" PRId64 " for %" PRIu64 " acknowledged increments (%" PRId64
			" lost or extra updates)",
			p->sc == DS_ADD ? "counter" : "nested merge",
			p->sc == DS_ADD ? DS_COUNTER_KEY : DS_NESTED_KEY ".stats.hits", r->before, r->after, r->ops,
			off);
	}
}

static void phase_free(struct ds_phase *p)
{
	for (unsigned i = 0; p->c && i < p->nclients; i++) {
		wsc_free(&p->g, &p->c[i].w);
		free(p->c[i].slots);
	}
	free(p->c);
	free(p->req);
	free(p->rewrite);
	if (p->g.ep >= 0)
		close(p->g.ep);
}

static int run_phase(struct load_url *url, const struct ds_config *cfg, enum ds_scenario sc, uint64_t seed,
		     struct ds_row *row, struct hx_err *err)
{
	struct ds_phase p = {.cfg = cfg, .url = url, .sc = sc, .row = row};
	int rc = 0;

	row->sc = sc;
	row->contended = contended(sc);
	ds_name(sc, cfg->payload_kib, row->name, sizeof(row->name));
	hist_init(&row->latency);
	if (sc == DS_MEMORY && rewrite_list(&p, err) < 0)
		return -err->errnum;
	shape(&p);
	snprintf(p.nonce, sizeof(p.nonce), "%08" PRIx64, seed & 0xffffffffu);
	p.req_cap = p.doc_len + 512;
	p.g.tp = url->tls ? &tp_tls : &tp_tcp;
	p.g.url = url;
	p.g.hooks = &ds_hooks;
	p.g.owner = &p;
	p.g.ep = epoll_create1(EPOLL_CLOEXEC);
	p.c = calloc(p.nclients, sizeof(*p.c));
	p.req = malloc(p.req_cap);
	if (p.g.ep < 0 || !p.c || !p.req)
		rc = hx_syserr(err, "docstore: setup");
	else if (connect_all(&p, seed, err) < 0)
		rc = -err->errnum;
	else {
		loop(&p);
		verdict(&p);
	}
	phase_free(&p);
	return rc;
}

int ds_run(const char *url, const struct ds_config *cfg, struct ds_result *r, struct hx_err *err)
{
	struct load_url u;
	uint64_t seed = cfg->seed ? cfg->seed : util_now_ns();

	memset(r, 0, sizeof(*r));
	if (load_parse_url(url, &u, err) < 0)
		return -err->errnum;
	if (!u.ws)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --docstore takes a ws:// or wss:// URL, not '%s'",
			       url);
	if (cfg->window > MAX_WINDOW || cfg->window < 1 || cfg->clients < 1 || cfg->ops < 1)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: --docstore takes 1 to %u in flight per client, at least one client and one op",
			       MAX_WINDOW);
	if ((cfg->mask & (1u << DS_MEMORY_AFTER)) && !cfg->memory_docs)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: memory/after-restart reads back the memory run's documents: give --memory-docs N "
			       "and its --memory-seed");
	if (u.tls && tp_tls_init(u.host, true, err) < 0)
		return -err->errnum;
	for (int sc = 0; sc < DS_NR; sc++) {
		struct ds_row *row = &r->rows[r->n];

		if (!(cfg->mask & (1u << sc)) || (sc == DS_MEMORY && !cfg->memory_docs))
			continue; /* the memory run only with its documents */
		r->n++;
		if (run_phase(&u, cfg, (enum ds_scenario)sc, seed + (uint64_t)sc, row, err) < 0) {
			tp_tls_free();
			return -err->errnum;
		}
		if (row->why[0] && !r->why[0])
			snprintf(r->why, sizeof(r->why), "%s: %s", row->name, row->why);
	}
	tp_tls_free();
	r->ok = !r->why[0];
	return 0;
}

void ds_table_header(char *buf, size_t len)
{
	snprintf(buf, len, "%-28s %9s %5s %10s %8s %8s %8s %8s %8s", "scenario", "ops", "err", "ops/s", "avgµs",
		 "p50µs", "p95µs", "p99µs", "maxµs");
}

void ds_table_row(char *buf, size_t len, const char *name, double ops, double errors, double ops_s, const double us[5])
{
	snprintf(buf, len, "%-28s %9.0f %5.0f %10.0f %8.0f %8.0f %8.0f %8.0f %8.0f", name, ops, errors, ops_s, us[0],
		 us[1], us[2], us[3], us[4]);
}
