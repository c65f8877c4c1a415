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
/* The entry, made when absent (the script's failure: an HX_EXIT_HOST error with its last output), and held:
 * *ret_hold is a descriptor of it with a shared flock, which `images gc` will not remove while the caller
 * keeps it open (for as long as the run). */
int prep_ensure(const struct scenario *s, const struct manifest *m, const struct img_status *st, bool allow_network,
		char *ret, size_t len, char key[65], int *ret_hold, struct hx_err *err);

/* `images gc`: the entries the shipped scenarios (under scenarios) prepare on the present images. Each
 * key needs the image's version line, so each such image's version command runs once, in its sandbox. */
struct prep_keep {
	char keys[64][160]; /* "sha256-<key>" */
	size_t n;
};
int prep_gc_keep(struct img_cache *c, const char *scenarios, struct prep_keep *ret, struct hx_err *err);
/* Remove the prepared entries not in keep (and leftovers), except those a running harness holds. */
int prep_gc_prune(struct img_cache *c, struct prep_keep *keep, struct img_gc_tally *t, struct hx_err *err);

#endif
