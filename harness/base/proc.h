/* The one way harness waits for the children it starts: pidfd_open + poll (Linux >= 5.3), or waitpid
 * WNOHANG every 5 ms where pidfd_open is missing. Whoever proc_wait_first returns a child to has reaped
 * it, and its slot is -1 from then on: exactly one reaper per child, and no signal to a recycled PID. */
#ifndef HX_PROC_H
#define HX_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Wait until one of pids[0..n) exits (slots <= 0 are skipped), *deadline_ns passes (CLOCK_MONOTONIC;
 * 0: none) or *stop becomes non-zero (when stop is not NULL; checked at least every 100 ms and on every
 * signal). Returns the index of the child reaped, with its wait status in *ret_status and pids[i] set
 * to -1; -ETIMEDOUT at the deadline; -EINTR when stopped; -ECHILD when no slot holds a child. */
int proc_wait_first(pid_t *pids, size_t n, unsigned long long deadline_ns, const volatile int *stop, int *ret_status);
/* A pidfd for any process (a child or not), or -1 (pidfd_open is missing: Linux < 5.3, or it is gone). */
int proc_pidfd(pid_t pid);
/* Wait up to timeout_ms until every process of fds (-1 slots skipped) has exited; closes them. False
 * when one is still running at the deadline, or a slot was -1: the caller cannot know, and must look again. */
bool proc_wait_exits(int *fds, size_t n, int timeout_ms);
/* Reap *pid (blocking) unless it is already reaped; *pid is -1 afterwards. */
void proc_reap(pid_t *pid, int *ret_status);

#endif
