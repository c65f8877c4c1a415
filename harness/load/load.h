/* The HTTP/1.1 load generator: closed loop (fixed connections, like wrk) and open loop at a constant
 * rate (like wrk2, latency from the intended send time), over plain TCP or TLS. */
#ifndef HX_LOAD_H
#define HX_LOAD_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "base/err.h"
#include "load/hist.h"
#include "load/timeline.h"

struct load_window;

/* LE_BODY: a complete response whose body is not the one expected (--expect-length, --expect-sha256). */
enum load_err { LE_CONNECT, LE_READ, LE_WRITE, LE_TIMEOUT, LE_STATUS_4XX, LE_STATUS_5XX, LE_PARSE, LE_BODY, LE_NR };
extern const char *const load_err_names[LE_NR];

/* How the client waits for its sockets: auto is io_uring where the kernel and the seccomp policy allow it
 * and the URL is plain HTTP (TLS stays on epoll: OpenSSL reads and writes its socket itself), else epoll. */
enum load_engine { LOAD_ENGINE_AUTO, LOAD_ENGINE_EPOLL, LOAD_ENGINE_URING, LOAD_ENGINE_NR };
extern const char *const load_engine_names[LOAD_ENGINE_NR];
/* "auto", "epoll", "io_uring": the engine, or -1. */
int load_engine_parse(const char *name);
struct load_config;
/* The engine a run of c takes; an engine forced where it cannot run is exit 2 (TLS on io_uring) or 3 (a
 * kernel or seccomp filter that refuses io_uring). */
int load_engine_pick(const struct load_config *c, enum load_engine *ret, struct hx_err *err);

/* What the engine got from the kernel, for the results (docs/load.md, engine_setup): the fallback names what
 * the run took instead of the best (an io_uring ring of a lesser task-work mode, or epoll for auto where the
 * kernel refuses io_uring); why says what refused it. */
enum load_fallback {
	LOAD_FALLBACK_NONE,
	LOAD_FALLBACK_COOP,
	LOAD_FALLBACK_DEFAULT,
	LOAD_FALLBACK_EPOLL,
	LOAD_FALLBACK_NR
};
extern const char *const load_fallback_names[LOAD_FALLBACK_NR];
struct load_setup {
	char ring_flags[64]; /* io_uring: the IORING_SETUP_ flags its rings were made with ("single_issuer,...") */
	bool buffer_ring;    /* io_uring: the receive buffers are a registered provided-buffer ring */
	bool multishot;	     /* io_uring: a receive completion came with its multishot still armed (F_MORE) */
	enum load_fallback fallback;
	char why[160];
};

struct load_url {
	bool tls, ws;
	char host[256];
	char port[8];
	char path[2048];
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

/* "http://host:port/path", https, ws, wss; the host is resolved once here. */
int load_parse_url(const char *url, struct load_url *ret, struct hx_err *err);
/* One TCP connection to the URL's address before the load starts, so that a server that is not there is
 * named as such (exit 2: "connection refused") rather than measured as a storm of failed connects. */
int load_probe(const struct load_url *u, unsigned timeout_ms, struct hx_err *err);

struct load_config {
	struct load_url url;
	unsigned conns, threads, pipeline;
	uint64_t requests; /* 0: run for duration */
	double duration_s;
	double rate; /* requests per second in total; 0: closed loop */
	unsigned timeout_ms;
	bool insecure;
	char *request; /* the bytes of one request */
	size_t request_len;
	bool head; /* the method is HEAD */
	/* every response's body must be this long / have this SHA-256 (a server that renders wrong fails) */
	bool check_length, check_sha256;
	uint64_t expect_length;
	unsigned char expect_sha256[32];
	enum load_engine engine;
	/* a duet (harness ab): connections to both url (side 0) and url_b (side 1), all opened before the first
	 * window and kept; the load on one side at a time, window i on side order[i] for window_s, each finished
	 * window handed to on_window (false from it ends the load) */
	bool duet;
	struct load_url url_b;
	double window_s;
	const unsigned char *order; /* a side (0 or 1) per window */
	size_t nwindows;
	bool (*on_window)(const struct load_window *win, void *ctx);
	void *window_ctx;
	/* a simultaneous duet (harness ab --duet simultaneous): one_side, the connections to url only (every window
	 * on side 0, url_b unused); gate, each window waits for a byte on stdin and its end ends the load, so that
	 * harness starts both sides' clients' windows at one moment */
	bool one_side, gate;
	uint64_t interval_ns; /* the timeline's interval; 0: no timeline */
	FILE *progress;	      /* a status line here every second, from the timeline (needs interval_ns); NULL: none */
};

struct load_result {
	uint64_t requests, bytes, reconnects, errors[LE_NR], errors_total;
	double duration_s;
	struct hist latency;		 /* corrected: from the intended send time in open loop */
	struct hist latency_uncorrected; /* from the actual send time */
	double cpu_s;			 /* the client's CPU time, all threads */
	double max_thread_busy;		 /* the busiest thread's CPU time per wall second */
	unsigned threads;
	enum load_engine engine; /* the one that ran (never auto) */
	struct load_setup setup;
	struct tl timeline; /* per interval; its sums are the totals above (load_result_free) */
};

/* One window of a duet, merged over the threads: every request the side measured was sent in it, and each one's
 * answer, the in-flight ones drained after its sending time (before the other side starts) included. It lasts
 * from the first send to the last answer (the sending time and the longest thread's drain), so its rate is work
 * done over the time it took: at 1,000 connections the drain is a quarter of a 0.05 s window, wall time an
 * uncounted drain would waste and whose start (a burst of first requests) an uncounted one would weigh more. */
struct load_window {
	size_t index;
	unsigned side;
	double start_s, duration_s; /* from the load's start; the sending time and the drain */
	double start_mono_s;	    /* its start on CLOCK_MONOTONIC: windows of two clients compared */
	uint64_t requests, errors_total, reconnects, errors[LE_NR];
	uint64_t drained; /* of the requests, those answered in the drain */
	double drain_ms;  /* the longest thread's wait for its in-flight requests after the sending time */
	struct hist latency;
	const char *why; /* an rpc duet's first check that failed, from this window on; NULL when none */
};

/* A WebSocket duet's windows (harness ab on a ws-rpc or ws-chat scenario): the second side's URL, the side of each
 * window (0: A, the load's URL; 1: B, url_b), the windows' length, and where each window's figures go (false:
 * stop). */
struct load_duet {
	const char *url_b;
	const unsigned char *order;
	size_t nwindows;
	double window_s;
	bool (*on_window)(const struct load_window *w, void *ctx);
	void *window_ctx;
};

/* Build the request bytes from method, headers and body. */
int load_build_request(struct load_config *c, const char *method, const char *const *headers, size_t nheaders,
		       const char *body, size_t body_len, struct hx_err *err);
/* Open files for conns connections and LOAD_NOFILE_SPARE more (the epoll fds, the results, the TLS
 * library's): the soft RLIMIT_NOFILE goes up to what is needed, the hard one too when the process may
 * (CAP_SYS_RESOURCE, up to fs.nr_open). Exit 3 naming the limit when the host does not allow it. */
#define LOAD_NOFILE_SPARE 64
int load_nofile(unsigned conns, struct hx_err *err);
int load_run(const struct load_config *c, struct load_result *ret, struct hx_err *err);
void load_result_free(struct load_result *r);

#endif
