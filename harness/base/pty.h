/* A pseudo-terminal between the caller's terminal and a command: the command gets a terminal of its own, so
 * what it does to it (termios, window size, line discipline) never reaches the caller's (docs/sandbox.md). */
#ifndef HX_PTY_H
#define HX_PTY_H

#include <pthread.h>
#include <stdbool.h>
#include <termios.h>

#include "base/err.h"

struct pty_relay {
	int master;   /* -1: no relay (none of 0, 1, 2 is a terminal) */
	int saved[3]; /* the caller's descriptor 0, 1, 2 where it was a terminal (now the pty's), else -1 */
	bool raw;     /* the caller's input terminal was put in raw mode (restored by pty_relay_stop) */
	struct termios orig;
	int stop[2]; /* a pipe: written to end the relay */
	bool running;
	pthread_t thread;
};

/* When any of 0, 1, 2 is a terminal: a new pty whose other end takes their place (children started from now on
 * inherit it), the caller's input terminal in raw mode but for its signal keys (^C still reaches harness), the
 * window size copied, and a thread relaying bytes both ways. Nothing to do when none is a terminal. */
int pty_relay_start(struct pty_relay *r, struct hx_err *err);
/* The caller's descriptors and terminal mode as they were, what the command wrote last relayed, the thread
 * joined. Safe on a relay that never started. */
void pty_relay_stop(struct pty_relay *r);

#endif
