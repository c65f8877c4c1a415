/* A minimal PostgreSQL v3 client: startup, SCRAM-SHA-256, one simple query; used to check the fixture's
 * readiness over the protocol instead of sleeping. */
#include "run/pgwire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/dl_ossl.h"
#include "base/util.h"

#define PG_PROTOCOL_3  196608
#define PG_MAX_MESSAGE 65536

enum pg_auth { PG_AUTH_OK = 0, PG_AUTH_SASL = 10, PG_AUTH_SASL_CONTINUE = 11, PG_AUTH_SASL_FINAL = 12 };

static int scram_fail(struct hx_err *err, const char *what)
{
	return hx_fail(err, HX_EXIT_VERDICT, EPROTO, "postgres: SCRAM: %s", what);
}

static void hmac256(const unsigned char *key, size_t klen, const char *msg, unsigned char out[32])
{
	unsigned int n = 32;

	HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, strlen(msg), out, &n);
}

int pg_scram_first(struct pg_scram *s, const char *user, const char *password, const char *cnonce, char *out,
		   size_t len, struct hx_err *err)
{
	memset(s, 0, sizeof(*s));
	if (strlen(password) >= sizeof(s->password) || strlen(cnonce) >= sizeof(s->nonce) / 2 || strchr(cnonce, ',') ||
	    strlen(user) > 32 || strpbrk(user, ",="))
		return scram_fail(err, "user, password or nonce too long or malformed");
	snprintf(s->password, sizeof(s->password), "%s", password);
	snprintf(s->nonce, sizeof(s->nonce), "%s", cnonce);
	snprintf(s->client_first_bare, sizeof(s->client_first_bare), "n=%s,r=%s", user, cnonce);
	if ((size_t)snprintf(out, len, "n,,%s", s->client_first_bare) >= len)
		return scram_fail(err, "buffer too small");
	return 0;
}

/* The value of attribute "k=" in a SCRAM message, copied to buf; false when absent. */
static bool scram_attr(const char *msg, char k, char *buf, size_t len)
{
	for (const char *p = msg; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (p[0] == k && p[1] == '=') {
			size_t n = strcspn(p + 2, ",");

			if (n >= len)
				return false;
			memcpy(buf, p + 2, n);
			buf[n] = '\0';
			return true;
		}
	return false;
}

/* Base64 to bytes; -1 when it is not base64 or does not fit. */
static int b64_decode(const char *in, unsigned char *out, size_t cap)
{
	size_t n = strlen(in);
	int r;

	if (n == 0 || n % 4 || n / 4 * 3 > cap)
		return -1;
	r = EVP_DecodeBlock(out, (const unsigned char *)in, (int)n);
	if (r < 0)
		return -1;
	return r - (in[n - 1] == '=') - (in[n - 2] == '=');
}

int pg_scram_final(struct pg_scram *s, const char *server_first, char *out, size_t len, struct hx_err *err)
{
	char nonce[128], salt64[128], iter[16], without_proof[300];
	unsigned char salt[96], client_key[32], stored_key[32], sig[32], proof[32];
	char proof64[64];
	int nsalt;
	long iterations;

	if (server_first[0] == 'm' || !scram_attr(server_first, 'r', nonce, sizeof(nonce)) ||
	    !scram_attr(server_first, 's', salt64, sizeof(salt64)) ||
	    !scram_attr(server_first, 'i', iter, sizeof(iter)))
		return scram_fail(err, "malformed server-first-message");
	if (strncmp(nonce, s->nonce, strlen(s->nonce)) != 0 || strlen(nonce) == strlen(s->nonce))
		return scram_fail(err, "the server's nonce does not extend ours");
	iterations = strtol(iter, NULL, 10);
	nsalt = b64_decode(salt64, salt, sizeof(salt));
	if (iterations < 1 || iterations > 1000000 || nsalt <= 0)
		return scram_fail(err, "bad salt or iteration count");
	snprintf(s->nonce, sizeof(s->nonce), "%s", nonce);
	snprintf(without_proof, sizeof(without_proof), "c=biws,r=%s", nonce); /* biws: base64("n,,") */
	if ((size_t)snprintf(s->auth_message, sizeof(s->auth_message), "%s,%s,%s", s->client_first_bare, server_first,
			     without_proof) >= sizeof(s->auth_message))
		return scram_fail(err, "server-first-message too long");
	if (!PKCS5_PBKDF2_HMAC(s->password, (int)strlen(s->password), salt, nsalt, (int)iterations, EVP_sha256(), 32,
			       s->salted))
		return scram_fail(err, "PBKDF2 failed");
	hmac256(s->salted, 32, "Client Key", client_key);
	SHA256(client_key, 32, stored_key);
	hmac256(stored_key, 32, s->auth_message, sig);
	for (int i = 0; i < 32; i++)
		proof[i] = client_key[i] ^ sig[i];
	EVP_EncodeBlock((unsigned char *)proof64, proof, 32);
	if ((size_t)snprintf(out, len, "%s,p=%s", without_proof, proof64) >= len)
		return scram_fail(err, "buffer too small");
	return 0;
}

int pg_scram_verify(const struct pg_scram *s, const char *server_final, struct hx_err *err)
{
	unsigned char server_key[32], sig[32], got[48];
	char v[128];

	if (!scram_attr(server_final, 'v', v, sizeof(v)) || b64_decode(v, got, sizeof(got)) != 32)
		return scram_fail(err, "malformed server-final-message");
	hmac256(s->salted, 32, "Server Key", server_key);
	hmac256(server_key, 32, s->auth_message, sig);
	if (CRYPTO_memcmp(sig, got, 32) != 0)
		return scram_fail(err, "the server's signature is wrong (it does not know the password)");
	return 0;
}

/* A connection: the socket, its deadline, one message buffer. */
struct pg_conn {
	int fd;
	uint64_t deadline_ns;
	unsigned char buf[PG_MAX_MESSAGE];
	char type;
	size_t len; /* of the body in buf */
};

static int pg_wait(struct pg_conn *c, short events, struct hx_err *err)
{
	struct pollfd p = {.fd = c->fd, .events = events};
	uint64_t now = util_now_ns();
	int r;

	if (now >= c->deadline_ns)
		return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT, "postgres: no answer in time");
	r = poll(&p, 1, (int)((c->deadline_ns - now) / 1000000 + 1));
	if (r < 0 && errno != EINTR)
		return hx_syserr(err, "postgres: poll");
	return 0;
}

/* Exactly len bytes from the server, waiting for them up to the deadline. */
static int pg_read(struct pg_conn *c, void *data, size_t len, struct hx_err *err)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = read(c->fd, (char *)data + done, len - done);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == 0)
			return hx_fail(err, HX_EXIT_VERDICT, ECONNRESET, "postgres: the server closed the connection");
		if (errno != EAGAIN && errno != EINTR)
			return hx_syserr(err, "postgres: read");
		if (pg_wait(c, POLLIN, err) < 0)
			return -err->errnum;
	}
	return 0;
}

/* One frontend message: type (0 for the startup packet), then a body, in one send. Sent apart, the body
 * would wait under Nagle's rule for the server's delayed ACK of the header: 40 ms a message, 140 ms a login. */
static int pg_send(struct pg_conn *c, char type, const void *body, size_t len, struct hx_err *err)
{
	unsigned char hdr[5];
	uint32_t n = htonl((uint32_t)len + 4);
	size_t h = 0;
	struct iovec iov[2] = {{.iov_base = hdr}, {.iov_base = (void *)body, .iov_len = len}};
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};

	if (type)
		hdr[h++] = (unsigned char)type;
	memcpy(hdr + h, &n, 4);
	iov[0].iov_len = h + 4;
	/* a full socket buffer may take a part: the rest follows, in one send again once there is room */
	while (m.msg_iovlen) {
		ssize_t sent = sendmsg(c->fd, &m, MSG_NOSIGNAL);
		size_t k;

		if (sent < 0 && errno == EINTR)
			continue;
		if (sent < 0 && errno != EAGAIN)
			return hx_syserr(err, "postgres: write");
		if (sent < 0) {
			if (pg_wait(c, POLLOUT, err) < 0)
				return -err->errnum;
			continue;
		}
		/* what went: whole iovecs, then the front of the next one */
		for (k = (size_t)sent; m.msg_iovlen && k >= m.msg_iov->iov_len; m.msg_iovlen--, m.msg_iov++)
			k -= m.msg_iov->iov_len;
		if (m.msg_iovlen) {
			m.msg_iov->iov_base = (char *)m.msg_iov->iov_base + k;
			m.msg_iov->iov_len -= k;
		}
	}
	return 0;
}

static int pg_recv(struct pg_conn *c, struct hx_err *err)
{
	unsigned char hdr[5];
	uint32_t n;

	if (pg_read(c, hdr, 5, err) < 0)
		return -err->errnum;
	memcpy(&n, hdr + 1, 4);
	n = ntohl(n);
	if (n < 4 || n - 4 >= PG_MAX_MESSAGE)
		return hx_fail(err, HX_EXIT_VERDICT, EPROTO, "postgres: a message of %u bytes (not PostgreSQL?)", n);
	c->type = (char)hdr[0];
	c->len = n - 4;
	if (pg_read(c, c->buf, c->len, err) < 0)
		return -err->errnum;
	c->buf[c->len] = '\0';
	return 0;
}

/* An ErrorResponse as "SEVERITY SQLSTATE: message"; retry for "the database system is starting up". */
static int pg_error(const struct pg_conn *c, bool *retry, struct hx_err *err)
{
	const char *sev = "ERROR", *code = "", *msg = "";

	for (size_t i = 0; i < c->len && c->buf[i];) {
		const char *v = (const char *)c->buf + i + 1;

		if (c->buf[i] == 'V' || (c->buf[i] == 'S' && strcmp(sev, "ERROR") == 0))
			sev = v;
		else if (c->buf[i] == 'C')
			code = v;
		else if (c->buf[i] == 'M')
			msg = v;
		i += 2 + strlen(v);
	}
	*retry = strcmp(code, "57P03") == 0;
	return hx_fail(err, HX_EXIT_VERDICT, strcmp(code, "28P01") == 0 ? EACCES : EPROTO, "postgres: %s %s: %s", sev,
		       code, msg);
}

static uint32_t be32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static int pg_auth(struct pg_conn *c, struct pg_scram *s, const char *password, struct hx_err *err)
{
	char out[512];
	uint32_t code = c->len >= 4 ? be32_at(c->buf) : 0xffffffffu;

	switch (code) {
	case PG_AUTH_OK:
		return 0;
	case PG_AUTH_SASL: {
		unsigned char raw[24];
		char cnonce[40], body[600];
		uint32_t n;
		bool scram = false;

		for (size_t i = 4; i < c->len && c->buf[i]; i += strlen((char *)c->buf + i) + 1)
			scram |= strcmp((char *)c->buf + i, "SCRAM-SHA-256") == 0;
		if (!scram)
			return hx_fail(err, HX_EXIT_VERDICT, EPROTO,
				       "postgres: the server does not offer SCRAM-SHA-256");
		if (RAND_bytes(raw, sizeof(raw)) != 1)
			return hx_fail(err, HX_EXIT_INTERNAL, EIO, "postgres: no random bytes for the nonce");
		EVP_EncodeBlock((unsigned char *)cnonce, raw, sizeof(raw));
		if (pg_scram_first(s, "", password, cnonce, out, sizeof(out), err) < 0)
			return -err->errnum;
		memcpy(body, "SCRAM-SHA-256", 14);
		n = htonl((uint32_t)strlen(out));
		memcpy(body + 14, &n, 4);
		memcpy(body + 18, out, strlen(out));
		return pg_send(c, 'p', body, 18 + strlen(out), err);
	}
	case PG_AUTH_SASL_CONTINUE:
		if (pg_scram_final(s, (char *)c->buf + 4, out, sizeof(out), err) < 0)
			return -err->errnum;
		return pg_send(c, 'p', out, strlen(out), err);
	case PG_AUTH_SASL_FINAL:
		return pg_scram_verify(s, (char *)c->buf + 4, err);
	default:
		return hx_fail(err, HX_EXIT_VERDICT, EPROTO,
			       "postgres: the server asks for authentication method %u, not SCRAM-SHA-256", code);
	}
}

static size_t put_str(char *buf, size_t at, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(buf + at, s, n);
	return at + n;
}

/* The first column of the first row as text ("" for NULL or no row). */
static void pg_first_value(const struct pg_conn *c, char *out, size_t len, bool *have)
{
	uint32_t n;

	if (*have || c->len < 6 || ((unsigned)c->buf[0] << 8 | c->buf[1]) < 1)
		return;
	*have = true;
	n = be32_at(c->buf + 2);
	if (n == UINT32_MAX || c->len < 6 + (size_t)n)
		n = 0; /* NULL, or a row shorter than it says */
	snprintf(out, len, "%.*s", (int)n, (const char *)c->buf + 6);
}

int pg_query(int fd, const struct pg_login *l, const char *sql, char *ret_value, size_t len, bool *ret_retry,
	     struct hx_err *err)
{
	struct pg_conn *c = calloc(1, sizeof(*c));
	struct pg_scram s;
	char startup[512];
	size_t n = 4;
	bool queried = false, answered = false;
	uint32_t proto = htonl(PG_PROTOCOL_3);
	int rc = 0;

	*ret_retry = false;
	if (!c)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (strlen(l->user) + strlen(l->db) > 400) {
		free(c);
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "postgres: user or database name too long");
	}
	c->fd = fd;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	c->deadline_ns = util_now_ns() + (uint64_t)l->timeout_ms * 1000000u;
	memcpy(startup, &proto, 4);
	n = put_str(startup, put_str(startup, n, "user"), l->user);
	n = put_str(startup, put_str(startup, n, "database"), l->db);
	n = put_str(startup, put_str(startup, n, "application_name"), "harness");
	startup[n++] = '\0';
	rc = pg_send(c, 0, startup, n, err);
	while (rc == 0 && (rc = pg_recv(c, err)) == 0) {
		if (c->type == 'R')
			rc = pg_auth(c, &s, l->password, err);
		else if (c->type == 'E')
			rc = pg_error(c, ret_retry, err);
		else if (c->type == 'D')
			pg_first_value(c, ret_value, len, &answered);
		else if (c->type == 'Z' && !queried) {
			queried = true;
			rc = pg_send(c, 'Q', sql, strlen(sql) + 1, err);
		} else if (c->type == 'Z')
			break;
	}
	if (rc == 0 && !answered)
		rc = hx_fail(err, HX_EXIT_VERDICT, EPROTO, "postgres: %s returned no row", sql);
	if (rc == 0)
		pg_send(c, 'X', "", 0, err);
	explicit_bzero(&s, sizeof(s));
	free(c);
	return rc;
}

int pg_check(int fd, const char *user, const char *password, const char *db, int timeout_ms, bool *ret_retry,
	     struct hx_err *err)
{
	const struct pg_login l = {.user = user, .password = password, .db = db, .timeout_ms = timeout_ms};
	char v[16] = "";

	if (pg_query(fd, &l, "SELECT 1", v, sizeof(v), ret_retry, err) < 0)
		return -err->errnum;
	if (strcmp(v, "1") != 0)
		return hx_fail(err, HX_EXIT_VERDICT, EPROTO, "postgres: SELECT 1 did not return 1");
	return 0;
}
