/* The WebSocket request/response workload: each client keeps a window of requests in flight on one socket;
 * the verdict is that every request's id comes back exactly once, and in counter mode that the counter
 * the requests increment moved by exactly the increments acknowledged (docs/load.md, "WebSocket RPC"). */
#ifndef HX_RPC_H
#define HX_RPC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "load/hist.h"

struct rpc_config {
	unsigned clients, window;
	uint64_t requests;   /* in all, shared out among the clients */
	unsigned timeout_ms; /* no answer for this long ends the run */
	bool counter;	     /* "incr" requests and a "get" before and after; else "echo" */
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

/* The count of a result's failed checks: the table's err column. */
uint64_t rpc_failures(const struct rpc_result *r);
int rpc_run(const char *url, const struct rpc_config *c, struct rpc_result *ret, struct hx_err *err);

#endif
