/* The wire at readiness: one response of each runtime's server captured before the load (status, framing,
 * header names, body digest) and compared across the runtimes of a scenario in the run, so that a row never
 * compares different answers (docs/scenario.md, "The wire"). */
#ifndef HX_WIRE_H
#define HX_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "results/results.h"
#include "run/scenario.h"

#define WIRE_MAX_REFS	  16
#define WIRE_MAX_RESPONSE (4u << 20)

/* The first capture of each scenario in the run: what the others are compared with. */
struct wire_ref {
	char scenario[64], runtime[64];
	struct res_wire w;
};
struct wire_refs {
	struct wire_ref r[WIRE_MAX_REFS];
	size_t n;
};

/* Parse one HTTP/1.1 response in buf[0..len) into ret (path left as it is): 1 when it is complete, 0 when
 * more bytes are needed (eof: no more will come, which completes a body framed by the connection's close),
 * negative with err when it is malformed. */
int wire_parse(const char *buf, size_t len, bool eof, struct res_wire *ret, struct hx_err *err);

/* Compare cur (runtime) with the scenario's first capture ref (ref_runtime): a status, header name, content
 * type or body that differs fails with both runtimes and what differs named (HX_EXIT_VERDICT), unless the
 * scenario declares that difference inherent: then cur->differs says what and why. */
int wire_compare(const struct scenario *s, const char *ref_runtime, const struct res_wire *ref, const char *runtime,
		 struct res_wire *cur, struct hx_err *err);

/* Whether the scenario's trials are captured: plain http (a TLS server's answer is read by no probe of ours,
 * and a WebSocket server's first answer is its upgrade). */
bool wire_wanted(const struct scenario *s);

/* Capture the scenario's request (its load path, or its first route with that route's headers) from inside
 * netns_fd into ret, and compare it with the run's first capture of the scenario in refs (which it becomes
 * when there is none). */
int wire_check(struct wire_refs *refs, int netns_fd, const struct scenario *s, const char *runtime,
	       struct res_wire *ret, struct hx_err *err);

#endif
