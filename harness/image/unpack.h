/* Unpacking image tarballs with libarchive into a fresh folder, refusing anything that could write
 * outside it or create special files; nothing is left half-unpacked. */
#ifndef HX_UNPACK_H
#define HX_UNPACK_H

#include "base/err.h"

/* Unpack archive into dest (which must not exist), dropping `strip` leading path components. */
int unpack_archive(const char *archive, const char *dest, unsigned strip, struct hx_err *err);
/* For each shared library in dir (a folder of an unpacked tree) whose ELF SONAME differs from its file
 * name (libicui18n.so.60.2 says libicui18n.so.60), make the SONAME a relative symlink to it, as ldconfig
 * or a package's install script would; *made counts them. Existing names are kept. */
int unpack_soname_links(const char *dir, unsigned *made, struct hx_err *err);
/* rm -rf, for our own temporary folders. */
int unpack_remove_tree(const char *path);

#endif
