/* The isolation table: quiet against noisy, per scenario, runtime and mode (the shift itself is computed with the
 * summaries, results_shift.c, and written in the JSON by results_json.c). */
#include "report/isolation.h"

#include <math.h>
#include <string.h>

#include "base/esc.h"

static void iso_pct(char *buf, size_t len, double ratio)
{
	if (isnan(ratio))
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%+.1f%%", (ratio - 1) * 100);
}

/* "0, shares client", "0-1 anywhere". */
static void iso_on(const struct res_shift *s, char *buf, size_t len)
{
	size_t at =
		(size_t)snprintf(buf, len, "%s%s", s->noise_cpus, !strcmp(s->placement, "anywhere") ? " anywhere" : "");
	bool first = true;

	for (int sl = 0; sl < CG_NR_SLICES && at < len; sl++)
		if (s->shares & (1u << sl)) {
			at += (size_t)snprintf(buf + at, len - at, "%s%s", first ? ", shares " : "+",
					       cg_slice_names[sl]);
			first = false;
		}
	if (!strcmp(s->placement, "sibling") && at < len)
		snprintf(buf + at, len - at, " (SMT sibling, as asked)");
}

static void iso_row(const struct res_summary *g, bool md, FILE *out)
{
	const struct res_shift *s = &g->shift;
	const char *sep = md ? " | " : "  ";
	char quiet[32], noisy[32], shift[32], ci[48], p[16], ops[32], on[RES_CPUS_LEN + 64];
	double gen = res_median(g, RES_M_NOISE_OPS_PER_S);
	int dec = s->lower_is_better ? 2 : 0;

	snprintf(quiet, sizeof(quiet), "%.*f", dec, s->quiet_median);
	snprintf(noisy, sizeof(noisy), "%.*f", dec, s->noisy_median);
	iso_pct(shift, sizeof(shift), s->ratio);
	if (isnan(s->ci95_low)) {
		snprintf(ci, sizeof(ci), "–");
	} else {
		char lo[16], hi[16];

		iso_pct(lo, sizeof(lo), s->ci95_low);
		iso_pct(hi, sizeof(hi), s->ci95_high);
		snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
	}
	if (isnan(s->p))
		snprintf(p, sizeof(p), "–");
	else
		snprintf(p, sizeof(p), "%.3f%s", s->p, s->p < 0.05 ? "*" : " ");
	if (isnan(gen))
		snprintf(ops, sizeof(ops), "–");
	else
		snprintf(ops, sizeof(ops), "%.3g", gen);
	char rt[ESC_LEN], mode[ESC_LEN], noise[ESC_LEN], on_s[ESC_LEN];

	iso_on(s, on, sizeof(on));
	fprintf(out, "%s%-8s%s%-7s%s%-10s%s%10s%s%10s%s%8s%s%-18s%s%7s%s%10s%s%s%s\n", md ? "| " : "",
		esc_cell(md, g->runtime, rt, sizeof(rt)), sep, esc_cell(md, g->mode, mode, sizeof(mode)), sep,
		esc_cell(md, g->noise, noise, sizeof(noise)), sep, quiet, sep, noisy, sep, shift, sep, ci, sep, p, sep,
		ops, sep, esc_cell(md, on, on_s, sizeof(on_s)), md ? " |" : "");
}

void iso_render(const struct res_summary *groups, size_t n, bool md, FILE *out)
{
	const char *sep = md ? " | " : "  ";
	const char *last = "";
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		const struct res_summary *g = &groups[i];
		char name[ESC_LEN];

		if (!g->shift.have)
			continue;
		any = true;
		if (strcmp(last, g->scenario) != 0) {
			last = g->scenario;
			fprintf(out, "\n%sisolation: %s (%s; shift = noisy / quiet - 1)\n\n",
				md ? "### " : "== ", esc_cell(md, last, name, sizeof(name)),
				res_metric_names[g->shift.metric]);
			fprintf(out, "%s%-8s%s%-7s%s%-10s%s%10s%s%10s%s%8s%s%-18s%s%7s%s%10s%s%s%s\n", md ? "| " : "",
				"runtime", sep, "mode", sep, "noise", sep, "quiet", sep, "noisy", sep, "shift", sep,
				"95% CI", sep, "p", sep, "noise op/s", sep, "noise on", md ? " |" : "");
			if (md)
				fprintf(out, "|---|---|---|---:|---:|---:|---|---:|---:|---|\n");
		}
		iso_row(g, md, out);
	}
	if (any)
		fprintf(out,
			"\nIsolation: medians of quiet and noisy trials of the same runtime and mode, interleaved; "
			"shift, 95%% CI and p from the pairs (quiet and noisy trial of one index, both passed): the "
			"paired bootstrap of the ratio (from 6 pairs) and the Wilcoxon signed-rank p (* below 0.05); "
			"without pairs, unpaired ones (Mann-Whitney); noise op/s: what "
			"the neighbour did (docs/noise.md); noise on: the noise slice's CPUs and the slices it "
			"shared a physical core with.\n");
}
