/* Unpacking image tarballs with libarchive into a fresh folder, refusing anything that could write
 * outside it or create special files; nothing is left half-unpacked. */
#ifndef HX_UNPACK_H
#define HX_UNPACK_H

#include <stdint.h>

#include "base/err.h"

/* The most an archive of archive_bytes may unpack to when its manifest does not say: UNPACK_RATIO times its
 * size, at least UNPACK_FLOOR (small packages of text compress well), at most UNPACK_CEILING. The images
 * harness ships unpack to 2-5 times their size; a zip bomb to hundreds. */
#define UNPACK_RATIO	   20
#define UNPACK_FLOOR	   (64ull << 20)
#define UNPACK_CEILING	   (8ull << 30)
#define UNPACK_MAX_ENTRIES 500000
uint64_t unpack_default_cap(uint64_t archive_bytes);
/* Unpack archive into dest (which must not exist), dropping `strip` leading path components; more than
 * max_bytes of file data, or more than UNPACK_MAX_ENTRIES entries, is refused (exit 2) and dest removed. */
int unpack_archive(const char *archive, const char *dest, unsigned strip, uint64_t max_bytes, struct hx_err *err);
/* For each shared library in dir (a folder of an unpacked tree) whose ELF SONAME differs from its file
 * name (libicui18n.so.60.2 says libicui18n.so.60), make the SONAME a relative symlink to it, as ldconfig
 * or a package's install script would; *made counts them. Existing names are kept. */
int unpack_soname_links(const char *dir, unsigned *made, struct hx_err *err);
/* rm -rf, for our own temporary folders. */
int unpack_remove_tree(const char *path);

#endif
