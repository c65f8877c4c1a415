/* libcurl's table (base/dl_curl.h). The soname is the one harness is built against; Ubuntu from 24.04
 * names its package libcurl4t64. */
#define DL_NO_REDIRECT 1
#include "base/dl_curl.h"

#include <dlfcn.h>

struct dl_curl_fns dl_curl_fn;

static int curl_resolve(void *handle, const char **missing)
{
	struct dl_curl_fns *t = &dl_curl_fn;

	DL_CURL_FNS(DL_RESOLVE)
	return 0;
}

struct dl_lib dl_curl = {"libcurl.so.4", "libcurl4", curl_resolve, false};
