/* Descriptors inside a sandbox: the payload starts with 0, 1 and 2 only, whatever harness inherited. */
#ifndef HX_SBX_FDS_H
#define HX_SBX_FDS_H

#include <stddef.h>

/* Mark every descriptor from 3 up close-on-exec (close_range(CLOSE_RANGE_CLOEXEC), Linux 5.11; else a walk of
 * /proc/self/fd): execve then leaves 0-2 alone, while the report pipe still works until then. Returns -errno. */
int sbx_fds_cloexec_from_3(void);
/* Close every descriptor from 3 up except those in keep (close_range, Linux 5.9; else a walk of /proc/self/fd).
 * Returns -errno. */
int sbx_fds_close_except(const int *keep, size_t nkeep);

#endif
