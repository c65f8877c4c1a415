/* The document store's suite (docs/docstore.md): the published bench's 11 scenarios, one after another against
 * one server, each on its own connections with its own op mix and key pattern, ended by its op count or its
 * wall-time budget, whichever comes first. Every answer is checked against what the client wrote (a read must
 * return the last document written, a has or delete what exists, a scan its row count); the contended counter
 * and the nested field must end at exactly the increments acknowledged. */
#ifndef HX_DOCSTORE_H
#define HX_DOCSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "load/dsproto.h"
#include "load/hist.h"

/* The keys whose Postgres rows harness reads itself after the suite (run/run.c). */
#define DS_COUNTER_KEY	"counter"
#define DS_NESTED_KEY	"shared"
#define DS_NESTED_PATH	"stats,hits" /* a Postgres text[] path into DS_NESTED_KEY's document */
#define DS_SCAN_ROWS	10500	     /* all-scan's preloaded rows; a scan answers DS_SCAN_CAP of them */
#define DS_SCAN_CAP	10000
#define DS_MEMORY_READS 2000 /* the memory run's random keys read back, on each side of the restart */
#define DS_MEMORY_DOC	1000 /* its documents' characters */

struct ds_config {
	unsigned mask;		  /* the scenarios to run: a bit per enum ds_scenario */
	uint64_t ops;		  /* each scenario's at most */
	double budget_s;	  /* each scenario's wall-time cap */
	unsigned payload_kib;	  /* payload-Nkb's documents */
	unsigned clients, window; /* the pipelined and contended scenarios' pool (16 x 32 published) */
	unsigned timeout_ms;	  /* no answer for this long fails the scenario */
	uint64_t seed;		  /* the mixed workload's draws; 0: from the clock */
	/* the memory run: its documents (~1 KiB each; 0: none) and the seed of its draws, the same on both sides of
	 * the restart: which keys it reads back and which tenth it rewrites */
	uint64_t memory_docs, memory_seed;
};

struct ds_row {
	enum ds_scenario sc;
	char name[32];
	uint64_t ops, errors;
	double duration_s;
	struct hist latency;
	bool capped;	       /* its budget ended it before its op count */
	bool contended;	       /* add-counter, nested-merge: before, after and acked are theirs */
	int64_t before, after; /* the counter or the field, read before and after the load */
	char why[256];	       /* the first check that failed; "" when none */
};

struct ds_result {
	struct ds_row rows[DS_NR];
	unsigned n;
	bool ok;
	char why[320]; /* the first failed row's name and check */
};

/* The published table (scenario ops err ops/s avgµs p50µs p95µs p99µs maxµs): its header line, and a row of
 * one scenario's figures (us: avg, p50, p95, p99 and max), each into buf without a line feed; `harness load
 * --docstore` prints them as they are, `harness run` after its trial's name. */
void ds_table_header(char *buf, size_t len);
void ds_table_row(char *buf, size_t len, const char *name, double ops, double errors, double ops_s, const double us[5]);
/* Run the scenarios of c's mask in order against the store at url (ws://). A failed check is in r, not an
 * error: the return is negative only when the run could not be made. */
int ds_run(const char *url, const struct ds_config *c, struct ds_result *r, struct hx_err *err);

#endif
