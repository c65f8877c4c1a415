/* A script scenario's prepared state ("prepare": true): before the first trial the scenario's script runs
 * once per runtime with PREPARE=1, the network (the registry npm is configured with) and a writable
 * /prepared; what it leaves there becomes a read-only cache entry, <cache>/prepared/sha256-<key>, that
 * every trial of that runtime sees at /prepared with no network. The key is the digest of the scenario's
 * files, its name and the runtime image: a change to any of them prepares again. */
#ifndef HX_PREPARE_H
#define HX_PREPARE_H

#include <stddef.h>

#include "base/err.h"
#include "image/images.h"
#include "image/manifest.h"
#include "run/scenario.h"

/* The entry's folder for scenario s (its files under s->dir) on image m into ret, and its key (64 hex
 * digits) into key; whether it exists is not checked. */
int prep_path(const struct scenario *s, const struct manifest *m, const struct img_status *st, char *ret, size_t len,
	      char key[65], struct hx_err *err);
/* The entry, made when absent (the script's failure: an HX_EXIT_HOST error with its last output). */
int prep_ensure(const struct scenario *s, const struct manifest *m, const struct img_status *st, char *ret, size_t len,
		char key[65], struct hx_err *err);

#endif
