/* Shared libraries opened when a verb first needs them, not by the loader at every start: libcurl,
 * libarchive and OpenSSL with what they pull in were most of a start's cost (docs/architecture.md). Each
 * library is a table of function pointers (dl_curl.h, dl_archive.h, dl_ossl.h), filled once by dlsym. */
#ifndef HX_DL_H
#define HX_DL_H

#include <stdbool.h>

#include "base/err.h"

struct dl_lib {
	const char *soname;				    /* what dlopen is given */
	const char *package;				    /* the Debian package that ships it, named in the error */
	int (*resolve)(void *handle, const char **missing); /* fills the library's table */
	bool ready;					    /* set (release) once the table is filled */
};

/* Open lib and fill its table, once (thread-safe); later calls return at once. A missing library or
 * symbol is exit 3: "needs libcurl.so.4 (the Debian package libcurl4): <dlerror>". */
int dl_open(struct dl_lib *lib, struct hx_err *err);
/* dl_open for a call site that has no error path: on failure print the same line and exit 3. */
void dl_need_slow(struct dl_lib *lib);

static inline void dl_need(struct dl_lib *lib)
{
	if (!__atomic_load_n(&lib->ready, __ATOMIC_ACQUIRE))
		dl_need_slow(lib);
}

/* Fill one table member from dlsym; the POSIX form of storing a void * in a function pointer. */
#define DL_RESOLVE(f)                                 \
	if (!(*(void **)&t->f = dlsym(handle, #f))) { \
		*missing = #f;                        \
		return -1;                            \
	}
#define DL_FIELD(f) __typeof__(f) *f;

#endif
