/* A duet's harness-ab/1 document as people read it (docs/ab.md, "Output"): the first line, the sides, the pairs and
 * the time, the flags, a table per metric (text or Markdown), the JSON, or a CSV row per window. */
#include "report/ab_report.h"

#include <math.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/esc.h"

static const char *side_name(const struct ab_side *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", s->runtime, s->args[0] ? " " : "", s->args, s->env[0] ? " " : "", s->env);
	return buf;
}

/* "B ran 1.021x [1.012-1.030] slower than A: slower beyond 2%", from throughput: a cost ratio. */
static void headline(FILE *f, const struct ab_doc *d)
{
	enum ab_metric m = ab_headline(d);
	const struct paired_result *r = &d->metric[m];
	double th = d->threshold * 100;
	double c, lo, hi;

	ab_cost(d, m, &c, &lo, &hi);

	if (!isfinite(r->ratio)) {
		fprintf(f, "B against A: inconclusive after %zu pairs (at least %d are needed)\n", r->n,
			PAIRED_MIN_PAIRS);
		return;
	}
	if (c >= 1)
		fprintf(f, "B ran %.3fx [%.3f-%.3f] slower than A: ", c, lo, hi);
	else
		fprintf(f, "B ran %.3fx [%.3f-%.3f] faster than A: ", 1 / c, 1 / hi, 1 / lo);
	switch (r->verdict) {
	case PV_SLOWER:
	case PV_FASTER:
		fprintf(f, "%s beyond %g%%\n", paired_verdict_names[r->verdict], th);
		break;
	case PV_EQUIVALENT:
		fprintf(f, "equivalent within %g%%\n", th);
		break;
	case PV_BELOW_THRESHOLD:
		fprintf(f, "below threshold (a change smaller than %g%%)\n", th);
		break;
	default:
		if (r->pairs_needed)
			fprintf(f, "inconclusive (about %zu pairs, %.0f s, would settle it)\n", r->pairs_needed,
				d->wall_s * (double)r->pairs_needed / (double)(r->n + 1));
		else
			fprintf(f, "inconclusive\n");
	}
}

/* A duet in rounds: the median time from one round's last window to the next one's first (the change of round: the
 * clients and servers stopped, the next round's started and warmed), and how many of its rounds measured nothing but their warm-up
 * pair; false without rounds or memory. */
static bool round_setup(const struct ab_doc *d, double *ret_gap_s, size_t *ret_bare, size_t *ret_rounds)
{
	_cleanup_free_ double *gap = d->round_s > 0 && d->nw ? calloc(d->nw, sizeof(double)) : NULL;
	double end = 0;
	size_t ng = 0;
	bool counted = false;

	*ret_bare = *ret_rounds = 0;
	if (!gap)
		return false;
	for (size_t i = 0; i < d->nw; i++) {
		const struct ab_window *w = &d->w[i];

		if (i == 0 || w->round != d->w[i - 1].round) {
			if (i)
				gap[ng++] = w->start_s - end;
			*ret_bare += i && !counted;
			++*ret_rounds;
			counted = false;
		}
		counted |= !w->warmup;
		end = i == 0 || w->round != d->w[i - 1].round ? w->start_s + w->duration_s
							      : fmax(end, w->start_s + w->duration_s);
	}
	*ret_bare += !counted;
	qsort(gap, ng, sizeof(double), stats_cmp_double);
	*ret_gap_s = ng ? stats_median_sorted(gap, ng) : NAN;
	return true;
}

static void flags_line(FILE *f, const struct ab_doc *d)
{
	const struct paired_result *r = &d->metric[ab_headline(d)];
	size_t bare, rounds;
	double gap;

	if (r->drift)
		fprintf(f,
			"warning: the ratio drifts over the run (Spearman rho %.2f): a side warming up or the host "
			"changing\n",
			r->trend_rho);
	if (r->bimodal)
		fprintf(f, "warning: the pairs' ratios look bimodal (coefficient %.2f): two regimes, not one noise\n",
			r->bimodality);
	for (int s = 0; s < 2; s++)
		if (d->idle_busy[s])
			fprintf(f,
				"warning: side %c used up to %.0f%% of a CPU during the other side's windows (above "
				"%.0f%%): it may have slowed the other\n",
				"AB"[s], d -> idle_share[s] * 100, AB_IDLE_SHARE * 100);
	if (d->reconnects)
		fprintf(f, "warning: %llu reconnects during the duet\n", (unsigned long long)d->reconnects);
	/* a host where changing rounds takes most of a round (0.6 s of 5 here; 7-10 s under emulation) measures
	 * little but the changes */
	if (round_setup(d, &gap, &bare, &rounds) && rounds > 1 && (bare || gap > d->round_s / 2))
		fprintf(f,
			"warning: the change of round (servers and clients stopped, started and warmed) took a median "
			"%.1f s of each %.0f s round; %zu of %zu rounds measured only their warm-up pair: a longer "
			"--round measures more\n",
			gap, d->round_s, bare, rounds);
	if (d->still_warming)
		fprintf(f,
			"warning: the servers were still warming up: the last third of a round's pairs measured %s "
			"%.0f%% better than its first third: a longer --round (or a longer warm-up in the scenario) "
			"measures more of their steady state\n",
			ab_metric_label(d, ab_headline(d)), d->warming * 100);
	if (ab_simultaneous(d)) {
		size_t shared = 0;

		for (size_t i = 0; i < d->nw; i += 2)
			shared += d->w[i].smt_shared;
		if (shared)
			fprintf(f,
				"note: the two sides' CPU sets shared SMT siblings in %zu of %zu blocks: each side's "
				"load took from the other's cores\n",
				shared, (d->nw + 1) / 2);
	}
	if (isfinite(r->carry))
		fprintf(f,
			"note: carry-over: a window after the other side's measured %s %+.1f%% against one after its "
			"own side's; adjusted for (the pairs' log-ratio spread %.3f, %.3f unadjusted)\n",
			ab_metric_label(d, ab_headline(d)), (exp(r->carry) - 1) * 100, r->sd_log, r->sd_log_raw);
	if (d->noisy_pairs)
		fprintf(f,
			"note: %zu noisy pairs left out (their windows' foreign CPU time differed by more than %.0f%% "
			"of a window and %.0f ms)\n",
			d->noisy_pairs, AB_NOISY_SHARE * 100, AB_NOISY_MIN_MS);
}

/* A side's geometric mean in the table: startup and memory with two decimals, a script's metric in its own unit. */
static void fmt_mean(enum ab_metric m, double v, const char *unit, char *buf, size_t len)
{
	if (m == AB_STARTUP || m == AB_MEMORY)
		snprintf(buf, len, "%.2f %s", v, unit);
	else if (m == AB_SCRIPT)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%.0f %s", v, unit);
}

static void table(FILE *f, const struct ab_doc *d, bool md)
{
	static const char *const units[AB_NR_METRICS] = {"req/s", "us", "us", "ms", "", "MB"};
	static const double scale[AB_NR_METRICS] = {1, 1, 1, 1, 1, 1.0 / 1024};
	const char *sep = md ? " | " : "  ";

	if (md)
		fprintf(f, "\n| metric | A | B | B/A | 95%% CI | p | verdict |\n|---|---|---|---|---|---|---|\n");
	else
		fprintf(f, "\n%-12s%-14s%-14s%-8s%-18s%-10s%s\n", "metric", "A (gm)", "B (gm)", "B/A", "95% CI", "p",
			"verdict");
	for (int m = 0; m < AB_NR_METRICS; m++) {
		const struct paired_result *r = &d->metric[m];
		double ma, mb;
		size_t n = 0;
		char ga[32], gb[32], ci[40], name[ESC_LEN];
		/* a chat duet's throughput is its deliveries */
		const char *unit = m == AB_RPS && strcmp(d->workload, "ws-chat") == 0 ? "msg/s" : units[m];

		if (ab_side_means(d, (enum ab_metric)m, &ma, &mb, &n) < 0)
			return;
		if (!n || !ab_has_metric(d, (enum ab_metric)m))
			continue; /* a metric the duet's workload has not */
		fmt_mean(m, ma * scale[m], unit, ga, sizeof(ga));
		fmt_mean(m, mb * scale[m], unit, gb, sizeof(gb));
		snprintf(ci, sizeof(ci), "[%.3f, %.3f]", r->low, r->high);
		/* the script's metric is named by the scenario: escaped as the file's other names */
		esc_cell(md, ab_metric_label(d, (enum ab_metric)m), name, sizeof(name));
		if (md)
			fprintf(f, "| %s | %s | %s | %.3f | %s | %.2g | %s |\n", name, ga, gb, r->ratio, ci, r->p,
				ab_verdict_name((enum ab_metric)m, r->verdict));
		else
			fprintf(f, "%-12s%-14s%-14s%-8.3f%-18s%-10.2g%s\n", name, ga, gb, r->ratio, ci, r->p,
				ab_verdict_name((enum ab_metric)m, r->verdict));
	}
	(void)sep;
}

/* A CSV number: empty when there is none. */
static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.10g", v);
	else
		fputc(',', f);
}

/* One row per window, in the order run: the document's own fields and names, and how the window's pair is
 * used (docs/ab.md). Only numbers and fixed words: nothing of the file's text. */
static void csv(FILE *f, const struct ab_doc *d)
{
	fputs("pair,side,use,start_s,duration_s,requests,errors,reconnects,rps,mean_us,p50_us,p90_us,p99_us,max_us,"
	      "drain_ms,side_cpu_ms,other_side_cpu_ms,foreign_cpu_ms,startup_ms,value,rss_kb,memory_kb,round,drained\n",
	      f);
	for (size_t i = 0; i < d->nw; i++) {
		const struct ab_window *w = &d->w[i], *wa, *wb;
		const double v[] = {ab_value(w, AB_RPS),
				    w->mean_us,
				    w->p50_us,
				    w->p90_us,
				    w->p99_us,
				    w->max_us,
				    w->drain_ms,
				    w->own_cpu_ms,
				    w->idle_cpu_ms,
				    w->foreign_ms,
				    w->startup_ms > 0 ? w->startup_ms : NAN,
				    w->value > 0 ? w->value : NAN,
				    w->rss_kb > 0 ? w->rss_kb : NAN,
				    w->memory_kb > 0 ? w->memory_kb : NAN};
		enum ab_pair_use use;

		fprintf(f, "%u,%c,%s", w->pair, w->side,
			ab_pair_at(d, i - i % 2, &wa, &wb, &use) ? ab_pair_use_names[use] : "unpaired");
		csv_num(f, w->start_s);
		csv_num(f, w->duration_s);
		fprintf(f, ",%llu,%llu,%llu", (unsigned long long)w->requests, (unsigned long long)w->errors,
			(unsigned long long)w->reconnects);
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			csv_num(f, v[k]);
		fprintf(f, ",%u,%llu\n", w->round, (unsigned long long)w->drained);
	}
}

void ab_print_head(FILE *f, const struct ab_doc *d, bool md)
{
	char a[600], b[600], ea[ESC_LEN], eb[ESC_LEN], es[ESC_LEN], est[ESC_LEN], what[80];

	headline(f, d);
	if (ab_headline(d) == AB_STARTUP && ab_simultaneous(d))
		snprintf(what, sizeof(what), "single runs, both sides at once, each in a fresh sandbox");
	else if (ab_headline(d) == AB_STARTUP || ab_headline(d) == AB_SCRIPT)
		snprintf(what, sizeof(what), "single runs, each in a fresh sandbox");
	else if (ab_simultaneous(d) && d->metric[ab_headline(d)].rounds > 1)
		snprintf(what, sizeof(what), "%.2f s blocks, both sides at once, in %zu rounds of fresh servers",
			 d->window_s, d->metric[ab_headline(d)].rounds);
	else if (ab_simultaneous(d))
		snprintf(what, sizeof(what), "%.2f s blocks, both sides at once", d->window_s);
	else if (d->metric[ab_headline(d)].rounds > 1)
		snprintf(what, sizeof(what), "%.2f s windows in %zu rounds of fresh servers", d->window_s,
			 d->metric[ab_headline(d)].rounds);
	else
		snprintf(what, sizeof(what), "%.2f s windows", d->window_s);
	/* the names are the file's, which anyone may have written */
	fprintf(f, "%sA: %s   B: %s   %s, %zu pairs of %s in %.0f s (stopped: %s), CI half-width %.2f%%\n",
		md ? "\n" : "", esc_cell(md, side_name(&d->side[0], a, sizeof(a)), ea, sizeof(ea)),
		esc_cell(md, side_name(&d->side[1], b, sizeof(b)), eb, sizeof(eb)),
		esc_cell(md, d->scenario, es, sizeof(es)), d->pairs, what, d->wall_s,
		esc_cell(md, d->stopped[0] ? d->stopped : "-", est, sizeof(est)),
		d->metric[ab_headline(d)].half_width * 100);
	flags_line(f, d);
}

void ab_print(FILE *f, const struct ab_doc *d, enum report_format fmt)
{
	if (fmt == RPT_JSON) {
		_cleanup_free_ char *text = ab_json_text(d);

		fprintf(f, "%s\n", text ? text : "{}");
		return;
	}
	if (fmt == RPT_CSV) {
		csv(f, d);
		return;
	}
	ab_print_head(f, d, fmt == RPT_MD);
	table(f, d, fmt == RPT_MD);
}
