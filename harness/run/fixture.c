/* The Postgres fixture: template cluster in the cache, per-trial server in the fixture slice, readiness
 * over the protocol, fast shutdown. */
#include "run/fixture.h"

#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <libgen.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/backoff.h"
#include "base/dl_ossl.h"
#include "base/cleanup.h"
#include "base/proc.h"
#include "run/pgwire.h"
#include "sandbox/sbx_run.h"
#include "base/procfs.h"
#include "image/unpack.h"
#include "base/util.h"

/* Bump when the template's making changes: the cache key includes it. */
#define FX_PG_LAYOUT	"initdb-v4 scram-sha-256 C UTF8 wal-segsize=1 sandbox-owned overlay runtime-role-2"
#define FX_PG_DATA	"/var/lib/postgresql/data"
#define FX_PG_MAX_CONNS 200
#define FX_READY_S	30.0

static double now_ms(void)
{
	return (double)util_now_ns() / 1e6;
}

/* shared_buffers and the data tmpfs: a quarter of the slice's memory each (16 MiB..8 GiB), the rest is
 * for the backends; PostgreSQL's own default (128 MiB) and 512 MiB without a limit. */
static uint64_t pg_shared_buffers_mb(const struct fx_pg_template *t)
{
	uint64_t mb = t->memory_max ? t->memory_max / 4 >> 20 : 128;

	return mb < 16 ? 16 : mb > 8192 ? 8192 : mb;
}

uint64_t fx_pg_data_size(const struct fx_pg_template *t)
{
	uint64_t b = t->memory_max ? t->memory_max / 4 : (uint64_t)512 << 20;

	return b < (uint64_t)64 << 20 ? (uint64_t)64 << 20 : b;
}

size_t fx_pg_settings(const struct fx_pg_template *t, struct fx_pg_setting s[16])
{
	size_t n = 0;

	s[n++] = (struct fx_pg_setting){"listen_addresses", "127.0.0.1"};
	s[n] = (struct fx_pg_setting){"port", ""};
	snprintf(s[n++].value, sizeof(s->value), "%d", FX_PG_PORT);
	s[n++] = (struct fx_pg_setting){"unix_socket_directories", ""};
	s[n++] = (struct fx_pg_setting){"fsync", "off"};
	s[n++] = (struct fx_pg_setting){"synchronous_commit", "off"};
	s[n++] = (struct fx_pg_setting){"full_page_writes", "off"};
	s[n] = (struct fx_pg_setting){"shared_buffers", ""};
	snprintf(s[n++].value, sizeof(s->value), "%lluMB", (unsigned long long)pg_shared_buffers_mb(t));
	s[n] = (struct fx_pg_setting){"max_connections", ""};
	snprintf(s[n++].value, sizeof(s->value), "%d", FX_PG_MAX_CONNS);
	s[n++] = (struct fx_pg_setting){"password_encryption", "scram-sha-256"};
	return n;
}

void fx_pg_template_free(struct fx_pg_template *t)
{
	explicit_bzero(t->password, sizeof(t->password));
}

static int write_owned(const char *path, const char *text, uid_t uid, gid_t gid, mode_t mode, struct hx_err *err)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fchown(fd, uid, gid) < 0 ||
	    fchmod(fd, mode) < 0)
		return hx_syserr(err, "postgres template: %s", path);
	return 0;
}

/* A downloaded image's tree, read-only where t->bin points (a host image is under /usr already). */
static void pg_bind_image(const struct fx_pg_template *t, struct sbx_config *c)
{
	if (t->tree[0])
		c->rootfs.binds[c->rootfs.nbinds++] = (struct sbx_bind){.src = t->tree, .dst = IMG_MOUNT};
}

/* The cluster initdb made stays the sandbox user's, as PostgreSQL wants its data (the overlay's copied-up
 * files keep that owner): SBX_FIXTURE_UID:SBX_FIXTURE_GID, folders 0700, files 0600. Anything else (a symlink, a FIFO) is
 * refused: initdb makes none. Nobody but root changes it: the folder above is root's 0700, and sandboxes only
 * ever see it through a read-only bind. */
static int own_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag != FTW_F && flag != FTW_D && flag != FTW_DP)
		return errno = ELOOP, -1;
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return errno = EPERM, -1;
	if (lchown(path, SBX_FIXTURE_UID, SBX_FIXTURE_GID) < 0 || chmod(path, S_ISDIR(st->st_mode) ? 0700 : 0600) < 0)
		return -1;
	return 0;
}

static int pg_own_template(const char *tmp, struct hx_err *err)
{
	char pgdata[PATH_MAX + 16];

	/* first the folder above, so no one but root can rename anything under it while we walk */
	if (chown(tmp, 0, 0) < 0 || chmod(tmp, 0700) < 0)
		return hx_syserr(err, "postgres template: %s", tmp);
	snprintf(pgdata, sizeof(pgdata), "%s/pgdata", tmp);
	if (nftw(pgdata, own_one, 16, FTW_PHYS | FTW_DEPTH) != 0)
		return hx_syserr(err, "postgres template: make %s the sandbox user's", pgdata);
	return 0;
}

/* The sandbox of a PostgreSQL binary, initdb or the server: its output into logpath (made anew; its
 * descriptor in *ret_logfd, the caller's to close), the run's network namespace, one bind of the data, then
 * the image's binaries. */
static int pg_sandbox_config(const struct fx_pg_template *t, const char *what, const char *logpath, int netns_fd,
			     char *const *argv, const struct sbx_bind *data, struct sbx_config *c, int *ret_logfd,
			     struct hx_err *err)
{
	int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return hx_syserr(err, "%s: %s", what, logpath);
	sbx_config_init(c);
	c->netns_fd = netns_fd;
	c->out_fd = fd;
	c->argv = argv;
	c->rootfs.binds[c->rootfs.nbinds++] = *data;
	pg_bind_image(t, c);
	*ret_logfd = fd;
	return 0;
}

/* One PostgreSQL program run to its end as the fixture's user, with tmp bound read-write at /data; in_fd, when
 * not -1, is its stdin. */
static int pg_run_once(const struct fx_pg_template *t, const char *tmp, int netns_fd, char *const *argv, int in_fd,
		       const char *what, struct hx_err *err)
{
	char logpath[PATH_MAX + 16], tail[2048];
	struct sbx_config c;
	struct sbx x = {.pid = -1, .report_fd = -1};
	struct cg_tree *tree = NULL;
	_cleanup_close_ int logfd = -1;
	int status = 0;

	snprintf(logpath, sizeof(logpath), "%s.log", tmp);
	if (pg_sandbox_config(t, "postgres template", logpath, netns_fd, argv,
			      &(struct sbx_bind){.src = tmp, .dst = "/data", .rw = true}, &c, &logfd, err) < 0)
		return -err->errnum;
	c.in_fd = in_fd;
	c.role = SBX_ROLE_FIXTURE; /* the cluster is the fixture user's; the slice is a prepare slice */
	if (sbx_prepare_begin(&tree, err) < 0)
		return hx_wrap(err, "postgres template: %s", what);
	if (sbx_start(tree, CG_SLICE_PREPARE, &c, &x, err) < 0 || sbx_wait_exec(&x, argv[0], err) < 0) {
		sbx_release(&x);
		sbx_prepare_end(tree);
		return hx_wrap(err, "postgres template: %s", what);
	}
	while (waitpid(x.pid, &status, 0) < 0 && errno == EINTR)
		;
	sbx_release(&x);
	sbx_prepare_end(tree);
	util_log_tail(logpath, tail, sizeof(tail));
	unlink(logpath);
	if (util_exit_code(status) != 0)
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "postgres template: %s exited with %d: %s", what,
			       util_exit_code(status), tail);
	return 0;
}

/* initdb as the fixture's user into tmp/pgdata. The bootstrap superuser has no password at all: nothing can
 * log in as it (pg_hba.conf names the runtime's role only), so there is no secret of it to keep out of a
 * sandbox. */
static int pg_initdb(const struct fx_pg_template *t, const char *tmp, int netns_fd, struct hx_err *err)
{
	char initdb[PATH_MAX + 8];
	const char *argv[] = {initdb, "-D",   "/data/pgdata", "-U",	   FX_PG_BOOTSTRAP,   "--auth=trust",
			      "-E",   "UTF8", "--locale=C",   "--no-sync", "--wal-segsize=1", "--no-instructions",
			      NULL};

	snprintf(initdb, sizeof(initdb), "%s/initdb", t->bin);
	return pg_run_once(t, tmp, netns_fd, (char *const *)argv, -1, "initdb", err);
}

/* The runtime's role: it logs in with the password and owns its database, and nothing else; no superuser, no
 * role or database making, in none of the pg_*_server_* roles (COPY ... PROGRAM, COPY to a file and
 * pg_read_file stay the superuser's). Made in single-user mode (SQL on stdin), so the cluster never listens
 * with a role that could log in as the superuser. */
static int pg_make_roles(const struct fx_pg_template *t, const char *tmp, int netns_fd, struct hx_err *err)
{
	char postgres[PATH_MAX + 16], sql[1024];
	const char *argv[] = {
		postgres,    "--single",      "-D", "/data/pgdata", "-c", "password_encryption=scram-sha-256", "-c",
		"fsync=off", FX_PG_BOOTSTRAP, NULL};
	int p[2], rc;
	size_t n;

	snprintf(postgres, sizeof(postgres), "%s/postgres", t->bin);
	n = (size_t)snprintf(sql, sizeof(sql),
			     "CREATE ROLE " FX_PG_USER " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
			     "NOBYPASSRLS PASSWORD '%s'\n"
			     "CREATE DATABASE " FX_PG_DATABASE " OWNER " FX_PG_USER "\n"
			     "REVOKE ALL ON DATABASE " FX_PG_BOOTSTRAP " FROM PUBLIC\n"
			     "REVOKE ALL ON DATABASE template1 FROM PUBLIC\n",
			     t->password);
	if (pipe2(p, O_CLOEXEC) < 0)
		return hx_syserr(err, "postgres template: pipe");
	/* a few hundred bytes: the pipe holds them all before the reader starts */
	rc = write(p[1], sql, n) == (ssize_t)n ? 0 : hx_syserr(err, "postgres template: the roles' SQL");
	explicit_bzero(sql, sizeof(sql));
	close(p[1]);
	if (rc == 0)
		rc = pg_run_once(t, tmp, netns_fd, (char *const *)argv, p[0], "the runtime's role", err);
	close(p[0]);
	return rc;
}

static int pg_make_template(struct fx_pg_template *t, const char *tmp, int netns_fd, struct hx_err *err)
{
	unsigned char raw[16];
	char path[PATH_MAX + 32], pw[40];

	unpack_remove_tree(tmp);
	if (mkdir(tmp, 0700) < 0 || chown(tmp, SBX_FIXTURE_UID, SBX_FIXTURE_GID) < 0)
		return hx_syserr(err, "postgres template: %s", tmp);
	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "postgres template: no random bytes for the password");
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(t->password + 2 * i, 3, "%02x", raw[i]);
	snprintf(pw, sizeof(pw), "%s\n", t->password);
	if (pg_initdb(t, tmp, netns_fd, err) < 0 || pg_make_roles(t, tmp, netns_fd, err) < 0)
		return -err->errnum;
	if (pg_own_template(tmp, err) < 0)
		return -err->errnum;
	/* logins only over TCP on the loopback, only with the password, only the runtime's role to its database */
	snprintf(path, sizeof(path), "%s/pgdata/pg_hba.conf", tmp);
	if (write_owned(path,
			"# harness: password logins (SCRAM-SHA-256) over the loopback only, the runtime's role only\n"
			"host " FX_PG_DATABASE " " FX_PG_USER " 127.0.0.1/32 scram-sha-256\n",
			SBX_FIXTURE_UID, SBX_FIXTURE_GID, 0600, err) < 0)
		return -err->errnum;
	snprintf(path, sizeof(path), "%s/password", tmp);
	return write_owned(path, pw, 0, 0, 0600, err);
}

/* <cache>/fixtures/<image>-<key>: the key covers the binary's digest and the template's recipe. */
static int pg_template_dir(const struct img_cache *c, const struct manifest *m, const struct img_status *st, char *buf,
			   size_t len)
{
	char what[512], key[65];

	snprintf(what, sizeof(what), "%s %s uid=%d", st->digest, FX_PG_LAYOUT, SBX_FIXTURE_UID);
	if (util_sha256_hex(what, strlen(what), key, sizeof(key)) < 0)
		return -EIO;
	snprintf(buf, len, "%s/fixtures/%s-%.16s", c->root, m->name, key);
	return 0;
}

int fx_gc(struct img_cache *c, bool prune, struct img_gc_tally *t, struct hx_err *err)
{
	char keep[1][160] = {""}, dir[PATH_MAX];
	struct manifest m;
	struct img_status st;
	int rc;

	if (man_load(img_manifest_dir(), "postgres15", &m, err) < 0) {
		err->exit = HX_EXIT_HOST;
		return hx_wrap(err, "images gc: nothing removed");
	}
	rc = img_status(c, &m, true, &st, err);
	if (rc == 0 && st.present && pg_template_dir(c, &m, &st, dir, sizeof(dir)) == 0)
		snprintf(keep[0], sizeof(keep[0]), "%s", strrchr(dir, '/') + 1);
	man_free(&m);
	if (rc < 0) {
		err->exit = HX_EXIT_HOST;
		return hx_wrap(err, "images gc: nothing removed");
	}
	return prune ? img_cache_prune(c, "fixtures", keep, 1, t, err) : 0;
}

int fx_pg_prepare(const struct manifest *m, const struct img_status *st, uint64_t memory_max, int netns_fd,
		  struct fx_pg_template *t, struct hx_err *err)
{
	struct img_cache c = {.lock_fd = -1};
	char tmp[PATH_MAX + 32], pwpath[PATH_MAX + 16], entry[PATH_MAX];
	_cleanup_free_ char *pw = NULL;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->memory_max = memory_max;
	if (m->source == MAN_SRC_HOST) {
		snprintf(entry, sizeof(entry), "%s", st->entry);
	} else {
		snprintf(entry, sizeof(entry), IMG_MOUNT "/%s", m->entry);
		snprintf(t->tree, sizeof(t->tree), "%s", st->tree);
	}
	snprintf(t->bin, sizeof(t->bin), "%s", dirname(entry));
	if (img_cache_open(&c, err) < 0)
		return hx_wrap(err, "postgres template");
	if (pg_template_dir(&c, m, st, t->dir, sizeof(t->dir)) < 0) {
		img_cache_close(&c);
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "postgres template: no SHA-256");
	}
	snprintf(pwpath, sizeof(pwpath), "%s/password", t->dir);
	if (!util_exists(pwpath)) {
		snprintf(tmp, sizeof(tmp), "%s/fixtures", c.root);
		mkdir(tmp, 0755);
		if (flock(c.lock_fd, LOCK_EX) < 0)
			rc = hx_syserr(err, "postgres template: lock");
		snprintf(tmp, sizeof(tmp), "%s/fixtures/.tmp-%s-%d", c.root, m->name, (int)getpid());
		if (rc == 0 && !util_exists(pwpath)) {
			fprintf(stderr, "harness: making the %s template cluster (initdb, once)\n", m->name);
			rc = pg_make_template(t, tmp, netns_fd, err);
			if (rc == 0 && rename(tmp, t->dir) < 0)
				rc = hx_syserr(err, "postgres template: rename to %s", t->dir);
			if (rc < 0)
				unpack_remove_tree(tmp);
		}
		flock(c.lock_fd, LOCK_UN);
	}
	img_cache_close(&c);
	if (rc < 0)
		return rc;
	if (util_read_secret(pwpath, &pw, err) < 0 || strlen(pw) >= sizeof(t->password)) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", pw ? "the password is too long" : err->msg);
		return hx_fail(err, HX_EXIT_HOST, pw ? EIO : err->errnum,
			       "postgres template: %s (remove %s: the next run makes it again)", why, t->dir);
	}
	snprintf(t->password, sizeof(t->password), "%s", pw);
	snprintf(t->env[0], sizeof(t->env[0]), "PGHOST=127.0.0.1");
	snprintf(t->env[1], sizeof(t->env[1]), "PGPORT=%d", FX_PG_PORT);
	snprintf(t->env[2], sizeof(t->env[2]), "PGUSER=%s", FX_PG_USER);
	snprintf(t->env[3], sizeof(t->env[3]), "PGPASSWORD=%s", t->password);
	snprintf(t->env[4], sizeof(t->env[4]), "PGDATABASE=%s", FX_PG_DATABASE);
	return 0;
}

/* What a probe child sends back. */
struct pg_probe_result {
	int rc;
	bool retry;
	struct hx_err err;
	char value[64]; /* of the query */
};

static void pg_probe_child(int netns_fd, const char *password, const char *sql, int timeout_ms,
			   struct pg_probe_result *r)
{
	const struct pg_login l = {
		.user = FX_PG_USER, .password = password, .db = FX_PG_DATABASE, .timeout_ms = timeout_ms};

	struct sockaddr_in a = {
		.sin_family = AF_INET, .sin_port = htons(FX_PG_PORT), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	_cleanup_close_ int fd = -1;

	if (setns(netns_fd, CLONE_NEWNET) < 0) {
		r->rc = hx_syserr(&r->err, "postgres probe: setns");
		return;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		r->retry = errno == ECONNREFUSED;
		r->rc = hx_syserr(&r->err, "postgres: connect to 127.0.0.1:%d", FX_PG_PORT);
		return;
	}
	if (sql)
		r->rc = pg_query(fd, &l, sql, r->value, sizeof(r->value), &r->retry, &r->err);
	else
		r->rc = pg_check(fd, FX_PG_USER, password, FX_PG_DATABASE, timeout_ms, &r->retry, &r->err);
	if (r->rc < 0 && r->err.errnum == ETIMEDOUT)
		r->retry = true; /* the budget decides, and says so */
}

/* In a child that joins netns: SELECT 1 (sql NULL) or sql, whose first value lands in value. */
static int pg_probe_in(int netns_fd, const char *password, const char *sql, int timeout_ms, bool *ret_retry,
		       char *value, size_t len, struct hx_err *err)
{
	struct pg_probe_result r = {0};
	int p[2], status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return hx_syserr(err, "postgres probe: pipe");
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return hx_syserr(err, "postgres probe: fork");
	}
	if (pid == 0) {
		close(p[0]);
		pg_probe_child(netns_fd, password, sql, timeout_ms, &r);
		_exit(write(p[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &r, sizeof(r)) != sizeof(r))
		r.rc = hx_fail(&r.err, HX_EXIT_INTERNAL, EIO, "postgres probe: the probe died");
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*ret_retry = r.retry;
	if (r.rc < 0)
		*err = r.err;
	else if (value)
		snprintf(value, len, "%s", r.value);
	return r.rc;
}

int fx_pg_probe(int netns_fd, const char *password, int timeout_ms, bool *ret_retry, struct hx_err *err)
{
	return pg_probe_in(netns_fd, password, NULL, timeout_ms, ret_retry, NULL, 0, err);
}

int fx_pg_query(int netns_fd, const char *password, const char *sql, char *ret_value, size_t len, struct hx_err *err)
{
	bool retry;

	return pg_probe_in(netns_fd, password, sql, FX_QUERY_MS, &retry, ret_value, len, err);
}

static int pg_wait_ready(const struct fx_pg_template *t, int netns_fd, struct fx_pg *pg, struct hx_err *err)
{
	char tail[2048];
	double end = now_ms() + FX_READY_S * 1000;
	bool retry = false;
	int status = 0;
	struct backoff b;

	backoff_init(&b, BACKOFF_FIRST_NS, BACKOFF_MAX_NS);
	for (;;) {
		struct hx_err e = {0};
		/* A server that accepted may answer late on a loaded or emulated host: the probe waits for the
		 * rest of the budget, not for a fixed share of it that would end the wait early. */
		int left_ms = (int)(end - now_ms());

		if (fx_pg_probe(netns_fd, t->password, left_ms > 100 ? left_ms : 100, &retry, &e) == 0)
			return 0;
		if (!retry) {
			*err = e;
			return hx_wrap(err, "the readiness check");
		}
		/* the next probe on the back-off schedule, unless the server exits first: then at once */
		if (proc_wait_first(&pg->x.pid, 1, util_now_ns() + backoff_next(&b, 0, UINT64_MAX), t->interrupted,
				    &status) == 0) {
			util_log_tail(pg->log, tail, sizeof(tail));
			return hx_fail(err, HX_EXIT_VERDICT, EIO,
				       "postgres exited (status %d) before it was ready; its last output: %s",
				       util_exit_code(status), tail[0] ? tail : "(nothing)");
		}
		if (t->interrupted && *t->interrupted)
			return hx_fail(err, HX_EXIT_VERDICT, EINTR, "interrupted while postgres was starting");
		if (now_ms() > end) {
			util_log_tail(pg->log, tail, sizeof(tail));
			return hx_fail(err, HX_EXIT_VERDICT, ETIMEDOUT,
				       "postgres was not ready in %.0f s (%s); its last output: %s", FX_READY_S, e.msg,
				       tail[0] ? tail : "(nothing)");
		}
	}
}

int fx_pg_start(const struct fx_pg_template *t, struct cg_tree *tree, int netns_fd, const char *logpath,
		struct fx_pg *ret, struct res_fixture *rec, struct hx_err *err)
{
	char postgres[PATH_MAX + 16], tmpl[PATH_MAX + 16], opts[16][64];
	char *argv[3 + 2 * 16 + 1] = {postgres, (char *)"-D", (char *)FX_PG_DATA};
	struct fx_pg_setting set[16];
	size_t n = fx_pg_settings(t, set), k = 3;
	struct sbx_config c;
	struct fx_pg pg = {.x = {.pid = -1, .report_fd = -1}, .server = -1};
	_cleanup_close_ int logfd = -1;
	double t0 = now_ms();

	snprintf(postgres, sizeof(postgres), "%s/postgres", t->bin);
	snprintf(tmpl, sizeof(tmpl), "%s/pgdata", t->dir);
	snprintf(pg.log, sizeof(pg.log), "%s", logpath);
	for (size_t i = 0; i < n; i++) {
		snprintf(opts[i], sizeof(opts[i]), "%s=%s", set[i].name, set[i].value);
		argv[k++] = (char *)"-c";
		argv[k++] = opts[i];
	}
	argv[k] = NULL;
	if (pg_sandbox_config(t, "postgres", logpath, netns_fd, argv,
			      &(struct sbx_bind){.src = tmpl, .dst = "/template"}, &c, &logfd, err) < 0)
		return -err->errnum;
	/* the template under a tmpfs that takes the writes: no copy, and the pages postgres changes are the
	 * fixture slice's */
	c.rootfs.data_dir = FX_PG_DATA;
	c.rootfs.data_lower = "/template";
	c.rootfs.data_size = fx_pg_data_size(t);
	if (sbx_start(tree, CG_SLICE_FIXTURE, &c, &pg.x, err) < 0 || sbx_wait_exec(&pg.x, argv[0], err) < 0) {
		cg_slice_kill(tree, CG_SLICE_FIXTURE, &(struct hx_err){0});
		sbx_release(&pg.x);
		return hx_wrap(err, "postgres");
	}
	if (pg_wait_ready(t, netns_fd, &pg, err) < 0) {
		fx_pg_stop(tree, &pg, NULL);
		return -err->errnum;
	}
	pg.server = sbx_payload_pid(pg.x.pid);
	rec->started = true;
	snprintf(rec->slice, sizeof(rec->slice), "%s", cg_slice_names[CG_SLICE_FIXTURE]);
	proc_cpus(pg.server, rec->cpus, sizeof(rec->cpus));
	rec->ready_ms = now_ms() - t0;
	snprintf(rec->log, sizeof(rec->log), "%s", logpath);
	*ret = pg;
	return 0;
}

void fx_pg_stop(struct cg_tree *tree, struct fx_pg *pg, struct res_fixture *rec)
{
	double t0 = now_ms();
	int code = -1;
	/* SIGINT, which the sandbox's init passes on: PostgreSQL's fast shutdown */
	bool exited = sbx_stop(tree, CG_SLICE_FIXTURE, &pg->x, SIGINT, 10000, &code);

	if (rec) {
		rec->stopped = true;
		rec->stop_ms = now_ms() - t0;
		rec->clean_shutdown = exited && code == 0;
	}
	sbx_release(&pg->x);
}
