/* The Postgres fixture: a template cluster made once (initdb in a sandbox, as the sandbox user) in the
 * image cache, copied per trial onto a size-limited tmpfs in the fixture slice's own sandbox, ready when
 * a SCRAM-SHA-256 login and `SELECT 1` work from inside the run's network namespace, stopped with a
 * fast shutdown (docs/fixtures.md). */
#ifndef HX_FIXTURE_H
#define HX_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "cgroups/cg.h"
#include "image/images.h"
#include "results/results.h"
#include "sandbox/sandbox.h"

#define FX_PG_PORT	55432
#define FX_PG_USER	"harness" /* the runtime's role: owns its database, nothing more */
#define FX_PG_DATABASE	"harness"
#define FX_PG_BOOTSTRAP "postgres" /* initdb's superuser: no password, no pg_hba.conf line */
#define FX_QUERY_MS	10000	   /* fx_pg_query's login and query */

/* The cached template and what a run needs to start and reach it. */
struct fx_pg_template {
	char dir[PATH_MAX];		 /* <cache>/fixtures/<image>-<key>: pgdata/ and password */
	char bin[PATH_MAX];		 /* the folder of postgres and initdb, as the sandbox sees it */
	char tree[PATH_MAX];		 /* the image's tree, bound at IMG_MOUNT; "" for a host image */
	char password[65];		 /* random, made with the template; never in the results */
	char env[5][96];		 /* PGHOST=... for the runtime */
	uint64_t memory_max;		 /* of the fixture slice: shared_buffers and the data tmpfs follow from it */
	const volatile int *interrupted; /* when set and non-zero: stop waiting for readiness */
};

/* Make the template when the cache lacks it (under the cache's lock; initdb's sandbox joins netns_fd),
 * fill t. */
int fx_pg_prepare(const struct manifest *m, const struct img_status *st, uint64_t memory_max, int netns_fd,
		  struct fx_pg_template *t, struct hx_err *err);
/* The server's settings, one table for its command line and for the results. */
struct fx_pg_setting {
	const char *name;
	char value[32];
};

size_t fx_pg_settings(const struct fx_pg_template *t, struct fx_pg_setting ret[16]);
/* The size of the data tmpfs: it follows from the slice's memory. */
uint64_t fx_pg_data_size(const struct fx_pg_template *t);
void fx_pg_template_free(struct fx_pg_template *t);
/* `images gc`: remove fixture templates of binaries that are gone or recipes that changed, and the
 * half-made ones of a harness that died. */
int fx_gc(struct img_cache *c, bool prune, struct img_gc_tally *t, struct hx_err *err);

/* A running fixture. */
struct fx_pg {
	struct sbx x;
	pid_t server; /* the postmaster, as the host sees it */
	char log[PATH_MAX];
};

/* Start the server in the fixture slice and wait until it answers; on failure its log's last lines are
 * in the message and nothing is left running. What the trial records goes into rec. */
int fx_pg_start(const struct fx_pg_template *t, struct cg_tree *tree, int netns_fd, const char *logpath,
		struct fx_pg *ret, struct res_fixture *rec, struct hx_err *err);
/* One login and SELECT 1 from inside netns with this password: 0, or the server's refusal. */
int fx_pg_probe(int netns_fd, const char *password, int timeout_ms, bool *ret_retry, struct hx_err *err);
/* One query from inside netns, its first value (at most 63 bytes) in ret_value: harness reading what a
 * trial left in the database (ws-rpc's counter). */
int fx_pg_query(int netns_fd, const char *password, const char *sql, char *ret_value, size_t len, struct hx_err *err);
/* Fast shutdown (SIGINT), then the slice is emptied; how long it took and how it ended go into rec
 * (when not NULL). */
void fx_pg_stop(struct cg_tree *tree, struct fx_pg *pg, struct res_fixture *rec);

#endif
