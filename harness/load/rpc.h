/* The WebSocket request/response workload: each client keeps a window of requests in flight on one socket;
 * the verdict is that every request's id comes back exactly once, and in counter mode that the counter
 * the requests increment moved by exactly the increments acknowledged (docs/load.md, "WebSocket RPC"). */
#ifndef HX_RPC_H
#define HX_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "load/hist.h"
#include "load/load.h"

struct rpc_config {
	unsigned clients, window;
	uint64_t requests;   /* in all, shared out among the clients; a duet's: none (its windows end it) */
	unsigned timeout_ms; /* no answer for this long ends the run */
	bool counter;	     /* "incr" requests and a "get" before and after; else "echo" */
	/* a duet (harness ab; duet.url_b set): `clients` clients to the URL (side A) and as many to url_b (side B),
	 * all joined before the first window and kept; then each window on its side: that side's clients keep
	 * `window` requests in flight until the window ends, then its in-flight ones drain (answers after the end
	 * are not counted), and the window's figures go to on_window */
	struct load_duet duet;
};

struct rpc_result {
	uint64_t sent, answered, missing, duplicated, unknown, errors;
	double duration_s;
	struct hist latency;
	int64_t counter_before, counter_after; /* counter mode; -1 when not read */
	uint64_t counter_off; /* the increments acknowledged but not counted, or counted but not acknowledged */
	bool ok;
	char why[256]; /* the first check that failed */
};

/* The count of a result's failed checks: the table's err column (a duet's windows count the same). */
uint64_t rpc_failures(const struct rpc_result *r);
int rpc_run(const char *url, const struct rpc_config *c, struct rpc_result *ret, struct hx_err *err);

#endif
