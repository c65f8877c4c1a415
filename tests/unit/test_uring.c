/* The io_uring pieces of the load client on this kernel: set-up (the mode the kernel takes, asked of it
 * here directly, and the fallbacks HARNESS_LOAD_URING forces), the full submission ring, the timed wait,
 * a multishot receive into provided buffers handed back and reused, a batched send, and completions of a
 * closed socket. Skipped with the reason where the kernel or a seccomp filter refuses io_uring. */
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"
#include "load/uring.h"

static bool usable(void)
{
	const char *why = uring_unsupported();

	if (why) {
		fprintf(stderr, "skipped: io_uring cannot be used here: %s\n", why);
		if (getenv("HARNESS_MUST_WORK") && strcmp(getenv("HARNESS_MUST_WORK"), "1") == 0)
			fail_msg("HARNESS_MUST_WORK=1 and io_uring is refused: %s", why);
	}
	return !why;
}

static void test_full_ring_and_timed_wait(void **state)
{
	struct uring r;
	struct hx_err err = {0};
	unsigned head, n = 0;
	uint64_t t0;

	(void)state;
	if (!usable())
		skip();
	assert_int_equal(uring_setup(&r, 4, false, &err), 0);
	for (unsigned i = 0; i < r.sq_entries; i++) {
		struct io_uring_sqe *sqe = uring_sqe(&r);

		assert_non_null(sqe);
		sqe->opcode = IORING_OP_NOP;
		sqe->user_data = 100 + i;
	}
	assert_null(uring_sqe(&r)); /* full until submitted */
	assert_int_equal(uring_enter(&r, r.sq_entries, 1000000000u), (int)r.sq_entries);
	n = uring_cq_ready(&r, &head);
	assert_int_equal(n, r.sq_entries);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(uring_cqe_at(&r, head + i)->user_data, 100 + i);
	uring_cq_advance(&r, n);
	assert_non_null(uring_sqe(&r)); /* room again (a NOP left prepared) */
	r.sq_pending = 0;
	/* nothing to complete: the wait ends at its timeout, not before, and is not an error */
	t0 = util_now_ns();
	assert_int_equal(uring_enter(&r, 1, 20000000u), 0);
	assert_true(util_now_ns() - t0 >= 15000000u);
	assert_int_equal(uring_cq_ready(&r, &head), 0);
	uring_close(&r);
}

static void recv_sqe(struct uring *r, int fd, uint16_t bgid)
{
	struct io_uring_sqe *sqe = uring_sqe(r);

	sqe->opcode = IORING_OP_RECV;
	sqe->fd = fd;
	sqe->ioprio = IORING_RECV_MULTISHOT;
	sqe->flags = IOSQE_BUFFER_SELECT;
	sqe->buf_group = bgid;
	sqe->user_data = 7;
}

/* Two buffers of 8 bytes: 20 bytes arrive as 8 + 8 + 4 once the first two are handed back; the receive
 * stays armed throughout, and ends with an EOF completion (res 0, no F_MORE) when the peer closes. */
static void test_multishot_into_provided_buffers(void **state)
{
	struct uring r;
	struct uring_bufs b;
	struct hx_err err = {0};
	char got[64] = "";
	size_t len = 0;
	int sv[2];
	bool eof = false;

	(void)state;
	if (!usable())
		skip();
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(uring_setup(&r, 8, false, &err), 0);
	assert_int_equal(uring_bufs_setup(&r, &b, 3, 2, 8, &err), 0);
	recv_sqe(&r, sv[0], 3);
	assert_int_equal(uring_enter(&r, 0, 0), 1);
	assert_int_equal(write(sv[1], "0123456789abcdefghij", 20), 20);
	for (int round = 0; round < 10 && !eof; round++) {
		unsigned head, n;

		if (len == 20)
			close(sv[1]);
		uring_enter(&r, 1, 1000000000u);
		n = uring_cq_ready(&r, &head);
		for (unsigned i = 0; i < n; i++) {
			struct io_uring_cqe *cqe = uring_cqe_at(&r, head + i);

			assert_int_equal(cqe->user_data, 7);
			if (cqe->res == -ENOBUFS) { /* both taken before we gave any back: arm again */
				recv_sqe(&r, sv[0], 3);
				continue;
			}
			if (cqe->res == 0) {
				assert_false(cqe->flags & IORING_CQE_F_MORE);
				eof = true;
				continue;
			}
			assert_true(cqe->res > 0 && cqe->res <= 8);
			assert_true(cqe->flags & IORING_CQE_F_BUFFER);
			memcpy(got + len, uring_buf(&b, cqe->flags >> IORING_CQE_BUFFER_SHIFT), (size_t)cqe->res);
			len += (size_t)cqe->res;
			uring_bufs_put(&b, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
			if (!(cqe->flags & IORING_CQE_F_MORE) && len < 20)
				recv_sqe(&r, sv[0], 3);
		}
		uring_cq_advance(&r, n);
	}
	assert_int_equal(len, 20);
	assert_memory_equal(got, "0123456789abcdefghij", 20);
	assert_true(eof);
	close(sv[0]);
	uring_close(&r);
	uring_bufs_close(&r, &b);
}

/* Three sends in one submission arrive in order, each completing with its length. */
static void test_batched_sends(void **state)
{
	static const char *const parts[] = {"GET / HTTP/1.1\r\n", "Host: x\r\n", "\r\n"};
	struct uring r;
	struct hx_err err = {0};
	char got[64] = "";
	unsigned head, n;
	int sv[2];
	ssize_t k;

	(void)state;
	if (!usable())
		skip();
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(uring_setup(&r, 8, false, &err), 0);
	for (unsigned i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = uring_sqe(&r);

		sqe->opcode = IORING_OP_SEND;
		sqe->fd = sv[1];
		sqe->addr = (uint64_t)(uintptr_t)parts[i];
		sqe->len = (unsigned)strlen(parts[i]);
		sqe->flags = IOSQE_IO_LINK * (i < 2); /* in order */
		sqe->user_data = i;
	}
	assert_int_equal(uring_enter(&r, 3, 1000000000u), 3);
	n = uring_cq_ready(&r, &head);
	assert_int_equal(n, 3);
	for (unsigned i = 0; i < n; i++) {
		struct io_uring_cqe *cqe = uring_cqe_at(&r, head + i);

		assert_int_equal(cqe->res, (int)strlen(parts[cqe->user_data]));
	}
	uring_cq_advance(&r, n);
	k = read(sv[0], got, sizeof(got) - 1);
	assert_int_equal(k, 27);
	assert_string_equal(got, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	close(sv[0]);
	close(sv[1]);
	uring_close(&r);
}

/* The best mode this kernel takes, asked with io_uring_setup itself: what uring_setup must have got. */
static enum uring_mode kernel_mode(void)
{
	static const unsigned flags[] = {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
					 IORING_SETUP_COOP_TASKRUN, 0};

	for (unsigned i = 0; i < 3; i++) {
		struct io_uring_params p;
		int fd;

		memset(&p, 0, sizeof(p));
		p.flags = flags[i] | IORING_SETUP_R_DISABLED;
		fd = (int)syscall(__NR_io_uring_setup, 8, &p);
		if (fd >= 0) {
			close(fd);
			return (enum uring_mode)i;
		}
	}
	return URING_OFF;
}

static void test_setup_takes_the_kernels_best_mode(void **state)
{
	static const char *const flags[] = {"single_issuer,defer_taskrun", "coop_taskrun", ""};
	enum uring_mode want;
	struct uring r;
	struct hx_err err = {0};
	char names[64];

	(void)state;
	if (!usable())
		skip();
	unsetenv("HARNESS_LOAD_URING");
	want = kernel_mode();
	assert_true(want != URING_OFF);
	assert_int_equal(uring_setup(&r, 8, true, &err), 0);
	assert_int_equal(r.mode, want);
	uring_flags_format(r.flags, names, sizeof(names));
	assert_string_equal(names, flags[want]);
	assert_false(r.flags & IORING_SETUP_R_DISABLED);	     /* the set-up's, not the mode's */
	assert_int_equal(r.refused[0] != '\0', want != URING_DEFER); /* a fallback says why */
	uring_close(&r);
}

/* Each limit starts the search lower (the fallback an older kernel takes), off refuses as a seccomp filter
 * would (exit 3), and anything else is bad usage. */
static void test_setup_limit_forces_each_fallback(void **state)
{
	static const struct {
		const char *value;
		enum uring_mode mode;
		const char *flags;
	} cases[] = {
		{"defer", URING_DEFER, "single_issuer,defer_taskrun"},
		{"coop", URING_COOP, "coop_taskrun"},
		{"default", URING_DEFAULT, ""},
	};
	struct uring r;
	struct hx_err err = {0};
	char names[64];

	(void)state;
	if (!usable())
		skip();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].mode < kernel_mode())
			continue; /* this kernel has not the mode to start from */
		setenv("HARNESS_LOAD_URING", cases[i].value, 1);
		assert_int_equal(uring_setup(&r, 8, false, &err), 0);
		assert_int_equal(r.mode, cases[i].mode);
		uring_flags_format(r.flags, names, sizeof(names));
		assert_string_equal(names, cases[i].flags);
		if (cases[i].mode != URING_DEFER)
			assert_non_null(strstr(r.refused, cases[i].value));
		uring_close(&r);
	}
	setenv("HARNESS_LOAD_URING", "off", 1);
	assert_true(uring_setup(&r, 8, false, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "HARNESS_LOAD_URING=off"));
	setenv("HARNESS_LOAD_URING", "sqpoll", 1);
	err = (struct hx_err){0};
	assert_true(uring_setup(&r, 8, false, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "'sqpoll'"));
	unsetenv("HARNESS_LOAD_URING");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup_takes_the_kernels_best_mode),
		cmocka_unit_test(test_setup_limit_forces_each_fallback),
		cmocka_unit_test(test_full_ring_and_timed_wait),
		cmocka_unit_test(test_multishot_into_provided_buffers),
		cmocka_unit_test(test_batched_sends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
