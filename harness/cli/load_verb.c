/* `harness load`: HTTP load (closed or open loop), the WebSocket chat workload (--chat), and startup
 * timing (--startup). Text like wrk's, or one JSON document (docs/load.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroups/cg.h"
#include "load/chat.h"
#include "base/cleanup.h"
#include "load/load.h"
#include "base/opt.h"
#include "load/startup.h"
#include "base/util.h"
#include "report/results.h"
#include "cli/verbs.h"

struct load_opts {
	bool help, json, insecure, chat, startup, no_sandbox, show_output;
	unsigned conns, threads, pipeline, timeout_ms, clients, messages, runs, warmup;
	uint64_t requests;
	double duration, rate;
	const char *method, *body_file, *export_hyperfine;
	struct opt_list headers, binds;
};

static const struct hx_opt load_tab[] = {
	{"connections", 'c', OPT_UINT, offsetof(struct load_opts, conns), "N", .help = "connections (default 10)",
	 .min = 1, .max = 65536},
	{"threads", 't', OPT_UINT, offsetof(struct load_opts, threads), "N", .help = "threads (default 1)", .min = 1,
	 .max = 1024},
	{"requests", 'n', OPT_SIZE, offsetof(struct load_opts, requests), "N", .help = "send N requests, then stop",
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
	{"insecure", 'k', OPT_FLAG, offsetof(struct load_opts, insecure), NULL,
	 .help = "TLS: do not check the server's certificate"},
	{"chat", 0, OPT_FLAG, offsetof(struct load_opts, chat), NULL, .help = "WebSocket chat workload on a ws:// URL"},
	{"clients", 0, OPT_UINT, offsetof(struct load_opts, clients), "N", .help = "chat: clients (default 16)",
	 .min = 1, .max = 4096},
	{"messages", 0, OPT_UINT, offsetof(struct load_opts, messages), "M",
	 .help = "chat: messages each client sends (default 80)", .min = 1, .max = 1000000},
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
	{"json", 0, OPT_FLAG, offsetof(struct load_opts, json), NULL, .help = "print one JSON document"},
	{"help", 'h', OPT_FLAG, offsetof(struct load_opts, help), NULL, .help = "show this help"},
	OPT_END,
};

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
	printf("  %u threads, %u connections, pipeline %u%s\n", c->threads, c->conns, c->pipeline,
	       c->url.tls ? ", TLS" : "");
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
		       ? " (saturated: the client, not the server, may be the limit)"
		       : "");
}

static int load_http(const struct load_opts *o, const char *url, struct hx_err *err)
{
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
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "load: a ws:// URL takes --chat");
	c.conns = o->conns ? o->conns : 10;
	c.threads = o->threads ? o->threads : 1;
	c.pipeline = o->pipeline ? o->pipeline : 1;
	c.timeout_ms = o->timeout_ms ? o->timeout_ms : 2000;
	c.requests = o->requests;
	c.duration_s = o->duration > 0 ? o->duration : 10;
	c.rate = o->rate;
	c.insecure = o->insecure;
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
	rc = load_probe(&c.url, c.timeout_ms, err) < 0 ? -err->errnum : load_run(&c, r, err);
	free(c.request);
	if (rc < 0)
		return rc;
	if (o->json) {
		cJSON *j = load_json(&c, r);
		_cleanup_free_ char *s = cJSON_Print(j);

		printf("%s\n", s);
		cJSON_Delete(j);
	} else {
		load_print(url, &c, r);
	}
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

int verb_load(int argc, char **argv)
{
	struct load_opts o = {.warmup = UINT32_MAX};
	struct hx_err err = {0};
	int npos, rc;

	if (opt_parse("load", load_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout,
			"harness load URL [-c CONNS] [-t THREADS] [-n REQUESTS | -d DURATION] [-R RATE] [OPTIONS]\n"
			"       harness load --chat ws://HOST:PORT/PATH [--clients N] [--messages M]\n"
			"       harness load --startup [-r RUNS] [-w WARMUP] -- CMD [ARG...]",
			"A load generator: HTTP/1.1 keep-alive load over TCP or TLS, closed loop (fixed connections)\n"
			"or open loop at a constant rate with coordinated omission corrected; a WebSocket chat room\n"
			"workload; startup timing of a command. Exits 1 when any request failed.",
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
	else if (o.chat)
		rc = chat_verb(argv[1], o.clients ? o.clients : 16, o.messages ? o.messages : 80, o.timeout_ms, o.json,
			       &err);
	else
		rc = load_http(&o, argv[1], &err);
	return rc < 0 ? hx_report(&err) : rc;
}
