/* The sandbox module's own part, implemented in sbx_bare.c. Out of the sandbox, for comparison only (harness run
 * --no-sandbox; docs/sandbox.md): the paths a sandbox shows (its binds, /tmp, HOME) named by the host paths they
 * stand for, and a scratch folder per start that stands for the sandbox's fresh /tmp and HOME. */
#ifndef HX_SANDBOX_INTERNAL_H
#define HX_SANDBOX_INTERNAL_H

#include <limits.h>
#include <stddef.h>

#include "base/err.h"
#include "sandbox/sandbox.h"

/* Paths inside a sandbox (dst) and the host paths they stand for (src). */
struct sbx_view {
	struct {
		const char *dst, *src;
	} e[SBX_MAX_BINDS + 2];
	size_t n;
};

/* What a bare start runs: argv, environment and working folder with every path inside made a host path. */
struct sbx_bare {
	char scratch[SBX_SCRATCH_LEN], tmp[SBX_SCRATCH_LEN + 8], home[SBX_SCRATCH_LEN + 8];
	char cwd[PATH_MAX];
	char env[SBX_MAX_ENV][SBX_ENV_LEN];
	size_t nenv;
	char **argv; /* NULL-terminated; the array and its strings in one allocation */
};

/* The view of r, with tmp and home standing for /tmp and HOME. A bind below another bind must show what the
 * host has at that place (its src the outer src with the same rest): no host path shows anything else there;
 * nor a data folder (a tmpfs or an overlay: the fixture's). A usage error names it. */
int sbx_view_make(const struct sbx_rootfs *r, const char *tmp, const char *home, struct sbx_view *ret,
		  struct hx_err *err);
/* value with every ':'-separated part that names a path inside (an entry's dst or below it; the longest dst
 * wins) made the host path, into out. Returns -E2BIG when it does not fit len. */
int sbx_view_translate(const struct sbx_view *v, const char *value, char *out, size_t len);
/* One argument of a command: as sbx_view_translate, and an option's value given with '=' ("--config=/scenario/x",
 * "--allow-read=/tmp:/scenario") likewise, the option's name kept. */
int sbx_view_translate_arg(const struct sbx_view *v, const char *arg, char *out, size_t len);
/* In the parent: the start's scratch folder (in c->bare_dir, else /tmp; tmp/ and home/ in it, the sandbox
 * user's, 0700) and c's argv, environment and working folder translated. */
int sbx_bare_prepare(const struct sbx_config *c, struct sbx_bare **ret, struct hx_err *err);
/* Frees b; the scratch folder stays (sbx_bare_remove, once the payload is gone). */
void sbx_bare_free(struct sbx_bare *b);
/* Remove a scratch folder and everything the payload left in it, never following a link. */
void sbx_bare_remove(const char *scratch);

#endif
