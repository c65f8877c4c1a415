/* OpenSSL's tables (base/dl_ossl.h): libssl opens libcrypto itself; Ubuntu from 24.04 names the
 * package libssl3t64. */
#define DL_NO_REDIRECT 1
#include "base/dl_ossl.h"

#include <dlfcn.h>

struct dl_crypto_fns dl_crypto_fn;

static int crypto_resolve(void *handle, const char **missing)
{
	struct dl_crypto_fns *t = &dl_crypto_fn;

	DL_CRYPTO_FNS(DL_RESOLVE)
	return 0;
}

struct dl_lib dl_crypto = {"libcrypto.so.3", "libssl3", crypto_resolve, false};

struct dl_ssl_fns dl_ssl_fn;

static int ssl_resolve(void *handle, const char **missing)
{
	struct dl_ssl_fns *t = &dl_ssl_fn;

	DL_SSL_FNS(DL_RESOLVE)
	return 0;
}

struct dl_lib dl_ssl = {"libssl.so.3", "libssl3", ssl_resolve, false};
