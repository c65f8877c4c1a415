/* `harness load`: HTTP load (closed or open loop), the WebSocket chat workload (--chat), WebSocket
 * request/response with a window (--rpc), and startup timing (--startup). Text like wrk's, or one JSON document (docs/load.md). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/opt.h"
#include "base/util.h"
#include "cgroups/cg.h"
#include "cli/verbs.h"
#include "load/chat.h"
#include "load/check.h"
#include "load/docstore.h"
#include "load/load.h"
#include "load/rpc.h"
#include "load/startup.h"
#include "results/results.h"

struct load_opts {
	bool help, json, insecure, chat, rpc, counter, startup, no_sandbox, show_output, no_timeline, duet_gate;
	unsigned conns, threads, pipeline, timeout_ms, clients, messages, window, runs, warmup, expect_status;
	uint64_t requests, expect_length, memory_docs, memory_seed;
	double duration, rate, interval;
	const char *method, *body_file, *export_hyperfine, *sweep, *expect_sha256, *engine, *expect_encoding,
		*expect_range, *duet_b, *duet_order, *docstore;
	double duet_window, budget;
	unsigned payload_kib;
	struct opt_list headers, binds;
};

static const struct hx_opt load_tab[] = {
	{"connections", 'c', OPT_UINT, offsetof(struct load_opts, conns), "N", .help = "connections (default 10)",
	 .min = 1, .max = 65536},
	{"threads", 't', OPT_UINT, offsetof(struct load_opts, threads), "N", .help = "threads (default 1)", .min = 1,
	 .max = 1024},
	{"requests", 'n', OPT_COUNT, offsetof(struct load_opts, requests), "N", .help = "send N requests, then stop",
	 .min = 1},
	{"duration", 'd', OPT_DURATION, offsetof(struct load_opts, duration), "DURATION",
	 .help = "run this long (default 10s)", .min = 0.001, .max = 86400},
	{"rate", 'R', OPT_NUMBER, offsetof(struct load_opts, rate), "RATE",
	 .help = "open loop: RATE requests/s in total; latency counts from each request's intended send time",
	 .min = 0.001, .max = 1e9},
	{"method", 'm', OPT_STR, offsetof(struct load_opts, method), "METHOD", .help = "request method (default GET)"},
	{"header", 'H', OPT_LIST, offsetof(struct load_opts, headers), "'K: V'", .help = "add a request header"},
	{"body", 0, OPT_STR, offsetof(struct load_opts, body_file), "FILE", .help = "send FILE as the request body",
	 .check = OPT_CHECK_IN_FILE},
	{"timeout", 0, OPT_UINT, offsetof(struct load_opts, timeout_ms), "MS",
	 .help = "a response later than this is an error (default 2000)", .min = 1, .max = 3600000},
	{"pipeline", 0, OPT_UINT, offsetof(struct load_opts, pipeline), "N",
	 .help = "requests in flight per connection (default 1)", .min = 1, .max = 64},
	{"expect-status", 0, OPT_UINT, offsetof(struct load_opts, expect_status), "CODE",
	 .help = "a first request, checked in full, has this status (else exit 1 naming the check)", .min = 100,
	 .max = 599},
	{"expect-length", 0, OPT_SIZE, offsetof(struct load_opts, expect_length), "BYTES",
	 .help = "a response whose body is not BYTES long is an error (\"body\")"},
	{"expect-sha256", 0, OPT_STR, offsetof(struct load_opts, expect_sha256), "HEX",
	 .help = "a response whose body has another SHA-256 is an error (\"body\"); with --expect-encoding, the "
		 "first request's body once decoded"},
	{"expect-encoding", 0, OPT_STR, offsetof(struct load_opts, expect_encoding), "CODING",
	 .help = "the first request's Content-Encoding (gzip, br; default: none)"},
	{"expect-range", 0, OPT_STR, offsetof(struct load_opts, expect_range), "'bytes A-B/N'",
	 .help = "the first request's Content-Range"},
	{"interval", 0, OPT_DURATION, offsetof(struct load_opts, interval), "DURATION",
	 .help = "the JSON's timeline: requests, errors, bytes, p50 and p99 per interval (default 100ms)", .min = 0.001,
	 .max = 3600},
	{"no-timeline", 0, OPT_FLAG, offsetof(struct load_opts, no_timeline), NULL,
	 .help = "keep no timeline (to measure what it costs)"},
	{"engine", 0, OPT_STR, offsetof(struct load_opts, engine), "ENGINE",
	 .help = "epoll, io_uring or auto (default: io_uring for http:// where the kernel allows it, else epoll)"},
	{"insecure", 'k', OPT_FLAG, offsetof(struct load_opts, insecure), NULL,
	 .help = "TLS: do not check the server's certificate"},
	{"chat", 0, OPT_FLAG, offsetof(struct load_opts, chat), NULL, .help = "WebSocket chat workload on a ws:// URL"},
	{"clients", 0, OPT_UINT, offsetof(struct load_opts, clients), "N", .help = "chat, rpc: clients (default 16)",
	 .min = 1, .max = 4096},
	{"messages", 0, OPT_UINT, offsetof(struct load_opts, messages), "M",
	 .help = "chat: messages each client sends (default 80)", .min = 1, .max = 1000000},
	{"rpc", 0, OPT_FLAG, offsetof(struct load_opts, rpc), NULL,
	 .help = "WebSocket request/response workload on a ws:// URL: every id answered once"},
	{"window", 0, OPT_UINT, offsetof(struct load_opts, window), "W",
	 .help = "rpc: requests in flight per client (default 32)", .min = 1, .max = 4096},
	{"counter", 0, OPT_FLAG, offsetof(struct load_opts, counter), NULL,
	 .help = "rpc: increment the server's counter; it must move by the increments acknowledged"},
	{"sweep", 0, OPT_STR, offsetof(struct load_opts, sweep), "CxW,...",
	 .help = "rpc: one table row per clients x window, e.g. 1x1,4x8,16x32"},
	{"docstore", 0, OPT_STR, offsetof(struct load_opts, docstore), "all|NAME,...",
	 .help = "the document store's suite on a ws:// URL: its scenarios in order, each checked (docs/docstore.md)"},
	{"budget", 0, OPT_DURATION, offsetof(struct load_opts, budget), "DURATION",
	 .help = "docstore: each scenario's wall-time cap (default 10s)", .min = 0.01, .max = 3600},
	{"payload-kib", 0, OPT_UINT, offsetof(struct load_opts, payload_kib), "KIB",
	 .help = "docstore: payload-Nkb's documents (default 1)", .min = 1, .max = 4096},
	{"memory-docs", 0, OPT_COUNT, offsetof(struct load_opts, memory_docs), "N",
	 .help = "docstore: the memory run's documents (~1 KiB each): load, read 2,000 back, rewrite a tenth",
	 .min = 1},
	{"memory-seed", 0, OPT_COUNT, offsetof(struct load_opts, memory_seed), "S",
	 .help = "docstore: the memory run's draws, the same for memory/after-restart (default 1)", .min = 1},
	{"startup", 0, OPT_FLAG, offsetof(struct load_opts, startup), NULL,
	 .help = "time a command's start to exit: load --startup -- CMD"},
	{"no-sandbox", 0, OPT_FLAG, offsetof(struct load_opts, no_sandbox), NULL,
	 .help = "startup: plain fork and exec here, no slice or sandbox (as hyperfine -N)"},
	{"bind", 0, OPT_LIST, offsetof(struct load_opts, binds), "SRC:DST[:rw]",
	 .help = "startup: a host path inside the sandbox"},
	{"show-output", 0, OPT_FLAG, offsetof(struct load_opts, show_output), NULL,
	 .help = "startup: keep the command's output (default: /dev/null, as hyperfine)"},
	{"runs", 'r', OPT_UINT, offsetof(struct load_opts, runs), "N", .help = "startup: measured runs (default 30)",
	 .min = 1, .max = 100000},
	{"warmup", 'w', OPT_UINT, offsetof(struct load_opts, warmup), "N",
	 .help = "startup: unmeasured runs first (default 5)", .max = 100000},
	{"export-hyperfine", 0, OPT_STR, offsetof(struct load_opts, export_hyperfine), "FILE",
	 .help = "startup: also write hyperfine's JSON format", .check = OPT_CHECK_OUT_FILE},
	{"duet", 0, OPT_STR, offsetof(struct load_opts, duet_b), "URL_B",
	 .help = "a duet (harness ab): connections to URL and URL_B (http, or with --rpc or --chat ws), all kept open; "
		 "the load on one side per window (--duet-order), each window one JSON line on stdout (docs/ab.md)"},
	{"duet-order", 0, OPT_STR, offsetof(struct load_opts, duet_order), "AB...",
	 .help = "duet: the side of each window, A (URL) or B (URL_B), e.g. ABBAAB"},
	{"duet-window", 0, OPT_DURATION, offsetof(struct load_opts, duet_window), "SECONDS",
	 .help = "duet: each window's sending time, its drain after it counted (default 0.5s)", .min = 0.01,
	 .max = 600},
	{"duet-gate", 0, OPT_FLAG, offsetof(struct load_opts, duet_gate), NULL,
	 .help = "duet: each window starts on a byte read from stdin, and stdin's end ends the load; without --duet, "
		 "every window on URL alone (harness ab --duet simultaneous)"},
	{"json", 0, OPT_FLAG, offsetof(struct load_opts, json), NULL, .help = "print one JSON document"},
	{"help", 'h', OPT_FLAG, offsetof(struct load_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_load_opts = load_tab;

static void fmt_us(char *buf, size_t len, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.2fs", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.0fus", ns / 1e3);
}

/* The document, with the CPUs this client really ran on. */
static cJSON *load_json(const struct load_config *c, const struct load_result *r)
{
	struct cg_cpus aff;
	struct hx_err ignored = {0};
	char list[CG_MAX_CPUS * 5] = "";
	struct res_load *l = calloc(1, sizeof(*l));
	cJSON *j;

	if (!l)
		return NULL;
	if (cg_own_affinity(&aff, &ignored) == 0)
		cg_cpus_format(&aff, list, sizeof(list));
	res_load_from(c, r, list, l);
	j = res_load_json(l);
	free(l);
	if (j && r->timeline.iv) {
		struct res_timeline tl;

		if (res_timeline_from_tl(&r->timeline, &tl) == 0)
			cJSON_AddItemToObject(j, "timeline", res_timeline_json(&tl, true));
		res_timeline_free(&tl);
	}
	return j;
}

static void load_print(const char *url, const struct load_config *c, const struct load_result *r)
{
	static const struct {
		const char *name;
		double q;
	} qs[] = {{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p99.9", 0.999}};
	char a[32], b[32];

	printf("%s %s @ %s\n", c->requests ? "Sent" : "Ran", c->rate > 0 ? "open loop" : "closed loop", url);
	printf("  %u threads, %u connections, pipeline %u%s, engine %s", c->threads, c->conns, c->pipeline,
	       c->url.tls ? ", TLS" : "", load_engine_names[r->engine]);
	if (r->setup.ring_flags[0])
		printf(" (%s)", r->setup.ring_flags);
	if (r->setup.fallback != LOAD_FALLBACK_NONE)
		printf(", fallback %s: %s", load_fallback_names[r->setup.fallback], r->setup.why);
	printf("\n");
	fmt_us(a, sizeof(a), hist_mean(&r->latency));
	fmt_us(b, sizeof(b), hist_stddev(&r->latency));
	printf("  Latency%s  mean %s  stdev %s", c->rate > 0 ? " (from intended send)" : "", a, b);
	for (size_t i = 0; i < HX_ARRAY_SIZE(qs); i++) {
		fmt_us(a, sizeof(a), (double)hist_quantile(&r->latency, qs[i].q));
		printf("  %s %s", qs[i].name, a);
	}
	fmt_us(a, sizeof(a), (double)r->latency.max);
	printf("  max %s\n", a);
	printf("  %llu requests in %.2fs, %.2f MB read, %llu reconnects\n", (unsigned long long)r->requests,
	       r->duration_s, (double)r->bytes / 1e6, (unsigned long long)r->reconnects);
	if (r->errors_total) {
		printf("  Errors:");
		for (int k = 0; k < LE_NR; k++)
			printf(" %s %llu", load_err_names[k], (unsigned long long)r->errors[k]);
		printf("\n");
	}
	printf("Requests/sec: %.2f\n", r->duration_s > 0 ? (double)r->requests / r->duration_s : 0);
	printf("Client CPU: %.2f us per request; busiest thread %.0f%% busy%s\n",
	       r->requests ? r->cpu_s * 1e6 / (double)r->requests : 0, r->max_thread_busy * 100,
	       r->max_thread_busy >= RES_SATURATED && r->requests > 0
		       ? " (saturated: the client, not the server, may be the limit; give it more CPUs and threads: -t)"
		       : "");
}

/* --expect-sha256: 64 hex digits into the 32 bytes every body's digest is compared with. */
static int parse_sha256(const char *hex, unsigned char *ret, struct hx_err *err)
{
	for (size_t i = 0; i < 32; i++) {
		unsigned v;

		if (strspn(hex + 2 * i, "0123456789abcdefABCDEF") < 2 || sscanf(hex + 2 * i, "%2x", &v) != 1)
			break;
		ret[i] = (unsigned char)v;
		if (i == 31 && hex[64] == '\0')
			return 0;
	}
	return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --expect-sha256 takes 64 hex digits (sha256sum's)");
}

static bool expects(const struct load_opts *o)
{
	return o->expect_status || o->expect_length != UINT64_MAX || o->expect_sha256 || o->expect_encoding ||
	       o->expect_range;
}

/* One request whose whole response is checked, before any is measured. */
static int check_first(const struct load_opts *o, const char *url, const struct load_config *c, struct hx_err *err)
{
	struct check_expect x = {
		.status = o->expect_status, .has_length = o->expect_length != UINT64_MAX, .length = o->expect_length};

	if (o->expect_sha256 && check_sha256_hex(o->expect_sha256, x.sha256) < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --expect-sha256 takes 64 hex digits");
	snprintf(x.encoding, sizeof(x.encoding), "%s", o->expect_encoding ? o->expect_encoding : "");
	snprintf(x.range, sizeof(x.range), "%s", o->expect_range ? o->expect_range : "");
	if (check_once(url, (const char *const *)o->headers.items, o->headers.n, c->insecure, c->timeout_ms, &x, err) <
	    0)
		return hx_wrap(err, "load: check failed on %s", url);
	return 0;
}

/* A duet's window as one line; false when nobody reads any more (harness ab has what it needs). */
static bool duet_line(const struct load_window *w, void *ctx)
{
	const struct hist *h = &w->latency;
	_cleanup_free_ char *why = NULL;
	cJSON *s = w->why ? cJSON_CreateString(w->why) : NULL;
	int n;

	(void)ctx;
	why = s ? cJSON_PrintUnformatted(s) : NULL; /* a JSON string, quoted and escaped */
	cJSON_Delete(s);
	n = printf("{\"window\":%zu,\"side\":\"%c\",\"start_s\":%.6f,\"start_mono_s\":%.6f,\"duration_s\":%.6f,"
		   "\"requests\":%llu,\"drained\":%llu,"
		   "\"errors\":%llu,\"reconnects\":%llu,\"drain_ms\":%.3f,\"latency_us\":{\"mean\":%.3f,"
		   "\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f}%s%s}\n",
		   w->index, w->side ? 'B' : 'A', w->start_s, w->start_mono_s, w->duration_s,
		   (unsigned long long)w->requests, (unsigned long long)w->drained, (unsigned long long)w->errors_total,
		   (unsigned long long)w->reconnects, w->drain_ms, hist_mean(h) / 1e3,
		   (double)hist_quantile(h, 0.5) / 1e3, (double)hist_quantile(h, 0.9) / 1e3,
		   (double)hist_quantile(h, 0.99) / 1e3, (double)h->max / 1e3, why ? ",\"why\":" : "", why ? why : "");
	return n > 0 && fflush(stdout) == 0;
}

/* After the last window: the totals, and the engine with what it got from the kernel (harness ab records both). */
static void duet_end_line(const struct load_result *r)
{
	struct res_engine_setup es;
	cJSON *j = cJSON_CreateObject();
	_cleanup_free_ char *s = NULL;

	res_engine_setup_from(&r->setup, &es);
	cJSON_AddTrueToObject(j, "end");
	cJSON_AddNumberToObject(j, "requests", (double)r->requests);
	cJSON_AddNumberToObject(j, "errors", (double)r->errors_total);
	cJSON_AddNumberToObject(j, "reconnects", (double)r->reconnects);
	cJSON_AddNumberToObject(j, "cpu_s", r->cpu_s);
	cJSON_AddStringToObject(j, "engine", load_engine_names[r->engine]);
	res_engine_setup_json(j, &es);
	cJSON_AddNumberToObject(j, "threads", r->threads);
	s = cJSON_PrintUnformatted(j);
	if (s)
		printf("%s\n", s);
	fflush(stdout);
	cJSON_Delete(j);
}

/* A gated duet without --duet: this many windows at most, every one on URL (harness ab stops it sooner). */
#define LOAD_GATE_WINDOWS 65536

/* --duet: URL_B, the order of the sides, the window; the connections per side are -c's. --duet-gate alone: the
 * windows on URL only, each on harness's go. */
static int duet_config(const struct load_opts *o, struct load_config *c, unsigned char **ret_order, struct hx_err *err)
{
	size_t n = o->duet_order ? strlen(o->duet_order) : 0;
	unsigned char *order;

	if (o->duet_gate && !o->duet_b) {
		if (o->duet_order || o->rate > 0 || o->requests || o->duration > 0)
			return hx_fail(
				err, HX_EXIT_USAGE, EINVAL,
				"load: --duet-gate without --duet runs every window on URL: drop --duet-order, -R, "
				"-n and -d (--duet-window sets the window)");
		if (!(order = calloc(LOAD_GATE_WINDOWS, 1)))
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		c->url_b = c->url;
		c->one_side = true;
		n = LOAD_GATE_WINDOWS;
		goto windows;
	}
	if (!n || strspn(o->duet_order, "AB") != n)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: --duet takes --duet-order, a side per window: A or B");
	if (o->rate > 0 || o->requests || o->duration > 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: a duet runs closed loop by windows: drop -R, -n and -d (--duet-window sets the "
			       "window)");
	if (load_parse_url(o->duet_b, &c->url_b, err) < 0)
		return -err->errnum;
	if (c->url_b.tls != c->url.tls || c->url_b.ws)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --duet: both URLs http, or both https");
	if (!(order = malloc(n)))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		order[i] = o->duet_order[i] == 'B';
windows:
	c->gate = o->duet_gate;
	c->duet = true;
	c->order = order;
	c->nwindows = n;
	c->window_s = o->duet_window > 0 ? o->duet_window : 0.5;
	c->on_window = duet_line;
	signal(SIGPIPE, SIG_IGN); /* harness ab closes the pipe when it has enough: a failed write ends the load */
	*ret_order = order;
	return 0;
}

static int load_http(const struct load_opts *o, const char *url, struct hx_err *err)
{
	_cleanup_free_ unsigned char *order = NULL;
	struct load_config c = {0};
	_cleanup_free_ char *body = NULL;
	_cleanup_free_ struct load_result *r = calloc(1, sizeof(*r));
	size_t body_len = 0;
	int rc;

	if (!r)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (load_parse_url(url, &c.url, err) < 0)
		return -err->errnum;
	if (c.url.ws)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: a ws:// URL takes --chat or --rpc");
	c.conns = o->conns ? o->conns : 10;
	c.threads = o->threads ? o->threads : 1;
	c.pipeline = o->pipeline ? o->pipeline : 1;
	c.timeout_ms = o->timeout_ms ? o->timeout_ms : 2000;
	c.requests = o->requests;
	c.duration_s = o->duration > 0 ? o->duration : 10;
	c.rate = o->rate;
	c.insecure = o->insecure;
	/* the JSON shows the timeline; on a terminal it feeds the status line */
	c.progress = !o->no_timeline && isatty(STDERR_FILENO) ? stderr : NULL;
	c.interval_ns = (o->json || c.progress) && !o->no_timeline
				? o->interval > 0 ? (uint64_t)(o->interval * 1e9) : TL_DEFAULT_NS
				: 0;
	c.check_length = o->expect_length != UINT64_MAX;
	c.expect_length = o->expect_length;
	/* with an encoding the digest is of the decoded body: the first request's, each encoder's bytes differ */
	c.check_sha256 = o->expect_sha256 && !o->expect_encoding;
	if (c.check_sha256 && parse_sha256(o->expect_sha256, c.expect_sha256, err) < 0)
		return -err->errnum;
	if (o->engine && load_engine_parse(o->engine) < 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --engine takes epoll, io_uring or auto, not '%s'",
			       o->engine);
	c.engine = o->engine ? (enum load_engine)load_engine_parse(o->engine) : LOAD_ENGINE_AUTO;
	if (c.threads > c.conns)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: %u threads need at least %u connections (-c)",
			       c.threads, c.threads);
	if (o->requests && o->duration > 0)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: give -n or -d, not both");
	if (o->body_file && util_read_file(o->body_file, &body, &body_len, err) < 0)
		return hx_wrap(err, "load: --body");
	if (load_build_request(&c, o->method ? o->method : "GET", o->headers.items, o->headers.n, body, body_len, err) <
	    0)
		return -err->errnum;
	if ((o->duet_b || o->duet_gate) &&
	    (duet_config(o, &c, &order, err) < 0 || (o->duet_b && load_probe(&c.url_b, c.timeout_ms, err) < 0))) {
		free(c.request);
		return -err->errnum;
	}
	rc = load_engine_pick(&c, &(enum load_engine){0}, err) < 0 || load_probe(&c.url, c.timeout_ms, err) < 0
		     ? -err->errnum
	     : expects(o) && check_first(o, url, &c, err) < 0 ? -err->errnum
							      : load_run(&c, r, err);
	free(c.request);
	if (rc < 0) {
		load_result_free(r);
		return rc;
	}
	if (c.duet) { /* the windows are the figures; the last line sums them up */
		duet_end_line(r);
		rc = r->errors_total ? HX_EXIT_VERDICT : HX_EXIT_OK;
		load_result_free(r);
		return rc;
	}
	if (o->json) {
		cJSON *j = load_json(&c, r);
		_cleanup_free_ char *s = cJSON_Print(j);

		printf("%s\n", s);
		cJSON_Delete(j);
	} else {
		load_print(url, &c, r);
	}
	load_result_free(r);
	return r->errors_total ? HX_EXIT_VERDICT : HX_EXIT_OK;
}

/* Run, print, exit 1 when the invariant broke. */
static int chat_verb(const char *url, unsigned clients, unsigned messages, unsigned timeout_ms, bool json,
		     struct hx_err *err)
{
	_cleanup_free_ struct chat_result *r = calloc(1, sizeof(*r));

	if (!r)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (clients == 0 || messages == 0 || clients > 4096)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: --clients takes 1 to 4096, --messages at least 1");
	if (chat_run(url, clients, messages, timeout_ms, r, err) < 0)
		return -err->errnum;
	if (json) {
		struct res_chat rc;
		cJSON *j;
		_cleanup_free_ char *s = NULL;

		res_chat_from(r, &rc);
		j = res_chat_json(&rc);
		s = cJSON_Print(j);

		printf("%s\n", s);
		cJSON_Delete(j);
	} else {
		printf("Chat @ %s: %u clients x %u messages\n", url, clients, messages);
		printf("  %llu of %llu deliveries in %.3fs: %.0f deliveries/s\n", (unsigned long long)r->delivered,
		       (unsigned long long)r->expected, r->duration_s,
		       r->duration_s > 0 ? (double)r->delivered / r->duration_s : 0);
		printf("  round trip p50 %.0fus p99 %.0fus max %.0fus\n", (double)hist_quantile(&r->rtt, 0.5) / 1e3,
		       (double)hist_quantile(&r->rtt, 0.99) / 1e3, (double)r->rtt.max / 1e3);
		printf("  invariant: %s\n", r->ok ? "every client got every message once" : r->why);
	}
	if (!r->ok && !json) /* in JSON, "why" says it */
		fprintf(stderr, "harness: load: chat invariant broken: %s\n", r->why);
	return r->ok ? HX_EXIT_OK : HX_EXIT_VERDICT;
}

/* One cell of an rpc sweep: its settings and what it measured. */
struct rpc_cell {
	struct rpc_config cfg;
	struct rpc_result r;
};

/* The document: the http load's fields (so a run reads ops/s and latency as it does for http), with the
 * window and what the checks found under "rpc". */
static cJSON *rpc_json(const struct rpc_cell *x)
{
	_cleanup_free_ struct res_load *l = calloc(1, sizeof(*l));
	const struct rpc_result *r = &x->r;
	cJSON *j, *o;

	if (!l)
		return NULL;
	l->requests = r->answered;
	l->errors_total = rpc_failures(r);
	l->duration_s = r->duration_s;
	l->rps = r->duration_s > 0 ? (double)r->answered / r->duration_s : 0;
	res_latency_from(&r->latency, &l->latency_us);
	l->config.connections = x->cfg.clients;
	l->config.threads = 1;
	l->config.pipeline = x->cfg.window;
	l->config.requests = x->cfg.requests;
	l->config.timeout_ms = x->cfg.timeout_ms;
	j = res_load_json(l);
	cJSON_AddStringToObject(j, "workload", x->cfg.counter ? "ws-counter" : "ws-rpc");
	o = cJSON_AddObjectToObject(j, "rpc");
	cJSON_AddNumberToObject(o, "clients", x->cfg.clients);
	cJSON_AddNumberToObject(o, "window", x->cfg.window);
	cJSON_AddNumberToObject(o, "sent", (double)r->sent);
	cJSON_AddNumberToObject(o, "answered", (double)r->answered);
	cJSON_AddNumberToObject(o, "missing", (double)r->missing);
	cJSON_AddNumberToObject(o, "duplicated", (double)r->duplicated);
	cJSON_AddNumberToObject(o, "unknown", (double)r->unknown);
	cJSON_AddNumberToObject(o, "connection_errors", (double)r->errors);
	if (x->cfg.counter) {
		cJSON_AddNumberToObject(o, "counter_before", (double)r->counter_before);
		cJSON_AddNumberToObject(o, "counter_after", (double)r->counter_after);
		cJSON_AddNumberToObject(o, "counter_off", (double)r->counter_off);
	}
	cJSON_AddBoolToObject(o, "invariant_ok", r->ok);
	if (!r->ok)
		cJSON_AddStringToObject(o, "why", r->why);
	return j;
}

/* The published table: scenario ops err ops/s avgµs p50µs p95µs p99µs maxµs. */
static void rpc_row(const struct rpc_cell *x)
{
	const struct rpc_result *r = &x->r;
	char name[32];

	snprintf(name, sizeof(name), "%ux%u", x->cfg.clients, x->cfg.window);
	printf("%-10s %9llu %5llu %10.0f %8.0f %8.0f %8.0f %8.0f %8.0f\n", name, (unsigned long long)r->answered,
	       (unsigned long long)rpc_failures(r), r->duration_s > 0 ? (double)r->answered / r->duration_s : 0,
	       hist_mean(&r->latency) / 1e3, (double)hist_quantile(&r->latency, 0.5) / 1e3,
	       (double)hist_quantile(&r->latency, 0.95) / 1e3, (double)hist_quantile(&r->latency, 0.99) / 1e3,
	       (double)r->latency.max / 1e3);
}

/* "1x1,4x8,16x32" into cells; without --sweep, the one cell of --clients and --window. */
static int rpc_cells(const struct load_opts *o, struct rpc_cell *cells, size_t cap, size_t *ret_n, struct hx_err *err)
{
	struct rpc_config base = {
		.clients = o->clients ? o->clients : 16,
		.window = o->window ? o->window : 32,
		.requests = o->requests ? o->requests : 100000,
		.timeout_ms = o->timeout_ms ? o->timeout_ms : 10000,
		.counter = o->counter,
	};
	const char *p = o->sweep;
	size_t n = 0;

	if (!p) {
		cells[0].cfg = base;
		*ret_n = 1;
		return 0;
	}
	while (*p) {
		unsigned c, w;
		int used = 0;

		if (n == cap || sscanf(p, "%ux%u%n", &c, &w, &used) != 2 || c < 1 || c > 4096 || w < 1 || w > 4096 ||
		    (p[used] && p[used] != ','))
			return hx_fail(err, HX_EXIT_USAGE, EINVAL,
				       "load: --sweep takes up to %zu CLIENTSxWINDOW pairs (1 to 4096 each), "
				       "comma-separated: 1x1,4x8,16x32",
				       cap);
		cells[n].cfg = base;
		cells[n].cfg.clients = c;
		cells[n++].cfg.window = w;
		p += used + (p[used] == ',');
	}
	*ret_n = n;
	return 0;
}

static void rpc_print(const char *url, const struct rpc_cell *cells, size_t n)
{
	bool ok = true;

	printf("WebSocket RPC @ %s: %llu %s requests per cell\n", url, (unsigned long long)cells[0].cfg.requests,
	       cells[0].cfg.counter ? "increment" : "echo");
	printf("%-10s %9s %5s %10s %8s %8s %8s %8s %8s\n", "scenario", "ops", "err", "ops/s", "avgµs", "p50µs", "p95µs",
	       "p99µs", "maxµs");
	for (size_t i = 0; i < n; i++)
		rpc_row(&cells[i]);
	for (size_t i = 0; i < n; i++)
		if (!cells[i].r.ok) {
			printf("  %ux%u: %s\n", cells[i].cfg.clients, cells[i].cfg.window, cells[i].r.why);
			ok = false;
		}
	if (ok)
		printf("  invariant: every id answered exactly once%s\n",
		       cells[0].cfg.counter ? "; the counter moved by the increments acknowledged" : "");
}

/* A WebSocket duet's windows from --duet, --duet-order (into *ret_order, freed by the caller) and --duet-window,
 * each to a line on stdout; SIGPIPE ignored (harness ab closes the pipe when it has enough: a failed write ends
 * the load). */
static int ws_duet_begin(const struct load_opts *o, struct load_duet *w, unsigned char **ret_order, struct hx_err *err)
{
	size_t n = o->duet_order ? strlen(o->duet_order) : 0;
	unsigned char *order;

	if (!n || strspn(o->duet_order, "AB") != n)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: --duet takes --duet-order, a side per window: A or B");
	if (!(order = malloc(n)))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		order[i] = o->duet_order[i] == 'B';
	*w = (struct load_duet){.url_b = o->duet_b,
				.order = order,
				.nwindows = n,
				.window_s = o->duet_window > 0 ? o->duet_window : 0.5,
				.on_window = duet_line};
	*ret_order = order;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* A WebSocket duet's last line: the totals and, when a check failed, its words (harness ab records them). */
static void ws_duet_end_line(uint64_t requests, uint64_t errors, const char *why)
{
	struct timespec cpu;
	cJSON *j = cJSON_CreateObject();
	_cleanup_free_ char *text = NULL;

	cJSON_AddTrueToObject(j, "end");
	cJSON_AddNumberToObject(j, "requests", (double)requests);
	cJSON_AddNumberToObject(j, "errors", (double)errors);
	cJSON_AddNumberToObject(j, "reconnects", 0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	cJSON_AddNumberToObject(j, "cpu_s", (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9);
	cJSON_AddStringToObject(j, "engine", "epoll");
	cJSON_AddNumberToObject(j, "threads", 1);
	if (why)
		cJSON_AddStringToObject(j, "why", why);
	if ((text = cJSON_PrintUnformatted(j)))
		printf("%s\n", text);
	fflush(stdout);
	cJSON_Delete(j);
}

/* An rpc duet (harness ab on a ws-rpc scenario): --duet URL_B, --duet-order, --duet-window; each window a line
 * as an http duet's, then the totals and the checks' verdict. */
static int verb_load_rpc_duet(const struct load_opts *o, const char *url, struct hx_err *err)
{
	_cleanup_free_ unsigned char *order = NULL;
	struct rpc_config c = {
		.clients = o->clients ? o->clients : 16,
		.window = o->window ? o->window : 32,
		.timeout_ms = o->timeout_ms ? o->timeout_ms : 10000,
	};
	struct rpc_result r;

	if (o->counter || o->sweep || o->requests || o->duet_gate)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: an rpc duet is echo requests by windows: drop --counter, --sweep, -n and "
			       "--duet-gate");
	if (ws_duet_begin(o, &c.duet, &order, err) < 0)
		return -err->errnum;
	if (rpc_run(url, &c, &r, err) < 0)
		return -err->errnum;
	ws_duet_end_line(r.answered, rpc_failures(&r), r.ok ? NULL : r.why);
	if (!r.ok)
		fprintf(stderr, "harness: load: rpc invariant broken: %s\n", r.why);
	return r.ok ? HX_EXIT_OK : HX_EXIT_VERDICT;
}

/* A chat duet (harness ab on a ws-chat scenario): --duet URL_B, --duet-order, --duet-window; each window a line
 * as an http duet's (its requests the deliveries, its latency the round trips), then the totals. */
static int verb_load_chat_duet(const struct load_opts *o, const char *url, struct hx_err *err)
{
	_cleanup_free_ unsigned char *order = NULL;
	_cleanup_free_ struct chat_result *r = calloc(1, sizeof(*r));
	struct chat_duet_config c = {
		.clients = o->clients ? o->clients : 16,
		.timeout_ms = o->timeout_ms ? o->timeout_ms : 10000,
	};

	if (!r)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (o->messages || o->duet_gate)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "load: a chat duet runs by windows: drop --messages and --duet-gate");
	if (ws_duet_begin(o, &c.duet, &order, err) < 0)
		return -err->errnum;
	if (chat_duet(url, &c, r, err) < 0)
		return -err->errnum;
	ws_duet_end_line(r->delivered, r->lost + r->duplicated + r->errors, r->ok ? NULL : r->why);
	if (!r->ok)
		fprintf(stderr, "harness: load: chat invariant broken: %s\n", r->why);
	return r->ok ? HX_EXIT_OK : HX_EXIT_VERDICT;
}

/* Run every cell, print, exit 1 when a check failed in any (a duet: verb_load_rpc_duet). */
static int verb_load_rpc(const struct load_opts *o, const char *url, struct hx_err *err)
{
	_cleanup_free_ struct rpc_cell *cells = calloc(16, sizeof(*cells));
	size_t n = 0;
	bool ok = true;

	if (o->duet_b)
		return verb_load_rpc_duet(o, url, err);
	if (o->duet_gate || o->duet_order)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: an rpc duet takes --duet URL_B with --duet-order");
	if (!cells)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (rpc_cells(o, cells, 16, &n, err) < 0)
		return -err->errnum;
	for (size_t i = 0; i < n; i++) {
		if (rpc_run(url, &cells[i].cfg, &cells[i].r, err) < 0)
			return -err->errnum;
		ok = ok && cells[i].r.ok;
	}
	if (o->json) {
		cJSON *j = n == 1 ? rpc_json(&cells[0]) : cJSON_CreateArray();
		_cleanup_free_ char *s = NULL;

		for (size_t i = 0; n > 1 && i < n; i++)
			cJSON_AddItemToArray(j, rpc_json(&cells[i]));
		s = cJSON_Print(j);
		printf("%s\n", s);
		cJSON_Delete(j);
	} else {
		rpc_print(url, cells, n);
	}
	for (size_t i = 0; i < n && !o->json; i++) /* in JSON, "rpc.why" says it */
		if (!cells[i].r.ok)
			fprintf(stderr, "harness: load: rpc invariant broken at %ux%u: %s\n", cells[i].cfg.clients,
				cells[i].cfg.window, cells[i].r.why);
	return ok ? HX_EXIT_OK : HX_EXIT_VERDICT;
}

/* A docstore row's figures: the published line's. */
static void ds_figures(const struct ds_row *w, double *ops_s, double us[5])
{
	*ops_s = w->duration_s > 0 ? (double)w->ops / w->duration_s : 0;
	us[0] = hist_mean(&w->latency) / 1e3;
	us[1] = (double)hist_quantile(&w->latency, 0.5) / 1e3;
	us[2] = (double)hist_quantile(&w->latency, 0.95) / 1e3;
	us[3] = (double)hist_quantile(&w->latency, 0.99) / 1e3;
	us[4] = (double)w->latency.max / 1e3;
}

static cJSON *ds_row_json(const struct ds_row *w)
{
	static const char *const names[5] = {"avg", "p50", "p95", "p99", "max"};
	cJSON *o = cJSON_CreateObject(), *l;
	double ops_s, us[5];

	ds_figures(w, &ops_s, us);
	cJSON_AddStringToObject(o, "scenario", w->name);
	cJSON_AddNumberToObject(o, "ops", (double)w->ops);
	cJSON_AddNumberToObject(o, "errors", (double)w->errors);
	cJSON_AddNumberToObject(o, "ops_per_s", ops_s);
	cJSON_AddNumberToObject(o, "duration_s", w->duration_s);
	l = cJSON_AddObjectToObject(o, "latency_us");
	for (int i = 0; i < 5; i++)
		cJSON_AddNumberToObject(l, names[i], us[i]);
	cJSON_AddBoolToObject(o, "capped", w->capped);
	if (w->contended) {
		cJSON_AddNumberToObject(o, "before", (double)w->before);
		cJSON_AddNumberToObject(o, "after", (double)w->after);
	}
	if (w->why[0])
		cJSON_AddStringToObject(o, "why", w->why);
	return o;
}

/* The document: the suite's ops and latency as an http load's (so a run reads it as ws-rpc's), its verdict
 * under "rpc", a row per scenario under "docstore". */
static cJSON *ds_json(const struct ds_config *c, const struct ds_result *r)
{
	_cleanup_free_ struct res_load *l = calloc(1, sizeof(*l));
	_cleanup_free_ struct hist *all = calloc(1, sizeof(*all));
	cJSON *j, *o, *rows;

	if (!l || !all)
		return NULL;
	hist_init(all);
	for (unsigned i = 0; i < r->n; i++) {
		l->requests += r->rows[i].ops;
		l->errors_total += r->rows[i].errors;
		l->duration_s += r->rows[i].duration_s;
		hist_merge(all, &r->rows[i].latency);
	}
	l->rps = l->duration_s > 0 ? (double)l->requests / l->duration_s : 0;
	res_latency_from(all, &l->latency_us);
	l->config.connections = c->clients;
	l->config.threads = 1;
	l->config.pipeline = c->window;
	l->config.requests = c->ops;
	l->config.timeout_ms = c->timeout_ms;
	j = res_load_json(l);
	cJSON_AddStringToObject(j, "workload", "docstore");
	o = cJSON_AddObjectToObject(j, "rpc");
	cJSON_AddBoolToObject(o, "invariant_ok", r->ok);
	if (!r->ok)
		cJSON_AddStringToObject(o, "why", r->why);
	o = cJSON_AddObjectToObject(j, "docstore");
	cJSON_AddNumberToObject(o, "budget_s", c->budget_s);
	cJSON_AddNumberToObject(o, "payload_kib", c->payload_kib);
	rows = cJSON_AddArrayToObject(o, "rows");
	for (unsigned i = 0; i < r->n; i++)
		cJSON_AddItemToArray(rows, ds_row_json(&r->rows[i]));
	return j;
}

static void ds_print(const char *url, const struct ds_config *c, const struct ds_result *r)
{
	printf("Document store @ %s: up to %llu ops per scenario, %.2fs budget, %ux%u pool\n", url,
	       (unsigned long long)c->ops, c->budget_s, c->clients, c->window);
	char line[256];

	ds_table_header(line, sizeof(line));
	printf("%s\n", line);
	for (unsigned i = 0; i < r->n; i++) {
		double ops_s, us[5];

		ds_figures(&r->rows[i], &ops_s, us);
		ds_table_row(line, sizeof(line), r->rows[i].name, (double)r->rows[i].ops, (double)r->rows[i].errors,
			     ops_s, us);
		printf("%s\n", line);
	}
	for (unsigned i = 0; i < r->n; i++)
		if (r->rows[i].why[0])
			printf("  %s: %s\n", r->rows[i].name, r->rows[i].why);
	if (r->ok)
		printf("  invariant: every answer as written; the counter and the nested field moved by the increments "
		       "acknowledged\n");
}

/* Run the suite, print, exit 1 when a check failed in any scenario. */
static int verb_load_docstore(const struct load_opts *o, const char *url, struct hx_err *err)
{
	_cleanup_free_ struct ds_result *r = calloc(1, sizeof(*r));
	struct ds_config c = {
		.ops = o->requests ? o->requests : 10000,
		.budget_s = o->budget > 0 ? o->budget : 10,
		.payload_kib = o->payload_kib ? o->payload_kib : 1,
		.clients = o->clients ? o->clients : 16,
		.window = o->window ? o->window : 32,
		.timeout_ms = o->timeout_ms ? o->timeout_ms : 10000,
		.memory_docs = o->memory_docs,
		.memory_seed = o->memory_seed ? o->memory_seed : 1,
	};

	if (!r)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (ds_parse_list(o->docstore, &c.mask, err) < 0 || ds_run(url, &c, r, err) < 0)
		return -err->errnum;
	if (o->json) {
		cJSON *j = ds_json(&c, r);
		_cleanup_free_ char *s = j ? cJSON_Print(j) : NULL;

		cJSON_Delete(j);
		if (!s)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		printf("%s\n", s);
	} else {
		ds_print(url, &c, r);
		if (!r->ok)
			fprintf(stderr, "harness: load: docstore invariant broken: %s\n", r->why);
	}
	return r->ok ? HX_EXIT_OK : HX_EXIT_VERDICT;
}

int verb_load(int argc, char **argv)
{
	struct load_opts o = {.warmup = UINT32_MAX, .expect_length = UINT64_MAX};
	struct hx_err err = {0};
	int npos, rc;

	if (opt_parse("load", load_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout,
			"harness load URL [-c CONNS] [-t THREADS] [-n REQUESTS | -d DURATION] [-R RATE] [OPTIONS]\n"
			"       harness load --chat ws://HOST:PORT/PATH [--clients N] [--messages M]\n"
			"       harness load --rpc ws://HOST:PORT/PATH [--clients N] [--window W] [-n REQUESTS] "
			"[--counter] [--sweep CxW,...]\n"
			"       harness load --docstore all|NAME,... ws://HOST:PORT/PATH [--clients N] [--window W] "
			"[-n OPS] [--budget S] [--payload-kib K] [--memory-docs N] [--memory-seed S] [--timeout MS]\n"
			"       harness load --startup [-r RUNS] [-w WARMUP] -- CMD [ARG...]\n"
			"       harness load URL|--rpc URL|--chat URL --duet URL_B --duet-order AB... [--duet-window "
			"S] "
			"(harness ab's client)",
			"A load generator: HTTP/1.1 keep-alive load over TCP or TLS, closed loop (fixed connections)\n"
			"or open loop at a constant rate with coordinated omission corrected; a WebSocket chat room\n"
			"workload; WebSocket requests with a window in flight per client; startup timing of a\n"
			"command. Exits 1 when any request failed or an invariant broke.",
			load_tab);
		return HX_EXIT_OK;
	}
	if (o.startup) {
		struct startup_opts so = {
			.runs = o.runs ? o.runs : 30,
			.warmup = o.warmup == UINT32_MAX ? 5 : o.warmup,
			.sandbox = !o.no_sandbox,
			.json = o.json,
			.show_output = o.show_output,
			.export_hyperfine = o.export_hyperfine,
			.binds = o.binds.items,
			.nbinds = o.binds.n,
		};

		rc = verb_load_startup(&so, npos, argv + 1, &err);
	} else if (npos != 1)
		return hx_fail(&err, HX_EXIT_USAGE, EINVAL, "load: give one URL (see 'harness load --help')"),
		       hx_report(&err);
	else if (o.docstore)
		rc = verb_load_docstore(&o, argv[1], &err);
	else if (o.rpc)
		rc = verb_load_rpc(&o, argv[1], &err);
	else if (o.chat && (o.duet_b || o.duet_order || o.duet_gate))
		rc = o.duet_b ? verb_load_chat_duet(&o, argv[1], &err)
			      : hx_fail(&err, HX_EXIT_USAGE, EINVAL,
					"load: a chat duet takes --duet URL_B with --duet-order");
	else if (o.chat)
		rc = chat_verb(argv[1], o.clients ? o.clients : 16, o.messages ? o.messages : 80, o.timeout_ms, o.json,
			       &err);
	else
		rc = load_http(&o, argv[1], &err);
	return rc < 0 ? hx_report(&err) : rc;
}
