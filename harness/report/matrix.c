/* The route matrix: its rows, columns and cells are read off the trials in the order they were measured. */
#include "report/matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/esc.h"
#include "stats/stats.h"

#define MX_MAX 64

/* The distinct values of one key, in order of appearance. */
struct mx_keys {
	const char *v[MX_MAX];
	unsigned n[MX_MAX]; /* connections, for the sweep */
	size_t len;
};

static void key_add(struct mx_keys *k, const char *v, unsigned n)
{
	for (size_t i = 0; i < k->len; i++)
		if ((v && strcmp(k->v[i], v) == 0) || (!v && k->n[i] == n))
			return;
	if (k->len < MX_MAX) {
		k->v[k->len] = v;
		k->n[k->len++] = n;
	}
}

static bool quiet_of(const struct trial_result *t, const char *scenario)
{
	return t->ncells && strcmp(t->scenario, scenario) == 0 && strcmp(t->noise, "none") == 0;
}

/* The medians of req/s and p95 (ms) of one cell over the trials that measured it; false when none did. */
static bool cell_of(const struct res_doc *d, const char *scenario, const char *runtime, const char *mode,
		    const char *route, unsigned conns, double *rps, double *p95_ms)
{
	double *a = calloc(d->ntrials + 1, sizeof(*a)), *b = calloc(d->ntrials + 1, sizeof(*b));
	size_t n = 0;

	for (size_t i = 0; a && b && i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];

		if (!quiet_of(t, scenario) || strcmp(t->runtime, runtime) != 0 || strcmp(t->mode, mode) != 0)
			continue;
		for (unsigned c = 0; c < t->ncells; c++)
			if (t->cells[c].connections == conns && strcmp(t->cells[c].route, route) == 0) {
				a[n] = t->cells[c].load.rps;
				b[n++] = t->cells[c].load.latency_us.p95 / 1e3;
			}
	}
	if (n) {
		*rps = stats_median_of(a, n);
		*p95_ms = stats_median_of(b, n);
	}
	free(a);
	free(b);
	return n > 0;
}

static void render_one(const struct res_doc *d, const char *scenario, bool md, FILE *out)
{
	struct mx_keys conns = {0}, runtimes = {0}, modes = {0}, routes = {0};
	char shown[3][ESC_LEN];

	for (size_t i = 0; i < d->ntrials; i++) {
		const struct trial_result *t = &d->trials[i];

		if (!quiet_of(t, scenario))
			continue;
		key_add(&runtimes, t->runtime, 0);
		key_add(&modes, t->mode, 0);
		for (unsigned c = 0; c < t->ncells; c++) {
			key_add(&conns, NULL, t->cells[c].connections);
			key_add(&routes, t->cells[c].route, 0);
		}
	}
	fprintf(out, "\n%s%s: req/s (p95 ms)\n\n", md ? "### " : "== ", esc_cell(md, scenario, shown[0], ESC_LEN));
	fprintf(out, md ? "| conns | runtime | mode" : "%5s  %-8s  %-7s", "conns", "runtime", "mode");
	for (size_t r = 0; r < routes.len; r++)
		fprintf(out, md ? " | %s" : "  %20s", esc_cell(md, routes.v[r], shown[0], ESC_LEN));
	fprintf(out, "%s\n", md ? " |" : "");
	if (md) {
		fprintf(out, "|---:|---|---|");
		for (size_t r = 0; r < routes.len; r++)
			fprintf(out, "---:|");
		fprintf(out, "\n");
	}
	for (size_t c = 0; c < conns.len; c++)
		for (size_t k = 0; k < runtimes.len; k++)
			for (size_t m = 0; m < modes.len; m++) {
				char row[MX_MAX * 40] = "";
				bool any = false;

				for (size_t r = 0; r < routes.len; r++) {
					double rps = NAN, p95 = NAN;
					char v[40] = "–";
					size_t used = strlen(row);

					if (cell_of(d, scenario, runtimes.v[k], modes.v[m], routes.v[r], conns.n[c],
						    &rps, &p95)) {
						snprintf(v, sizeof(v), "%.0f (%.2f)", rps, p95);
						any = true;
					}
					snprintf(row + used, sizeof(row) - used, md ? " | %s" : "  %20s", v);
				}
				if (any)
					fprintf(out, md ? "| %u | %s | %s%s |\n" : "%5u  %-8s  %-7s%s\n", conns.n[c],
						esc_cell(md, runtimes.v[k], shown[1], ESC_LEN),
						esc_cell(md, modes.v[m], shown[2], ESC_LEN), row);
			}
}

void matrix_render(const struct res_doc *d, bool md, FILE *out)
{
	struct mx_keys scenarios = {0};

	for (size_t i = 0; i < d->ntrials; i++)
		if (d->trials[i].ncells)
			key_add(&scenarios, d->trials[i].scenario, 0);
	for (size_t s = 0; s < scenarios.len; s++)
		render_one(d, scenarios.v[s], md, out);
	if (scenarios.len)
		fprintf(out, "\nRoute matrix: each cell the median over trials of the route's requests per second at "
			     "that many connections over the cell's duration, and its 95th percentile latency; every "
			     "response's body was checked (length; digest unless encoded) and each cell's first in "
			     "full (decoded "
			     "body digest, Content-Range).\n");
}
