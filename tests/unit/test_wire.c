/* The wire at readiness: responses parsed as they come off the socket, and the comparison across runtimes
 * that fails a scenario whose runtimes answer differently unless it declares the difference inherent. */
#include "testutil.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "base/util.h"
#include "run/scenario.h"
#include "run/wire.h"

/* node:http after writeHead without Content-Length: chunked, with its Connection and Keep-Alive. */
static const char node_chunked[] =
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: Tue, 01 Dec 2026 09:00:00 GMT\r\n"
	"Connection: keep-alive\r\nKeep-Alive: timeout=5\r\nTransfer-Encoding: chunked\r\n\r\n"
	"d\r\nHello, World!\r\n0\r\n\r\n";
static const char bun_length[] =
	"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nDate: Tue, 01 Dec 2026 09:00:00 GMT\r\n"
	"Content-Length: 13\r\n\r\nHello, World!";
/* sha256sum of "Hello, World!" */
static const char hello_sha[] = "dffd6021bb2bd5b0af676290809ec3a53191dd81c7f70a4b28688a362182986f";

static void parsed(const char *text, struct res_wire *w)
{
	struct hx_err err = {0};

	memset(w, 0, sizeof(*w));
	if (wire_parse(text, strlen(text), false, w, &err) != 1)
		fail_msg("not complete: %s", err.msg);
}

static void test_parse(void **state)
{
	struct res_wire w;
	struct hx_err err = {0};

	(void)state;
	parsed(node_chunked, &w);
	assert_int_equal(w.status, 200);
	assert_string_equal(w.framing, "chunked");
	assert_string_equal(w.headers, "content-type,date,connection,keep-alive,transfer-encoding");
	assert_int_equal(w.header_bytes, strstr(node_chunked, "\r\n\r\n") + 4 - node_chunked);
	assert_int_equal(w.body_bytes, 13);
	assert_string_equal(w.body_sha256, hello_sha); /* the chunks undone */
	assert_string_equal(w.content_type, "text/plain");
	parsed(bun_length, &w);
	assert_string_equal(w.framing, "content-length");
	assert_string_equal(w.body_sha256, hello_sha);
	/* cut anywhere before its end, an answer is not complete yet; at the end of the stream it is an error */
	for (size_t n = 0; n < sizeof(node_chunked) - 1; n++) {
		memset(&w, 0, sizeof(w));
		assert_int_equal(wire_parse(node_chunked, n, false, &w, &err), 0);
		assert_true(wire_parse(node_chunked, n, true, &w, &err) < 0);
	}
	/* framed by the close: complete only at the end of the stream */
	static const char closed[] = "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nHello, World!";
	memset(&w, 0, sizeof(w));
	assert_int_equal(wire_parse(closed, strlen(closed), false, &w, &err), 0);
	assert_int_equal(wire_parse(closed, strlen(closed), true, &w, &err), 1);
	assert_string_equal(w.framing, "close");
	assert_string_equal(w.body_sha256, hello_sha);
	assert_true(wire_parse("SSH-2.0-x\r\n\r\n", 13, false, &w, &err) < 0);
	static const char bad_chunk[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
	assert_true(wire_parse(bad_chunk, strlen(bad_chunk), false, &w, &err) < 0);
}

static void scenario_with(const char *wire, struct scenario *s)
{
	char text[1024];
	struct hx_err err = {0};

	snprintf(text, sizeof(text),
		 "{\"name\":\"w\",\"workload\":\"http\",\"runtimes\":[\"node24\",\"bun\"],\"script\":\"s.js\","
		 "\"load\":{}%s%s}",
		 wire[0] ? "," : "", wire);
	if (scn_parse("w.json", text, s, &err) < 0)
		fail_msg("%s", err.msg);
}

static void test_compare(void **state)
{
	struct scenario s;
	struct res_wire node, bun;
	struct hx_err err = {0};

	(void)state;
	parsed(node_chunked, &node);
	parsed(bun_length, &bun);
	scenario_with("", &s);
	/* undeclared: the run fails naming both runtimes and the headers that frame the body */
	assert_int_equal(wire_compare(&s, "node24", &node, "bun", &bun, &err), -EBADMSG);
	assert_int_equal(err.exit, HX_EXIT_VERDICT);
	assert_non_null(strstr(err.msg, "node24 and bun answer"));
	assert_non_null(strstr(err.msg, "node24 answers chunked, bun content-length"));
	assert_non_null(strstr(err.msg, "transfer-encoding (node24 sends it, bun does not)"));
	assert_non_null(strstr(err.msg, "content-length (bun sends it, node24 does not)"));
	assert_null(strstr(err.msg, "date"));
	/* node's own Connection and Keep-Alive declared: only the framing fails */
	hx_clear(&err);
	scenario_with("\"wire\":{\"inherent\":{\"connection\":\"node:http's\",\"keep-alive\":\"node:http's\"}}", &s);
	assert_int_equal(wire_compare(&s, "node24", &node, "bun", &bun, &err), -EBADMSG);
	assert_null(strstr(err.msg, "keep-alive"));
	assert_non_null(strstr(err.msg, "transfer-encoding"));
	assert_non_null(strstr(bun.differs, "keep-alive (node24 sends it, bun does not): node:http's"));
	/* the same framing: the declared differences are a note, the run goes on */
	hx_clear(&err);
	parsed("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: x\r\nConnection: keep-alive\r\n"
	       "Keep-Alive: timeout=5\r\nContent-Length: 13\r\n\r\nHello, World!",
	       &node);
	assert_int_equal(wire_compare(&s, "node24", &node, "bun", &bun, &err), 0);
	assert_non_null(strstr(bun.differs, "connection"));
	/* another body, another content type or status: named */
	parsed("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nDate: x\r\nContent-Length: 5\r\n\r\nHello", &node);
	assert_true(wire_compare(&s, "node24", &node, "bun", &bun, &err) < 0);
	assert_non_null(strstr(err.msg, "content-type (node24 sends 'text/html', bun 'text/plain')"));
	assert_non_null(strstr(err.msg, "body (node24: 5 bytes"));
	parsed("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", &node);
	assert_true(wire_compare(&s, "node24", &node, "bun", &bun, &err) < 0);
	assert_non_null(strstr(err.msg, "status 200, node24 with 404"));
}

/* "adapter_cost": the two null-handler servers of the adapter's duet, scripts of the folder, for a scenario with an
 * adapter and a plain http workload. */
static void adapter_cost_keys(void)
{
	static const char *const bad[][2] = {
		{"\"adapter_cost\":{\"adapter\":\"a.mjs\",\"plain\":\"p.mjs\"}", "declares none"},
		{"\"adapter\":{\"bun\":\"x\"},\"adapter_cost\":{\"adapter\":\"a.mjs\"}", "expected {"},
		{"\"adapter\":{\"bun\":\"x\"},\"adapter_cost\":{\"adapter\":\"/a.mjs\",\"plain\":\"p.mjs\"}",
		 "adapter_cost.adapter"},
		{"\"adapter\":{\"bun\":\"x\"},\"adapter_cost\":{\"adapter\":\"a.mjs\",\"plain\":\"../p.mjs\"}",
		 "adapter_cost.plain"},
		{"\"adapter\":{\"bun\":\"x\"},\"adapter_cost\":{\"adapter\":\"a.mjs\",\"plan\":\"p.mjs\"}",
		 "adapter_cost.plain"},
		{"\"tls\":true,\"adapter\":{\"bun\":\"x\"},\"adapter_cost\":{\"adapter\":\"a.mjs\",\"plain\":"
		 "\"p.mjs\"}",
		 "not with tls"},
	};
	struct scenario s;
	struct hx_err err = {0};
	char text[1024];

	scenario_with("\"adapter\":{\"node24\":\"serve-node.mjs\"},\"adapter_cost\":{\"adapter\":\"cost/a.mjs\","
		      "\"plain\":\"cost/p.mjs\"}",
		      &s);
	assert_string_equal(s.adapter_cost.adapter, "cost/a.mjs");
	assert_string_equal(s.adapter_cost.plain, "cost/p.mjs");
	scenario_with("", &s);
	assert_string_equal(s.adapter_cost.adapter, "");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"name\":\"w\",\"workload\":\"http\",\"runtimes\":[\"bun\"],\"script\":\"s.js\",\"load\":{},"
			 "%s}",
			 bad[i][0]);
		assert_int_equal(scn_parse("w.json", text, &s, &err), -EINVAL);
		assert_int_equal(err.exit, HX_EXIT_USAGE);
		if (!strstr(err.msg, bad[i][1]))
			fail_msg("%s: %s", bad[i][0], err.msg);
	}
}

/* scenario.json's "wire": strict like the rest. */
static void test_scenario_key(void **state)
{
	static const char *const bad[] = {
		"\"wire\":[]",
		"\"wire\":{\"inherent\":{\"Keep-Alive\":\"why\"}}",
		"\"wire\":{\"inherent\":{\"keep-alive\":\"\"}}",
		"\"wire\":{\"inherent\":{\"keep-alive\":3}}",
		"\"wire\":{\"inherits\":{}}",
		"\"wire\":{\"inherent\":{\"a\":\"1\",\"b\":\"1\",\"c\":\"1\",\"d\":\"1\",\"e\":\"1\",\"f\":\"1\",\"g\":"
		"\"1\",\"h\":\"1\",\"i\":\"1\"}}",
	};
	struct scenario s;
	struct hx_err err = {0};
	char text[1024];

	(void)state;
	scenario_with("\"wire\":{\"inherent\":{\"body\":\"each runtime's zlib\"}}", &s);
	assert_int_equal(s.ninherent, 1);
	assert_string_equal(scn_inherent_why(&s, "body"), "each runtime's zlib");
	assert_null(scn_inherent_why(&s, "date"));
	/* the adapter a runtime runs the app through: one of the scenario's runtimes, with what it is */
	scenario_with("\"adapter\":{\"node24\":\"serve-node.mjs: userland node:http to fetch\"}", &s);
	assert_string_equal(scn_adapter_for(&s, &(struct manifest){.name = "node24"}),
			    "serve-node.mjs: userland node:http to fetch");
	assert_null(scn_adapter_for(&s, &(struct manifest){.name = "bun"}));
	snprintf(text, sizeof(text),
		 "{\"name\":\"w\",\"workload\":\"http\",\"runtimes\":[\"bun\"],\"script\":\"s.js\",\"load\":{},"
		 "\"adapter\":{\"deno\":\"x\"}}");
	assert_int_equal(scn_parse("w.json", text, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "w.json: adapter: deno is not one of the scenario's runtimes"));
	adapter_cost_keys();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"name\":\"w\",\"workload\":\"http\",\"runtimes\":[\"bun\"],\"script\":\"s.js\",\"load\":{},"
			 "%s}",
			 bad[i]);
		assert_int_equal(scn_parse("w.json", text, &s, &err), -EINVAL);
		assert_int_equal(err.exit, HX_EXIT_USAGE);
		assert_non_null(strstr(err.msg, "w.json: wire"));
	}
}

/* A server on 127.0.0.1 (in this process's network namespace) that sends a head promising 1000 bytes and then
 * one byte a second, until the reader hangs up: every read gets a byte well before any timeout per read. */
static pid_t trickler(unsigned *ret_port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	pid_t pid;

	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &alen), 0);
	*ret_port = ntohs(a.sin_port);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
		char req[1024];
		int fd = accept(lfd, NULL, NULL);
		struct pollfd p = {.fd = fd, .events = POLLIN};

		if (fd < 0 || read(fd, req, sizeof(req)) <= 0 || write(fd, head, sizeof(head) - 1) < 0)
			_exit(1);
		for (int i = 0; i < 60 && poll(&p, 1, 1000) == 0; i++) /* readable: the reader hung up */
			if (write(fd, "x", 1) != 1)
				break;
		_exit(0);
	}
	close(lfd);
	return pid;
}

/* The capture has one deadline for the whole answer (10 s), not one per read: a trickled answer ends there,
 * failing with the scenario, the runtime and what was slow named. */
static void test_capture_deadline(void **state)
{
	struct scenario *s = calloc(1, sizeof(*s));
	struct wire_refs *refs = calloc(1, sizeof(*refs));
	struct hx_err err = {0};
	struct res_wire w = {0};
	int netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	pid_t server;
	uint64_t t0;
	double took;

	(void)state;
	assert_non_null(s);
	assert_non_null(refs);
	if (geteuid() != 0 || netns < 0) {
		free(s), free(refs);
		skip(); /* setns needs CAP_SYS_ADMIN, even into one's own namespace */
	}
	snprintf(s->name, sizeof(s->name), "trickle");
	snprintf(s->ready_path, sizeof(s->ready_path), "/");
	s->workload = SCN_HTTP;
	server = trickler(&s->port);
	t0 = util_now_ns();
	assert_int_equal(wire_check(refs, netns, s, "node20", &w, &err), -ETIMEDOUT);
	took = (double)(util_now_ns() - t0) / 1e9;
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	close(netns);
	free(s), free(refs);
	assert_true(took >= 9.5 && took < 13);
	assert_int_equal(err.exit, HX_EXIT_VERDICT);
	assert_non_null(strstr(err.msg, "the wire at readiness: scenario trickle, runtime node20: the server sent no "
					"whole answer to GET / within 10 s: "));
	assert_non_null(strstr(err.msg, "bytes came, its body not whole"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_scenario_key),
		cmocka_unit_test(test_capture_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
