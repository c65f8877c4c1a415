/* hello-server [--port P] [--mode ok|chunked|reset|stall|close] [--tls CERT KEY]: a single-threaded
 * epoll HTTP/1.1 server answering every request (pipelined too) with "Hello, World!", counting them.
 * It prints "port N" once listening and "requests N" when SIGTERM or SIGINT ends it. Modes misbehave
 * on every 10th request: reset (half a response, then RST), stall (never answer), close (answer with
 * Connection: close), 500 (answer 500). Test and benchmark peer for harness load. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

static const char ok_resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 13\r\nContent-Type: text/plain\r\n\r\nHello, World!";
static const char chunked_resp[] =
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\nHello, \r\n6\r\nWorld!\r\n0\r\n\r\n";
static const char err_resp[] = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\n\r\noops!";
static const char close_resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 13\r\nConnection: close\r\n\r\nHello, World!";

enum mode { M_OK, M_CHUNKED, M_RESET, M_STALL, M_CLOSE, M_500 };

struct client {
	int fd;
	SSL *ssl;
	bool handshaken;
	bool stalled;
	size_t len;
	char buf[16384];
};

static unsigned long long requests;
static enum mode mode;
static SSL_CTX *tls;

static ssize_t cl_read(struct client *c, void *b, size_t n)
{
	if (!c->ssl)
		return read(c->fd, b, n);
	int r = SSL_read(c->ssl, b, (int)n);
	if (r > 0)
		return r;
	int e = SSL_get_error(c->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		errno = EAGAIN;
		return -1;
	}
	return 0;
}

static void cl_write(struct client *c, const char *b, size_t n)
{
	/* responses are small: a blocking-style loop on a non-blocking socket is enough for a test peer */
	while (n) {
		ssize_t w = c->ssl ? SSL_write(c->ssl, b, (int)n) : write(c->fd, b, n);

		if (w <= 0) {
			if (!c->ssl && errno == EAGAIN)
				continue;
			if (c->ssl && SSL_get_error(c->ssl, (int)w) == SSL_ERROR_WANT_WRITE)
				continue;
			return;
		}
		b += w;
		n -= (size_t)w;
	}
}

static void cl_close(int ep, struct client *c, bool reset)
{
	if (reset) {
		struct linger l = {1, 0};

		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	if (c->ssl)
		SSL_free(c->ssl);
	close(c->fd);
	free(c);
}

/* Answer every complete request in the buffer; false when the connection is closed. */
static bool serve(int ep, struct client *c)
{
	char *end;

	while (!c->stalled && (end = memmem(c->buf, c->len, "\r\n\r\n", 4))) {
		size_t used = (size_t)(end + 4 - c->buf);
		bool odd = ++requests % 10 == 0;

		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
		if (odd && mode == M_RESET) {
			cl_write(c, ok_resp, sizeof(ok_resp) / 2);
			cl_close(ep, c, true);
			return false;
		}
		if (odd && mode == M_STALL) {
			c->stalled = true;
			return true;
		}
		if (odd && mode == M_CLOSE) {
			cl_write(c, close_resp, sizeof(close_resp) - 1);
			cl_close(ep, c, false);
			return false;
		}
		if (odd && mode == M_500)
			cl_write(c, err_resp, sizeof(err_resp) - 1);
		else if (mode == M_CHUNKED)
			cl_write(c, chunked_resp, sizeof(chunked_resp) - 1);
		else
			cl_write(c, ok_resp, sizeof(ok_resp) - 1);
	}
	return true;
}

static void on_client(int ep, struct client *c)
{
	if (c->ssl && !c->handshaken) {
		int r = SSL_accept(c->ssl);

		if (r == 1)
			c->handshaken = true;
		else {
			int e = SSL_get_error(c->ssl, r);

			if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
				cl_close(ep, c, false);
			return;
		}
	}
	for (;;) {
		ssize_t n = cl_read(c, c->buf + c->len, sizeof(c->buf) - c->len);

		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			cl_close(ep, c, false);
			return;
		}
		c->len += (size_t)n;
		if (!serve(ep, c))
			return;
		if (c->len == sizeof(c->buf)) {
			cl_close(ep, c, false);
			return;
		}
	}
}

int main(int argc, char **argv)
{
	int port = 0, one = 1, lfd, ep, sfd;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	sigset_t ss;
	struct epoll_event ev;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--port") && i + 1 < argc)
			port = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			static const char *const names[] = {"ok", "chunked", "reset", "stall", "close", "500"};
			const char *m = argv[++i];
			size_t k = 0;

			while (k < sizeof(names) / sizeof(names[0]) && strcmp(m, names[k]))
				k++;
			if (k == sizeof(names) / sizeof(names[0])) {
				fprintf(stderr, "hello-server: unknown mode '%s'\n", m);
				return 2;
			}
			mode = (enum mode)k;
		} else if (!strcmp(argv[i], "--tls") && i + 2 < argc) {
			tls = SSL_CTX_new(TLS_server_method());
			if (SSL_CTX_use_certificate_chain_file(tls, argv[i + 1]) != 1 ||
			    SSL_CTX_use_PrivateKey_file(tls, argv[i + 2], SSL_FILETYPE_PEM) != 1) {
				fprintf(stderr, "hello-server: cannot load %s / %s\n", argv[i + 1], argv[i + 2]);
				return 2;
			}
			i += 2;
		} else {
			fprintf(stderr, "usage: hello-server [--port P] [--mode ok|chunked|reset|stall|close] [--tls "
					"CERT KEY]\n");
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	sfd = signalfd(-1, &ss, SFD_CLOEXEC);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_port = htons((unsigned short)port);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 4096) < 0) {
		perror("hello-server: listen");
		return 1;
	}
	getsockname(lfd, (struct sockaddr *)&a, &alen);
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.ptr = &sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	for (;;) {
		struct epoll_event evs[256];
		int n = epoll_wait(ep, evs, 256, -1);

		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr == &sfd) {
				printf("requests %llu\n", requests);
				return 0;
			}
			if (!evs[i].data.ptr) {
				int fd;

				while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					struct client *c = calloc(1, sizeof(*c));

					c->fd = fd;
					setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
					if (tls) {
						c->ssl = SSL_new(tls);
						SSL_set_fd(c->ssl, fd);
					}
					ev.events = EPOLLIN;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			on_client(ep, evs[i].data.ptr);
		}
	}
}
