/* Self-signed certificates with OpenSSL for the TLS scenarios. */
#include "run/tlscert.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "base/dl_ossl.h"

static int add_ext(X509 *x, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!ext)
		return 0;
	ok = X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	return ok;
}

static int write_pem(const char *path, EVP_PKEY *key, X509 *cert)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return 0;
	ok = key ? PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL) : PEM_write_X509(f, cert);
	ok = fclose(f) == 0 && ok;
	return ok && chmod(path, 0644) == 0;
}

int tls_make_selfsigned(const char *dir, struct hx_err *err)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_NAME *name;
	unsigned char serial[16];
	char cert[PATH_MAX], keyf[PATH_MAX];
	BIGNUM *bn = NULL;
	int ok;

	ok = key && x && RAND_bytes(serial, sizeof(serial)) == 1 && X509_set_version(x, 2);
	serial[0] &= 0x7f;
	if (ok) {
		bn = BN_bin2bn(serial, sizeof(serial), NULL);
		ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) &&
		     X509_gmtime_adj(X509_getm_notBefore(x), -60) && X509_gmtime_adj(X509_getm_notAfter(x), 86400) &&
		     X509_set_pubkey(x, key);
	}
	if (ok) {
		name = X509_get_subject_name(x);
		ok = X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1, -1,
						0) &&
		     X509_set_issuer_name(x, name) && add_ext(x, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1") &&
		     add_ext(x, NID_basic_constraints, "critical,CA:FALSE") && X509_sign(x, key, EVP_sha256()) > 0;
	}
	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(keyf, sizeof(keyf), "%s/key.pem", dir);
	if (ok && (mkdir(dir, 0755) == 0 || errno == EEXIST))
		ok = write_pem(cert, NULL, x) && write_pem(keyf, key, NULL);
	else
		ok = 0;
	BN_free(bn);
	X509_free(x);
	EVP_PKEY_free(key);
	if (!ok)
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "cannot make a self-signed certificate in %s", dir);
	return 0;
}
