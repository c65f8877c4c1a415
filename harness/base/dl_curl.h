/* libcurl through its table (base/dl.h): include this, never <curl/curl.h>; calls read as libcurl's. */
#ifndef HX_DL_CURL_H
#define HX_DL_CURL_H

/* curl.h defines curl_easy_setopt and curl_easy_getinfo as macros that call the functions by name (and with
 * gcc, check the argument's type first), which this binary does not link: they are redefined below. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_share_setopt

#include "base/dl.h"

#define DL_CURL_FNS(X)        \
	X(curl_easy_cleanup)  \
	X(curl_easy_getinfo)  \
	X(curl_easy_init)     \
	X(curl_easy_perform)  \
	X(curl_easy_setopt)   \
	X(curl_easy_strerror) \
	X(curl_global_init)   \
	X(curl_share_init)    \
	X(curl_share_setopt)  \
	X(curl_slist_append)  \
	X(curl_slist_free_all)

struct dl_curl_fns {
	DL_CURL_FNS(DL_FIELD)
};
extern struct dl_curl_fns dl_curl_fn;
extern struct dl_lib dl_curl;

static inline const struct dl_curl_fns *dl_curl_get(void)
{
	dl_need(&dl_curl);
	return &dl_curl_fn;
}

#ifndef DL_NO_REDIRECT
#define curl_easy_cleanup   (*dl_curl_get()->curl_easy_cleanup)
#define curl_easy_getinfo   (*dl_curl_get()->curl_easy_getinfo)
#define curl_easy_init	    (*dl_curl_get()->curl_easy_init)
#define curl_easy_perform   (*dl_curl_get()->curl_easy_perform)
#define curl_easy_setopt    (*dl_curl_get()->curl_easy_setopt)
#define curl_easy_strerror  (*dl_curl_get()->curl_easy_strerror)
#define curl_global_init    (*dl_curl_get()->curl_global_init)
#define curl_share_init	    (*dl_curl_get()->curl_share_init)
#define curl_share_setopt   (*dl_curl_get()->curl_share_setopt)
#define curl_slist_append   (*dl_curl_get()->curl_slist_append)
#define curl_slist_free_all (*dl_curl_get()->curl_slist_free_all)
#endif

#endif
