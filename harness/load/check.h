/* One request whose whole response is checked before a load: status, framing headers, and the body's
 * SHA-256 after its Content-Encoding is undone (libcurl decodes gzip and brotli), so a Range slice or a
 * compressed asset is compared with what it must be, not only counted. */
#ifndef HX_CHECK_H
#define HX_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct check_expect {
	unsigned status; /* 0: any */
	bool has_length;
	uint64_t length;   /* body bytes on the wire (checked here when the body is not encoded) */
	char sha256[65];   /* lower-case hex of the decoded body; "": any */
	char encoding[32]; /* the Content-Encoding it must have; "": none (identity) */
	char range[128];   /* the Content-Range it must have; "": not checked */
};

/* "abc..." (64 hex digits), lower-cased into out; -1 when it is not one. */
int check_sha256_hex(const char *in, char out[65]);
/* GET url with the headers ("Name: value"); a broken expectation fails with HX_EXIT_VERDICT and a message
 * that starts with the check's name ("status", "body length", "content-encoding", "content-range",
 * "compressed body", "range bytes", "body digest"). */
int check_once(const char *url, const char *const *headers, size_t nheaders, bool insecure, unsigned timeout_ms,
	       const struct check_expect *x, struct hx_err *err);

#endif
