/* Downloads with libcurl: redirects, timeouts, retries with backoff, resume of a partial file, a
 * progress bar on a TTY, and the digest computed while the bytes arrive. */
#ifndef HX_FETCH_H
#define HX_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Download url into path (appending to what a previous attempt left there, when the server allows
 * ranges), hashing everything with algo ("sha256" or "sha512"); hex gets the digest. More than max bytes
 * (what the server announces, or what arrives) is refused, exit 2, and path removed; an HTTP 404 or 410 is
 * ENOENT, any other failure EIO (exit 3). */
int fetch_file(const char *url, const char *path, const char *algo, uint64_t max, char *hex, size_t hex_len,
	       struct hx_err *err);
/* GET a small document (an npm packument) into a heap string. */
int fetch_text(const char *url, const char *accept, char **ret, struct hx_err *err);
/* An npm package's document (its packument) from registry, in npm's abbreviated form when the registry has it;
 * a scoped name's slash is sent as %2f, as npm sends it. ENOENT (exit 3) when the registry has no such package. */
int fetch_packument(const char *registry, const char *package, char **ret, struct hx_err *err);

#endif
