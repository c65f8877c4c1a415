/* The image cache: content-addressed blobs (downloads) and trees (unpacked), filled from npm, a URL or
 * the host, verified by digest, safe for concurrent harness processes (docs/manifest.md). */
#ifndef HX_IMAGES_H
#define HX_IMAGES_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "image/manifest.h"

struct img_cache {
	char root[PATH_MAX];
	int lock_fd;
	bool readonly; /* root's cache read by a user: present images only, no pulls */
	int ro_errno;  /* why it is read-only (access(2)'s errno) */
};

struct img_status {
	bool present;
	char tree[PATH_MAX];	 /* the unpacked tree; "" for host images */
	char entry[PATH_MAX];	 /* the entry binary on the host */
	char digest[160];	 /* of the download, or of the host binary */
	uint64_t size;		 /* bytes on disk */
	char binary_version[96]; /* what the version command printed (first line); "" until img_binary_version */
	/* a local build (a host binary outside /usr): what is bound at IMG_MOUNT, its folder when the sandbox user
	 * may search it, else the binary alone (a private folder, as mktemp -d makes) */
	char bind[PATH_MAX];
	char bind_dst[PATH_MAX]; /* where it is bound: IMG_MOUNT, or IMG_MOUNT/<file name> for the binary alone */
	char packages[PATH_MAX]; /* the manifest's packages installed in the cache (node_modules); "" for none */
};

/* The folder of the shipped manifests: $HARNESS_IMAGES_DIR, or images/ beside the binary's checkout,
 * or share/harness/images of its installation. */
const char *img_manifest_dir(void);
/* $HARNESS_CACHE_DIR, $XDG_CACHE_HOME/harness, /var/cache/harness for root, ~/.cache/harness. */
int img_cache_open(struct img_cache *c, struct hx_err *err);
/* The cache's folder, as img_cache_open would open it (nothing made). */
void img_cache_path(char *buf, size_t len);
void img_cache_close(struct img_cache *c);
int img_status(struct img_cache *c, const struct manifest *m, bool hash_host, struct img_status *ret,
	       struct hx_err *err);
/* The registry URL npm uses for package (its scope's, else the default), from `npm config get`. */
int img_npm_registry(const char *package, char *buf, size_t len, struct hx_err *err);
/* The registry's document of package (the abbreviated one npm installs from: dist-tags, versions, dist). */
int img_npm_document(const char *package, char **ret, struct hx_err *err);
/* Fetch, verify, unpack (under the cache's lock); a no-op when the tree is present. A runtime with packages
 * is pulled whole by dep_img_pull (deps.h). */
int img_pull(struct img_cache *c, const struct manifest *m, struct hx_err *err);
/* Re-hash the blob, check the tree's entry, run the version command. */
int img_verify(struct img_cache *c, const struct manifest *m, char *why, size_t why_len, struct hx_err *err);
/* Run the manifest's version command on a present image, in its sandbox as images verify does: its first
 * line into st->binary_version (node20's manifest says "20", the binary "v20.20.2"); left "" when the
 * manifest has none or it cannot run. */
void img_binary_version(const struct manifest *m, struct img_status *st);
int img_rm(struct img_cache *c, const struct manifest *m, struct hx_err *err);
/* What gc removed (entries, their bytes) and what it kept because a running harness holds it. */
struct img_gc_tally {
	unsigned removed, in_use;
	uint64_t bytes;
};
/* Remove every entry of <cache>/<sub> whose name is not in keep, under the cache's lock, and say each on
 * stdout; t is added to. An entry a running harness holds (a shared flock on it, as a run holds its
 * prepared state) is kept and said on stderr. */
int img_cache_prune(struct img_cache *c, const char *sub, char keep[][160], size_t nkeep, struct img_gc_tally *t,
		    struct hx_err *err);
/* Remove blobs, trees and partial downloads no shipped manifest refers to. Without prune: only check that
 * every manifest reads (exit 3 otherwise), so that gc removes nothing it cannot rule out. */
int img_gc(struct img_cache *c, bool prune, struct img_gc_tally *t, struct hx_err *err);
/* Run m's version command as img_binary_version does; its failure in err (the entry's key needs it). */
int img_binary_version_strict(const struct manifest *m, struct img_status *st, struct hx_err *err);
struct sbx_config;
#define IMG_MOUNT "/opt/runtime"
/* Where a runtime's packages (a manifest's "packages") are seen: its node_modules, read-only. */
#define IMG_PACKAGES "/opt/packages/node_modules"
/* The entry's path inside the sandbox: IMG_MOUNT/<entry> for a downloaded image, the path itself for a host
 * binary under /usr, IMG_MOUNT/<file name> for a local build. */
void img_entry_inside(const struct manifest *m, char *buf, size_t len);
/* The most a pull downloads when the manifest declares no source.size (the largest image here is ~60 MB). */
#define IMG_MAX_DOWNLOAD (1ull << 30)
/* Put a present image into a sandbox: its tree read-only at /opt/runtime (host images are already
 * under /usr), its packages read-only at IMG_PACKAGES, its environment, its entry's folder first on PATH and RUNTIME=<entry inside>. The bind
 * borrows st->tree: st must live as long as c (it was a copy per trial that nothing freed). */
int img_apply_to_sandbox(const struct manifest *m, const struct img_status *st, struct sbx_config *c,
			 struct hx_err *err);

#endif
