/* The checked request (libcurl): the decoded body is hashed as it arrives, the headers that matter kept. */
#include "load/check.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/dl_curl.h"
#include "base/dl_ossl.h"
#include "base/util.h"

struct check_seen {
	EVP_MD_CTX *md;
	uint64_t body; /* decoded bytes */
	char encoding[64], range[160];
};

int check_sha256_hex(const char *in, char out[65])
{
	size_t i = 0;

	for (; in[i] && i < 64; i++) {
		if (!isxdigit((unsigned char)in[i]))
			return -1;
		out[i] = (char)tolower((unsigned char)in[i]);
	}
	out[i] = '\0';
	return i == 64 && !in[i] ? 0 : -1;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct check_seen *s = arg;

	s->body += size * n;
	return EVP_DigestUpdate(s->md, data, size * n) == 1 ? size * n : 0;
}

/* "Name: value\r\n" into buf when the header is name, trimmed. */
static void keep_header(const char *line, size_t n, const char *name, char *buf, size_t len)
{
	size_t nl = strlen(name);

	if (n <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
		return;
	line += nl + 1, n -= nl + 1;
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	while (n && (line[n - 1] == '\r' || line[n - 1] == '\n' || line[n - 1] == ' '))
		n--;
	snprintf(buf, len, "%.*s", (int)n, line);
}

static size_t on_header(char *line, size_t size, size_t n, void *arg)
{
	struct check_seen *s = arg;

	keep_header(line, size * n, "content-encoding", s->encoding, sizeof(s->encoding));
	keep_header(line, size * n, "content-range", s->range, sizeof(s->range));
	return size * n;
}

/* The value of the request's Accept-Encoding, "" when it has none: libcurl is told to decode it. */
static const char *accept_encoding(const char *const *headers, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncasecmp(headers[i], "accept-encoding:", 16) == 0)
			return headers[i] + 16 + strspn(headers[i] + 16, " \t");
	return "";
}

static bool has_range(const char *const *headers, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncasecmp(headers[i], "range:", 6) == 0)
			return true;
	return false;
}

/* What came back against what was expected, in the order a reader would look. */
static int judge(const struct check_expect *x, const struct check_seen *s, long status, const char *digest,
		 bool range_request, struct hx_err *err)
{
	if (x->status && status != (long)x->status)
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "status: %ld, expected %u", status, x->status);
	if (strcasecmp(s->encoding, x->encoding) != 0)
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "content-encoding: '%s', expected '%s'", s->encoding,
			       x->encoding);
	if (x->range[0] && strcmp(s->range, x->range) != 0)
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "content-range: '%s', expected '%s'", s->range, x->range);
	if (x->has_length && !s->encoding[0] && s->body != x->length)
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "body length: %llu bytes, expected %llu",
			       (unsigned long long)s->body, (unsigned long long)x->length);
	if (!x->sha256[0] || strcmp(digest, x->sha256) == 0)
		return 0;
	if (s->encoding[0])
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG,
			       "compressed body: it decodes to content with sha256 %s, expected %s", digest, x->sha256);
	return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "%s: sha256 %s, expected %s",
		       range_request ? "range bytes" : "body digest", digest, x->sha256);
}

static void hex(const unsigned char *md, unsigned n, char out[65])
{
	for (unsigned i = 0; i < n && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int check_once(const char *url, const char *const *headers, size_t nheaders, bool insecure, unsigned timeout_ms,
	       const struct check_expect *x, struct hx_err *err)
{
	struct check_seen s = {0};
	CURL *c;
	struct curl_slist *list = NULL;
	const char *ae = accept_encoding(headers, nheaders);
	char cerr[CURL_ERROR_SIZE] = "", digest[65] = "";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	long status = 0;
	CURLcode rc;
	int r;

	/* the only part of a plain load that needs libcurl and libcrypto: opened here (base/dl.h) */
	if (dl_open(&dl_curl, err) < 0 || dl_open(&dl_crypto, err) < 0)
		return hx_wrap(err, "check");
	s.md = EVP_MD_CTX_new();
	c = curl_easy_init();
	if (!c || !s.md || EVP_DigestInit_ex(s.md, EVP_sha256(), NULL) != 1) {
		r = hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "check: cannot set up libcurl or SHA-256");
		goto out;
	}
	for (size_t i = 0; i < nheaders; i++)
		list = curl_slist_append(list, headers[i]);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
	if (ae[0]) /* decode what was asked for; the request's own header is what is sent */
		curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ae);
	if (insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (rc == CURLE_BAD_CONTENT_ENCODING) {
		r = hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "compressed body: it does not decode as '%s' (%s)",
			    s.encoding, cerr[0] ? cerr : curl_easy_strerror(rc));
		goto out;
	}
	if (rc != CURLE_OK) {
		r = hx_fail(err, HX_EXIT_VERDICT, EIO, "request: %s", cerr[0] ? cerr : curl_easy_strerror(rc));
		goto out;
	}
	EVP_DigestFinal_ex(s.md, md, &mdlen);
	hex(md, mdlen, digest);
	r = judge(x, &s, status, digest, has_range(headers, nheaders), err);
out:
	curl_slist_free_all(list);
	if (c)
		curl_easy_cleanup(c);
	EVP_MD_CTX_free(s.md);
	return r;
}
