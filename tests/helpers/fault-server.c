/* fault-server MODE [N]: an HTTP/1.1 (or WebSocket) server on 127.0.0.1 that misbehaves in one way, for
 * the fault suite (tests/integration/faults.bats). It prints "port N" once listening; each connection is
 * served by a forked child that dies with the server. Modes:
 *   silent        accept, read the request, never answer
 *   loris         answer one byte a second
 *   close-after N answer N requests in all, then close every connection and stop listening
 *   bad-status    answer "HTTP/1.1 OK 200" (no status code)
 *   trunc-chunked a chunked body cut off in its second chunk, then close
 *   length-lie    Content-Length: 1000 with a 13-byte body, then close
 *   short-every N every Nth answer on a connection is one byte short (well framed: only a check of the
 *                 length of every response sees it)
 *   ws-bad-frame  accept the WebSocket upgrade, then send a frame with the reserved opcode 0x3
 * and the WebSocket RPC protocol of `harness load --rpc` ("<id> echo|incr", "g get"; docs/load.md):
 *   rpc-ok        answer every request once, increments atomic (the control: the checks pass)
 *   rpc-wrong-id  answer the 10th request of a connection with an id nobody sent
 *   rpc-dup       answer the 10th request of a connection twice
 *   rpc-lost      a non-atomic read-modify-write counter: the increments read from one socket read all
 *                 see the value from before it, as a SELECT then UPDATE with an await between would */
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static const char ok_resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nHello, World!";
static const char *mode;
static long limit;
static long *served; /* shared by the children: requests answered in all (close-after), the counter (rpc) */

/* One request's head, up to its blank line; 0 at EOF. Requests here carry no body. */
static int read_head(int fd, char *buf, size_t cap)
{
	size_t len = 0;

	while (len + 1 < cap) {
		ssize_t r = read(fd, buf + len, 1);

		if (r <= 0)
			return 0;
		len++;
		buf[len] = 0;
		if (len >= 4 && !memcmp(buf + len - 4, "\r\n\r\n", 4))
			return 1;
	}
	return 0;
}

static void send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void ws_accept(int fd, const char *head)
{
	const char *k = strcasestr(head, "Sec-WebSocket-Key:");
	char key[128] = "", in[192], out[64], resp[256];
	unsigned char md[SHA_DIGEST_LENGTH];

	if (k)
		sscanf(k + 18, " %100s", key);
	snprintf(in, sizeof(in), "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
	SHA1((const unsigned char *)in, strlen(in), md);
	EVP_EncodeBlock((unsigned char *)out, md, sizeof(md));
	snprintf(resp, sizeof(resp),
		 "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		 "Sec-WebSocket-Accept: %s\r\n\r\n",
		 out);
	send_all(fd, resp, strlen(resp));
}

static void ws_text(int fd, const char *s)
{
	char f[130];
	size_t n = strlen(s);

	f[0] = (char)0x81;
	f[1] = (char)n; /* answers here are short: under 126 bytes */
	memcpy(f + 2, s, n);
	send_all(fd, f, n + 2);
}

/* One request: its answer (or the mode's wrong one). snap: the counter as the socket read that brought
 * it found it. */
static void rpc_request(int fd, const char *req, long snap, long *nth)
{
	char id[32] = "", op[16] = "", out[64];
	long v = 0;

	if (sscanf(req, "%31s %15s", id, op) != 2)
		return;
	if (!strcmp(op, "incr") && !strcmp(mode, "rpc-lost"))
		v = *served = snap + 1; /* not snap + the increments before it in this read: lost */
	else if (!strcmp(op, "incr"))
		v = __atomic_add_fetch(served, 1, __ATOMIC_SEQ_CST);
	else if (!strcmp(op, "get"))
		v = __atomic_load_n(served, __ATOMIC_SEQ_CST);
	if (++*nth == 10 && !strcmp(mode, "rpc-wrong-id"))
		snprintf(id, sizeof(id), "999999999");
	snprintf(out, sizeof(out), "%s %ld", id, v);
	ws_text(fd, out);
	if (*nth == 10 && !strcmp(mode, "rpc-dup"))
		ws_text(fd, out);
}

/* Masked client frames, as many as one read brought; a close frame or EOF ends the connection. */
static void serve_rpc(int fd)
{
	static unsigned char buf[1 << 16];
	size_t len = 0;
	long nth = 0;

	for (;;) {
		ssize_t r = read(fd, buf + len, sizeof(buf) - len);
		long snap = __atomic_load_n(served, __ATOMIC_SEQ_CST);
		size_t off = 0;

		if (r <= 0)
			return;
		len += (size_t)r;
		while (len - off >= 6) {
			unsigned char *f = buf + off, *mask;
			size_t n = f[1] & 0x7f, hdr = 6;
			char req[128];

			if (n == 126) {
				if (len - off < 8)
					break;
				n = (size_t)f[2] << 8 | f[3];
				hdr = 8;
			}
			if (len - off < hdr + n)
				break;
			if ((f[0] & 0x0f) == 8)
				return;
			mask = f + hdr - 4;
			for (size_t i = 0; i < n && i < sizeof(req) - 1; i++)
				req[i] = (char)(f[hdr + i] ^ mask[i % 4]);
			req[n < sizeof(req) ? n : sizeof(req) - 1] = '\0';
			if ((f[0] & 0x0f) == 1)
				rpc_request(fd, req, snap, &nth);
			off += hdr + n;
		}
		memmove(buf, buf + off, len - off);
		len -= off;
	}
}

static void serve(int fd)
{
	char head[8192];
	long answered = 0;

	while (read_head(fd, head, sizeof(head))) {
		if (!strcmp(mode, "silent")) {
			pause();
		} else if (!strcmp(mode, "loris")) {
			for (const char *p = ok_resp; *p; p++) {
				send_all(fd, p, 1);
				sleep(1);
			}
		} else if (!strcmp(mode, "close-after")) {
			if (__atomic_add_fetch(served, 1, __ATOMIC_SEQ_CST) > limit)
				return;
			send_all(fd, ok_resp, sizeof(ok_resp) - 1);
		} else if (!strcmp(mode, "bad-status")) {
			const char r[] = "HTTP/1.1 OK 200\r\nContent-Length: 2\r\n\r\nok";
			send_all(fd, r, sizeof(r) - 1);
		} else if (!strcmp(mode, "trunc-chunked")) {
			const char r[] =
				"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\nHello, \r\n6\r\nWor";
			send_all(fd, r, sizeof(r) - 1);
			return;
		} else if (!strcmp(mode, "length-lie")) {
			const char r[] = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nHello, World!";
			send_all(fd, r, sizeof(r) - 1);
			return;
		} else if (!strcmp(mode, "short-every")) {
			const char r[] = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello, World";

			if (++answered % (limit > 0 ? limit : 1) == 0)
				send_all(fd, r, sizeof(r) - 1);
			else
				send_all(fd, ok_resp, sizeof(ok_resp) - 1);
		} else if (!strcmp(mode, "ws-bad-frame")) {
			ws_accept(fd, head);
			send_all(fd, "\x83\x02hi", 4); /* FIN, opcode 3: reserved, a protocol error */
			pause();
		} else if (!strncmp(mode, "rpc-", 4)) {
			ws_accept(fd, head);
			serve_rpc(fd);
			return;
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int one = 1, lfd;
	pid_t self = getpid();

	if (argc < 2) {
		fprintf(stderr, "usage: fault-server silent|loris|close-after N|bad-status|trunc-chunked|"
				"length-lie|short-every N|ws-bad-frame|rpc-ok|rpc-wrong-id|rpc-dup|rpc-lost\n");
		return 2;
	}
	mode = argv[1];
	limit = argc > 2 ? atol(argv[2]) : 0;
	served = mmap(NULL, sizeof(*served), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (served == MAP_FAILED)
		return 1;
	signal(SIGCHLD, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 1024) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) < 0) {
		perror("fault-server");
		return 1;
	}
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		if (!strcmp(mode, "close-after") && __atomic_load_n(served, __ATOMIC_SEQ_CST) >= limit) {
			close(fd); /* the limit is reached: stop listening, as a server that went away */
			close(lfd);
			pause();
		}
		if (fork() == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			close(lfd);
			serve(fd);
			_exit(0);
		}
		close(fd);
	}
}
