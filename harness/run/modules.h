/* The modules a runtime loaded: every file of the scenario's tree (its node_modules included) that the server
 * opened from before its sandbox started to its answer at readiness, seen from outside the sandbox through
 * inotify (docs/scenario.md, "The modules"), so that runtimes resolving different files show. */
#ifndef HX_MODULES_H
#define HX_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "results/results.h"

#define MODS_MAX_ROOTS	 4
#define MODS_MAX_FOLDERS 20000 /* react-ssr's tree has ~60; a watch costs ~1 KB of kernel memory */
#define MODS_MAX_OPENED	 65536 /* distinct files kept before the record gives up */

/* A folder to watch, and the name its files take in the record ("" for the scenario's own, "node_modules"
 * for the dependencies mounted over its node_modules). */
struct mods_root {
	char dir[4096];
	char as[64];
};

struct mods_opened {
	char *rel;
	unsigned root;
};

/* The watches of one trial; mods_arm fills it, mods_finish empties it. */
struct mods_watch {
	int fd;
	struct mods_root roots[MODS_MAX_ROOTS];
	size_t nroots;
	struct mods_dir {
		int wd;
		unsigned root;
		char *rel; /* the folder, relative to its root ("" for the root) */
	} * dirs;
	size_t ndirs, max_folders;
	struct mods_opened *opened;
	size_t nopened;
	char why[256]; /* "": recording; else why there will be no record */
};

/* Watch every folder below the roots (links not followed; a root's folder named as another root is left to
 * that root) for opens, at most max_folders (0: MODS_MAX_FOLDERS) of them. Never fails: what stops it
 * (inotify unavailable, the folder cap, the host's watch limit) becomes the record's not_recorded. */
void mods_arm(struct mods_watch *w, const struct mods_root *roots, size_t nroots, size_t max_folders);
/* Take the opens queued so far (the kernel queues fs.inotify.max_queued_events, 16,384 by default). */
void mods_drain(struct mods_watch *w);
/* Drain, remove the watches, and fill ret: the distinct files opened in sorted order, the digest over each path
 * and its content's SHA-256 (read after the watches are gone, so that harness's reads are not counted), or why
 * not. Returns -ENOMEM when ret could not be filled. mods_release closes the descriptor: later, since closing
 * it waits for the kernel to free the watches. */
int mods_finish(struct mods_watch *w, struct res_modules *ret);
/* Stop watching and close (after mods_finish, or without a record: a trial that failed before it). Again: a
 * no-op. */
void mods_release(struct mods_watch *w);

#endif
