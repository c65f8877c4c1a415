/* Opening the libraries harness uses on first use (base/dl.h); their tables are in dl_curl.c, dl_archive.c,
 * dl_ossl.c. */
#include "base/dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;

static int dl_open_locked(struct dl_lib *lib, struct hx_err *err)
{
	const char *missing = NULL;
	void *handle;

	if (lib->ready)
		return 0;
	/* RTLD_NOW: a symbol this libc cannot bind fails here, not in the middle of a download */
	handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return hx_fail(err, HX_EXIT_HOST, ENOENT, "needs %s (the Debian package %s): %s", lib->soname,
			       lib->package, dlerror());
	if (lib->resolve(handle, &missing) < 0) {
		dlclose(handle);
		return hx_fail(err, HX_EXIT_HOST, ENOENT,
			       "%s has no %s: harness needs the version of the Debian package %s", lib->soname, missing,
			       lib->package);
	}
	/* the handle stays open for the life of the process: the table points into it */
	__atomic_store_n(&lib->ready, true, __ATOMIC_RELEASE);
	return 0;
}

int dl_open(struct dl_lib *lib, struct hx_err *err)
{
	int r;

	if (__atomic_load_n(&lib->ready, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&dl_lock);
	r = dl_open_locked(lib, err);
	pthread_mutex_unlock(&dl_lock);
	return r;
}

void dl_need_slow(struct dl_lib *lib)
{
	struct hx_err err = {0};

	if (dl_open(lib, &err) < 0)
		exit(hx_report(&err));
}
