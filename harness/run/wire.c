/* The wire at readiness (docs/scenario.md, "The wire"): one response per trial, parsed into a res_wire, and
 * the comparison across the runtimes of a scenario that fails a run whose rows would compare different
 * answers. */
#include "run/wire.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/proc.h"
#include "base/util.h"

#define WIRE_MAX_HEAD (64u << 10)
/* The whole capture (connect, request, answer) has this long: a server that trickles its answer a byte at a
 * time cannot hold the trial longer than that, as a deadline per read would let it. */
#define WIRE_DEADLINE_S 10

/* One header line "Name: value" into ret: its name appended (lowercase), the framing and content type. */
static void header_line(const char *line, size_t len, struct res_wire *ret, long long *length, bool *chunked)
{
	const char *colon = memchr(line, ':', len), *v;
	size_t used = strlen(ret->headers), nlen, vlen;

	if (!colon)
		return;
	nlen = (size_t)(colon - line);
	for (v = colon + 1; v < line + len && (*v == ' ' || *v == '\t'); v++)
		;
	vlen = (size_t)(line + len - v);
	while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
		vlen--;
	if (used + nlen + 2 < sizeof(ret->headers)) {
		if (used)
			ret->headers[used++] = ',';
		for (size_t i = 0; i < nlen; i++)
			ret->headers[used++] = (char)tolower((unsigned char)line[i]);
		ret->headers[used] = '\0';
	}
	if (nlen == 14 && strncasecmp(line, "content-length", 14) == 0)
		for (size_t i = (*length = 0, 0); i < vlen && isdigit((unsigned char)v[i]) && *length < (1ll << 50);
		     i++)
			*length = *length * 10 + (v[i] - '0');
	else if (nlen == 17 && strncasecmp(line, "transfer-encoding", 17) == 0 && vlen >= 7 &&
		 strncasecmp(v + vlen - 7, "chunked", 7) == 0)
		*chunked = true;
	else if (nlen == 12 && strncasecmp(line, "content-type", 12) == 0)
		snprintf(ret->content_type, sizeof(ret->content_type), "%.*s", (int)vlen, v);
}

/* A chunked body from p (RFC 9112 7.1) into out: 1 complete, 0 more needed, -1 malformed. */
static int dechunk(const char *p, const char *end, char *out, size_t *ret_len)
{
	size_t n = 0;

	for (;;) {
		const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);
		char *stop;
		unsigned long size;

		if (!eol)
			return 0;
		if (!isxdigit((unsigned char)*p)) /* strtoul would skip white space past the line */
			return -1;
		size = strtoul(p, &stop, 16);
		if (stop > eol || (stop < eol && *stop != ';' && *stop != ' ') || size > WIRE_MAX_RESPONSE)
			return -1;
		p = eol + 2;
		if (size == 0) { /* trailers, then the empty line */
			if (end - p >= 2 && p[0] == '\r' && p[1] == '\n')
				return *ret_len = n, 1;
			return memmem(p, (size_t)(end - p), "\r\n\r\n", 4) ? (*ret_len = n, 1) : 0;
		}
		if ((size_t)(end - p) < size + 2)
			return 0;
		memcpy(out + n, p, size);
		n += size;
		p += size + 2;
	}
}

/* The length of buf's first line, at most n. */
static size_t strcspn_n(const char *buf, size_t n)
{
	size_t i = 0;

	while (i < n && buf[i] != '\r' && buf[i] != '\n')
		i++;
	return i;
}

int wire_parse(const char *buf, size_t len, bool eof, struct res_wire *ret, struct hx_err *err)
{
	const char *head_end = memmem(buf, len, "\r\n\r\n", 4), *p, *body;
	_cleanup_free_ char *plain = NULL;
	long long length = -1;
	bool chunked = false;
	size_t blen = 0;
	int rc = 1;

	if (!head_end)
		return len > WIRE_MAX_HEAD ? hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "a head of more than 64 KiB")
		       : eof		   ? hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "the answer ended in its head")
					   : 0;
	ret->headers[0] = ret->content_type[0] = '\0';
	/* buf is not NUL-terminated: every read of it is bounded by len */
	if (len < 12 || strncmp(buf, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)buf[9]) ||
	    !isdigit((unsigned char)buf[10]) || !isdigit((unsigned char)buf[11]))
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "not an HTTP/1.x status line: '%.*s'",
			       (int)strcspn_n(buf, len < 40 ? len : 40), buf);
	ret->status = (unsigned)((buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0'));
	ret->header_bytes = (uint64_t)(head_end + 4 - buf);
	for (p = (const char *)memmem(buf, len, "\r\n", 2) + 2; p < head_end;) {
		const char *eol = memmem(p, (size_t)(head_end + 2 - p), "\r\n", 2);

		header_line(p, (size_t)(eol - p), ret, &length, &chunked);
		p = eol + 2;
	}
	body = head_end + 4;
	snprintf(ret->framing, sizeof(ret->framing), "%s",
		 chunked       ? "chunked"
		 : length >= 0 ? "content-length"
			       : "close");
	if (chunked) {
		if (!(plain = malloc((size_t)(buf + len - body) + 1)))
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
		rc = dechunk(body, buf + len, plain, &blen);
		if (rc < 0)
			return hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "a malformed chunk");
		body = plain;
	} else if (length >= 0) {
		rc = (size_t)(buf + len - body) >= (size_t)length;
		blen = (size_t)length;
	} else if (ret->status == 204 || ret->status == 304 || ret->status < 200) {
		blen = 0;
	} else {
		rc = eof;
		blen = (size_t)(buf + len - body);
	}
	if (!rc)
		return eof ? hx_fail(err, HX_EXIT_VERDICT, EBADMSG, "the answer ended in its body") : 0;
	ret->body_bytes = blen;
	util_sha256_hex(body, blen, ret->body_sha256, sizeof(ret->body_sha256));
	return 1;
}

bool wire_wanted(const struct scenario *s)
{
	return s->workload == SCN_HTTP && !s->tls;
}

/* Whether name is in the comma-separated list. */
static bool has_name(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* What differs is appended to the verdict's list or, when the scenario declares it, to the note. */
struct wire_diff {
	char bad[768], note[sizeof(((struct res_wire *)0)->differs)];
};

static void differ(const struct scenario *s, const char *what, const char *detail, struct wire_diff *d)
{
	const char *why = scn_inherent_why(s, what);
	char *to = why ? d->note : d->bad;
	size_t cap = why ? sizeof(d->note) : sizeof(d->bad), used = strlen(to);

	snprintf(to + used, cap - used, "%s%s (%s)%s%s", used ? "; " : "", what, detail, why ? ": " : "",
		 why ? why : "");
}

/* The names one side sends and the other does not, each once. */
static void names_differ(const struct scenario *s, const char *a_rt, const char *a, const char *b_rt, const char *b,
			 struct wire_diff *d)
{
	char name[64], detail[192];

	for (const char *p = a; *p;) {
		size_t n = strcspn(p, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (!has_name(b, name)) {
			snprintf(detail, sizeof(detail), "%s sends it, %s does not", a_rt, b_rt);
			differ(s, name, detail, d);
		}
		p += n + (p[n] == ',');
	}
}

int wire_compare(const struct scenario *s, const char *ref_runtime, const struct res_wire *ref, const char *runtime,
		 struct res_wire *cur, struct hx_err *err)
{
	struct wire_diff d = {"", ""};
	char detail[320];

	if (cur->status != ref->status)
		return hx_fail(err, HX_EXIT_VERDICT, EBADMSG,
			       "the wire at readiness: %s answers %s with status %u, %s with %u", runtime, cur->path,
			       cur->status, ref_runtime, ref->status);
	names_differ(s, ref_runtime, ref->headers, runtime, cur->headers, &d);
	names_differ(s, runtime, cur->headers, ref_runtime, ref->headers, &d);
	if (strcmp(cur->content_type, ref->content_type) != 0 && has_name(cur->headers, "content-type") &&
	    has_name(ref->headers, "content-type")) {
		snprintf(detail, sizeof(detail), "%s sends '%s', %s '%s'", ref_runtime, ref->content_type, runtime,
			 cur->content_type);
		differ(s, "content-type", detail, &d);
	}
	if (strcmp(cur->body_sha256, ref->body_sha256) != 0) {
		snprintf(detail, sizeof(detail), "%s: %llu bytes, sha256 %.12s…; %s: %llu bytes, sha256 %.12s…",
			 ref_runtime, (unsigned long long)ref->body_bytes, ref->body_sha256, runtime,
			 (unsigned long long)cur->body_bytes, cur->body_sha256);
		differ(s, "body", detail, &d);
	}
	snprintf(cur->differs, sizeof(cur->differs), "%s", d.note);
	if (!d.bad[0])
		return 0;
	return hx_fail(err, HX_EXIT_VERDICT, EBADMSG,
		       "the wire at readiness: %s and %s answer %s differently (%s answers %s, %s %s): %s; a "
		       "difference that is the runtime's own goes in scenario.json's wire.inherent with why",
		       ref_runtime, runtime, cur->path, ref_runtime, ref->framing, runtime, cur->framing, d.bad);
}

/* The capture's request: the load's path, or the first route with its headers. */
static size_t request_for(const struct scenario *s, char *req, size_t cap, char *path, size_t plen)
{
	const struct scn_route *r = s->nroutes ? &s->routes[0] : NULL;
	size_t n;

	snprintf(path, plen, "%s", r ? r->path : s->ready_path);
	n = (size_t)snprintf(req, cap, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n", path, s->port);
	for (size_t i = 0; r && i < r->nheaders && n < cap; i++)
		n += (size_t)snprintf(req + n, cap - n, "%s\r\n", r->headers[i]);
	return n + (size_t)snprintf(req + n, cap - n, "\r\n");
}

/* Wait until fd is ready for events or the deadline (CLOCK_MONOTONIC) passes: 1 ready, 0 the deadline. */
static int wait_fd(int fd, short events, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = util_now_ns();
		struct pollfd pfd = {.fd = fd, .events = events};
		int n;

		if (now >= deadline_ns)
			return 0;
		n = poll(&pfd, 1, (int)((deadline_ns - now + 999999) / 1000000));
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

/* The capture's deadline passed during the answer: how much of it came. */
static int too_slow(const char *path, const char *buf, size_t len, struct hx_err *err)
{
	return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT,
		       "the server sent no whole answer to GET %s within %d s: %zu bytes came, %s not whole", path,
		       WIRE_DEADLINE_S, len, memmem(buf, len, "\r\n\r\n", 4) ? "its body" : "its head");
}

/* In the probe child: connect in the run's network namespace, ask once (keep-alive, as the load client does),
 * read until the answer is complete, all of it before one deadline. */
static int capture_child(int netns_fd, const struct scenario *s, struct res_wire *ret, struct hx_err *err)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((unsigned short)s->port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	uint64_t deadline = util_now_ns() + (uint64_t)WIRE_DEADLINE_S * 1000000000ull;
	_cleanup_free_ char *buf = malloc(WIRE_MAX_RESPONSE);
	_cleanup_close_ int fd = -1;
	char req[1024];
	size_t n = request_for(s, req, sizeof(req), ret->path, sizeof(ret->path)), len = 0, sent = 0;
	int rc = 0, soerr = 0;
	socklen_t sl = sizeof(soerr);

	if (!buf)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (setns(netns_fd, CLONE_NEWNET) < 0 ||
	    (fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return hx_syserr(err, "a socket in the run's network namespace");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 && errno != EINPROGRESS)
		return hx_syserr(err, "connecting to 127.0.0.1:%u", s->port);
	if (wait_fd(fd, POLLOUT, deadline) == 0)
		return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT, "the server took no connection within %d s",
			       WIRE_DEADLINE_S);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr)
		errno = soerr;
	if (soerr || sl != sizeof(soerr))
		return hx_syserr(err, "connecting to 127.0.0.1:%u", s->port);
	while (sent < n) {
		ssize_t w = write(fd, req + sent, n - sent);

		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return hx_syserr(err, "sending the request");
		if (w < 0 && wait_fd(fd, POLLOUT, deadline) == 0)
			return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT, "the server took no request within %d s",
				       WIRE_DEADLINE_S);
		sent += w > 0 ? (size_t)w : 0;
	}
	while (rc == 0 && len < WIRE_MAX_RESPONSE) {
		ssize_t got = read(fd, buf + len, WIRE_MAX_RESPONSE - len);

		if (got < 0 && errno != EAGAIN && errno != EINTR)
			return hx_syserr(err, "reading the answer");
		if (got < 0 && wait_fd(fd, POLLIN, deadline) == 0)
			return too_slow(ret->path, buf, len, err);
		if (got < 0)
			continue;
		len += (size_t)got;
		rc = wire_parse(buf, len, got == 0, ret, err);
	}
	return rc < 0 ? rc : rc == 0 ? hx_fail(err, HX_EXIT_VERDICT, E2BIG, "an answer of more than 4 MiB") : 0;
}

static ssize_t read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Fork into the network namespace, capture, and hand the result back over a pipe. */
static int capture(int netns_fd, const struct scenario *s, struct res_wire *ret, struct hx_err *err)
{
	struct {
		int rc;
		struct hx_err err;
		struct res_wire w;
	} out = {0};
	int p[2], status;
	pid_t pid;
	ssize_t got;

	if (pipe2(p, O_CLOEXEC) < 0)
		return hx_syserr(err, "pipe");
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		out.rc = capture_child(netns_fd, s, &out.w, &out.err);
		_exit(write(p[1], &out, sizeof(out)) == (ssize_t)sizeof(out) ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return hx_syserr(err, "fork");
	}
	/* the child keeps the deadline itself (its report, a few KiB, fits the pipe: it can exit before it is read);
	 * this one, a little later, holds whatever it is stuck in */
	if (proc_wait_first(&pid, 1, util_now_ns() + (WIRE_DEADLINE_S + 5ull) * 1000000000ull, NULL, &status) < 0) {
		kill(pid, SIGKILL);
		proc_reap(&pid, NULL);
	}
	got = read_all(p[0], &out, sizeof(out));
	close(p[0]);
	if (got != (ssize_t)sizeof(out))
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "the capture's child reported nothing");
	if (out.rc < 0)
		return (*err = out.err, -err->errnum);
	*ret = out.w;
	return 0;
}

int wire_check(struct wire_refs *refs, int netns_fd, const struct scenario *s, const char *runtime,
	       struct res_wire *ret, struct hx_err *err)
{
	if (capture(netns_fd, s, ret, err) < 0)
		return hx_wrap(err, "the wire at readiness: scenario %s, runtime %s", s->name, runtime);
	for (size_t i = 0; i < refs->n; i++)
		if (strcmp(refs->r[i].scenario, s->name) == 0)
			return wire_compare(s, refs->r[i].runtime, &refs->r[i].w, runtime, ret, err);
	if (refs->n < WIRE_MAX_REFS) {
		struct wire_ref *r = &refs->r[refs->n++];

		snprintf(r->scenario, sizeof(r->scenario), "%s", s->name);
		snprintf(r->runtime, sizeof(r->runtime), "%s", runtime);
		r->w = *ret;
	}
	return 0;
}
