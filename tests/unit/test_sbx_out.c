/* The output a sandbox's init keeps (sandbox/sbx_out.c): what the payload writes reaches the file; when the file is
 * a pipe whose reader has gone, the payload's own pipe is closed too, so its next write fails (EPIPE) as it would
 * with no sandbox between: harness ab ends a duet's load client that way, which otherwise ran on unread. */
#include "testutil.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "sandbox/sbx_out.h"

/* The payload's side of the stream (the write end init closes after the fork) and init's, as the sandbox sets
 * them up: keep[] gets what init holds. */
static void open_stream(struct sbx_out *o, int file, int *ret_payload)
{
	int keep[4];
	size_t n = 0;

	assert_int_equal(sbx_out_open(o, file, -1, 0), 0);
	*ret_payload = dup(o->s[0].wr);
	assert_true(*ret_payload >= 0);
	sbx_out_init_side(o, keep, &n);
	assert_int_equal(n, 2);
}

static void test_relays(void **state)
{
	struct sbx_out *o = calloc(1, sizeof(*o));
	int file[2], payload;
	char buf[16];

	(void)state;
	assert_non_null(o);
	assert_int_equal(pipe2(file, O_CLOEXEC), 0);
	open_stream(o, file[1], &payload);
	assert_int_equal(write(payload, "hello\n", 6), 6);
	assert_true(sbx_out_pump(o, 0)); /* EAGAIN: the stream goes on */
	assert_int_equal(read(file[0], buf, sizeof(buf)), 6);
	assert_memory_equal(buf, "hello\n", 6);
	close(payload);
	assert_false(sbx_out_pump(o, 0)); /* every writer gone: its end */
	sbx_out_finish(o);
	close(file[0]);
	close(file[1]);
	free(o);
}

static void test_reader_gone_reaches_the_payload(void **state)
{
	struct sbx_out *o = calloc(1, sizeof(*o));
	int file[2], payload;

	(void)state;
	assert_non_null(o);
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe2(file, O_CLOEXEC), 0);
	open_stream(o, file[1], &payload);
	close(file[0]); /* the reader of the file goes away */
	assert_int_equal(write(payload, "line 1\n", 7), 7);
	assert_false(sbx_out_pump(o, 0));
	assert_int_equal(o->s[0].rd, -1);
	/* the payload's next write fails as a write to the file itself would */
	errno = 0;
	assert_int_equal(write(payload, "line 2\n", 7), -1);
	assert_int_equal(errno, EPIPE);
	sbx_out_finish(o); /* nothing left to read, nothing written */
	close(payload);
	close(file[1]);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relays),
		cmocka_unit_test(test_reader_gone_reaches_the_payload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
