/* Prepared state for script scenarios: made once per scenario files and runtime, with the network. */
#include "run/prepare.h"

#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/dl_ossl.h"
#include "base/util.h"
#include "image/deps.h"
#include "image/images.h"
#include "image/unpack.h"
#include "sandbox/sandbox.h"
#include "sandbox/sbx_net.h"
#include "sandbox/sbx_mount.h"
#include "sandbox/sbx_run.h"
#include "sandbox/sbx_scratch.h"

/* Feed every regular file below dfd (names sorted, node_modules and links left out) into md: its path
 * relative to the scenario, then its bytes. */
static int hash_dir(EVP_MD_CTX *md, int dfd, const char *rel, unsigned depth)
{
	struct dirent **names = NULL;
	int n, rc = 0;
	_cleanup_close_ int dup_fd = -1;
	char self[PATH_MAX];

	if (depth > 16)
		return -ELOOP;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", dfd);
	if ((n = scandir(self, &names, NULL, alphasort)) < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char sub[PATH_MAX], buf[65536];
		_cleanup_close_ int fd = -1;
		struct stat st;
		ssize_t r;

		if (rc < 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, "node_modules") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", rel, name);
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0)
			continue; /* a link: not part of what the sandbox is given (dep_stage leaves it out) */
		if (S_ISDIR(st.st_mode)) {
			rc = hash_dir(md, fd, sub, depth + 1);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		EVP_DigestUpdate(md, sub, strlen(sub) + 1);
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			EVP_DigestUpdate(md, buf, (size_t)r);
		if (r < 0)
			rc = -errno;
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int prep_key(const struct scenario *s, const struct manifest *m, const struct img_status *st, char key[65],
		    struct hx_err *err)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	_cleanup_close_ int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int rc;

	if (!md)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	EVP_DigestUpdate(md, s->name, strlen(s->name) + 1);
	EVP_DigestUpdate(md, m->name, strlen(m->name) + 1);
	/* the unpacked tree's name is its digest; a host image is its binary's version */
	EVP_DigestUpdate(md, st->tree, strlen(st->tree) + 1);
	EVP_DigestUpdate(md, st->binary_version, strlen(st->binary_version) + 1);
	/* every file of the scenario: its package-lock.json too, so a tool it pins (warm-install's npm) is in the
	 * key, and one npm never reuses a cache another made */
	rc = dfd < 0 ? -errno : hash_dir(md, dfd, "", 0);
	if (rc == 0)
		EVP_DigestFinal_ex(md, d, &n);
	EVP_MD_CTX_free(md);
	if (rc < 0)
		return hx_fail(err, HX_EXIT_HOST, -rc, "scenario %s: reading its files: %s", s->name, strerror(-rc));
	for (unsigned i = 0; i < n && i < 32; i++)
		snprintf(key + 2 * i, 3, "%02x", d[i]);
	return 0;
}

int prep_path(const struct scenario *s, const struct manifest *m, const struct img_status *st, char *ret, size_t len,
	      char key[65], struct hx_err *err)
{
	struct img_cache c = {.lock_fd = -1};

	if (prep_key(s, m, st, key, err) < 0 || img_cache_open(&c, err) < 0)
		return -err->errnum;
	snprintf(ret, len, "%s/prepared/sha256-%s", c.root, key);
	img_cache_close(&c);
	return 0;
}

#define PREPARE_TIMEOUT_S 900

/* What the script left becomes root's, with no group or other write bit and readable by all: a cache
 * entry the sandbox user of every later trial reads and cannot change (a package manager may write files
 * 0600). The owner's write bit stays: a trial's copy of it is the sandbox user's to write in. */
static int make_root_readable(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (lchown(path, 0, 0) < 0)
		return -1;
	if (flag == FTW_SL || S_ISLNK(st->st_mode))
		return 0;
	return chmod(path, (st->st_mode & 0755) | (S_ISDIR(st->st_mode) ? 0555 : 0444)) < 0 ? -1 : 0;
}

/* The step's network: a namespace of its own with only lo (its own loopback: no host service, no host abstract
 * socket), or for a scenario that declares it, the host's. */
static int prep_netns(const struct scenario *s, int *ret, struct hx_err *err)
{
	if (!s->prepare_network)
		return sbx_net_prepare(ret, err);
	if ((*ret = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return hx_syserr(err, "prepare: the host's network namespace");
	return 0;
}

/* The scenario's script as a trial runs it, but with PREPARE=1 and the scratch dir writable at /prepared; with
 * the host's network and the registry only when the scenario declares it ("prepare": "network"). */
static int prep_run(const struct scenario *s, const struct manifest *m, const struct img_status *st,
		    struct sbx_scratch *dir, char *log, size_t len, struct hx_err *err)
{
	char *argv[MAN_MAX_ARGV + 1], entry[PATH_MAX], script[PATH_MAX], registry[1024];
	char store[MAN_MAX_ARGV][PATH_MAX];
	struct sbx_config c;
	int netns = -1, rc;
	size_t i = 0;

	if (s->prepare_network && img_npm_registry("", registry, sizeof(registry), err) < 0)
		return -err->errnum;
	if (prep_netns(s, &netns, err) < 0)
		return -err->errnum;
	img_entry_inside(m, entry, sizeof(entry));
	snprintf(script, sizeof(script), "/scenario/%s", scn_script_for(s, m));
	for (; m->run[i] && i < MAN_MAX_ARGV; i++) {
		const char *t = m->run[i];

		snprintf(store[i], PATH_MAX, "%s",
			 strcmp(t, "{entry}") == 0    ? entry
			 : strcmp(t, "{script}") == 0 ? script
						      : t);
		argv[i] = store[i];
	}
	argv[i] = NULL;
	sbx_config_init(&c);
	c.argv = argv;
	c.cwd = "/scenario";
	c.netns_fd = netns;
	c.rootfs.binds[c.rootfs.nbinds++] = (struct sbx_bind){.src = s->dir, .dst = "/scenario"};
	if (s->node_modules[0])
		c.rootfs.binds[c.rootfs.nbinds++] =
			(struct sbx_bind){.src = s->node_modules, .dst = "/scenario/node_modules"};
	if (sbx_scratch_lend(dir, &c, "/prepared", err) < 0 || img_apply_to_sandbox(m, st, &c, err) < 0) {
		sbx_net_cleanup(&netns);
		return -err->errnum;
	}
	if (s->prepare_network)
		dep_registry_access(&c, registry);
	sbx_env_set(&c, "PREPARE=1");
	rc = sbx_run_to_end(&c, "it", PREPARE_TIMEOUT_S, log, len, err);
	sbx_net_cleanup(&netns);
	return rc;
}

/* A step that ran and exited non-zero with no network is the scenario's own failure (exit 2: its words say
 * why); with the host's network the host may be the cause. Anything else (a timeout, a sandbox that did not
 * start) is the host's. */
static int prep_failed(const struct scenario *s, const struct manifest *m, int rc, struct hx_err *err)
{
	if (rc != -EIO)
		return hx_wrap(err, "cannot prepare scenario %s on %s", s->name, m->name);
	if (s->prepare_network)
		return hx_wrap(err, "cannot prepare scenario %s on %s (it had the host's network: offline?)", s->name,
			       m->name);
	err->exit = HX_EXIT_USAGE;
	return hx_wrap(err, "the prepare step of scenario %s on %s failed, with no network (the step's own failure)",
		       s->name, m->name);
}

/* The step run with /prepared on a tmpfs of the scenario's prepare_size, then copied into tmp: what it writes
 * past that size is ENOSPC to it and never reaches the cache's disk. A step that filled it fails (exit 2), even
 * when it exited 0: what it left is cut short. */
static int prep_scratch(const struct scenario *s, const struct manifest *m, const struct img_status *st,
			const char *tmp, char *log, size_t len, struct hx_err *err)
{
	struct sbx_scratch sc;
	char what[160], fix[128];
	int rc;

	snprintf(what, sizeof(what), "the prepare step of scenario %s on %s", s->name, m->name);
	snprintf(fix, sizeof(fix), "scenario.json's \"prepare_size\" raises it, up to %lluM",
		 SCN_PREPARE_SIZE_MAX >> 20);
	if (sbx_scratch_open(&sc, tmp, s->prepare_size, sbx_role_uid(SBX_ROLE_PREPARE), sbx_role_gid(SBX_ROLE_PREPARE),
			     what, err) < 0)
		return -err->errnum;
	/* a step that filled its scratch failed for that, whatever it said */
	if ((rc = prep_run(s, m, st, &sc, log, len, err)) < 0 && !sbx_scratch_full(&sc))
		rc = sbx_scratch_ran_out(&sc, log, fix, err) < 0 ? -err->errnum : prep_failed(s, m, rc, err);
	else
		rc = sbx_scratch_finish(&sc, fix, err);
	sbx_scratch_close(&sc);
	return rc;
}

/* The existing entry at path, held with a shared flock; -ENOENT when there is none, or when a gc removed it
 * while this waited for the lock (the name then leads elsewhere, or nowhere). */
static int prep_hold(const char *path, int *ret_hold)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat held, now;

	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_SH) < 0)
		if (errno != EINTR)
			return -errno;
	if (fstat(fd, &held) < 0 || stat(path, &now) < 0 || held.st_ino != now.st_ino || held.st_dev != now.st_dev)
		return -ENOENT;
	*ret_hold = fd;
	fd = -1;
	return 0;
}

int prep_ensure(const struct scenario *s, const struct manifest *m, const struct img_status *st, bool allow_network,
		char *ret, size_t len, char key[65], int *ret_hold, struct hx_err *err)
{
	struct img_cache c = {.lock_fd = -1};
	char tmp[PATH_MAX], log[4096];
	int rc = 0;

	if (prep_path(s, m, st, ret, len, key, err) < 0)
		return -err->errnum;
	if (prep_hold(ret, ret_hold) == 0)
		return 0;
	if (img_cache_open(&c, err) < 0)
		return -err->errnum;
	snprintf(tmp, sizeof(tmp), "%s/prepared", c.root);
	if (util_mkdir_p(tmp, 0755) < 0 || flock(c.lock_fd, LOCK_EX) < 0) {
		rc = hx_syserr(err, "prepare: %s", tmp);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s/prepared/.tmp-%s-%d", c.root, key, (int)getpid());
	unpack_remove_tree(tmp);
	if (!util_exists(ret) && s->prepare_network && !allow_network) {
		rc = hx_fail(err, HX_EXIT_USAGE, EPERM,
			     "scenario %s prepares with the network (\"prepare\": \"network\"): run with "
			     "--allow-prepare-network to let it",
			     s->name);
	} else if (!util_exists(ret)) {
		fprintf(stderr, "harness: preparing scenario %s on %s (PREPARE=1, %s)\n", s->name, m->name,
			s->prepare_network ? "with the network" : "no network");
		if (mkdir(tmp, 0700) < 0)
			rc = hx_syserr(err, "prepare: %s", tmp);
		else if (prep_scratch(s, m, st, tmp, log, sizeof(log), err) < 0)
			rc = -err->errnum;
		else if (nftw(tmp, make_root_readable, 16, FTW_PHYS) != 0)
			rc = hx_syserr(err, "prepare: make %s root's", tmp);
		else if (rename(tmp, ret) < 0)
			rc = hx_syserr(err, "prepare: rename %s", tmp);
		if (rc < 0)
			unpack_remove_tree(tmp);
	}
	/* held before the cache's lock goes: a gc waiting for that lock finds it in use */
	if (rc == 0 && (rc = prep_hold(ret, ret_hold)) < 0)
		rc = hx_fail(err, HX_EXIT_HOST, -rc, "prepare: %s: %s", ret, strerror(-rc));
	flock(c.lock_fd, LOCK_UN);
out:
	img_cache_close(&c);
	return rc;
}

/* The key of scenario s on a shipped manifest's runtime (file), when the scenario runs on it and its image is
 * present. */
static int keep_one(struct img_cache *c, const struct scenario *s, const char *file, struct prep_keep *k,
		    struct hx_err *err)
{
	struct manifest m;
	struct img_status st;
	char key[65];
	int rc;

	if (man_load(img_manifest_dir(), file, &m, err) < 0)
		return -err->errnum;
	if (m.kind != MAN_RUNTIME || !scn_supports(s, &m)) {
		man_free(&m);
		return 0;
	}
	rc = img_status(c, &m, true, &st, err);
	if (rc == 0 && st.present && k->n == HX_ARRAY_SIZE(k->keys))
		rc = hx_fail(err, HX_EXIT_HOST, E2BIG, "more than %zu prepared entries", HX_ARRAY_SIZE(k->keys));
	if (rc == 0 && st.present && (rc = img_binary_version_strict(&m, &st, err)) == 0 &&
	    (rc = prep_key(s, &m, &st, key, err)) == 0)
		snprintf(k->keys[k->n++], sizeof(k->keys[0]), "sha256-%s", key);
	man_free(&m);
	return rc;
}

/* The keys of s on every shipped runtime it runs on (its families' images). */
static int keep_shipped(struct img_cache *c, const struct scenario *s, struct prep_keep *k, struct hx_err *err)
{
	_cleanup_closedir_ DIR *d = opendir(img_manifest_dir());
	struct dirent *de;

	if (!d)
		return hx_fail(err, HX_EXIT_HOST, errno, "cannot read %s (%s)", img_manifest_dir(), strerror(errno));
	while ((de = readdir(d))) {
		char file[PATH_MAX * 2];
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(file, sizeof(file), "%s/%s", img_manifest_dir(), de->d_name);
		if (keep_one(c, s, file, k, err) < 0)
			return -err->errnum;
	}
	return 0;
}

int prep_gc_keep(struct img_cache *c, const char *scenarios, struct prep_keep *ret, struct hx_err *err)
{
	_cleanup_closedir_ DIR *d = opendir(scenarios);
	_cleanup_free_ struct scenario *s = calloc(1, sizeof(*s));
	struct dirent *de;

	ret->n = 0;
	if (!s)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (!d)
		return hx_fail(err, HX_EXIT_HOST, errno, "images gc: cannot read %s (%s): nothing removed", scenarios,
			       strerror(errno));
	if (access(img_manifest_dir(), R_OK | X_OK) < 0) /* keep_shipped reads it */
		return hx_fail(err, HX_EXIT_HOST, errno, "images gc: cannot read %s (%s): nothing removed",
			       img_manifest_dir(), strerror(errno));
	while ((de = readdir(d))) {
		char file[PATH_MAX * 2];

		snprintf(file, sizeof(file), "%s/%s/scenario.json", scenarios, de->d_name);
		if (de->d_name[0] == '.' || !util_exists(file))
			continue;
		if (scn_load(scenarios, de->d_name, s, err) < 0)
			goto fail;
		if (s->prepare && keep_shipped(c, s, ret, err) < 0)
			goto fail;
	}
	return 0;
fail:
	err->exit = HX_EXIT_HOST;
	return hx_wrap(err, "images gc: nothing removed");
}

int prep_gc_prune(struct img_cache *c, struct prep_keep *keep, struct img_gc_tally *t, struct hx_err *err)
{
	return img_cache_prune(c, "prepared", keep->keys, keep->n, t, err);
}
