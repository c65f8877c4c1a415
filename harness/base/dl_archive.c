/* libarchive's table (base/dl_archive.h); Ubuntu from 24.04 names its package libarchive13t64. */
#define DL_NO_REDIRECT 1
#include "base/dl_archive.h"

#include <dlfcn.h>

struct dl_archive_fns dl_archive_fn;

static int archive_resolve(void *handle, const char **missing)
{
	struct dl_archive_fns *t = &dl_archive_fn;

	DL_ARCHIVE_FNS(DL_RESOLVE)
	return 0;
}

struct dl_lib dl_archive = {"libarchive.so.13", "libarchive13", archive_resolve, false};
