/* Safe extraction: absolute paths, "..", symlinks and hardlinks leaving the tree, device nodes, FIFOs,
 * sockets and setuid/setgid bits are refused with the entry named (on top of libarchive's
 * ARCHIVE_EXTRACT_SECURE_* checks); file modes, and so exec bits, are kept. */
#include "image/unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int unpack_remove_tree(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT ? -errno : 0;
}

/* Drop `strip` leading components; NULL when nothing is left. */
static const char *strip_path(const char *p, unsigned strip)
{
	while (*p == '.' && p[1] == '/')
		p += 2;
	for (unsigned i = 0; i < strip; i++) {
		const char *slash = strchr(p, '/');

		if (!slash)
			return NULL;
		p = slash + 1;
		while (*p == '/')
			p++;
	}
	return *p ? p : NULL;
}

static bool has_dotdot(const char *p)
{
	for (const char *c = p; (c = strstr(c, "..")); c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
			return true;
	return false;
}

/* Does the link target, taken relative to the folder of `name`, stay inside the tree? */
static bool link_stays_inside(const char *name, const char *target)
{
	int depth = 0;
	char buf[PATH_MAX];

	if (target[0] == '/')
		return false;
	for (const char *c = name; *c; c++)
		if (*c == '/')
			depth++; /* the link's folder depth below the root */
	snprintf(buf, sizeof(buf), "%s", target);
	for (char *save = NULL, *part = strtok_r(buf, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (strcmp(part, "..") == 0) {
			if (--depth < 0)
				return false;
		} else if (strcmp(part, ".") != 0) {
			depth++;
		}
	}
	return true;
}

/* raw is the name as the archive has it (absolute paths and '..' are judged before any stripping),
 * name what is left after strip-components. */
static const char *entry_problem(struct archive_entry *e, const char *raw, const char *name)
{
	mode_t type = archive_entry_filetype(e);
	const char *hard = archive_entry_hardlink(e);

	if (raw[0] == '/')
		return "an absolute path";
	if (has_dotdot(raw))
		return "a path with '..'";
	if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK && !hard)
		return type == AE_IFIFO ? "a FIFO" : type == AE_IFSOCK ? "a socket" : "a device node";
	if (archive_entry_mode(e) & (S_ISUID | S_ISGID))
		return "a setuid or setgid file";
	if (type == AE_IFLNK && !link_stays_inside(name, archive_entry_symlink(e)))
		return "a symlink that leaves the tree";
	return NULL;
}

static int copy_data(struct archive *in, struct archive *out)
{
	const void *buf;
	size_t size;
	la_int64_t off;
	int r;

	while ((r = archive_read_data_block(in, &buf, &size, &off)) == ARCHIVE_OK)
		if (archive_write_data_block(out, buf, size, off) != ARCHIVE_OK)
			return ARCHIVE_FATAL;
	return r == ARCHIVE_EOF ? ARCHIVE_OK : r;
}

/* Entries are written relative to the current directory, which is the destination (so that
 * ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS holds for every path we give libarchive). */
static int extract(struct archive *in, struct archive *out, const char *archive, unsigned strip, struct hx_err *err)
{
	struct archive_entry *e;
	int r;

	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		const char *problem, *hard = archive_entry_hardlink(e);
		char raw[PATH_MAX], name_buf[PATH_MAX];
		const char *name;

		snprintf(raw, sizeof(raw), "%s", archive_entry_pathname(e) ? archive_entry_pathname(e) : "");
		name = strip_path(raw, strip);
		if (!name && raw[0] != '/' && !has_dotdot(raw))
			continue;
		if (!name)
			name = raw;
		snprintf(name_buf, sizeof(name_buf), "%s", name);
		if ((problem = entry_problem(e, raw, name)))
			return hx_fail(err, HX_EXIT_USAGE, EPERM, "unpack %s: entry '%s' is %s: refused", archive, raw,
				       problem);
		if (hard) {
			char hbuf[PATH_MAX];
			const char *h = strip_path(hard, strip);

			if (!h || hard[0] == '/' || has_dotdot(hard))
				return hx_fail(err, HX_EXIT_USAGE, EPERM,
					       "unpack %s: entry '%s' is a hardlink out of the tree (to '%s'): refused",
					       archive, raw, hard);
			snprintf(hbuf, sizeof(hbuf), "%s", h);
			archive_entry_set_hardlink(e, hbuf);
		}
		archive_entry_set_pathname(e, name_buf);
		if (archive_write_header(out, e) != ARCHIVE_OK ||
		    (archive_entry_size(e) > 0 && !hard && copy_data(in, out) != ARCHIVE_OK) ||
		    archive_write_finish_entry(out) != ARCHIVE_OK)
			return hx_fail(err, HX_EXIT_INTERNAL, EIO, "unpack %s: entry '%s': %s", archive, raw,
				       archive_error_string(out) ? archive_error_string(out)
								 : archive_error_string(in));
	}
	if (r != ARCHIVE_EOF)
		return hx_fail(err, HX_EXIT_USAGE, EIO, "unpack %s: %s", archive,
			       archive_error_string(in) ? archive_error_string(in) : "not a readable archive");
	return 0;
}

int unpack_archive(const char *archive, const char *dest, unsigned strip, struct hx_err *err)
{
	struct archive *in = archive_read_new(), *out = archive_write_disk_new();
	bool made = false;
	int rc, cwd = -1;

	archive_read_support_filter_all(in);
	archive_read_support_format_tar(in);
	archive_read_support_format_zip(in);
	archive_write_disk_set_options(out, ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_TIME |
						    ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
						    ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS |
						    ARCHIVE_EXTRACT_NO_OVERWRITE);
	if (mkdir(dest, 0755) < 0) {
		rc = hx_syserr(err, "unpack: mkdir %s", dest);
		goto out;
	}
	made = true;
	if (archive_read_open_filename(in, archive, 65536) != ARCHIVE_OK) {
		rc = hx_fail(err, HX_EXIT_USAGE, EIO, "unpack %s: %s", archive, archive_error_string(in));
		goto out;
	}
	cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0 || chdir(dest) < 0) {
		rc = hx_syserr(err, "unpack: enter %s", dest);
		goto out;
	}
	rc = extract(in, out, archive, strip, err);
	if (fchdir(cwd) < 0 && rc == 0)
		rc = hx_syserr(err, "unpack: return to the working directory");
out:
	if (cwd >= 0)
		close(cwd);
	archive_read_free(in);
	archive_write_free(out);
	if (rc < 0 && made)
		unpack_remove_tree(dest); /* nothing half-unpacked */
	return rc;
}
