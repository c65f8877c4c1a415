/* Prepare-time bundling: `bun build` or `deno bundle` in the bundler image's sandbox, no network. */
#include "run/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "image/images.h"
#include "image/manifest.h"
#include "image/unpack.h"
#include "sandbox/sandbox.h"
#include "sandbox/sbx_run.h"
#include "sandbox/sbx_mount.h"
#include "sandbox/sbx_userns.h"

#define BUNDLE_TIMEOUT_S 300
#define BUNDLE_MAX_BYTES (64u << 20)

/* The bundler's command line after its entry: the module, for the browser-like platform workerd is,
 * ES module output, production React (process.env.NODE_ENV), into /bundle/out.js. */
static void bundler_argv(const struct scn_bundle *b, char *entry, char *module, char **argv)
{
	static const char *const bun[] = {"build", "--target=browser", "--format=esm", "--production",
					  "--outfile=/bundle/out.js"};
	static const char *const deno[] = {"bundle", "--platform=browser", "--minify", "--output=/bundle/out.js"};
	bool is_bun = strcmp(b->with, "bun") == 0;
	size_t n = 0, k = is_bun ? HX_ARRAY_SIZE(bun) : HX_ARRAY_SIZE(deno);

	argv[n++] = entry;
	for (size_t i = 0; i < k; i++)
		argv[n++] = (char *)(is_bun ? bun[i] : deno[i]);
	argv[n++] = module;
	argv[n] = NULL;
}

const char *bundle_node_env(const struct scn_bundle *b)
{
	(void)b; /* bun's --production, and deno's --minify on a browser platform (esbuild's rule) */
	return "production";
}

/* The bundler image, pulled when absent (prepare may use the network), with its version line. */
static int bundler_image(const char *name, struct manifest *m, struct img_status *st, struct hx_err *err)
{
	struct img_cache c = {.lock_fd = -1};
	int rc;

	if (man_load(img_manifest_dir(), name, m, err) < 0)
		return -err->errnum;
	if (img_cache_open(&c, err) < 0) {
		man_free(m);
		return -err->errnum;
	}
	rc = img_status(&c, m, true, st, err);
	if (rc == 0 && !st->present && (rc = img_pull(&c, m, err)) == 0)
		rc = img_status(&c, m, true, st, err);
	img_cache_close(&c);
	if (rc < 0) {
		man_free(m);
		return hx_wrap(err, "the bundler %s", name);
	}
	img_binary_version(m, st);
	return 0;
}

/* Run the bundler to its end (or the deadline), its output's end in log. */
static int bundler_run(const struct manifest *m, const struct img_status *st, const struct scenario *s,
		       const char *outdir, int netns_fd, char *log, size_t len, struct hx_err *err)
{
	char entry[PATH_MAX], module[PATH_MAX], *argv[16];
	struct sbx_config c;

	img_entry_inside(m, entry, sizeof(entry));
	snprintf(module, sizeof(module), "/scenario/%s", s->bundle.entry);
	bundler_argv(&s->bundle, entry, module, argv);
	sbx_config_init(&c);
	c.argv = argv;
	c.cwd = "/scenario";
	c.netns_fd = netns_fd;
	c.rootfs.binds[c.rootfs.nbinds++] = (struct sbx_bind){.src = s->dir, .dst = "/scenario"};
	if (s->node_modules[0])
		c.rootfs.binds[c.rootfs.nbinds++] =
			(struct sbx_bind){.src = s->node_modules, .dst = "/scenario/node_modules"};
	c.rootfs.binds[c.rootfs.nbinds++] = (struct sbx_bind){.src = outdir, .dst = "/bundle", .rw = true};
	if (img_apply_to_sandbox(m, st, &c, err) < 0)
		return -err->errnum;
	return sbx_run_to_end(&c, "it", BUNDLE_TIMEOUT_S, log, len, err);
}

/* The one regular file the sandbox user wrote, read by root without following a link it may have put
 * there (to /etc/shadow, say) and without blocking on a FIFO. */
static int read_output(const char *path, char **ret, size_t *ret_len, struct hx_err *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	size_t got = 0;
	char *buf;

	if (fd < 0 || fstat(fd, &st) < 0)
		return hx_fail(err, HX_EXIT_HOST, errno, "it wrote no bundle (%s)", strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > BUNDLE_MAX_BYTES)
		return hx_fail(err, HX_EXIT_HOST, EINVAL, "its output is not a regular file of 1 byte to 64 MiB");
	if (!(buf = malloc((size_t)st.st_size)))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			free(buf);
			return hx_fail(err, HX_EXIT_HOST, n < 0 ? errno : EIO, "reading its bundle: %s",
				       n < 0 ? strerror(errno) : "shorter than it was");
		}
		got += (size_t)n;
	}
	*ret = buf;
	*ret_len = got;
	return 0;
}

/* Copy the bundle into the staged scenario at out (its folders made as needed). */
static int place(const struct scenario *s, const char *data, size_t len, struct hx_err *err)
{
	char to[PATH_MAX * 2], *slash;

	snprintf(to, sizeof(to), "%s/%s", s->dir, s->bundle.out);
	slash = strrchr(to, '/');
	*slash = '\0';
	if (util_mkdir_p(to, 0755) < 0)
		return hx_syserr(err, "bundle: %s", to);
	*slash = '/';
	return util_write_atomic(to, data, len, err);
}

int bundle_make(struct scenario *s, const char *run_dir, int netns_fd, struct hx_err *err)
{
	struct scn_bundle *b = &s->bundle;
	struct manifest m;
	struct img_status st;
	char outdir[PATH_MAX], out[PATH_MAX + 16], log[4096];
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	int rc;

	snprintf(outdir, sizeof(outdir), "%s/bundle-%s", run_dir, s->name);
	snprintf(out, sizeof(out), "%s/out.js", outdir);
	if (mkdir(outdir, 0700) < 0 ||
	    chown(outdir, sbx_role_uid(SBX_ROLE_PREPARE), sbx_role_gid(SBX_ROLE_PREPARE)) < 0)
		return hx_syserr(err, "bundle: %s", outdir);
	if (bundler_image(b->with, &m, &st, err) < 0)
		return hx_wrap(err, "scenario %s: cannot bundle %s for %s", s->name, b->entry, b->for_runtime);
	fprintf(stderr, "harness: bundling %s of scenario %s for %s (%s)\n", b->entry, s->name, b->for_runtime,
		st.binary_version[0] ? st.binary_version : b->with);
	rc = bundler_run(&m, &st, s, outdir, netns_fd, log, sizeof(log), err);
	if (rc == 0 && (rc = read_output(out, &data, &len, err)) == 0 && (rc = place(s, data, len, err)) == 0 &&
	    (rc = util_sha256_hex(data, len, b->sha256, sizeof(b->sha256))) == 0) {
		snprintf(b->version, sizeof(b->version), "%s", st.binary_version);
		b->bytes = len;
		b->made = true;
	}
	man_free(&m);
	unpack_remove_tree(outdir);
	if (rc < 0)
		return hx_wrap(err, "scenario %s: %s %s for %s", s->name, b->with,
			       strcmp(b->with, "bun") == 0 ? "build" : "bundle", b->for_runtime);
	return 0;
}
