/* The pty relay of `harness exec` on a terminal: the command's terminal is a pty harness owns. */
#include "base/pty.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* All of buf to fd, or as much as fd takes within a second of no progress (a terminal that went away, or a
 * command that reads nothing, loses the rest rather than stalling the relay). */
static void put_all(int fd, const char *buf, size_t n)
{
	while (fd >= 0 && n) {
		ssize_t w = write(fd, buf, n);
		struct pollfd p = {.fd = fd, .events = POLLOUT};

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN && poll(&p, 1, 1000) > 0)
			continue;
		if (w <= 0)
			return;
		buf += w;
		n -= (size_t)w;
	}
}

/* Where the command's output goes: the caller's stdout terminal, else its stderr one; -1: nowhere shows it. */
static int out_fd(const struct pty_relay *r)
{
	return r->saved[1] >= 0 ? r->saved[1] : r->saved[2];
}

/* Copy what the master has now; false at its end (EIO: every slave descriptor closed). */
static bool pump_master(const struct pty_relay *r)
{
	char buf[4096];
	ssize_t n = read(r->master, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	put_all(out_fd(r), buf, (size_t)n);
	return true;
}

static void *relay_main(void *arg)
{
	struct pty_relay *r = arg;
	/* a background harness reading its terminal would be stopped (SIGTTIN): input only from the foreground */
	bool in_open = r->saved[0] >= 0 && tcgetpgrp(r->saved[0]) == getpgrp();

	for (;;) {
		struct pollfd p[3] = {{.fd = r->master, .events = POLLIN},
				      {.fd = r->stop[0], .events = POLLIN},
				      {.fd = in_open ? r->saved[0] : -1, .events = POLLIN}};

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && !pump_master(r))
			break;
		if (p[1].revents)
			break;
		if (p[2].revents & (POLLIN | POLLHUP | POLLERR)) {
			char buf[4096];
			ssize_t n = read(r->saved[0], buf, sizeof(buf));

			if (n > 0)
				put_all(r->master, buf, (size_t)n);
			else if (n == 0 || errno != EINTR)
				in_open = false;
		}
	}
	/* the command is gone: what it wrote last is still in the pty (a descendant still writing gets 2 s) */
	for (int rounds = 0; rounds < 20 && pump_master(r); rounds++) {
		struct pollfd p = {.fd = r->master, .events = POLLIN};

		if (poll(&p, 1, 100) <= 0)
			break;
	}
	return NULL;
}

/* The pty's master, its slave opened (not as our controlling terminal), the caller's size on it. */
static int open_pair(struct pty_relay *r, int *ret_slave, struct hx_err *err)
{
	char name[64];
	struct winsize ws;
	int tty = r->saved[0] >= 0 ? r->saved[0] : out_fd(r);

	r->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (r->master < 0)
		return hx_fail(err, HX_EXIT_HOST, errno,
			       "exec: no pseudo-terminal for the command (posix_openpt: %s): mount devpts at /dev/pts, "
			       "or redirect exec's input and output away from the terminal",
			       strerror(errno));
	if (grantpt(r->master) < 0 || unlockpt(r->master) < 0 || ptsname_r(r->master, name, sizeof(name)) != 0)
		return hx_syserr(err, "exec: a pseudo-terminal for the command");
	*ret_slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*ret_slave < 0)
		return hx_syserr(err, "exec: open %s", name);
	if (ioctl(tty, TIOCGWINSZ, &ws) == 0)
		ioctl(r->master, TIOCSWINSZ, &ws);
	fcntl(r->master, F_SETFL, fcntl(r->master, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* Raw input, so keys reach the command's terminal as typed (it echoes and edits lines itself), but ^C and ^\
 * still signal harness, which forwards them. Only from the foreground: a background job would stop on it. */
static void caller_raw(struct pty_relay *r)
{
	struct termios t;

	if (r->saved[0] < 0 || tcgetpgrp(r->saved[0]) != getpgrp() || tcgetattr(r->saved[0], &r->orig) < 0)
		return;
	t = r->orig;
	cfmakeraw(&t);
	t.c_lflag |= ISIG; /* output processing stays off: the pty's own turns \n into \r\n */
	r->raw = tcsetattr(r->saved[0], TCSAFLUSH, &t) == 0;
}

int pty_relay_start(struct pty_relay *r, struct hx_err *err)
{
	int slave = -1;

	*r = (struct pty_relay){.master = -1, .saved = {-1, -1, -1}, .stop = {-1, -1}};
	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd) && (r->saved[fd] = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return hx_syserr(err, "exec: dup");
	if (r->saved[0] < 0 && r->saved[1] < 0 && r->saved[2] < 0)
		return 0;
	if (open_pair(r, &slave, err) < 0 || pipe2(r->stop, O_CLOEXEC) < 0)
		goto fail;
	for (int fd = 0; fd < 3; fd++)
		if (r->saved[fd] >= 0 && dup2(slave, fd) < 0)
			goto fail;
	close(slave);
	caller_raw(r);
	return 0;
fail:
	if (!err->msg[0])
		hx_syserr(err, "exec: a pseudo-terminal for the command");
	if (slave >= 0)
		close(slave);
	pty_relay_stop(r);
	return -err->errnum;
}

int pty_relay_run(struct pty_relay *r, struct hx_err *err)
{
	int e;

	if (r->master < 0 || r->running)
		return 0;
	if ((e = pthread_create(&r->thread, NULL, relay_main, r)) != 0) {
		errno = e;
		hx_syserr(err, "exec: the terminal relay's thread");
		pty_relay_stop(r);
		return -err->errnum;
	}
	r->running = true;
	return 0;
}

void pty_relay_stop(struct pty_relay *r)
{
	/* our copies of the slave go first: with the command gone, the master then reads to its end */
	for (int fd = 0; fd < 3; fd++)
		if (r->saved[fd] >= 0)
			dup2(r->saved[fd], fd);
	if (r->running) {
		put_all(r->stop[1], "x", 1);
		pthread_join(r->thread, NULL);
		r->running = false;
	}
	if (r->raw)
		tcsetattr(r->saved[0], TCSADRAIN, &r->orig);
	r->raw = false;
	for (int i = 0; i < 3; i++)
		if (r->saved[i] >= 0)
			close(r->saved[i]);
	for (int i = 0; i < 2; i++)
		if (r->stop[i] >= 0)
			close(r->stop[i]);
	if (r->master >= 0)
		close(r->master);
	*r = (struct pty_relay){.master = -1, .saved = {-1, -1, -1}, .stop = {-1, -1}};
}
