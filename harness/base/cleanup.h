/* Scope-bound cleanup helpers (__attribute__((cleanup))), in the manner of systemd's. */
#ifndef HX_CLEANUP_H
#define HX_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static inline void hx_freep(void *p)
{
	free(*(void **)p);
}

static inline void hx_closep(const int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void hx_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void hx_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

/* A child that is still owned when its scope ends is killed and reaped. */
static inline void hx_killp(const pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

#define _cleanup_free_	   __attribute__((cleanup(hx_freep)))
#define _cleanup_close_	   __attribute__((cleanup(hx_closep)))
#define _cleanup_fclose_   __attribute__((cleanup(hx_fclosep)))
#define _cleanup_closedir_ __attribute__((cleanup(hx_closedirp)))
#define _cleanup_kill_	   __attribute__((cleanup(hx_killp)))

/* Take ownership away from a cleanup variable: returns its value and leaves NULL (or -1) behind. */
#define steal_pointer(pp)                          \
	({                                         \
		__typeof__(*(pp)) _stolen = *(pp); \
		*(pp) = NULL;                      \
		_stolen;                           \
	})
#define steal_fd(fdp)                    \
	({                               \
		int _stolen_fd = *(fdp); \
		*(fdp) = -1;             \
		_stolen_fd;              \
	})

#endif
