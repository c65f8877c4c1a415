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
 * window size copied. Nothing to do when none is a terminal. No thread yet: see pty_relay_run. */
int pty_relay_start(struct pty_relay *r, struct hx_err *err);
/* The thread relaying bytes both ways, started once every process the command needs is cloned: a child cloned
 * (not forked through libc) while harness has a second thread inherits libc's view of that thread, and the
 * sandbox's init changing its user (glibc's setxid waits for every thread it knows to have started) hung for
 * good when the clone came before the relay's thread had run its first instruction; any lock the thread held
 * would be held in the child too. Until then the command's output waits in the pty. No-op without a relay. */
int pty_relay_run(struct pty_relay *r, struct hx_err *err);
/* The caller's descriptors and terminal mode as they were, what the command wrote last relayed, the thread
 * joined. Safe on a relay that never started. */
void pty_relay_stop(struct pty_relay *r);

#endif
