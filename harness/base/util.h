/* Small file and text helpers shared by every module: whole-file reads, knob writes, number parsing. */
#ifndef HX_UTIL_H
#define HX_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define HX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Read a whole (small) file into a NUL-terminated heap string; *ret_len may be NULL. */
int util_read_file(const char *path, char **ret, size_t *ret_len, struct hx_err *err);
/* The size caps of util_read_input, per kind of input file. */
#define UTIL_MAX_JSON	 (8u << 20)   /* a scenario.json, a manifest, a package.json */
#define UTIL_MAX_LOCK	 (64u << 20)  /* a package-lock.json: a large application's is tens of MiB */
#define UTIL_MAX_RESULTS (512u << 20) /* a results file: some 300,000 trials */
/* Read an input file someone else may have written (a scenario, a manifest, a lock file, a results file):
 * only a regular file (looked at through O_PATH before it is opened for reading, so a FIFO never blocks
 * and a device is never opened), at most max bytes; else one line naming what it is, exit 2. */
int util_read_input(const char *path, size_t max, char **ret, size_t *ret_len, struct hx_err *err);
/* Open, with flags, the file an O_PATH descriptor holds (through /proc/self/fd), refusing anything but the same
 * inode: a file judged by fstat of its O_PATH descriptor is then read without its name being looked up again.
 * Returns the fd or -errno. */
int util_reopen(int pfd, int flags);
/* Copy the regular file in to out, sparse: only its data extents are read and written (SEEK_DATA, SEEK_HOLE),
 * the holes left holes, out truncated to size. Returns -errno. */
int util_copy_sparse(int in, int out, uint64_t size);
/* What st's mode is, for a message: "a directory", "a FIFO", "a character device", ... */
const char *util_file_kind(unsigned mode);
/* Read a secret: a regular file owned by root, in a folder owned by root, neither writable by group or
 * others, opened with O_NOFOLLOW; trailing white space stripped. Anything else is refused, so nobody
 * but root can swap it (for a symlink to a root-only file, say). */
int util_read_secret(const char *path, char **ret, struct hx_err *err);
/* Read a file and strip trailing white space; for one-value sysfs/proc/cgroup files. */
int util_read_line(const char *path, char **ret, struct hx_err *err);
/* Read a file holding one unsigned integer ("max" is refused). */
int util_read_u64(const char *path, uint64_t *ret, struct hx_err *err);
/* Write a string to an existing file in one write(2): for cgroup and proc knobs. */
int util_write_file(const char *path, const char *value, struct hx_err *err);
/* Write a file atomically, safe in a folder others can write: the folder opened once, a temporary
 * ".<name>.<random>" created in it with O_EXCL|O_NOFOLLOW (mode 0644), written, fsynced, renamed over
 * the name (which replaces a symlink there rather than following it), the folder fsynced. */
int util_write_atomic(const char *path, const void *data, size_t len, struct hx_err *err);
/* Create a new file name in dirfd: O_EXCL|O_NOFOLLOW|O_CLOEXEC, write-only, exactly mode. Returns the
 * fd or -errno (-EEXIST when anything, a symlink included, is already there). */
int util_create_at(int dirfd, const char *name, unsigned mode);
bool util_exists(const char *path);

/* A folder of shipped data: $<env> when set, else <name>/ beside the binary's checkout (bin/../name), else
 * share/harness/<name> of its installation. */
const char *util_data_dir(const char *env, const char *name, char *buf, size_t len);
/* This binary's path (/proc/self/exe), read once and kept: the link reads relative to the binary's mount from
 * a mount namespace entered after the binary was reached (rootless runs enter one), so the first call must come
 * before that; NULL when it cannot be read. */
const char *util_self_exe(void);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t util_now_ns(void);
/* A wait status as a shell reports it: the exit code, or 128+N for signal N. */
int util_exit_code(int status);
/* Run argv (argv[0] looked up in PATH when it has no '/'; never a shell) with stdin and stderr on
 * /dev/null; its stdout (up to len - 1 bytes, NUL-terminated) into out. Returns its exit code as
 * util_exit_code gives it, or -errno when it could not start. */
int util_capture(char *const argv[], char *out, size_t len);
/* Read fd until EOF or the deadline (CLOCK_MONOTONIC ns): the first len - 1 bytes into out (NUL-terminated),
 * the rest drained and dropped. -ETIMEDOUT at the deadline. */
int util_read_until(int fd, uint64_t deadline_ns, char *out, size_t len);
/* mkdir -p; returns -errno. */
int util_mkdir_p(const char *path, unsigned mode);

/* "123", "64M", "1.5G", "512k" (binary units, optional trailing B or iB) -> bytes. */
int util_parse_size(const char *s, uint64_t *ret);
/* A decimal unsigned integer that fits in uint64_t, with nothing after it. */
int util_parse_u64(const char *s, uint64_t *ret);
/* "10s", "500ms", "2m", "1.5" (seconds) -> seconds. */
int util_parse_duration(const char *s, double *ret);

/* The SHA-256 of data as 64 lowercase hex digits (hexlen >= 65). */
int util_sha256_hex(const void *data, size_t len, char *hex, size_t hexlen);

/* The last 8 lines of a (log) file, for a message; "" when it is empty or unreadable. */
void util_log_tail(const char *path, char *buf, size_t len);
/* Trim trailing white space in place; returns s. */
char *util_rstrip(char *s);
/* Find "key value" on a line of a flat-keyed file (cpu.stat, memory.stat, memory.events). */
int util_keyed_u64(const char *text, const char *key, uint64_t *ret);

#endif
