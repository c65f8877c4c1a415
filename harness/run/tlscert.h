/* Throwaway TLS credentials for a run: a self-signed certificate for localhost and 127.0.0.1. */
#ifndef HX_TLSCERT_H
#define HX_TLSCERT_H

#include "base/err.h"

/* Write dir/cert.pem and dir/key.pem (P-256, valid for a day, readable by the sandbox's user: it is
 * a loopback benchmark's key, made for this run and nothing else). */
int tls_make_selfsigned(const char *dir, struct hx_err *err);

#endif
