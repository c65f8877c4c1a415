/* `harness images ls | pull NAME...|--all | verify [NAME...] | rm NAME... | gc | path NAME`. A NAME is
 * a shipped manifest (images/<name>.json) or the path of a manifest file. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "image/deps.h"
#include "run/fixture.h"
#include "image/images.h"
#include "base/opt.h"
#include "base/util.h"
#include "cli/verbs.h"

struct images_opts {
	bool help, json, all;
};

static const struct hx_opt images_tab[] = {
	{"all", 'a', OPT_FLAG, offsetof(struct images_opts, all), NULL, "pull: every shipped image"},
	{"json", 0, OPT_FLAG, offsetof(struct images_opts, json), NULL, "ls: one JSON document"},
	{"help", 'h', OPT_FLAG, offsetof(struct images_opts, help), NULL, "show this help"},
	OPT_END,
};

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

static int images_ls(struct img_cache *c, bool json, struct hx_err *err)
{
	static char names[256][64];
	size_t n = shipped(names, 256);
	cJSON *arr = cJSON_CreateArray();

	if (!json)
		printf("%-12s %-16s %-8s %-8s %-8s %10s  %s\n", "NAME", "VERSION", "KIND", "SOURCE", "STATUS", "SIZE",
		       "DIGEST");
	for (size_t i = 0; i < n; i++) {
		struct manifest m;
		struct img_status st;

		if (man_load(img_manifest_dir(), names[i], &m, err) < 0 || img_status(c, &m, true, &st, err) < 0) {
			cJSON_Delete(arr);
			return -err->errnum;
		}
		if (json)
			cJSON_AddItemToArray(arr, img_describe(&m, &st));
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
	return 0;
}

/* Apply op to each named image (or every shipped one); the first failure is reported, the rest go on. */
static int images_each(struct img_cache *c, const char *verb, char **names, int n, bool all, struct hx_err *err)
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
		const char *name = names ? names[i] : ship[i];
		struct hx_err e = {0};
		struct manifest m;
		struct img_status st;
		char why[512];

		if (man_load(img_manifest_dir(), name, &m, &e) < 0) {
			failed++, rc = hx_report(&e);
			continue;
		}
		if (strcmp(verb, "pull") == 0 && img_pull(c, &m, &e) == 0 && img_status(c, &m, false, &st, &e) == 0)
			printf("%s %s: present (%s, %.1f MB)\n", m.name, m.version, st.digest[0] ? st.digest : m.entry,
			       (double)st.size / 1e6);
		else if (strcmp(verb, "verify") == 0 && img_verify(c, &m, why, sizeof(why), &e) == 0) {
			printf("%s %s: %s\n", m.name, m.version, why[0] ? why : "ok");
			if (why[0])
				failed++, rc = HX_EXIT_VERDICT;
		} else if (strcmp(verb, "rm") == 0 && img_rm(c, &m, &e) == 0)
			printf("%s %s: removed\n", m.name, m.version);
		else if (strcmp(verb, "path") == 0 && img_status(c, &m, false, &st, &e) == 0) {
			if (!st.present)
				hx_fail(&e, HX_EXIT_HOST, ENOENT, "image %s is not present (harness images pull %s)",
					m.name, m.name);
			else
				printf("%s\n", st.entry);
		}
		if (e.msg[0])
			failed++, rc = hx_report(&e);
		man_free(&m);
	}
	return failed ? (rc ? rc : HX_EXIT_HOST) : HX_EXIT_OK;
}

int verb_images(int argc, char **argv)
{
	struct images_opts o = {0};
	struct hx_err err = {0};
	struct img_cache c = {.lock_fd = -1};
	const char *sub;
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
	sub = argv[1];
	if (img_cache_open(&c, &err) < 0)
		return hx_report(&err);
	if (strcmp(sub, "ls") == 0)
		rc = images_ls(&c, o.json, &err) < 0 ? hx_report(&err) : HX_EXIT_OK;
	else if (strcmp(sub, "gc") == 0) {
		unsigned removed = 0;

		/* every keep list first (fail closed: an unreadable manifest or folder removes nothing), then prune */
		rc = img_gc(&c, false, &removed, &err) < 0 || dep_gc(&c, false, &removed, &err) < 0 ||
				     fx_gc(&c, false, &removed, &err) < 0 || img_gc(&c, true, &removed, &err) < 0 ||
				     dep_gc(&c, true, &removed, &err) < 0 || fx_gc(&c, true, &removed, &err) < 0
			     ? hx_report(&err)
			     : HX_EXIT_OK;
		if (rc == 0)
			printf("removed %u cache entr%s that nothing shipped uses\n", removed,
			       removed == 1 ? "y" : "ies");
	} else if (strcmp(sub, "verify") == 0 && npos == 1)
		rc = images_each(&c, sub, NULL, 0, true, &err);
	else if (strcmp(sub, "pull") == 0 || strcmp(sub, "verify") == 0 || strcmp(sub, "rm") == 0 ||
		 strcmp(sub, "path") == 0)
		rc = images_each(&c, sub, argv + 2, npos - 1, o.all && strcmp(sub, "pull") == 0, &err);
	else {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL, "images: unknown command '%s' (ls, pull, verify, rm, gc, path)",
			sub);
		rc = hx_report(&err);
	}
	img_cache_close(&c);
	return rc;
}
