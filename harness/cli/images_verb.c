/* `harness images ls | pull NAME...|--all | verify [NAME...] | rm NAME... | gc | path NAME`. A NAME is
 * a shipped manifest (images/<name>.json), an npm spec pulled before (its pinned name), the path of a manifest
 * file or of a local build, or an npm spec (node@26.10.0). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/opt.h"
#include "base/util.h"
#include "cli/verbs.h"
#include "image/deps.h"
#include "image/images.h"
#include "image/spec.h"
#include "results/results.h"
#include "run/fixture.h"
#include "run/prepare.h"
#include "run/scenario.h"

struct images_opts {
	bool help, json, all;
};

static const struct hx_opt images_tab[] = {
	{"all", 'a', OPT_FLAG, offsetof(struct images_opts, all), NULL, .help = "pull: every shipped image"},
	{"json", 0, OPT_FLAG, offsetof(struct images_opts, json), NULL, .help = "ls: one JSON document"},
	{"help", 'h', OPT_FLAG, offsetof(struct images_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_images_opts = images_tab;

/* The names of the shipped manifests, sorted. */
static size_t shipped(char names[][64], size_t max)
{
	_cleanup_closedir_ DIR *d = opendir(img_manifest_dir());
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)) && n < max) {
		size_t len = strlen(de->d_name);

		if (len > 5 && len < 64 && strcmp(de->d_name + len - 5, ".json") == 0)
			snprintf(names[n++], 64, "%.*s", (int)(len - 5), de->d_name);
	}
	qsort(names, n, 64, (int (*)(const void *, const void *))strcmp);
	return n;
}

static int images_ls(struct img_cache *c, const struct images_opts *o, struct hx_err *err)
{
	static char names[512][64];
	bool json = o->json;
	size_t n = shipped(names, 256);
	cJSON *arr = cJSON_CreateArray();

	n += img_spec_pins(names + n, 256); /* the npm specs pulled here, after the shipped images */

	if (!json)
		printf("%-12s %-16s %-8s %-8s %-8s %10s  %s\n", "NAME", "VERSION", "KIND", "SOURCE", "STATUS", "SIZE",
		       "DIGEST");
	for (size_t i = 0; i < n; i++) {
		struct manifest m;
		struct img_status st;
		char note[8];

		if (img_spec_load(names[i], &m, note, sizeof(note), err) < 0 || img_status(c, &m, true, &st, err) < 0) {
			cJSON_Delete(arr);
			return hx_report(err);
		}
		if (json)
			cJSON_AddItemToArray(arr, res_image_json(&m, &st));
		else
			printf("%-12s %-16s %-8s %-8s %-8s %8.1fMB  %.23s%s\n", m.name, m.version,
			       m.kind == MAN_RUNTIME ? "runtime" : "fixture", man_source_names[m.source],
			       st.present ? "present" : "absent", (double)st.size / 1e6, st.digest[0] ? st.digest : "-",
			       strlen(st.digest) > 23 ? "…" : "");
		man_free(&m);
	}
	if (json) {
		_cleanup_free_ char *s = cJSON_Print(arr);

		printf("%s\n", s);
	}
	cJSON_Delete(arr);
	return HX_EXIT_OK;
}

/* One image under a sub-verb: a line on stdout, or the failure in e; *bad: verify found a difference. */
typedef int (*images_one_fn)(struct img_cache *c, const struct manifest *m, bool *bad, struct hx_err *e);

static int one_pull(struct img_cache *c, const struct manifest *m, bool *bad, struct hx_err *e)
{
	struct img_status st;

	(void)bad;
	if (img_spec_pin(m, e) < 0 || dep_img_pull(c, m, e) < 0 || img_status(c, m, false, &st, e) < 0)
		return -e->errnum;
	printf("%s %s: present (%s, %.1f MB)\n", m->name, m->version, st.digest[0] ? st.digest : m->entry,
	       (double)st.size / 1e6);
	return 0;
}

static int one_verify(struct img_cache *c, const struct manifest *m, bool *bad, struct hx_err *e)
{
	char why[512];

	if (img_verify(c, m, why, sizeof(why), e) < 0)
		return -e->errnum;
	printf("%s %s: %s\n", m->name, m->version, why[0] ? why : "ok");
	*bad = why[0] != '\0';
	return 0;
}

static int one_rm(struct img_cache *c, const struct manifest *m, bool *bad, struct hx_err *e)
{
	(void)bad;
	if (img_rm(c, m, e) < 0)
		return -e->errnum;
	printf("%s %s: removed\n", m->name, m->version);
	return 0;
}

static int one_path(struct img_cache *c, const struct manifest *m, bool *bad, struct hx_err *e)
{
	struct img_status st;

	(void)bad;
	if (img_status(c, m, false, &st, e) < 0)
		return -e->errnum;
	if (!st.present)
		return hx_fail(e, HX_EXIT_HOST, ENOENT, "image %s is not present (harness images pull %s)", m->name,
			       m->name);
	printf("%s\n", st.entry);
	return 0;
}

/* Apply one to each named image (or every shipped one); the first failure is reported, the rest go on. */
static int images_each(struct img_cache *c, const char *verb, images_one_fn one, char **names, int n, bool all,
		       struct hx_err *err)
{
	static char ship[256][64];
	int failed = 0, rc = 0;

	if (all) {
		n = (int)shipped(ship, 256);
		names = NULL;
	}
	if (n == 0) {
		hx_fail(err, HX_EXIT_USAGE, EINVAL,
			"images %s: name an image (or --all; 'harness images ls' lists them)", verb);
		return hx_report(err);
	}
	for (int i = 0; i < n; i++) {
		struct hx_err e = {0};
		struct manifest m;
		char note[512];
		bool bad = false;

		if (img_spec_load(names ? names[i] : ship[i], &m, note, sizeof(note), &e) < 0) {
			verb_suggest(&e, img_manifest_dir(), ".json", names ? names[i] : ship[i]);
			failed++, rc = hx_report(&e);
			continue;
		}
		if (note[0])
			fprintf(stderr, "harness: images: %s\n", note);
		if (one(c, &m, &bad, &e) < 0)
			failed++, rc = hx_report(&e);
		else if (bad)
			failed++, rc = HX_EXIT_VERDICT;
		man_free(&m);
	}
	return failed ? (rc ? rc : HX_EXIT_HOST) : HX_EXIT_OK;
}

static int images_gc(struct img_cache *c, const struct images_opts *o, struct hx_err *err)
{
	struct img_gc_tally t = {0};
	_cleanup_free_ struct prep_keep *prepared = calloc(1, sizeof(*prepared));

	(void)o;
	if (!prepared) {
		hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "images gc: out of memory");
		return hx_report(err);
	}
	/* every keep list first (fail closed: an unreadable manifest, folder or image removes nothing), then prune */
	if (prep_gc_keep(c, scn_dir(), prepared, err) < 0)
		return hx_report(err);
	for (int prune = 0; prune < 2; prune++)
		if (img_gc(c, prune, &t, err) < 0 || dep_gc(c, scn_dir(), img_manifest_dir(), prune, &t, err) < 0 ||
		    fx_gc(c, prune, &t, err) < 0)
			return hx_report(err);
	if (prep_gc_prune(c, prepared, &t, err) < 0)
		return hx_report(err);
	printf("removed %u cache entr%s that nothing shipped uses (%.1f MB freed)", t.removed,
	       t.removed == 1 ? "y" : "ies", (double)t.bytes / 1e6);
	if (t.in_use)
		printf("; kept %u in use by a running harness", t.in_use);
	printf("\n");
	return HX_EXIT_OK;
}

/* The sub-verbs: on the whole cache, or on each named image. */
static const struct images_sub {
	const char *name;
	int (*whole)(struct img_cache *c, const struct images_opts *o, struct hx_err *err);
	images_one_fn each;
	bool all_when_unnamed; /* verify: every shipped image when none is named */
	bool takes_all;	       /* --all */
} images_subs[] = {
	{"ls", images_ls, NULL, false, false}, {"gc", images_gc, NULL, false, false},
	{"pull", NULL, one_pull, false, true}, {"verify", NULL, one_verify, true, false},
	{"rm", NULL, one_rm, false, false},    {"path", NULL, one_path, false, false},
};

int verb_images(int argc, char **argv)
{
	struct images_opts o = {0};
	struct hx_err err = {0};
	struct img_cache c = {.lock_fd = -1};
	const struct images_sub *sub = NULL;
	int npos, rc;

	if (opt_parse("images", images_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help || npos == 0) {
		opt_print_help(
			o.help ? stdout : stderr,
			"harness images ls | pull NAME...|--all | verify [NAME...] | rm NAME... | gc | path NAME",
			"Runtime and fixture images: each pinned by a manifest (images/<name>.json, or a manifest "
			"file's\n"
			"path in place of NAME), fetched from npm, a URL or the host, verified by digest and kept in "
			"a\n"
			"content-addressed cache ($HARNESS_CACHE_DIR, else $XDG_CACHE_HOME/harness or "
			"/var/cache/harness).",
			images_tab);
		return o.help ? HX_EXIT_OK : HX_EXIT_USAGE;
	}
	for (size_t i = 0; i < HX_ARRAY_SIZE(images_subs); i++)
		if (strcmp(argv[1], images_subs[i].name) == 0)
			sub = &images_subs[i];
	if (!sub) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL, "images: unknown command '%s' (ls, pull, verify, rm, gc, path)",
			argv[1]);
		return hx_report(&err);
	}
	if (img_cache_open(&c, &err) < 0)
		return hx_report(&err);
	if (sub->each)
		rc = images_each(&c, sub->name, sub->each, argv + 2, npos - 1,
				 (sub->takes_all && o.all) || (sub->all_when_unnamed && npos == 1), &err);
	else
		rc = sub->whole(&c, &o, &err);
	img_cache_close(&c);
	return rc;
}
