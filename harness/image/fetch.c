/* libcurl downloads for the image cache. */
#include "image/fetch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/dl_curl.h"
#include "base/dl_ossl.h"

#define FETCH_ATTEMPTS 4

struct sink {
	FILE *f;
	EVP_MD_CTX *md;
	uint64_t have, max; /* bytes in the file so far; the most it may hold */
	bool over;
	bool tty;
	int last_pct;
};

static size_t on_data(char *p, size_t size, size_t n, void *user)
{
	struct sink *s = user;
	size_t len = size * n;

	if (s->have + len > s->max) {
		s->over = true;
		return 0; /* libcurl stops the transfer */
	}
	if (fwrite(p, 1, len, s->f) != len)
		return 0;
	s->have += len;
	EVP_DigestUpdate(s->md, p, len);
	return len;
}

static int on_progress(void *user, curl_off_t total, curl_off_t now, curl_off_t ut, curl_off_t un)
{
	struct sink *s = user;
	int pct;

	(void)ut;
	(void)un;
	if (!s->tty || total <= 0)
		return 0;
	pct = (int)(now * 100 / total);
	if (pct != s->last_pct) {
		fprintf(stderr, "\r  %3d%% of %.1f MiB", pct, (double)total / (1 << 20));
		s->last_pct = pct;
	}
	return 0;
}

/* One connection cache, name cache and TLS session cache for every download of the process: the many small
 * tarballs of a lock file reuse one connection to the registry instead of a handshake each. */
static CURLSH *share;

/* libcurl and libcrypto are opened here, by the verbs that download, not by every start (base/dl.h) */
static int curl_init_once(struct hx_err *err)
{
	static bool done;

	if (dl_open(&dl_curl, err) < 0 || dl_open(&dl_crypto, err) < 0)
		return hx_wrap(err, "download");
	if (!done) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		if ((share = curl_share_init())) {
			curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
			curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
			curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
		}
		done = true;
	}
	return 0;
}

static CURL *easy(const char *url)
{
	CURL *c = curl_easy_init();

	if (!c)
		return NULL;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L); /* abort below 1 KB/s for 30 s */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 30L);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "harness");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (share)
		curl_easy_setopt(c, CURLOPT_SHARE, share);
	return c;
}

/* Worth another attempt: the network, not the request, failed. */
static bool transient(CURLcode rc, long status)
{
	if (rc == CURLE_HTTP_RETURNED_ERROR)
		return status >= 500 || status == 429;
	return rc == CURLE_COULDNT_CONNECT || rc == CURLE_PARTIAL_FILE || rc == CURLE_RECV_ERROR ||
	       rc == CURLE_SEND_ERROR || rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_GOT_NOTHING;
}

/* Hash what an earlier attempt left in the file, so the download can go on from there. */
static curl_off_t resume_point(FILE *f, EVP_MD_CTX *md)
{
	char buf[65536];
	size_t n;
	curl_off_t total = 0;

	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		EVP_DigestUpdate(md, buf, n);
		total += (curl_off_t)n;
	}
	fseek(f, 0, SEEK_END);
	return total;
}

static CURLcode attempt(const char *url, struct sink *s, bool resume, long *status)
{
	CURL *c = easy(url);
	curl_off_t from = 0;
	CURLcode rc;

	if (!c)
		return CURLE_OUT_OF_MEMORY;
	if (resume)
		from = resume_point(s->f, s->md);
	s->have = (uint64_t)from;
	if (s->have >= s->max) {
		s->over = true;
		curl_easy_cleanup(c);
		return CURLE_FILESIZE_EXCEEDED;
	}
	/* a server that announces more than max is refused before a byte is written */
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)(s->max - s->have));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, s);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	if (from > 0)
		curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, from);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(c);
	fflush(s->f);
	return rc;
}

/* Start over: an empty file and a fresh digest. */
static void restart(struct sink *s, const char *algo)
{
	fflush(s->f);
	if (ftruncate(fileno(s->f), 0) == 0)
		rewind(s->f);
	EVP_DigestInit_ex(s->md, EVP_get_digestbyname(algo), NULL);
}

int fetch_file(const char *url, const char *path, const char *algo, uint64_t max, char *hex, size_t hex_len,
	       struct hx_err *err)
{
	struct sink s = {.tty = isatty(2), .last_pct = -1, .max = max};
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;
	CURLcode rc = CURLE_OK;
	long status = 0;

	if (curl_init_once(err) < 0)
		return -1;
	s.f = fopen(path, "a+b");
	s.md = EVP_MD_CTX_new();
	if (!s.f || !s.md || EVP_DigestInit_ex(s.md, EVP_get_digestbyname(algo), NULL) != 1) {
		if (s.f)
			fclose(s.f);
		EVP_MD_CTX_free(s.md);
		return hx_syserr(err, "download: cannot write %s", path);
	}
	for (int i = 0; i < FETCH_ATTEMPTS; i++) {
		if (i > 0)
			usleep((useconds_t)(250000u << i)); /* 0.5, 1, 2 s */
		EVP_DigestInit_ex(s.md, EVP_get_digestbyname(algo), NULL);
		rc = attempt(url, &s, true, &status);
		if (rc == CURLE_RANGE_ERROR || status == 416) { /* no ranges, or the rest is not what we have */
			restart(&s, algo);
			rc = attempt(url, &s, false, &status);
		}
		if (rc == CURLE_OK || s.over || rc == CURLE_FILESIZE_EXCEEDED || !transient(rc, status))
			break;
	}
	if (s.tty)
		fprintf(stderr, "\r\033[K");
	if (rc == CURLE_OK)
		EVP_DigestFinal_ex(s.md, digest, &dlen);
	EVP_MD_CTX_free(s.md);
	fclose(s.f);
	if (s.over || rc == CURLE_FILESIZE_EXCEEDED) {
		unlink(path); /* nothing of it is kept to resume */
		return hx_fail(
			err, HX_EXIT_USAGE, EFBIG,
			"download %s: more than %.1f MiB (the manifest's source.size, or the default cap): refused",
			url, (double)max / (1 << 20));
	}
	if (rc != CURLE_OK) {
		if (rc == CURLE_HTTP_RETURNED_ERROR) /* ENOENT: not there, a caller may look elsewhere */
			return hx_fail(err, HX_EXIT_HOST, status == 404 || status == 410 ? ENOENT : EIO,
				       "download %s: HTTP %ld", url, status);
		return hx_fail(err, HX_EXIT_HOST, EIO, "download %s: %s", url, curl_easy_strerror(rc));
	}
	for (unsigned i = 0; i < dlen && 2 * i + 2 < hex_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	return 0;
}

struct text_sink {
	char *buf;
	size_t len;
};

static size_t on_text(char *p, size_t size, size_t n, void *user)
{
	struct text_sink *t = user;
	size_t len = size * n;
	char *nb;

	if (t->len + len > (64u << 20))
		return 0; /* no document we read is that large */
	nb = realloc(t->buf, t->len + len + 1);
	if (!nb)
		return 0;
	memcpy(nb + t->len, p, len);
	t->buf = nb;
	t->len += len;
	t->buf[t->len] = '\0';
	return len;
}

int fetch_text(const char *url, const char *accept, char **ret, struct hx_err *err)
{
	struct text_sink t = {0};
	struct curl_slist *h = NULL;
	CURL *c;
	CURLcode rc = CURLE_OK;
	long status = 0;
	char hdr[256];

	if (curl_init_once(err) < 0)
		return -1;
	for (int i = 0; i < FETCH_ATTEMPTS; i++) {
		if (i > 0)
			usleep((useconds_t)(250000u << i));
		c = easy(url);
		if (!c)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		snprintf(hdr, sizeof(hdr), "Accept: %s", accept);
		h = curl_slist_append(NULL, hdr);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_text);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
		t.len = 0;
		rc = curl_easy_perform(c);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		curl_easy_cleanup(c);
		curl_slist_free_all(h);
		if (rc == CURLE_OK || !transient(rc, status))
			break;
	}
	if (rc != CURLE_OK || !t.buf) {
		free(t.buf);
		if (rc == CURLE_HTTP_RETURNED_ERROR) /* ENOENT: not there (an unpublished package) */
			return hx_fail(err, HX_EXIT_HOST, status == 404 || status == 410 ? ENOENT : EIO,
				       "GET %s: HTTP %ld%s", url, status,
				       status == 401 || status == 403 ? " (the registry wants credentials: npm login)"
								      : "");
		return hx_fail(err, HX_EXIT_HOST, EIO, "GET %s: %s", url, rc ? curl_easy_strerror(rc) : "empty answer");
	}
	*ret = t.buf;
	return 0;
}

int fetch_packument(const char *registry, const char *package, char **ret, struct hx_err *err)
{
	char url[2048], name[300];
	const char *slash = strchr(package, '/');
	size_t n = strlen(registry);

	if (package[0] == '@' && slash)
		snprintf(name, sizeof(name), "%.*s%%2f%s", (int)(slash - package), package, slash + 1);
	else
		snprintf(name, sizeof(name), "%s", package);
	snprintf(url, sizeof(url), "%s%s%s", registry, n && registry[n - 1] == '/' ? "" : "/", name);
	return fetch_text(url, "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8", ret, err);
}
