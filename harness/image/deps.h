/* A scenario's npm dependencies: installed once per lock file by harness itself (image/npmtree.h: the tree
 * `npm ci --ignore-scripts` makes, with no program run) into the image cache, keyed by the lock file's digest,
 * and seen read-only at /scenario/node_modules. */
#ifndef HX_DEPS_H
#define HX_DEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* A scenario as the dependencies see it: its name (for messages and the staged copy) and its folder. */
struct dep_src {
	const char *name, *dir;
};

/* A package-lock.json harness may follow: lockfileVersion 2 or 3, every "packages" key a
 * node_modules/<name> path with npm package names, no links to folders, semantic versions, and any
 * "resolved" URL under registry. A usage error naming the file and entry otherwise. */
int dep_check_lock(const char *file, const char *text, const char *registry, struct hx_err *err);
/* The packages a lock's project names itself (its dependencies, devDependencies and optionalDependencies), at the
 * versions the lock installs: what a results file records of a scenario's dependencies (warm-install's npm). */
#define DEP_MAX_DIRECT 32
struct dep_direct {
	char lock[72]; /* sha256-<hex> of package-lock.json (the name of its cache entry); "" when there is none */
	size_t n;      /* at most DEP_MAX_DIRECT: the first ones in the lock's order */
	char name[DEP_MAX_DIRECT][216];
	char version[DEP_MAX_DIRECT][64];
};
/* ret->n and its names from the text of a lock file (ret->lock untouched); a usage error naming file when it
 * is not one. A name the lock has no node_modules/<name> entry for (an optional package it left out) is left
 * out. */
int dep_lock_direct(const char *file, const char *text, struct dep_direct *ret, struct hx_err *err);
/* dep_lock_direct of dir/package-lock.json with its digest; ret zeroed when dir has none. */
int dep_lock_read(const char *dir, struct dep_direct *ret, struct hx_err *err);
/* The node_modules folder for scenario s (installing it when absent); "" when s has no
 * package-lock.json. Offline with nothing cached: an HX_EXIT_HOST error that says so. */
int dep_ensure(const struct dep_src *s, char *ret, size_t len, struct hx_err *err);
/* dep_ensure with what s is in its messages ("image": a runtime's packages, docs/manifest.md). */
int dep_ensure_as(const char *what, const struct dep_src *s, char *ret, size_t len, struct hx_err *err);
/* A copy of the scenario folder under dir (without node_modules) with an empty node_modules to mount
 * the installed one on: the sandbox binds this copy at /scenario. */
int dep_stage(const struct dep_src *s, const char *dir, char *ret, size_t len, struct hx_err *err);
/* Whether every folder below dir (itself included) is readable and searchable by others and every file
 * readable: what a bind mount needs for the sandbox user to use it as it is. */
bool dep_readable_by_all(const char *dir);
struct sbx_config;
/* What a sandbox needs to reach the registry npm is configured with: the host's resolver files read-only,
 * the caller's npm_config_* settings and extra CA files (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, SSL_CERT_DIR,
 * DENO_CERT), npm_config_registry and NPM_CONFIG_REGISTRY (bun's and deno's name). The caller gives it the
 * host's network namespace. */
void dep_registry_access(struct sbx_config *c, const char *registry);
/* A tree the sandbox user wrote becomes root's with no group or other write bit (a cache entry). */
int dep_make_roots(const char *dir);
struct img_cache;
struct manifest;
/* img_pull, then the runtime's packages (a manifest's "packages", docs/manifest.md) installed as a
 * scenario's dependencies are, once per lock file: what a pull of such a runtime is (img_status says it is
 * present only with both). */
int dep_img_pull(struct img_cache *c, const struct manifest *m, struct hx_err *err);
struct img_gc_tally;
/* `images gc`: remove installed dependencies no lock file of a scenario under scenarios nor of an image's
 * packages under images refers to (with prune false: only check that every lock file can be read). */
int dep_gc(struct img_cache *c, const char *scenarios, const char *images, bool prune, struct img_gc_tally *t,
	   struct hx_err *err);

#endif
