/* The WebSocket chat workload: clients join a room, each sends messages that the server broadcasts to
 * every client; deliveries per second, round trip on the sending connection, and the invariant that
 * every client got every message exactly once. */
#ifndef HX_CHAT_H
#define HX_CHAT_H

#include <stdbool.h>

#include "base/err.h"
#include "load/hist.h"

struct chat_result {
	unsigned clients, messages;
	uint64_t expected, delivered, lost, duplicated, errors;
	double duration_s;
	struct hist rtt;
	bool ok;
	char why[256];
};

int chat_run(const char *url, unsigned clients, unsigned messages, unsigned timeout_ms, struct chat_result *ret,
	     struct hx_err *err);

#endif
