/* Image manifests (images/<name>.json): what a runtime or fixture image is, where its bytes come from
 * and how to run it. Parsed strictly into a plan with no side effects (docs/manifest.md). */
#ifndef HX_MANIFEST_H
#define HX_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define MAN_MAX_ARGV 16
#define MAN_MAX_ENV  16

enum man_kind { MAN_RUNTIME, MAN_FIXTURE };
enum man_source { MAN_SRC_NPM, MAN_SRC_URL, MAN_SRC_HOST };

/* The runtime families a scenario names its scripts by; a manifest names one of them or none (""). */
extern const char *const man_families[4];

struct manifest {
	char name[64];
	char version[64];
	enum man_kind kind;
	char family[16]; /* one of man_families; "" for none */
	enum man_source source;
	/* npm */
	char package[214]; /* npm's limit on a package name */
	char pkg_version[64];
	char integrity[160]; /* "sha512-<base64>" */
	/* url */
	char url[2048];
	char sha256[65];
	unsigned strip_components;
	/* npm and url: the caps of a pull, when the manifest declares them (0: the defaults, docs/manifest.md) */
	uint64_t size, unpacked_size;
	/* host */
	char path[1024];
	/* all */
	char entry[256];			 /* relative to the unpacked tree; absolute for host images */
	char *run[MAN_MAX_ARGV + 1];		 /* argv template: {entry}, {script} */
	char *version_command[MAN_MAX_ARGV + 1]; /* argv template: {entry} */
	char version_expect[128];
	char soname_links[256];	    /* a folder of the tree whose libraries get their SONAME links at unpack */
	char *env[MAN_MAX_ENV + 1]; /* "K=V" */
	/* a folder beside the manifest holding package.json and package-lock.json: npm packages the runtime
	 * needs (wrangler's), installed at pull time and seen read-only at IMG_PACKAGES (images.h); "" for none */
	char packages[64];
	char file[1024]; /* where it was read from */
	char spec[256];	 /* what the command line named, when it was not a name ("node@22", "./out/node") */
};

/* Parse manifest text; `file` names it in errors ("images/bun.json: source.integrity: ..."). */
int man_parse(const char *file, const char *text, struct manifest *ret, struct hx_err *err);
/* Read images/<name>.json from dir, or the file itself when name has a '/' or ends in .json. */
int man_load(const char *images_dir, const char *name, struct manifest *ret, struct hx_err *err);
void man_free(struct manifest *m);
/* The digest that names the image's bytes in the cache: "sha512-<hex>" or "sha256-<hex>"; "" for host. */
void man_digest_id(const struct manifest *m, char *buf, size_t len);
extern const char *const man_source_names[];
/* The folder of m's packages (beside its manifest file); "" when it has none. */
void man_packages_dir(const struct manifest *m, char *buf, size_t len);
/* A local build: a host binary outside /usr, which the sandbox sees bound at /opt/runtime (images.h). */
bool man_is_local(const struct manifest *m);
/* The family a binary's file name says: "node", "node-main" and "node_pr" are node; "" when none. */
const char *man_family_of_file(const char *path);
/* Compare dotted versions by their numbers ("22.5" < "22.23.5"; a leading 'v' is ignored): <0, 0, >0. */
int man_version_cmp(const char *a, const char *b);

#endif
