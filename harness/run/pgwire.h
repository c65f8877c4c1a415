/* Just enough of the PostgreSQL frontend/backend protocol (v3) to prove a server is ready: a login with
 * SCRAM-SHA-256 (RFC 5802, RFC 7677) and one simple query. */
#ifndef HX_PGWIRE_H
#define HX_PGWIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* The client side of one SCRAM-SHA-256 exchange (no channel binding). */
struct pg_scram {
	char password[128];
	char nonce[128]; /* ours, then the server's (which starts with ours) */
	char client_first_bare[160];
	char auth_message[1024];
	unsigned char salted[32]; /* SaltedPassword */
};

/* client-first-message: "n,,n=<user>,r=<cnonce>"; PostgreSQL takes the user from the startup packet, so
 * pg_check sends an empty one. */
int pg_scram_first(struct pg_scram *s, const char *user, const char *password, const char *cnonce, char *out,
		   size_t len, struct hx_err *err);
/* From server-first-message to client-final-message, with the proof. */
int pg_scram_final(struct pg_scram *s, const char *server_first, char *out, size_t len, struct hx_err *err);
/* Check the server's signature (server-final-message "v=..."): the server knew the password too. */
int pg_scram_verify(const struct pg_scram *s, const char *server_final, struct hx_err *err);

/* Log in on a connected socket as user to db with password and run `SELECT 1`, within timeout_ms.
 * A refusal carries the server's words ("FATAL 28P01: password authentication failed for user ...");
 * *ret_retry is set when the server is still starting up (SQLSTATE 57P03) and a later try may work. */
int pg_check(int fd, const char *user, const char *password, const char *db, int timeout_ms, bool *ret_retry,
	     struct hx_err *err);

/* Who logs in where, and how long the whole exchange may take. */
struct pg_login {
	const char *user, *password, *db;
	int timeout_ms;
};

/* Log in on a connected socket and run one simple query; the first column of its first row, as text, in
 * ret_value ("" for NULL). No row is an error. */
int pg_query(int fd, const struct pg_login *l, const char *sql, char *ret_value, size_t len, bool *ret_retry,
	     struct hx_err *err);

#endif
