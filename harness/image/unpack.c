/* Safe extraction: absolute paths, "..", symlinks (resolved against the tree on disk) and hardlinks leaving
 * the tree, device nodes, FIFOs, sockets and setuid/setgid bits are refused with the entry named (on top of
 * libarchive's ARCHIVE_EXTRACT_SECURE_* checks); exec bits are kept, group and other write bits dropped. */
#include "image/unpack.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/dl_archive.h"

#define HX_WALK_MAX 64

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

/* Components of a path being resolved: a stack of names below the tree's root. */
struct walk {
	char names[64][NAME_MAX + 1];
	size_t n;
	bool unknown; /* a component that is not in the tree (yet): a later '..' cannot be judged */
};

static int walk_push_path(struct walk *w, const char *path, int *hops);

/* One component: '.', '..' or a name, following a symlink already in the tree (relative to the current
 * directory, the tree's root). Returns -1 when the path leaves the tree or cannot be judged. */
static int walk_step(struct walk *w, const char *part, int *hops)
{
	char rel[PATH_MAX], target[PATH_MAX];
	size_t o = 0;
	ssize_t len;
	struct stat st;

	if (strcmp(part, ".") == 0 || !part[0])
		return 0;
	if (strcmp(part, "..") == 0) {
		if (w->n == 0 || w->unknown)
			return -1;
		w->n--;
		return 0;
	}
	if (w->n == HX_WALK_MAX || strlen(part) > NAME_MAX)
		return -1;
	snprintf(w->names[w->n++], NAME_MAX + 1, "%s", part);
	if (w->unknown)
		return 0;
	for (size_t i = 0; i < w->n && o < sizeof(rel); i++)
		o += (size_t)snprintf(rel + o, sizeof(rel) - o, "%s%s", i ? "/" : "", w->names[i]);
	if (o >= sizeof(rel) || lstat(rel, &st) < 0) {
		w->unknown = true; /* not there (yet): fine, unless a '..' follows */
		return 0;
	}
	if (!S_ISLNK(st.st_mode))
		return 0;
	len = readlink(rel, target, sizeof(target) - 1);
	if (len < 0 || ++*hops > 40)
		return -1;
	target[len] = '\0';
	if (target[0] == '/')
		return -1;
	w->n--; /* the link's own name is replaced by what it points to, from its folder */
	return walk_push_path(w, target, hops);
}

static int walk_push_path(struct walk *w, const char *path, int *hops)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *save = NULL, *part = strtok_r(buf, "/", &save); part; part = strtok_r(NULL, "/", &save))
		if (walk_step(w, part, hops) < 0)
			return -1;
	return 0;
}

/* Does the link target, taken from the folder of `name` and resolved against the tree as it is on disk
 * (links already created are followed, as the kernel would), stay inside the tree? A relative walk in
 * user space: it judges a link before it exists, where openat2(RESOLVE_BENEATH) could only judge it after. */
static bool link_stays_inside(const char *name, const char *target)
{
	struct walk w = {.n = 0};
	char folder[PATH_MAX], *slash;
	int hops = 0;

	if (target[0] == '/' || !target[0])
		return false;
	snprintf(folder, sizeof(folder), "%s", name);
	slash = strrchr(folder, '/');
	if (slash)
		*slash = '\0';
	else
		folder[0] = '\0';
	return walk_push_path(&w, folder, &hops) == 0 && walk_push_path(&w, target, &hops) == 0;
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

uint64_t unpack_default_cap(uint64_t archive_bytes)
{
	uint64_t cap = archive_bytes * UNPACK_RATIO;

	return cap < UNPACK_FLOOR ? UNPACK_FLOOR : cap > UNPACK_CEILING ? UNPACK_CEILING : cap;
}

/* What an unpack has written so far, against its caps. */
struct unpack_tally {
	uint64_t bytes, max_bytes, entries;
	bool over;
};

/* The entry's data, counted as it is written: a zip bomb stops at the cap, not at a full disk. */
static int copy_data(struct archive *in, struct archive *out, struct unpack_tally *t)
{
	const void *buf;
	size_t size;
	la_int64_t off;
	int r;

	while ((r = archive_read_data_block(in, &buf, &size, &off)) == ARCHIVE_OK) {
		if ((t->bytes += size) > t->max_bytes) {
			t->over = true;
			return ARCHIVE_FATAL;
		}
		if (archive_write_data_block(out, buf, size, off) != ARCHIVE_OK)
			return ARCHIVE_FATAL;
	}
	return r == ARCHIVE_EOF ? ARCHIVE_OK : r;
}

/* Entries are written relative to the current directory, which is the destination (so that
 * ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS holds for every path we give libarchive). */
static int extract(struct archive *in, struct archive *out, const char *archive, unsigned strip, struct unpack_tally *t,
		   struct hx_err *err)
{
	struct archive_entry *e;
	int r;

	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		const char *problem, *hard = archive_entry_hardlink(e);
		char raw[PATH_MAX], name_buf[PATH_MAX];
		const char *name;

		if (++t->entries > UNPACK_MAX_ENTRIES)
			return hx_fail(err, HX_EXIT_USAGE, EFBIG, "unpack %s: more than %d entries: refused", archive,
				       UNPACK_MAX_ENTRIES);

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
		/* cache entries are root's and nobody else's to change: no group or other write bit survives */
		if (archive_entry_filetype(e) != AE_IFLNK)
			archive_entry_set_perm(e, archive_entry_perm(e) & 0755);
		if (archive_write_header(out, e) != ARCHIVE_OK ||
		    (archive_entry_size(e) > 0 && !hard && copy_data(in, out, t) != ARCHIVE_OK) ||
		    archive_write_finish_entry(out) != ARCHIVE_OK) {
			if (t->over)
				return hx_fail(err, HX_EXIT_USAGE, EFBIG,
					       "unpack %s: more than %.1f MiB unpacked (at entry '%s'; the manifest's "
					       "source.unpacked_size, or %d times the archive's size): refused",
					       archive, (double)t->max_bytes / (1 << 20), raw, UNPACK_RATIO);
			return hx_fail(err, HX_EXIT_INTERNAL, EIO, "unpack %s: entry '%s': %s", archive, raw,
				       archive_error_string(out) ? archive_error_string(out)
								 : archive_error_string(in));
		}
	}
	if (r != ARCHIVE_EOF)
		return hx_fail(err, HX_EXIT_USAGE, EIO, "unpack %s: %s", archive,
			       archive_error_string(in) ? archive_error_string(in) : "not a readable archive");
	return 0;
}

int unpack_archive(const char *archive, const char *dest, unsigned strip, uint64_t max_bytes, struct hx_err *err)
{
	struct archive *in, *out;
	struct unpack_tally t = {.max_bytes = max_bytes};
	bool made = false;
	int rc, cwd = -1;

	if (dl_open(&dl_archive, err) < 0)
		return hx_wrap(err, "unpack %s", archive);
	in = archive_read_new();
	out = archive_write_disk_new();
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
	rc = extract(in, out, archive, strip, &t, err);
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

/* The DT_SONAME of a 64-bit little-endian ELF image, bounds-checked (the bytes come from a download);
 * false when it has none. */
static bool elf_soname(const unsigned char *b, size_t len, char *out, size_t out_len)
{
	const Elf64_Ehdr *eh = (const void *)b;
	const Elf64_Shdr *sh;

	if (len < sizeof(*eh) || memcmp(b, ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > len ||
	    (len - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return false;
	sh = (const void *)(b + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *str = &sh[sh[i].sh_link < eh->e_shnum ? sh[i].sh_link : 0];

		if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset ||
		    str->sh_offset > len || str->sh_size > len - str->sh_offset)
			continue;
		for (const Elf64_Dyn *d = (const void *)(b + sh[i].sh_offset);
		     (const unsigned char *)(d + 1) <= b + sh[i].sh_offset + sh[i].sh_size && d->d_tag != DT_NULL;
		     d++) {
			const char *s = (const char *)b + str->sh_offset + d->d_un.d_val;

			if (d->d_tag != DT_SONAME || d->d_un.d_val >= str->sh_size ||
			    !memchr(s, '\0', str->sh_size - d->d_un.d_val))
				continue;
			snprintf(out, out_len, "%s", s);
			return true;
		}
	}
	return false;
}

/* The SONAME of dir/name when it is a regular file naming another file in the same folder. */
static bool file_soname(int dfd, const char *name, char *out, size_t out_len)
{
	_cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	void *map;
	bool found;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return false;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return false;
	found = elf_soname(map, (size_t)st.st_size, out, out_len);
	munmap(map, (size_t)st.st_size);
	return found && !strchr(out, '/') && strcmp(out, name) != 0 && strcmp(out, ".") != 0 && strcmp(out, "..") != 0;
}

int unpack_soname_links(const char *dir, unsigned *made, struct hx_err *err)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *de;
	char soname[NAME_MAX + 1];

	*made = 0;
	if (!d)
		return hx_syserr(err, "unpack: soname links in %s", dir);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "lib", 3) != 0 || !strstr(de->d_name, ".so.") ||
		    !file_soname(dirfd(d), de->d_name, soname, sizeof(soname)))
			continue;
		if (symlinkat(de->d_name, dirfd(d), soname) == 0)
			(*made)++;
		else if (errno != EEXIST)
			return hx_syserr(err, "unpack: link %s/%s -> %s", dir, soname, de->d_name);
	}
	return 0;
}
