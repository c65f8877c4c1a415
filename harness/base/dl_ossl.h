/* OpenSSL (libcrypto, libssl) through its tables (base/dl.h): include this, never <openssl/...>; calls read
 * as OpenSSL's. Every OpenSSL header harness uses is here, before the names are redirected. */
#ifndef HX_DL_OSSL_H
#define HX_DL_OSSL_H

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "base/dl.h"

#define DL_CRYPTO_FNS(X)              \
	X(BN_bin2bn)                  \
	X(BN_free)                    \
	X(BN_to_ASN1_INTEGER)         \
	X(CRYPTO_memcmp)              \
	X(ERR_clear_error)            \
	X(EVP_DecodeBlock)            \
	X(EVP_Digest)                 \
	X(EVP_DigestFinal_ex)         \
	X(EVP_DigestInit_ex)          \
	X(EVP_DigestUpdate)           \
	X(EVP_EncodeBlock)            \
	X(EVP_MD_CTX_free)            \
	X(EVP_MD_CTX_new)             \
	X(EVP_PKEY_Q_keygen)          \
	X(EVP_PKEY_free)              \
	X(EVP_get_digestbyname)       \
	X(EVP_sha256)                 \
	X(HMAC)                       \
	X(PEM_write_PrivateKey)       \
	X(PEM_write_X509)             \
	X(PKCS5_PBKDF2_HMAC)          \
	X(RAND_bytes)                 \
	X(SHA1)                       \
	X(SHA256)                     \
	X(X509V3_EXT_conf_nid)        \
	X(X509V3_set_ctx)             \
	X(X509_EXTENSION_free)        \
	X(X509_NAME_add_entry_by_txt) \
	X(X509_add_ext)               \
	X(X509_free)                  \
	X(X509_get_serialNumber)      \
	X(X509_get_subject_name)      \
	X(X509_getm_notAfter)         \
	X(X509_getm_notBefore)        \
	X(X509_gmtime_adj)            \
	X(X509_new)                   \
	X(X509_set_issuer_name)       \
	X(X509_set_pubkey)            \
	X(X509_set_version)           \
	X(X509_sign)

struct dl_crypto_fns {
	DL_CRYPTO_FNS(DL_FIELD)
};
extern struct dl_crypto_fns dl_crypto_fn;
extern struct dl_lib dl_crypto;

static inline const struct dl_crypto_fns *dl_crypto_get(void)
{
	dl_need(&dl_crypto);
	return &dl_crypto_fn;
}

#ifndef DL_NO_REDIRECT
#define BN_bin2bn		   (*dl_crypto_get()->BN_bin2bn)
#define BN_free			   (*dl_crypto_get()->BN_free)
#define BN_to_ASN1_INTEGER	   (*dl_crypto_get()->BN_to_ASN1_INTEGER)
#define CRYPTO_memcmp		   (*dl_crypto_get()->CRYPTO_memcmp)
#define ERR_clear_error		   (*dl_crypto_get()->ERR_clear_error)
#define EVP_DecodeBlock		   (*dl_crypto_get()->EVP_DecodeBlock)
#define EVP_Digest		   (*dl_crypto_get()->EVP_Digest)
#define EVP_DigestFinal_ex	   (*dl_crypto_get()->EVP_DigestFinal_ex)
#define EVP_DigestInit_ex	   (*dl_crypto_get()->EVP_DigestInit_ex)
#define EVP_DigestUpdate	   (*dl_crypto_get()->EVP_DigestUpdate)
#define EVP_EncodeBlock		   (*dl_crypto_get()->EVP_EncodeBlock)
#define EVP_MD_CTX_free		   (*dl_crypto_get()->EVP_MD_CTX_free)
#define EVP_MD_CTX_new		   (*dl_crypto_get()->EVP_MD_CTX_new)
#define EVP_PKEY_Q_keygen	   (*dl_crypto_get()->EVP_PKEY_Q_keygen)
#define EVP_PKEY_free		   (*dl_crypto_get()->EVP_PKEY_free)
#define EVP_get_digestbyname	   (*dl_crypto_get()->EVP_get_digestbyname)
#define EVP_sha256		   (*dl_crypto_get()->EVP_sha256)
#define HMAC			   (*dl_crypto_get()->HMAC)
#define PEM_write_PrivateKey	   (*dl_crypto_get()->PEM_write_PrivateKey)
#define PEM_write_X509		   (*dl_crypto_get()->PEM_write_X509)
#define PKCS5_PBKDF2_HMAC	   (*dl_crypto_get()->PKCS5_PBKDF2_HMAC)
#define RAND_bytes		   (*dl_crypto_get()->RAND_bytes)
#define SHA1			   (*dl_crypto_get()->SHA1)
#define SHA256			   (*dl_crypto_get()->SHA256)
#define X509V3_EXT_conf_nid	   (*dl_crypto_get()->X509V3_EXT_conf_nid)
#define X509V3_set_ctx		   (*dl_crypto_get()->X509V3_set_ctx)
#define X509_EXTENSION_free	   (*dl_crypto_get()->X509_EXTENSION_free)
#define X509_NAME_add_entry_by_txt (*dl_crypto_get()->X509_NAME_add_entry_by_txt)
#define X509_add_ext		   (*dl_crypto_get()->X509_add_ext)
#define X509_free		   (*dl_crypto_get()->X509_free)
#define X509_get_serialNumber	   (*dl_crypto_get()->X509_get_serialNumber)
#define X509_get_subject_name	   (*dl_crypto_get()->X509_get_subject_name)
#define X509_getm_notAfter	   (*dl_crypto_get()->X509_getm_notAfter)
#define X509_getm_notBefore	   (*dl_crypto_get()->X509_getm_notBefore)
#define X509_gmtime_adj		   (*dl_crypto_get()->X509_gmtime_adj)
#define X509_new		   (*dl_crypto_get()->X509_new)
#define X509_set_issuer_name	   (*dl_crypto_get()->X509_set_issuer_name)
#define X509_set_pubkey		   (*dl_crypto_get()->X509_set_pubkey)
#define X509_set_version	   (*dl_crypto_get()->X509_set_version)
#define X509_sign		   (*dl_crypto_get()->X509_sign)
#endif

#define DL_SSL_FNS(X)                       \
	X(SSL_CTX_ctrl)                     \
	X(SSL_CTX_free)                     \
	X(SSL_CTX_new)                      \
	X(SSL_CTX_set_default_verify_paths) \
	X(SSL_CTX_set_options)              \
	X(SSL_CTX_set_verify)               \
	X(SSL_connect)                      \
	X(SSL_ctrl)                         \
	X(SSL_free)                         \
	X(SSL_get_error)                    \
	X(SSL_get_verify_mode)              \
	X(SSL_new)                          \
	X(SSL_pending)                      \
	X(SSL_read)                         \
	X(SSL_set1_host)                    \
	X(SSL_set_fd)                       \
	X(SSL_write)                        \
	X(TLS_client_method)

struct dl_ssl_fns {
	DL_SSL_FNS(DL_FIELD)
};
extern struct dl_ssl_fns dl_ssl_fn;
extern struct dl_lib dl_ssl;

static inline const struct dl_ssl_fns *dl_ssl_get(void)
{
	dl_need(&dl_ssl);
	return &dl_ssl_fn;
}

#ifndef DL_NO_REDIRECT
#define SSL_CTX_ctrl			 (*dl_ssl_get()->SSL_CTX_ctrl)
#define SSL_CTX_free			 (*dl_ssl_get()->SSL_CTX_free)
#define SSL_CTX_new			 (*dl_ssl_get()->SSL_CTX_new)
#define SSL_CTX_set_default_verify_paths (*dl_ssl_get()->SSL_CTX_set_default_verify_paths)
#define SSL_CTX_set_options		 (*dl_ssl_get()->SSL_CTX_set_options)
#define SSL_CTX_set_verify		 (*dl_ssl_get()->SSL_CTX_set_verify)
#define SSL_connect			 (*dl_ssl_get()->SSL_connect)
#define SSL_ctrl			 (*dl_ssl_get()->SSL_ctrl)
#define SSL_free			 (*dl_ssl_get()->SSL_free)
#define SSL_get_error			 (*dl_ssl_get()->SSL_get_error)
#define SSL_get_verify_mode		 (*dl_ssl_get()->SSL_get_verify_mode)
#define SSL_new				 (*dl_ssl_get()->SSL_new)
#define SSL_pending			 (*dl_ssl_get()->SSL_pending)
#define SSL_read			 (*dl_ssl_get()->SSL_read)
#define SSL_set1_host			 (*dl_ssl_get()->SSL_set1_host)
#define SSL_set_fd			 (*dl_ssl_get()->SSL_set_fd)
#define SSL_write			 (*dl_ssl_get()->SSL_write)
#define TLS_client_method		 (*dl_ssl_get()->TLS_client_method)
#endif

#endif
