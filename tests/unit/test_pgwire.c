/* The PostgreSQL readiness client: SCRAM-SHA-256 against RFC 7677's worked example, a server nonce or
 * signature that must be refused, and the backend's messages fed as literal bytes over a socketpair. */
#include "testutil.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/pgwire.h"

static const char rfc_server_first[] = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
				       "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";

static void test_scram_rfc7677(void **state)
{
	struct pg_scram s;
	struct hx_err err = {0};
	char out[512];

	(void)state;
	assert_int_equal(pg_scram_first(&s, "user", "pencil", "rOprNGfwEbeRWgbNEkqO", out, sizeof(out), &err), 0);
	assert_string_equal(out, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
	assert_int_equal(pg_scram_final(&s, rfc_server_first, out, sizeof(out), &err), 0);
	assert_string_equal(out, "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
				 "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
	assert_int_equal(pg_scram_verify(&s, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", &err), 0);
	/* one bit off in the server's signature: a server that does not know the password */
	assert_true(pg_scram_verify(&s, "v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", &err) < 0);
	assert_non_null(strstr(err.msg, "signature"));
}

static void test_scram_bad_server_first(void **state)
{
	static const char *const bad[] = {
		"s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",				 /* no nonce */
		"r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",	 /* the server added nothing */
		"r=someoneElse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",		 /* not our nonce */
		"r=rOprNGfwEbeRWgbNEkqOxx,s=***,i=4096",			 /* salt not base64 */
		"r=rOprNGfwEbeRWgbNEkqOxx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",	 /* no iterations */
		"m=ext,r=rOprNGfwEbeRWgbNEkqOxx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1", /* a mandatory extension */
	};
	struct pg_scram s;
	struct hx_err err = {0};
	char out[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pg_scram_first(&s, "user", "pencil", "rOprNGfwEbeRWgbNEkqO", out, sizeof(out), &err),
				 0);
		assert_true(pg_scram_final(&s, bad[i], out, sizeof(out), &err) < 0);
		assert_non_null(strstr(err.msg, "SCRAM"));
	}
}

/* A backend message: type, length, body. */
static size_t msg(unsigned char *at, char type, const void *body, size_t len)
{
	uint32_t n = htonl((uint32_t)len + 4);

	at[0] = (unsigned char)type;
	memcpy(at + 1, &n, 4);
	memcpy(at + 5, body, len);
	return 5 + len;
}

/* pg_check against bytes a backend would send (and then hangs up when hangup); it reads nothing back. */
static int check_against_(const unsigned char *reply, size_t len, bool hangup, bool *retry, struct hx_err *err)
{
	int sv[2];
	int rc;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[1], reply, len), (ssize_t)len);
	if (hangup)
		shutdown(sv[1], SHUT_RDWR);
	rc = pg_check(sv[0], "harness", "secret", "harness", 500, retry, err);
	close(sv[0]);
	close(sv[1]);
	return rc;
}

static int check_against(const unsigned char *reply, size_t len, bool *retry, struct hx_err *err)
{
	return check_against_(reply, len, false, retry, err);
}

static void test_error_responses(void **state)
{
	static const char refused[] = "SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user \"harness\"\0";
	static const char starting[] = "SFATAL\0VFATAL\0C57P03\0Mthe database system is starting up\0";
	unsigned char buf[512];
	struct hx_err err = {0};
	bool retry = true;

	(void)state;
	assert_true(check_against(buf, msg(buf, 'E', refused, sizeof(refused)), &retry, &err) < 0);
	assert_false(retry);
	assert_int_equal(err.errnum, EACCES);
	assert_string_equal(err.msg, "postgres: FATAL 28P01: password authentication failed for user \"harness\"");
	assert_true(check_against(buf, msg(buf, 'E', starting, sizeof(starting)), &retry, &err) < 0);
	assert_true(retry);
}

/* pg_query after a trust login: the first column of the first row, NULL as "", no row an error. */
static int query_against(const unsigned char *rows, size_t len, char *v, size_t vlen, struct hx_err *err)
{
	static const unsigned char auth_ok[] = {0, 0, 0, 0};
	const struct pg_login l = {.user = "harness", .password = "secret", .db = "harness", .timeout_ms = 500};
	unsigned char buf[1024];
	size_t n = msg(buf, 'R', auth_ok, sizeof(auth_ok));
	int sv[2], rc;
	bool retry;

	n += msg(buf + n, 'Z', "I", 1);
	memcpy(buf + n, rows, len);
	n += len;
	n += msg(buf + n, 'C', "SELECT 1", 9);
	n += msg(buf + n, 'Z', "I", 1);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[1], buf, n), (ssize_t)n);
	rc = pg_query(sv[0], &l, "SELECT n FROM rpc_counter WHERE id = 1", v, vlen, &retry, err);
	close(sv[0]);
	close(sv[1]);
	return rc;
}

static void test_query_value(void **state)
{
	static const unsigned char one[] = {0, 1, 0, 0, 0, 5, '1', '2', '3', '4', '5'};
	static const unsigned char null[] = {0, 1, 0xff, 0xff, 0xff, 0xff};
	unsigned char rows[64];
	char v[16] = "x";
	struct hx_err err = {0};

	(void)state;
	if (query_against(rows, msg(rows, 'D', one, sizeof(one)), v, sizeof(v), &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(v, "12345");
	/* two rows: the first one's value */
	size_t n = msg(rows, 'D', one, sizeof(one));
	n += msg(rows + n, 'D', null, sizeof(null));
	assert_int_equal(query_against(rows, n, v, sizeof(v), &err), 0);
	assert_string_equal(v, "12345");
	assert_int_equal(query_against(rows, msg(rows, 'D', null, sizeof(null)), v, sizeof(v), &err), 0);
	assert_string_equal(v, "");
	assert_true(query_against(rows, 0, v, sizeof(v), &err) < 0);
	assert_non_null(strstr(err.msg, "returned no row"));
}

/* Each message the client sends leaves in one send: a header and body sent apart wait, under Nagle's rule,
 * for the server's delayed ACK of the header (40 ms a message on Linux; a login took 140 ms). Over a
 * SOCK_SEQPACKET pair every send is one record, so a record must be a whole message. The backend's side is
 * written as records the client reads whole: each message's 5-byte header, then its body. */
static void test_one_send_per_message(void **state)
{
	static const unsigned char auth_ok[] = {0, 0, 0, 0};
	static const unsigned char one[] = {0, 1, 0, 0, 0, 1, '7'};
	const struct {
		char type;
		const void *body;
		size_t len;
	} backend[] = {{'R', auth_ok, 4}, {'Z', "I", 1}, {'D', one, 7}, {'C', "SELECT 1", 9}, {'Z', "I", 1}};
	const struct pg_login l = {.user = "harness", .password = "secret", .db = "harness", .timeout_ms = 500};
	unsigned char buf[512], rec[1024];
	struct hx_err err = {0};
	char v[8];
	bool retry;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	for (size_t i = 0; i < sizeof(backend) / sizeof(backend[0]); i++) {
		msg(buf, backend[i].type, backend[i].body, backend[i].len);
		assert_int_equal(write(sv[1], buf, 5), 5);
		assert_int_equal(write(sv[1], buf + 5, backend[i].len), (ssize_t)backend[i].len);
	}
	if (pg_query(sv[0], &l, "SELECT 7", v, sizeof(v), &retry, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(v, "7");
	/* the startup message (no type byte), the query, the goodbye: each one record of its stated length */
	for (int i = 0; i < 3; i++) {
		ssize_t n = recv(sv[1], rec, sizeof(rec), MSG_DONTWAIT);
		size_t h = i == 0 ? 0 : 1;
		uint32_t stated;

		assert_true(n >= (ssize_t)h + 4);
		memcpy(&stated, rec + h, 4);
		assert_int_equal(ntohl(stated) + h, (size_t)n);
		if (i > 0)
			assert_int_equal(rec[0], i == 1 ? 'Q' : 'X');
	}
	close(sv[0]);
	close(sv[1]);
}

/* In a child: the bytes the client sent, read until it hangs up; exit 0 when they are its startup message, then
 * the query sql (NUL-terminated) as one 'Q' message, then its goodbye. */
static _Noreturn void check_sent(int fd, const char *sql)
{
	size_t cap = strlen(sql) + 4096, got = 0, sq = strlen(sql) + 1;
	unsigned char *b = malloc(cap);
	uint32_t n;
	ssize_t r;

	while (b && got < cap && (r = read(fd, b + got, cap - got)) > 0)
		got += (size_t)r;
	if (!b || got < 4)
		_exit(2);
	memcpy(&n, b, 4); /* the startup message: its length first */
	n = ntohl(n);
	if (got != n + 1 + 4 + sq + 1 + 4 || b[n] != 'Q' || memcmp(b + n + 5, sql, sq) != 0 || b[n + 5 + sq] != 'X')
		_exit(1);
	memcpy(&n, b + n + 1, 4);
	_exit(ntohl(n) == 4 + sq ? 0 : 1);
}

/* A query larger than the socket's buffer leaves in parts, whole and in order. */
static void test_large_message(void **state)
{
	static const unsigned char auth_ok[] = {0, 0, 0, 0};
	static const unsigned char one[] = {0, 1, 0, 0, 0, 1, '7'};
	const struct pg_login l = {.user = "harness", .password = "secret", .db = "harness", .timeout_ms = 5000};
	size_t big = 300000, n = 0;
	char *sql = malloc(big + 16), v[8];
	unsigned char buf[256];
	struct hx_err err = {0};
	int sv[2], small = 4096, status;
	bool retry;
	pid_t pid;

	(void)state;
	assert_non_null(sql);
	n = (size_t)snprintf(sql, big + 16, "SELECT '");
	memset(sql + n, 'a', big);
	snprintf(sql + n + big, 16, "'");
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
	n = msg(buf, 'R', auth_ok, sizeof(auth_ok));
	n += msg(buf + n, 'Z', "I", 1);
	n += msg(buf + n, 'D', one, sizeof(one));
	n += msg(buf + n, 'C', "SELECT 1", 9);
	n += msg(buf + n, 'Z', "I", 1);
	assert_int_equal(write(sv[1], buf, n), (ssize_t)n);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		check_sent(sv[1], sql);
	}
	close(sv[1]);
	if (pg_query(sv[0], &l, sql, v, sizeof(v), &retry, &err) < 0)
		fail_msg("%s", err.msg);
	close(sv[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(v, "7");
	free(sql);
}

static void test_protocol_refusals(void **state)
{
	static const unsigned char md5[] = {0, 0, 0, 5, 1, 2, 3, 4};
	static const unsigned char sasl_other[] = {0,	0,   0,	  10,  'S', 'C', 'R', 'A', 'M',
						   '-', 'S', 'H', 'A', '-', '1', 0,   0};
	unsigned char buf[512];
	struct hx_err err = {0};
	bool retry;
	uint32_t huge = htonl(1u << 30);

	(void)state;
	assert_true(check_against(buf, msg(buf, 'R', md5, sizeof(md5)), &retry, &err) < 0);
	assert_non_null(strstr(err.msg, "authentication method 5"));
	assert_true(check_against(buf, msg(buf, 'R', sasl_other, sizeof(sasl_other)), &retry, &err) < 0);
	assert_non_null(strstr(err.msg, "does not offer SCRAM-SHA-256"));
	/* a length no backend sends: refused before any allocation */
	buf[0] = 'R';
	memcpy(buf + 1, &huge, 4);
	assert_true(check_against(buf, 5, &retry, &err) < 0);
	assert_non_null(strstr(err.msg, "not PostgreSQL?"));
	/* the server hangs up, or says nothing: each a clear error, never a hang */
	assert_true(check_against_(buf, 0, true, &retry, &err) < 0);
	assert_true(err.errnum == EPIPE || err.errnum == ECONNRESET);
	assert_true(check_against(buf, 0, &retry, &err) < 0);
	assert_int_equal(err.errnum, ETIMEDOUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scram_rfc7677),	cmocka_unit_test(test_scram_bad_server_first),
		cmocka_unit_test(test_error_responses), cmocka_unit_test(test_protocol_refusals),
		cmocka_unit_test(test_query_value),	cmocka_unit_test(test_one_send_per_message),
		cmocka_unit_test(test_large_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
