/* The WebSocket chat workload: clients join a room, each sends messages that the server broadcasts to
 * every client; deliveries per second, round trip on the sending connection, and the invariant that
 * every client got every message exactly once. */
#ifndef HX_CHAT_H
#define HX_CHAT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "load/hist.h"
#include "load/load.h"

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

/* A duet (harness ab on a ws-chat scenario): `clients` clients join the room at the URL (side A) and as many the
 * room at url_b (side B), all before the first window, and are kept. Then nwindows windows of window_s, each on
 * the side order[k] (0: A, 1: B): each of that side's clients keeps one message in flight (it sends the next
 * when its own comes back from the broadcast) until the window ends; then nothing more is sent, and once every
 * message the side sent has reached every client of its room the window's figures go to on_window (false:
 * stop): `requests` the deliveries within the window, `latency` the round trips of the messages that came back
 * to their senders within it. Every client must get each sender's messages in the order sent, once each: a
 * message early (one before it lost or overtaken) or again fails the duet, its words in `why` of that window's
 * line and every one after; a client lost ends it. ret's messages are the messages sent in all, expected the
 * deliveries they owed. */
struct chat_duet_config {
	unsigned clients, timeout_ms; /* per side; no message for timeout_ms ends the duet */
	struct load_duet duet;
};
int chat_duet(const char *url, const struct chat_duet_config *cfg, struct chat_result *ret, struct hx_err *err);

#endif
