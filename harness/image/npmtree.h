/* A package-lock.json installed by harness itself, with no npm and no process: the lock read into a plan (which
 * package goes to which folder, which are left out as npm ci leaves them out), then each tarball fetched with
 * libcurl, checked against the lock's integrity, unpacked as npm's pacote unpacks it, and the node_modules/.bin
 * links made as npm's bin-links makes them (docs/scenario.md, "npm dependencies"). */
#ifndef HX_NPMTREE_H
#define HX_NPMTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* What npm's os, cpu and libc fields are judged against (npm-install-checks): process.platform,
 * process.arch and the C library's family. */
struct npt_platform {
	const char *os, *cpu, *libc;
};
/* The platform harness was built for (linux, x64 or arm64, glibc or musl). */
const struct npt_platform *npt_host(void);

struct npt_bin {
	char *name, *target; /* node_modules/.bin/<name> -> <the package's folder>/<target>, both normalized */
};

struct npt_node {
	char *key;	 /* the install path, "node_modules/a/node_modules/@s/b"; "" is the project */
	char *name;	 /* the package's own name (an alias's real one): the tarball's */
	char *version;	 /* NULL for the project */
	char *resolved;	 /* the lock's URL, NULL when it names none */
	char *integrity; /* the lock's SRI text */
	bool optional, in_bundle, has_bundle;
	bool inert; /* left out: an optional package for another platform, or needed only by one */
	/* an optional package the registry does not have (npt_install): left out as npm leaves it out, and why */
	char *missing;
	struct npt_bin *bins;
	size_t nbins;
};

/* A dependency edge: from a node to the node its name resolves to from there (as node's require would, up the
 * node_modules folders), to -1 when none is installed. */
struct npt_edge {
	size_t from;
	long to;
	bool optional; /* an optionalDependencies or an optional peer */
};

struct npt_plan {
	struct npt_node *nodes; /* in the lock's order, the project first */
	size_t n;
	struct npt_edge *edges;
	size_t nedges;
	size_t *by_key; /* node indexes sorted by key */
};

/* The plan of a lock's text: lockfileVersion 2 or 3, its "packages" entries; an optional package whose os, cpu
 * or libc excludes p is inert with the packages only it needs (npm's optionalSet). A usage error naming the file
 * and entry for a link (workspace) entry, an entry npm could not fetch (no version and no resolved URL, or no
 * integrity), a malformed integrity; a host error for a required package of another platform. */
int npt_plan_lock(const char *file, const char *text, const struct npt_platform *p, struct npt_plan *ret,
		  struct hx_err *err);
void npt_plan_free(struct npt_plan *p);
/* Leave the node out, with what only it needs (arborist's optionalSet): each marked inert; -ENOMEM. */
int npt_leave_out(struct npt_plan *p, size_t node);
/* The index of the node at key, -1 when the lock has none. */
long npt_find(const struct npt_plan *p, const char *key);

/* npm ci's first refusal: the project's package.json and the lock's project ("packages"."") must name the same
 * dependencies, devDependencies, optionalDependencies and peerDependencies with the same ranges; a usage error
 * naming the first difference and the fix (npm install) otherwise. */
int npt_check_project(const char *pkg_file, const char *pkg_text, const char *lock_file, const char *lock_text,
		      struct hx_err *err);

/* Install plan into root (which must exist and be empty): root/node_modules/... as npm ci --ignore-scripts makes
 * it, each tarball from registry (or its resolved URL) checked against its integrity before a byte of it is
 * unpacked. More than max_bytes unpacked in all, an unsafe entry (an absolute path, a '..', a device node) or an
 * integrity mismatch is a usage error (exit 2) naming the package; a failed download a host error (exit 3).
 * An optional package the registry does not have (404) is left out with what only it needs, as npm's reify
 * leaves a failed optional one out: its node's missing says why (the caller says it), and whatever of that set
 * was unpacked before is removed. A download that failed otherwise (offline) still fails the install: a tree
 * kept in the cache must not lack a package for a passing reason. */
int npt_install(struct npt_plan *plan, const char *registry, const char *root, uint64_t max_bytes, struct hx_err *err);

#endif
