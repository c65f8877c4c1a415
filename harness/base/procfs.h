/* What /proc/<pid>/status says of a process the harness started: memory, allowed CPUs. */
#ifndef HX_PROCFS_H
#define HX_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A "Key: N kB" line (VmRSS, VmHWM) in kB; -1 when the process is gone. */
long proc_status_kb(pid_t pid, const char *key);
/* The CPUs it may run on as the kernel says (Cpus_allowed_list): what its slice really gave. False (and
 * buf "") when the process is gone. */
bool proc_cpus(pid_t pid, char *buf, size_t len);
/* The open file descriptors of this process (its /proc/self/fd, less the one reading it): what a soak
 * compares from trial to trial. -1 when /proc cannot be read. */
int proc_self_fds(void);

#endif
