/* Plain TCP and OpenSSL TLS transports for the load client. */
#include "load/transport.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/dl_ossl.h"

static SSL_CTX *tls_ctx;
static char tls_host[256];

static int tcp_handshake(struct tp_conn *c)
{
	(void)c;
	return TP_OK;
}

static ssize_t tcp_read(struct tp_conn *c, void *buf, size_t len)
{
	ssize_t n = read(c->fd, buf, len);

	if (n > 0)
		return n;
	if (n == 0)
		return TP_CLOSED;
	return errno == EAGAIN || errno == EINTR ? TP_WANT_READ : TP_ERROR;
}

static ssize_t tcp_write(struct tp_conn *c, const void *buf, size_t len)
{
	ssize_t n = write(c->fd, buf, len);

	if (n >= 0)
		return n;
	return errno == EAGAIN || errno == EINTR ? TP_WANT_WRITE : TP_ERROR;
}

static void tcp_close(struct tp_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static bool tcp_pending(struct tp_conn *c)
{
	(void)c;
	return false;
}

const struct transport tp_tcp = {"tcp", tcp_handshake, tcp_read, tcp_write, tcp_close, tcp_pending};

static int tls_want(struct tp_conn *c, int r)
{
	switch (SSL_get_error(c->ssl, r)) {
	case SSL_ERROR_WANT_READ:
		return TP_WANT_READ;
	case SSL_ERROR_WANT_WRITE:
		return TP_WANT_WRITE;
	case SSL_ERROR_ZERO_RETURN:
		return TP_CLOSED;
	case SSL_ERROR_SYSCALL:
		if (errno == 0)
			return TP_CLOSED; /* EOF without close_notify */
		return TP_ERROR;
	default:
		ERR_clear_error();
		errno = EPROTO;
		return TP_ERROR;
	}
}

static int tls_handshake(struct tp_conn *c)
{
	int r = SSL_connect(c->ssl);

	return r == 1 ? TP_OK : tls_want(c, r);
}

static ssize_t tls_read(struct tp_conn *c, void *buf, size_t len)
{
	int r = SSL_read(c->ssl, buf, (int)(len > INT32_MAX ? INT32_MAX : len));

	return r > 0 ? r : tls_want(c, r);
}

static ssize_t tls_write(struct tp_conn *c, const void *buf, size_t len)
{
	int r = SSL_write(c->ssl, buf, (int)(len > INT32_MAX ? INT32_MAX : len));

	return r > 0 ? r : tls_want(c, r);
}

static void tls_close(struct tp_conn *c)
{
	if (c->ssl)
		SSL_free(c->ssl);
	c->ssl = NULL;
	tcp_close(c);
}

static bool tls_pending(struct tp_conn *c)
{
	return c->ssl && SSL_pending(c->ssl) > 0;
}

const struct transport tp_tls = {"tls", tls_handshake, tls_read, tls_write, tls_close, tls_pending};

int tp_tls_init(const char *host, bool insecure, struct hx_err *err)
{
	if (dl_open(&dl_ssl, err) < 0 || dl_open(&dl_crypto, err) < 0)
		return hx_wrap(err, "TLS");
	tls_ctx = SSL_CTX_new(TLS_client_method());
	if (!tls_ctx)
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "TLS: cannot create a context");
	SSL_CTX_set_session_cache_mode(tls_ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(tls_ctx, SSL_OP_NO_TICKET);
	SSL_CTX_set_mode(tls_ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (!insecure) {
		SSL_CTX_set_verify(tls_ctx, SSL_VERIFY_PEER, NULL);
		if (SSL_CTX_set_default_verify_paths(tls_ctx) != 1)
			return hx_fail(err, HX_EXIT_HOST, EIO, "TLS: cannot load the system's CA certificates");
	}
	snprintf(tls_host, sizeof(tls_host), "%s", host);
	return 0;
}

void tp_tls_free(void)
{
	if (tls_ctx)
		SSL_CTX_free(tls_ctx);
	tls_ctx = NULL;
}

int tp_tls_attach(struct tp_conn *c)
{
	c->ssl = SSL_new(tls_ctx);
	if (!c->ssl || SSL_set_fd(c->ssl, c->fd) != 1)
		return -EIO;
	SSL_set_tlsext_host_name(c->ssl, tls_host);
	if (SSL_get_verify_mode(c->ssl) & SSL_VERIFY_PEER)
		SSL_set1_host(c->ssl, tls_host);
	return 0;
}
