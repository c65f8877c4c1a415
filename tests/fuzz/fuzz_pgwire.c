/* libFuzzer target: pg_check against arbitrary bytes from a "server" (authentication requests, SCRAM
 * messages, errors, rows); it must end with 0 only after a row holding 1, else with a message. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "run/pgwire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hx_err err = {0};
	bool retry;
	int sv[2], rc;

	if (size > 65536 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return 0;
	if (write(sv[1], data, size) != (ssize_t)size) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	shutdown(sv[1], SHUT_WR); /* the server has said all it will say */
	rc = pg_check(sv[0], "harness", "secret", "postgres", 1000, &retry, &err);
	if (rc < 0 && !err.msg[0])
		abort();
	if (rc == 0 && (err.msg[0] || retry))
		abort();
	close(sv[0]);
	close(sv[1]);
	return 0;
}
