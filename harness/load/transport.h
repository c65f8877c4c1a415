/* How the load client moves bytes on a connection: plain TCP or TLS (OpenSSL), behind one small
 * table so the event loop does not care which (wrk's struct sock). */
#ifndef HX_TRANSPORT_H
#define HX_TRANSPORT_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/err.h"

struct ssl_ctx_st;
struct ssl_st;

/* What a call could not finish: wait for the socket to be readable or writable. */
enum tp_want { TP_OK = 0, TP_WANT_READ = -2, TP_WANT_WRITE = -3, TP_ERROR = -1, TP_CLOSED = -4 };

struct tp_conn {
	int fd;
	struct ssl_st *ssl;
};

struct transport {
	const char *name;
	/* After the TCP connect: TP_OK when ready, a TP_WANT_* to call again, TP_ERROR. */
	int (*handshake)(struct tp_conn *c);
	/* Bytes moved (> 0), TP_CLOSED on an orderly close, a TP_WANT_*, or TP_ERROR (errno set). */
	ssize_t (*read)(struct tp_conn *c, void *buf, size_t len);
	ssize_t (*write)(struct tp_conn *c, const void *buf, size_t len);
	void (*close)(struct tp_conn *c);
	/* Bytes already read from the socket and waiting in the transport (TLS records): read again
	 * before waiting for the socket. */
	bool (*pending)(struct tp_conn *c);
};

extern const struct transport tp_tcp;
extern const struct transport tp_tls;

/* The TLS context of a run: SNI to host, no session reuse (each connection pays a full handshake, as
 * a fresh client would), certificates checked unless insecure. */
int tp_tls_init(const char *host, bool insecure, struct hx_err *err);
void tp_tls_free(void);
/* Attach TLS to a connected socket (the handshake then runs through tp_tls.handshake). */
int tp_tls_attach(struct tp_conn *c);

#endif
