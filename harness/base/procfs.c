/* What /proc/<pid>/status says of a process the harness started: memory, allowed CPUs. */
#include "base/procfs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"

/* VmRSS or VmHWM of a process, in kB; -1 when it is gone. */
long proc_status_kb(pid_t pid, const char *key)
{
	char path[64];
	_cleanup_free_ char *text = NULL;
	struct hx_err err = {0};
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (pid <= 0 || util_read_file(path, &text, NULL, &err) < 0 || !(p = strstr(text, key)))
		return -1;
	return strtol(p + strlen(key) + 1, NULL, 10);
}

/* The CPUs a process may run on, as the kernel says (Cpus_allowed_list): what the slice really gave. */
bool proc_cpus(pid_t pid, char *buf, size_t len)
{
	char path[64], list[256];
	_cleanup_free_ char *text = NULL;
	struct hx_err err = {0};
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (pid > 0 && util_read_file(path, &text, NULL, &err) == 0 && (p = strstr(text, "Cpus_allowed_list:")) &&
	    sscanf(p + 18, " %255s", list) == 1) {
		snprintf(buf, len, "%s", list);
		return true;
	}
	if (len)
		buf[0] = '\0';
	return false;
}

int proc_self_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			n++;
	closedir(d);
	return n;
}
